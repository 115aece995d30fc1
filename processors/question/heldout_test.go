package question_test

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/robustream/robustream/schemas"
)

// The held-out Debian sample (testdata/debian-heldout/SOURCES.md): prose
// documentation and release notes of Debian packages that no other test
// reads, copied with their copyright files. Every question the offline path
// writes from them is labelled by hand in labels.tsv, after the rules were
// frozen on other documents. A changed extractor or template changes the
// set of questions, and the test names each question that has no label (to
// be labelled by reading it against its document) or a label but no
// question any more.
const (
	heldoutDir    = "testdata/debian-heldout"
	heldoutLabels = heldoutDir + "/labels.tsv"
)

// heldoutLabel is one row of labels.tsv: part (prose or relnotes),
// question_id, question, answer, label (ok or bad), reason (why a bad one
// is not usable).
type heldoutLabel struct{ part, id, question, answer, label, reason string }

// tsvField writes a field of labels.tsv: a tab or line break inside it is
// escaped, so that a question carrying one shows it.
func tsvField(s string) string {
	return strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`).Replace(s)
}

// readSampleLabels reads a labels.tsv of the held-out or the development sample.
func readSampleLabels(t *testing.T, path string) map[string]heldoutLabel {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("labels: %v", err)
	}
	defer f.Close()
	out := map[string]heldoutLabel{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		c := strings.Split(sc.Text(), "\t")
		if n == 1 && c[0] == "part" {
			continue
		}
		if len(c) != 6 || c[4] != "ok" && c[4] != "bad" || c[4] == "bad" && c[5] == "" {
			t.Fatalf("%s:%d: want part, question_id, question, answer, label (ok|bad), reason (required for bad)", path, n)
		}
		l := heldoutLabel{part: c[0], id: c[1], question: c[2], answer: c[3], label: c[4], reason: c[5]}
		out[l.part+"/"+l.id] = l
	}
	return out
}

// checkLabelled holds the questions of one labelled sample to its labels
// (part is the labels' first column): it fails the test, naming them, when
// a question has no label or a label no question, and returns how many
// questions are labelled and how many of them usable.
func checkLabelled(t *testing.T, path, part string, qs []*schemas.Question, labels map[string]heldoutLabel) (usable, total int) {
	t.Helper()
	slices.SortFunc(qs, func(a, b *schemas.Question) int { return strings.Compare(a.QuestionID, b.QuestionID) })
	seen := map[string]bool{}
	var unlabelled []string
	for _, q := range qs {
		key := part + "/" + q.QuestionID
		seen[key] = true
		l, ok := labels[key]
		if !ok || l.question != tsvField(q.Question) || l.answer != tsvField(q.Answer) {
			unlabelled = append(unlabelled, fmt.Sprintf("%s\t%s\t%s\t%s\t?\t", part, q.QuestionID, tsvField(q.Question), tsvField(q.Answer)))
			continue
		}
		total++
		if l.label == "ok" {
			usable++
		}
		if *showCorpus {
			t.Logf("%s %q → %q %s", l.label, q.Question, q.Answer, l.reason)
		}
	}
	var stale []string
	for k, l := range labels {
		if !seen[k] {
			stale = append(stale, fmt.Sprintf("%s\t%s\t%s", l.part, l.id, l.question))
		}
	}
	slices.Sort(stale)
	if len(unlabelled) > 0 || len(stale) > 0 {
		t.Fatalf("the questions differ from %s: %d without a label:\n%s\n%d labelled but no longer asked (remove them):\n%s",
			path, len(unlabelled), strings.Join(unlabelled, "\n"), len(stale), strings.Join(stale, "\n"))
	}
	return usable, total
}

// TestDebianHeldout regenerates the questions of the held-out documents
// through the real chunk, triplet and question stages, fails when they are
// not exactly the labelled set, and prints and checks the usable share (all
// parts) and the usable questions per 1,000 words (prose part).
func TestDebianHeldout(t *testing.T) {
	labels := readSampleLabels(t, heldoutLabels)
	seen := map[string]bool{}
	var unlabelled, evidence []string
	usable, total := 0, 0
	perPart := map[string][2]int{} // usable, questions
	words := map[string]int{}
	for _, part := range []string{"prose", "relnotes"} {
		docs := readCorpus(t, heldoutDir+"/"+part)
		for _, d := range docs {
			words[part] += d.words
		}
		qs := build(t, docs).Active()
		slices.SortFunc(qs, func(a, b *schemas.Question) int { return strings.Compare(a.QuestionID, b.QuestionID) })
		for _, q := range qs {
			key := part + "/" + q.QuestionID
			seen[key] = true
			l, ok := labels[key]
			if !ok || l.question != tsvField(q.Question) || l.answer != tsvField(q.Answer) {
				unlabelled = append(unlabelled, fmt.Sprintf("%s\t%s\t%s\t%s\t?\t", part, q.QuestionID, tsvField(q.Question), tsvField(q.Answer)))
				evidence = append(evidence, fmt.Sprintf("## %s/%s (%s, %s)\nQ: %s\nA: %s\nEvidence:\n%s\n",
					part, q.QuestionID, q.DocID, q.Pattern, q.Question, q.Answer, strings.Join(q.GTChunks, "\n---\n")))
				continue
			}
			total++
			c := perPart[part]
			c[1]++
			if l.label == "ok" {
				usable++
				c[0]++
			}
			perPart[part] = c
			if *showCorpus {
				t.Logf("%s %s %q → %q %s", part, l.label, q.Question, q.Answer, l.reason)
			}
		}
	}
	var stale []string
	for k, l := range labels {
		if !seen[k] {
			stale = append(stale, fmt.Sprintf("%s\t%s\t%s", l.part, l.id, l.question))
		}
	}
	slices.Sort(stale)
	// For labelling: ROBUSTREAM_HELDOUT_EVIDENCE=FILE writes each
	// unlabelled question with its document and ground-truth chunks.
	if p := os.Getenv("ROBUSTREAM_HELDOUT_EVIDENCE"); p != "" && len(evidence) > 0 {
		if err := os.WriteFile(p, []byte(strings.Join(evidence, "\n")), 0o644); err != nil {
			t.Error(err)
		}
	}
	if len(unlabelled) > 0 || len(stale) > 0 {
		t.Fatalf("the questions differ from %s: %d without a label (label each by reading it against its document):\n%s\n%d labelled but no longer asked (remove them):\n%s",
			heldoutLabels, len(unlabelled), strings.Join(unlabelled, "\n"), len(stale), strings.Join(stale, "\n"))
	}
	prose := perPart["prose"]
	per1k := 1000 * float64(prose[0]) / float64(words["prose"])
	t.Logf("held-out Debian sample: %d questions, %d usable (%.0f%%); prose: %d words, %d questions, %d usable, %.2f usable per 1,000 words; relnotes: %d words, %d questions, %d usable",
		total, usable, 100*float64(usable)/float64(max(total, 1)), words["prose"], prose[1], prose[0], per1k,
		words["relnotes"], perPart["relnotes"][1], perPart["relnotes"][0])
	// The offline path does not reach two of the targets (at least 60
	// questions and 3 usable per 1,000 words of prose; measured 36 and
	// 0.67); the usable share is held to the target, 90% (measured 94%).
	// The measured figures are a floor no change may fall below, the gap
	// is printed on every run, and ROBUSTREAM_HELDOUT_TARGETS=1 asserts
	// the targets themselves.
	const floorUsable, floorShare, floorPer1k = 33, 0.90, 0.65
	if usable < floorUsable || float64(usable) < floorShare*float64(total) || per1k < floorPer1k {
		t.Errorf("below the measured floor: %d usable of %d (floor %d, %.0f%%), %.2f per 1,000 words (floor %.2f)",
			usable, total, floorUsable, 100*floorShare, per1k, floorPer1k)
	}
	var gaps []string
	if total < 60 {
		gaps = append(gaps, fmt.Sprintf("%d labelled questions: the sample needs at least 60", total))
	}
	if usable*10 < total*9 {
		gaps = append(gaps, fmt.Sprintf("%d of %d questions usable: below 90%%", usable, total))
	}
	if per1k < 3 {
		gaps = append(gaps, fmt.Sprintf("%.2f usable questions per 1,000 words of prose: below 3", per1k))
	}
	if len(gaps) > 0 {
		if os.Getenv("ROBUSTREAM_HELDOUT_TARGETS") == "1" {
			t.Errorf("targets not met:\n%s", strings.Join(gaps, "\n"))
		} else {
			t.Logf("TARGETS NOT MET (issue open; ROBUSTREAM_HELDOUT_TARGETS=1 makes this fail):\n%s", strings.Join(gaps, "\n"))
		}
	}
}
