package perturb

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The labelled WordNet sample (docs/methods.md, Query perturbations):
//
//   - testdata/wordnet_questions.tsv.gz holds every question the engine
//     generated on the sample's corpora (Debian documentation and the demo
//     feed), in the order produced: corpus, question id, question, accepted
//     answers as a JSON array;
//   - testdata/wordnet_meaning.tsv holds one row per distinct (question,
//     variant) the wordnet kind makes of them, labelled by hand: corpus,
//     question id, question, accepted answers, variant, keep or changed,
//     and why for the changed ones.
//
// Rows are not chosen: every variant the code makes of those questions is
// in the sample.

type sampleQuestion struct {
	corpus, id, question string
	accepted             []string
}

type labelledVariant struct {
	sampleQuestion
	variant, label, reason string
	line                   int
}

func readSampleQuestions(t *testing.T) []sampleQuestion {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "wordnet_questions.tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []sampleQuestion
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 4 {
			t.Fatalf("wordnet_questions.tsv.gz line %d: %d columns, want 4", line, len(fs))
		}
		q := sampleQuestion{corpus: fs[0], id: fs[1], question: fs[2]}
		if err := json.Unmarshal([]byte(fs[3]), &q.accepted); err != nil {
			t.Fatalf("wordnet_questions.tsv.gz line %d: accepted answers: %v", line, err)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readLabels(t *testing.T) []labelledVariant {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "wordnet_meaning.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelledVariant
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 7 {
			t.Fatalf("wordnet_meaning.tsv line %d: %d columns, want 7", line, len(fs))
		}
		l := labelledVariant{sampleQuestion: sampleQuestion{corpus: fs[0], id: fs[1], question: fs[2]},
			variant: fs[4], label: fs[5], reason: fs[6], line: line}
		if err := json.Unmarshal([]byte(fs[3]), &l.accepted); err != nil {
			t.Fatalf("wordnet_meaning.tsv line %d: accepted answers: %v", line, err)
		}
		switch {
		case l.label != "keep" && l.label != "changed":
			t.Fatalf("wordnet_meaning.tsv line %d: label %q is neither keep nor changed", line, l.label)
		case l.label == "changed" && strings.TrimSpace(l.reason) == "":
			t.Fatalf("wordnet_meaning.tsv line %d: a changed variant needs its reason", line)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWordNetMeaningSample regenerates the wordnet variant of every
// question of the sample's corpora and compares the result with the
// labelled rows: a labelled variant the code no longer makes, or a variant
// it makes that has no label, fails the test (the labels would no longer
// describe the code; relabel with TestWordNetDraft). It then prints the
// share of variants that keep the question's meaning, per corpus and
// overall, and the share of questions that get a variant at all, and
// asserts the target of docs/methods.md: at least 0.85 over at least 100
// labelled variants.
func TestWordNetMeaningSample(t *testing.T) {
	wn := wordNetOrSkip(t)
	if err := wn.Available(); err != nil {
		t.Skipf("WordNet dictionary unusable at %s: %v", DefaultWordNetDir, err)
	}
	p := &Perturber{WordNet: wn}
	questions := readSampleQuestions(t)
	labels := readLabels(t)
	type key struct{ question, variant string }
	byKey := map[key]*labelledVariant{}
	for i := range labels {
		k := key{labels[i].question, labels[i].variant}
		if prev, ok := byKey[k]; ok {
			t.Fatalf("wordnet_meaning.tsv lines %d and %d label the same variant", prev.line, labels[i].line)
		}
		byKey[k] = &labels[i]
	}

	// A corpus is named "<split>:<source>": the split says when it was
	// labelled (docs/methods.md), the source where its documents come
	// from. Shares are printed per corpus, per split and overall.
	groups := func(corpus string) []string {
		g := []string{corpus, "all"}
		if split, _, ok := strings.Cut(corpus, ":"); ok {
			g = append(g, split)
		}
		return g
	}
	made := map[string]int{}  // group → questions with a variant
	asked := map[string]int{} // group → questions
	seen := map[key]bool{}
	var unlabelled []string
	for _, q := range questions {
		for _, g := range groups(q.corpus) {
			asked[g]++
		}
		v, err := p.Query(KindWordNet, q.id, q.question, q.accepted)
		if errors.Is(err, ErrNoCandidate) || errors.Is(err, ErrAnswerLeak) {
			continue
		}
		if err != nil {
			t.Fatalf("%s %q: %v", q.id, q.question, err)
		}
		for _, g := range groups(q.corpus) {
			made[g]++
		}
		k := key{q.question, v}
		seen[k] = true
		if byKey[k] == nil {
			unlabelled = append(unlabelled, fmt.Sprintf("%s\t%s\t%q → %q", q.corpus, q.id, q.question, v))
		}
	}
	for _, u := range unlabelled {
		t.Errorf("new variant without a label (label it in testdata/wordnet_meaning.tsv): %s", u)
	}
	keep, total := map[string]int{}, map[string]int{}
	for _, l := range labels {
		if !seen[key{l.question, l.variant}] {
			t.Errorf("wordnet_meaning.tsv line %d: the code no longer makes this variant of %q: %q (relabel the sample)", l.line, l.question, l.variant)
			continue
		}
		for _, c := range groups(l.corpus) {
			total[c]++
			if l.label == "keep" {
				keep[c]++
			}
		}
	}
	corpora := slices.Sorted(func(yield func(string) bool) {
		for c := range asked {
			if !yield(c) {
				return
			}
		}
	})
	for _, c := range corpora {
		share := float64(keep[c]) / float64(max(total[c], 1))
		t.Logf("%-16s %4d of %4d labelled variants keep the meaning (%.3f); %4d of %5d questions get a variant (%.1f%%)",
			c, keep[c], total[c], share, made[c], asked[c], 100*float64(made[c])/float64(max(asked[c], 1)))
	}
	if total["all"] < 100 {
		t.Errorf("%d labelled variants, want at least 100", total["all"])
	}
	if share := float64(keep["all"]) / float64(max(total["all"], 1)); share < 0.85 {
		t.Errorf("meaning-preserving share %.3f below 0.85", share)
	}
}
