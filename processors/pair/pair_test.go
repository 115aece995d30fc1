package pair

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

var t0 = time.Date(2025, 11, 1, 12, 0, 0, 0, time.UTC)

// answer is how a model replied to one request.
type answer int

const (
	correct answer = iota
	wrong
	refused
	failed // the request errored
)

// testAxes is the axis of the tests' variant names: every one is on an
// axis RARE scores, as the variants these tests stand for are.
var testAxes = map[string]string{
	"original": schemas.AxisOriginal, "orig": schemas.AxisOriginal, "x": schemas.AxisOriginal, "v": schemas.AxisOriginal,
	"query": schemas.AxisQuery, "typo": schemas.AxisQuery,
	"removed": schemas.AxisDocument, "late": schemas.AxisDocument, "document": schemas.AxisDocument,
	"retrieval": schemas.AxisRetrieval, "cb": schemas.AxisClosedBook,
}

func result(variant string, closedBook, available bool, a answer, expected int, at time.Duration) schemas.EvalResult {
	r := schemas.EvalResult{
		QuestionRef:     schemas.QuestionRef{QuestionID: "q1", Pattern: schemas.PatternSingle, Hops: 1, Domain: "finance"},
		RequestID:       "req-" + variant,
		ModelID:         "m",
		VariantID:       variant,
		ClosedBook:      closedBook,
		Axis:            testAxes[variant],
		Kind:            variant,
		AnswerAvailable: available,
		Expected:        expected,
		Correct:         a == correct,
		Refused:         a == refused,
		EvaluatedAt:     t0.Add(at),
	}
	if a == failed {
		r.Error = "HTTP 503 after 5 attempts"
	}
	if closedBook {
		r.Axis, r.Kind = schemas.AxisClosedBook, "closed_book"
	}
	schemas.Stamp(&r, "ev-"+variant)
	return r
}

// TestTable2 walks every cell of RARE Table 2 with every kind of answer.
// Rows: ground truth and lexically different contexts hold the answer,
// lexically similar (answer removed) does not, real-world retrieval may or
// may not; columns: known / unknown closed-book, standard / perturbed query
// (f does not depend on the query, so both give the same verdicts).
func TestTable2(t *testing.T) {
	f := func(closedBook, got answer, available bool, want float64) {
		t.Helper()
		for _, variant := range []string{"original", "query"} {
			var s Set
			s.Add(result("cb", true, false, closedBook, 2, 0))
			if !s.Add(result(variant, false, available, got, 2, time.Second)) {
				t.Fatal("set not complete")
			}
			out := Outcomes(&s)
			if len(out) != 1 {
				t.Fatalf("%d outcomes", len(out))
			}
			o := out[0]
			if o.Value != want || o.Known != (closedBook == correct) || o.Golden != available {
				t.Errorf("closed-book %v, %s answer %v, available %v: f = %v known %v golden %v; want f = %v",
					closedBook, variant, got, available, o.Value, o.Known, o.Golden, want)
			}
		}
	}
	for _, cb := range []answer{wrong, refused, correct} {
		known := cb == correct
		// Known: ✓ in every row, whatever the context.
		// Unknown, answer in context (GT, lexically different, retrieval hit): ✓.
		f(cb, correct, true, 1)
		f(cb, wrong, true, 0)
		f(cb, refused, true, 0)
		// Answer not in context (lexically similar, retrieval miss):
		// known → ✓ still required; unknown → "?" (refuse) required.
		f(cb, correct, false, map[bool]float64{true: 1, false: 0}[known])
		f(cb, wrong, false, 0)
		f(cb, refused, false, map[bool]float64{true: 0, false: 1}[known])
	}
	// A failed closed-book request leaves known/unknown undefined: no cell
	// is scored (see TestClosedBookFailure), rather than every cell as if
	// the model did not know the answer.
	for _, got := range []answer{correct, wrong, refused} {
		for _, available := range []bool{true, false} {
			var s Set
			s.Add(result("cb", true, false, failed, 2, 0))
			if !s.Add(result("original", false, available, got, 2, time.Second)) {
				t.Fatal("set not complete")
			}
			if out := Outcomes(&s); len(out) != 0 {
				t.Errorf("closed-book failed, answer %v, available %v: %d outcomes, want none", got, available, len(out))
			}
		}
	}
}

func TestSetCompleteness(t *testing.T) {
	var s Set
	steps := []struct {
		r    schemas.EvalResult
		want bool
	}{
		{result("original", false, true, correct, 4, 3*time.Second), false},
		{result("original", false, true, wrong, 4, 9*time.Second), false}, // duplicate: ignored
		{result("query", false, true, failed, 4, 2*time.Second), false},   // errors count toward completeness
		{result("cb", true, false, wrong, 4, time.Second), false},
		{result("removed", false, false, refused, 4, 5*time.Second), true},
		{result("late", false, false, refused, 4, 7*time.Second), false}, // already complete
	}
	for i, st := range steps {
		if i == 5 {
			s.Emitted = true
		}
		if got := s.Add(st.r); got != st.want {
			t.Errorf("step %d (%s): complete = %v, want %v", i, st.r.VariantID, got, st.want)
		}
	}
	if !s.Results["original"].Correct {
		t.Error("duplicate replaced the first result")
	}
	delete(s.Results, "late")
	out := Outcomes(&s)
	got := map[string]float64{}
	for _, o := range out {
		got[o.VariantID] = o.Value
		if !o.EvaluatedAt.Equal(t0.Add(5 * time.Second)) {
			t.Errorf("%s: evaluated_at %v, want the set's latest", o.VariantID, o.EvaluatedAt)
		}
		if want := schemas.ID("m", "q1", o.VariantID, "rare", "f"); o.OutcomeID != want || o.ID != want {
			t.Errorf("%s: outcome id %s / %s, want %s", o.VariantID, o.OutcomeID, o.ID, want)
		}
		if o.Family != schemas.FamilyRARE || o.Metric != MetricF || o.ModelID != "m" || o.QuestionID != "q1" || o.Axis != testAxes[o.VariantID] {
			t.Errorf("%s: outcome fields %+v", o.VariantID, o)
		}
		if len(o.Lineage) != 2 || o.Lineage[1] != "ev-cb" {
			t.Errorf("%s: lineage %q", o.VariantID, o.Lineage)
		}
	}
	// "query" errored: no outcome; closed-book: no outcome of its own.
	if want := map[string]float64{"original": 1, "removed": 1}; !maps.Equal(got, want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	if out[0].VariantID != "original" || out[1].VariantID != "removed" {
		t.Error("outcomes not sorted by variant id")
	}
}

// mapStore is an in-memory Store that records its operations.
type mapStore struct {
	m       map[string][]byte
	ops     []string
	failPut bool
}

func (s *mapStore) Get(key string) ([]byte, bool) { b, ok := s.m[key]; return b, ok }
func (s *mapStore) Put(_ context.Context, key string, v []byte) error {
	if s.failPut {
		return errors.New("broker down")
	}
	s.ops = append(s.ops, "put "+key)
	s.m[key] = v
	return nil
}
func (s *mapStore) Delete(_ context.Context, key string) error {
	s.ops = append(s.ops, "delete "+key)
	delete(s.m, key)
	return nil
}

var _ Store = streams.Store(nil) // the engine's store satisfies ours

func message(t *testing.T, r schemas.EvalResult) streams.Message {
	t.Helper()
	b, err := schemas.Encode(&r)
	if err != nil {
		t.Fatal(err)
	}
	return streams.Message{Topic: streams.TopicEvalResults, Key: []byte(r.QuestionID), Value: b}
}

func TestStage(t *testing.T) {
	store := &mapStore{m: map[string][]byte{}}
	st := NewStage(store)
	ctx := t.Context()
	other := result("original", false, true, correct, 3, 0)
	other.ModelID = "m2" // a second model's set is independent
	steps := []struct {
		r        schemas.EvalResult
		outcomes int
	}{
		{result("original", false, true, correct, 3, 0), 0},
		{other, 0},
		{result("original", false, true, correct, 3, 0), 0}, // redelivery
		{result("removed", false, false, wrong, 3, time.Second), 0},
		{result("cb", true, false, wrong, 3, 2*time.Second), 2},
		{result("removed", false, false, wrong, 3, time.Second), 0}, // replay after pairing
	}
	var recs []streams.Record
	for i, s := range steps {
		out, err := st.Process(ctx, message(t, s.r))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != s.outcomes {
			t.Errorf("step %d: %d records, want %d", i, len(out), s.outcomes)
		}
		recs = append(recs, out...)
	}
	wantOps := []string{"put m|q1", "put m2|q1", "put m|q1", "put m|q1"}
	if fmt.Sprint(store.ops) != fmt.Sprint(wantOps) {
		t.Errorf("store ops %q, want %q", store.ops, wantOps)
	}
	if v := store.m["m|q1"]; Open(v) || !bytes.Contains(v, []byte(`"emitted":true`)) {
		t.Errorf("completed set is not a done marker: %s", v)
	}
	if !Open(store.m["m2|q1"]) {
		t.Error("other model's set is not open")
	}
	if _, ok := store.m["m2|q1"]; !ok {
		t.Error("other model's set lost")
	}
	values := map[string]float64{}
	for _, r := range recs {
		var o schemas.Outcome
		if err := schemas.Decode(r.Value, &o); err != nil {
			t.Fatal(err)
		}
		if r.Topic != streams.TopicOutcomes || string(r.Key) != "q1" {
			t.Errorf("record topic %q key %q", r.Topic, r.Key)
		}
		values[o.VariantID] = o.Value
	}
	// Unknown question: correct with the answer in context (1), a guess
	// without it (0).
	if want := map[string]float64{"original": 1, "removed": 0}; !maps.Equal(values, want) {
		t.Errorf("f = %v, want %v", values, want)
	}
}

func TestStageErrors(t *testing.T) {
	store := &mapStore{m: map[string][]byte{"m|q1": []byte("{")}}
	st := NewStage(store)
	noExpected := result("x", false, true, correct, 0, 0)
	b, _ := schemas.Encode(&noExpected)
	for name, v := range map[string][]byte{"not json": []byte("x"), "no expected": b} {
		if _, err := st.Process(t.Context(), streams.Message{Value: v}); !streams.IsPermanent(err) {
			t.Errorf("%s: err = %v, want permanent", name, err)
		}
	}
	if _, err := st.Process(t.Context(), message(t, result("v", false, true, correct, 3, 0))); !streams.IsPermanent(err) {
		t.Errorf("corrupt state: err = %v, want permanent", err)
	}
	store.m = map[string][]byte{}
	store.failPut = true
	if _, err := st.Process(t.Context(), message(t, result("v", false, true, correct, 3, 0))); err == nil || streams.IsPermanent(err) {
		t.Errorf("store failure: err = %v, want retryable", err)
	}
}

func ExampleF() {
	fmt.Println("known, answer removed, still correct:", F(true, false, true, false))
	fmt.Println("unknown, answer removed, refused:    ", F(false, false, false, true))
	fmt.Println("unknown, answer removed, guessed:    ", F(false, false, true, false))
	fmt.Println("unknown, answer in context, refused: ", F(false, true, false, true))
	// Output:
	// known, answer removed, still correct: true
	// unknown, answer removed, refused:     true
	// unknown, answer removed, guessed:     false
	// unknown, answer in context, refused:  false
}
