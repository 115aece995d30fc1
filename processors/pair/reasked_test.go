package pair

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// asked is result r of the question's emission at (Unix microseconds).
func asked(r schemas.EvalResult, at uint64) schemas.EvalResult {
	r.AskedAtUS = at
	return r
}

// TestStageQuestionAskedAgain: a question retired and emitted again (same
// id, newer emission) is evaluated again, and that evaluation is paired:
// outcomes under ids of their own. Redeliveries of either evaluation, and
// late results of the first once the second has begun, give nothing.
func TestStageQuestionAskedAgain(t *testing.T) {
	store := &mapStore{m: map[string][]byte{}}
	st := NewStage(store)
	const first, second = 1_700_000_000_000_001, 1_700_000_100_000_002
	ids := func(out []streams.Record) (map[string]float64, []string) {
		t.Helper()
		values := map[string]float64{}
		var ids []string
		for _, r := range out {
			var o schemas.Outcome
			if err := schemas.Decode(r.Value, &o); err != nil {
				t.Fatal(err)
			}
			if o.ID != o.OutcomeID {
				t.Errorf("outcome %s stamped with id %s", o.OutcomeID, o.ID)
			}
			values[o.VariantID] = o.Value
			ids = append(ids, o.OutcomeID)
		}
		slices.Sort(ids)
		return values, ids
	}
	process := func(r schemas.EvalResult) []streams.Record {
		t.Helper()
		out, err := st.Process(t.Context(), message(t, r))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	set := func(cb answer, at uint64) []schemas.EvalResult {
		return []schemas.EvalResult{
			asked(result("original", false, true, correct, 3, 0), at),
			asked(result("removed", false, false, refused, 3, time.Second), at),
			asked(result("cb", true, false, cb, 3, 2*time.Second), at),
		}
	}

	var out []streams.Record
	for _, r := range set(wrong, first) {
		out = append(out, process(r)...)
	}
	firstValues, firstIDs := ids(out)
	if want := map[string]float64{"original": 1, "removed": 1}; !maps.Equal(firstValues, want) {
		t.Fatalf("first evaluation: f = %v, want %v", firstValues, want)
	}
	// The first evaluation's ids are the ones outcomes always had.
	if want := schemas.ID("m", "q1", "original", schemas.FamilyRARE, MetricF); !slices.Contains(firstIDs, want) {
		t.Errorf("first evaluation's ids %v do not include the plain id %s", firstIDs, want)
	}
	// Redelivered, whole or in part: nothing more.
	for _, r := range set(wrong, first) {
		if got := process(r); len(got) != 0 {
			t.Errorf("redelivery of %s after pairing: %d records", r.VariantID, len(got))
		}
	}

	// Asked again: the model now knows the answer closed-book, so the
	// answer-removed refusal no longer scores.
	again := set(correct, second)
	if got := process(again[0]); len(got) != 0 {
		t.Fatalf("first result of the second evaluation: %d records", len(got))
	}
	// A late copy of the first evaluation while the second is open: dropped,
	// and it does not complete anything.
	if got := process(set(wrong, first)[2]); len(got) != 0 {
		t.Errorf("late result of the first emission: %d records", len(got))
	}
	out = nil
	for _, r := range again[1:] {
		out = append(out, process(r)...)
	}
	secondValues, secondIDs := ids(out)
	if want := map[string]float64{"original": 1, "removed": 0}; !maps.Equal(secondValues, want) {
		t.Fatalf("second evaluation: f = %v, want %v (records %d)", secondValues, want, len(out))
	}
	for _, id := range secondIDs {
		if slices.Contains(firstIDs, id) {
			t.Errorf("second evaluation reuses the first's outcome id %s", id)
		}
	}
	if want := OutcomeIDAgain(schemas.ID("m", "q1", "original", schemas.FamilyRARE, MetricF), second); !slices.Contains(secondIDs, want) {
		t.Errorf("second evaluation's ids %v lack %s", secondIDs, want)
	}
	// Redeliveries of the second evaluation, and of the first: nothing.
	for _, r := range append(set(correct, second), set(wrong, first)...) {
		if got := process(r); len(got) != 0 {
			t.Errorf("redelivery of %s (emission %d) after the second pairing: %d records", r.VariantID, r.AskedAtUS, len(got))
		}
	}
	if Open(store.m["m|q1"]) {
		t.Errorf("state after the second evaluation is an open set: %s", store.m["m|q1"])
	}
}

// TestStageLegacyEmission: results written before emissions were told
// apart (AskedAtUS 0) pair as before, once; a later emission of the
// question is a new evaluation.
func TestStageLegacyEmission(t *testing.T) {
	store := &mapStore{m: map[string][]byte{}}
	st := NewStage(store)
	count := func(rs ...schemas.EvalResult) int {
		n := 0
		for _, r := range rs {
			out, err := st.Process(t.Context(), message(t, r))
			if err != nil {
				t.Fatal(err)
			}
			n += len(out)
		}
		return n
	}
	legacy := []schemas.EvalResult{result("original", false, true, correct, 2, 0), result("cb", true, false, wrong, 2, time.Second)}
	if n := count(legacy...); n != 1 {
		t.Fatalf("legacy set: %d outcomes, want 1", n)
	}
	if n := count(legacy...); n != 0 {
		t.Errorf("legacy redelivery: %d outcomes, want 0", n)
	}
	const at = 1_700_000_000_000_000
	if n := count(asked(legacy[0], at), asked(legacy[1], at)); n != 1 {
		t.Errorf("the question emitted again: %d outcomes, want 1", n)
	}
	if n := count(legacy...); n != 0 {
		t.Errorf("legacy redelivery after the new emission: %d outcomes, want 0", n)
	}
}
