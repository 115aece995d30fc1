package perturb

import (
	"fmt"
	"testing"
)

// TestInSample: each question has exactly SURECells of the rule kinds'
// cells in its sample and SURELLMCells of the LLM kinds', its clean cells
// are in sample when any cell on their context type is, and every kind
// outside SURE is made for every question.
func TestInSample(t *testing.T) {
	for i := 0; i < 300; i++ {
		id := fmt.Sprintf("q%04d", i)
		rule, llm := 0, 0
		anyCell := map[bool]bool{}
		for _, noise := range []bool{false, true} {
			for _, k := range SUREKinds {
				if InSample(sureCell(k, noise), id, true) {
					rule++
					anyCell[noise] = true
				}
			}
			for _, k := range SURELLMKinds {
				if InSample(sureCell(k, noise), id, true) {
					llm++
					anyCell[noise] = true
				}
			}
			if InSample(sureCell(KindSourceSelf, noise), id, true) {
				anyCell[noise] = true
			}
			if got := InSample(sureCell(KindSUREClean, noise), id, true); got != anyCell[noise] {
				t.Fatalf("%s: clean cell (noise %v) in sample %v, yet some cell on it %v", id, noise, got, anyCell[noise])
			}
		}
		if rule != SURECells || llm != SURELLMCells {
			t.Fatalf("%s: %d rule cells and %d LLM cells in sample, want %d and %d", id, rule, llm, SURECells, SURELLMCells)
		}
		for _, k := range []string{KindChar, "bm25_top3", "answer_removed", "placeholder_1"} {
			if !InSample(k, id, false) {
				t.Fatalf("%s: %s out of sample", id, k)
			}
		}
	}
}
