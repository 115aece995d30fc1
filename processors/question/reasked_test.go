package question_test

import (
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/schemas"
)

// TestCappedQuestionAskedAgain: a question that gave its place under a cap
// and gets it back is emitted again after its retirement — the store reads
// a question as retired only while its latest retirement is at least as
// new as its latest emission. With one question per document, dropping the
// active question's fact lets another in (B); restoring the fact retires B
// (capped); dropping it again asks B again, from what the graph kept.
func TestCappedQuestionAskedAgain(t *testing.T) {
	sentences := []string{
		"Globex Industries hired 450 engineers.",
		"Globex Industries is based in Springfield.",
		"Globex Industries acquired Initech in 2024.",
		"Globex Industries appointed Hank Scorpio as chief executive officer.",
	}
	k := question.NewKnowledge(question.PatternLimits{PerDocument: 1})
	published := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	version := uint32(0)
	apply := func(keep []string) (asked, retired []*schemas.Question) {
		t.Helper()
		version++
		d := corpusDoc{id: "globex", text: strings.Join(keep, " ") + "\n", published: published}
		_, triplets := feed(k, d, version)
		for _, tr := range triplets {
			c, _ := apply(k, tr)
			asked = append(asked, c.New...)
			retired = append(retired, c.Retired...)
		}
		return asked, retired
	}
	without := func(answer string) []string {
		var keep []string
		for _, s := range sentences {
			if !strings.Contains(s, answer) {
				keep = append(keep, s)
			}
		}
		return keep
	}
	only := func(qs []*schemas.Question, what string) *schemas.Question {
		t.Helper()
		if len(qs) != 1 {
			var texts []string
			for _, q := range qs {
				texts = append(texts, q.Question+" → "+q.Answer)
			}
			t.Fatalf("%s: %d questions %q, want 1", what, len(qs), texts)
		}
		return qs[0]
	}

	asked, _ := apply(sentences)
	a := only(asked, "first version")
	asked, _ = apply(without(a.Answer))
	b := only(asked, "the first question's fact dropped")
	if b.QuestionID == a.QuestionID {
		t.Fatal("the same question asked after its fact was dropped")
	}
	asked, retired := apply(sentences)
	if got := only(asked, "the fact restored"); got.QuestionID != a.QuestionID {
		t.Fatalf("fact restored: asked %q, want %q again", got.Question, a.Question)
	}
	r := only(retired, "the fact restored")
	if r.QuestionID != b.QuestionID || r.Retired != "capped" {
		t.Fatalf("fact restored: retired %q (%s), want %q capped", r.Question, r.Retired, b.Question)
	}
	asked, _ = apply(without(a.Answer))
	again := only(asked, "the fact dropped again")
	if again.QuestionID != b.QuestionID {
		t.Fatalf("fact dropped again: asked %q, want %q again", again.Question, b.Question)
	}
	if at, ret := again.ProducedAt.UnixMicro(), r.ProducedAt.UnixMicro(); at <= ret {
		t.Errorf("%q asked again at %d µs, not after its retirement at %d µs: the store would keep it retired", again.Question, at, ret)
	}
}
