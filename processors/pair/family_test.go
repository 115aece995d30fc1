package pair

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
)

// failures is a family that counts a set's errored requests: registered
// beside RARE, it gets the same completed set.
var failures = Family{Name: "failures", Axes: RAREAxes, Outcomes: func(s *Set) []schemas.Outcome {
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
	got := outcomesOf(t, st,
		result("cb", true, false, wrong, 3, 0),
		result("orig", false, true, correct, 3, 1),
		result("typo", false, true, failed, 3, 2))
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

// TestClosedBookFailure: when a set's closed-book request failed (a 503
// after its retries), whether the model knows the answer is undefined.
// RARE, which needs it, emits nothing for the set and the set is counted as
// unscorable with its reason; a family that does not need it is still
// computed; the set closes like any other. Scored as "unknown", the model
// below (it knows the answer and keeps it over an answer-removed context)
// would get f = 0 on that cell.
func TestClosedBookFailure(t *testing.T) {
	store := &mapStore{m: map[string][]byte{}}
	st := NewStage(store, RARE, failures)
	want := map[UnscorableKey]int64{
		{schemas.FamilyRARE, ReasonClosedBookFailed}:  0,
		{schemas.FamilyRARE, ReasonClosedBookMissing}: 0,
	}
	if got := st.Unscorable(); !maps.Equal(got, want) {
		t.Fatalf("Unscorable() before any set = %v, want %v", got, want)
	}
	results := []schemas.EvalResult{
		result("orig", false, true, correct, 3, 0),
		result("removed", false, false, correct, 3, time.Second),
		result("cb", true, false, failed, 3, 2*time.Second),
	}
	var families []string
	for _, o := range outcomesOf(t, st, results...) {
		families = append(families, o.Family)
	}
	if !slices.Equal(families, []string{"failures"}) {
		t.Errorf("outcomes of families %q, want only the family that does not need the closed-book verdict", families)
	}
	want[UnscorableKey{schemas.FamilyRARE, ReasonClosedBookFailed}] = 1
	if got := st.Unscorable(); !maps.Equal(got, want) {
		t.Errorf("Unscorable() = %v, want %v", got, want)
	}
	if Open(store.m["m|q1"]) {
		t.Error("the unscorable set is still open")
	}
	// A replay after pairing neither scores nor counts it again.
	if recs, err := st.Process(t.Context(), message(t, results[2])); err != nil || len(recs) != 0 {
		t.Errorf("replay: %d records, err %v", len(recs), err)
	}
	if got := st.Unscorable()[UnscorableKey{schemas.FamilyRARE, ReasonClosedBookFailed}]; got != 1 {
		t.Errorf("replay counted again: %d", got)
	}

	// The same set with the closed-book answer: known, both cells f = 1.
	var s Set
	for _, r := range results[:2] {
		s.Add(r)
	}
	s.Add(result("cb", true, false, correct, 3, 2*time.Second))
	if known, reason := s.Known(); !known || reason != "" {
		t.Errorf("Known() = %v, %q", known, reason)
	}
	for _, o := range Outcomes(&s) {
		if o.Value != 1 || !o.Known {
			t.Errorf("%s: f = %v known %v, want 1 and known", o.VariantID, o.Value, o.Known)
		}
	}
}

// TestClosedBookMissing: a set of results written before manifests
// completes by count, possibly without a closed-book result; it is
// unscorable for RARE too, for its own reason.
func TestClosedBookMissing(t *testing.T) {
	st := NewStage(&mapStore{m: map[string][]byte{}})
	for _, r := range []schemas.EvalResult{
		result("orig", false, true, correct, 2, 0),
		result("removed", false, false, refused, 2, time.Second),
	} {
		if recs, err := st.Process(t.Context(), message(t, r)); err != nil || len(recs) != 0 {
			t.Fatalf("%s: %d outcomes, err %v", r.VariantID, len(recs), err)
		}
	}
	if got := st.Unscorable()[UnscorableKey{schemas.FamilyRARE, ReasonClosedBookMissing}]; got != 1 {
		t.Errorf("closed_book_missing = %d, want 1", got)
	}
}

// outcomesOf feeds results to st in order and returns every outcome it
// emitted.
func outcomesOf(t *testing.T, st *Stage, results ...schemas.EvalResult) []schemas.Outcome {
	t.Helper()
	var out []schemas.Outcome
	for _, r := range results {
		recs, err := st.Process(t.Context(), message(t, r))
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			var o schemas.Outcome
			if err := schemas.Decode(rec.Value, &o); err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
	}
	return out
}
