package schemas

import (
	"slices"
	"testing"
)

// TestDeriveGroundTruth: a retrieval variant derived from the original
// carries the original's contexts as its ground truth (the chunks its
// retrieved contexts are judged against); no other derived variant does.
func TestDeriveGroundTruth(t *testing.T) {
	orig := &Variant{QuestionRef: QuestionRef{QuestionID: "q"}, VariantID: "v0", Axis: AxisOriginal, Kind: AxisOriginal,
		Query: "Who?", Contexts: []string{"chunk one", "chunk two"}}
	r := orig.Derive(AxisRetrieval, "bm25_top3", "Who?", []string{"retrieved"}, false)
	if !slices.Equal(r.GroundTruth, orig.Contexts) || !slices.Equal(r.Contexts, []string{"retrieved"}) {
		t.Errorf("retrieval variant: ground truth %q, contexts %q", r.GroundTruth, r.Contexts)
	}
	if q := orig.Derive(AxisQuery, "char", "Wh0?", orig.Contexts, true); q.GroundTruth != nil {
		t.Errorf("a query variant has a ground truth: %q", q.GroundTruth)
	}
	if rr := r.Derive(AxisRetrieval, "again", "Who?", nil, false); rr.GroundTruth != nil {
		t.Errorf("a retrieval variant derived from a retrieval variant took its contexts as ground truth: %q", rr.GroundTruth)
	}
}
