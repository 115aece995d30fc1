package question_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/schemas"
)

// The relnotes corpus: real, terse Debian release notes and NEWS files
// (testdata/corpora/relnotes.SOURCES.md). The release-note patterns of the
// triplet extractor must turn them into questions a person would ask.
const (
	relnotesDir    = "../../testdata/corpora/relnotes"
	relnotesLabels = "../../testdata/corpora/relnotes.labels.tsv"
	// relnotesSeed fixes the sample of hand-labelled questions.
	relnotesSeed   = 0x5eed_2026
	relnotesSample = 50
)

func TestRelnotesCorpus(t *testing.T) {
	docs := readCorpus(t, relnotesDir)
	k := build(t, docs)
	qs := k.Active()
	byPattern := map[string]int{}
	for _, q := range qs {
		byPattern[q.Pattern]++
		if *showCorpus {
			t.Logf("%-8s %s → %s", q.Pattern, q.Question, q.Answer)
		}
	}
	t.Logf("%d words, %d edges, %d questions: %v; rejected %v", words(docs), k.Graph().Len(), len(qs), byPattern, k.Rejected)
	if len(qs) < 60 {
		t.Errorf("%d questions from the relnotes corpus, want at least 60", len(qs))
	}
}

// relnotesSampled draws the fixed sample of the relnotes questions: sorted
// by question_id, permuted with a PCG of constant seed.
func relnotesSampled(t *testing.T) []*schemas.Question {
	qs := build(t, readCorpus(t, relnotesDir)).Active()
	slices.SortFunc(qs, func(a, b *schemas.Question) int { return strings.Compare(a.QuestionID, b.QuestionID) })
	if len(qs) < relnotesSample {
		t.Fatalf("%d questions from the relnotes corpus: fewer than the %d to sample", len(qs), relnotesSample)
	}
	r := rand.New(rand.NewPCG(relnotesSeed, relnotesSeed>>1))
	var out []*schemas.Question
	for _, i := range r.Perm(len(qs))[:relnotesSample] {
		out = append(out, qs[i])
	}
	slices.SortFunc(out, func(a, b *schemas.Question) int { return strings.Compare(a.QuestionID, b.QuestionID) })
	return out
}

type relnotesLabel struct{ question, answer, label, reason string }

func readLabels(t *testing.T) map[string]relnotesLabel {
	f, err := os.Open(relnotesLabels)
	if err != nil {
		t.Fatalf("labels: %v", err)
	}
	defer f.Close()
	out := map[string]relnotesLabel{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		c := strings.Split(sc.Text(), "\t")
		if n == 1 && c[0] == "question_id" {
			continue
		}
		if len(c) != 5 || c[3] != "ok" && c[3] != "bad" {
			t.Fatalf("%s:%d: want question_id, question, answer, label (ok|bad), reason", relnotesLabels, n)
		}
		out[c[0]] = relnotesLabel{question: c[1], answer: c[2], label: c[3], reason: c[4]}
	}
	return out
}

// TestRelnotesLabels checks the hand labels of the sampled questions: every
// sampled question is labelled, at least 90% are labelled ok, and the rule
// checks (WellFormed, and the answer in a ground-truth chunk) agree with the
// labels on at least 90%.
func TestRelnotesLabels(t *testing.T) {
	sample := relnotesSampled(t)
	labels := readLabels(t)
	var missing []string
	ok, agree := 0, 0
	for _, q := range sample {
		if *showCorpus {
			t.Logf("%s\t%s\t%s", q.QuestionID, q.Question, q.Answer)
		}
		l, found := labels[q.QuestionID]
		if !found || l.question != q.Question || l.answer != q.Answer {
			missing = append(missing, fmt.Sprintf("%s\t%s\t%s\t?\t", q.QuestionID, q.Question, q.Answer))
			continue
		}
		_, why := question.WellFormed(q.Question, q.Answer)
		inChunk := false
		for _, c := range q.GTChunks {
			inChunk = inChunk || question.AnswerInText(q.Answer, c)
		}
		pass := why == "" && inChunk
		if l.label == "ok" {
			ok++
		}
		if pass == (l.label == "ok") {
			agree++
		} else {
			t.Logf("rules %v, label %s (%s): %q → %q", pass, l.label, l.reason, q.Question, q.Answer)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d sampled questions have no label in %s; re-label them by hand (read each against its chunk):\n%s",
			len(missing), relnotesLabels, strings.Join(missing, "\n"))
	}
	n := len(sample)
	t.Logf("relnotes sample: %d questions, %d labelled ok (%.0f%%), rules agree with labels on %d (%.0f%%)",
		n, ok, 100*float64(ok)/float64(n), agree, 100*float64(agree)/float64(n))
	if ok*10 < n*9 {
		t.Errorf("%d of %d sampled questions labelled ok: below 90%%", ok, n)
	}
	if agree*10 < n*9 {
		t.Errorf("rules agree with the labels on %d of %d: below 90%%", agree, n)
	}
}
