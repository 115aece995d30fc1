package pair

import (
	"context"
	"testing"

	"github.com/robustream/robustream/schemas"
)

// failures is a family that counts a set's errored requests: registered
// beside RARE, it gets the same completed set.
var failures = Family{Name: "failures", Outcomes: func(s *Set) []schemas.Outcome {
	n := 0
	for _, r := range s.Results {
		if r.Error != "" {
			n++
		}
	}
	o := schemas.Outcome{OutcomeID: "failures-" + s.Results["orig"].QuestionID, Family: "failures", Metric: "errors", Value: float64(n)}
	schemas.Stamp(&o, o.OutcomeID)
	return []schemas.Outcome{o}
}}

func TestFamiliesComputedOnCompletion(t *testing.T) {
	store := &mapStore{m: map[string][]byte{}}
	st := NewStage(store, RARE, failures)
	var got []schemas.Outcome
	for _, r := range []schemas.EvalResult{
		result("cb", true, false, wrong, 3, 0),
		result("orig", false, true, correct, 3, 1),
		result("typo", false, true, failed, 3, 2),
	} {
		recs, err := st.Process(context.Background(), message(t, r))
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			var o schemas.Outcome
			if err := schemas.Decode(rec.Value, &o); err != nil {
				t.Fatal(err)
			}
			got = append(got, o)
		}
	}
	byFamily := map[string][]schemas.Outcome{}
	for _, o := range got {
		byFamily[o.Family] = append(byFamily[o.Family], o)
	}
	if len(byFamily[schemas.FamilyRARE]) != 1 || len(byFamily["failures"]) != 1 || byFamily["failures"][0].Value != 1 {
		t.Fatalf("outcomes by family: %+v", byFamily)
	}
	defer func() {
		if recover() == nil {
			t.Error("a family listed twice did not panic")
		}
	}()
	NewStage(store, RARE, RARE)
}
