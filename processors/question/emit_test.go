package question_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/demo"
)

// The questions ever asked, not only those asked at the end, do not depend
// on the order documents of a period arrive in: the engine's partitions
// interleave them differently in every run, and a restart must evaluate
// the same questions as an uninterrupted run.
var allTexts = map[bool]map[string]string{}

func TestEmissionsDoNotDependOnOrder(t *testing.T) {
	emitted := func(reverse bool) []string {
		k := question.NewKnowledge(question.PatternLimits{})
		seen := map[string]bool{}
		texts := map[string]string{}
		var docs []schemas.DocumentVersion
		for p := range 6 {
			docs = append(docs, demo.Generate(11, p)...)
		}
		if reverse {
			// Any order: documents of different periods interleaved too.
			rand.New(rand.NewPCG(3, 5)).Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		}
		{
			for _, d := range docs {
				_, triplets := feed(k, corpusDoc{id: d.DocID, text: d.Text, published: d.PublishedAt}, 1)
				for _, tr := range triplets {
					c, _ := apply(k, tr)
					for _, q := range c.New {
						seen[q.QuestionID] = true
						texts[q.QuestionID] = q.Pattern + " | " + q.Question + " → " + q.Answer
					}
					for _, q := range c.Retired {
						texts[q.QuestionID] += " [retired " + q.Retired + "]"
					}
				}
			}
		}
		allTexts[reverse] = texts
		return slices.Sorted(func(yield func(string) bool) {
			for id := range seen {
				if !yield(id) {
					return
				}
			}
		})
	}
	a, b := emitted(false), emitted(true)
	if !slices.Equal(a, b) {
		only := func(x, y []string) int {
			n := 0
			for _, id := range x {
				if _, ok := slices.BinarySearch(y, id); !ok {
					n++
					t.Log(allTexts[false][id], allTexts[true][id])
				}
			}
			return n
		}
		t.Errorf("forward order asked %d questions, reversed %d; %d only forward, %d only reversed", len(a), len(b), only(a, b), only(b, a))
	}
}
