package pair

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// prgbCell is one placeholder result of the fixture: correct, wrong,
// refused, or failed (left out of every score).
type prgbCell int

const (
	pRight prgbCell = iota
	pWrong
	pRefused
	pError
)

// prgbFixture: four data points of model m1 and one of m2, by hand:
//
//	m1 q1 single  1 1 1     → 1      all correct
//	m1 q2 single  1 0 1     → 2/3    partial
//	m1 q3 star    0 0 R     → 0      all wrong (a refusal scores 0)
//	m1 q4 chain   1 0 0 E   → 1/3    partial (the error is left out)
//	m2 q1 single  0 0 0     → 0      all wrong
//
// m1: score (1 + 2/3 + 0 + 1/3) / 4 = 0.5, shares 1/4, 2/4, 1/4;
// filtering: 2 points, (1 + 2/3)/2 = 5/6, shares 1/2, 1/2, 0;
// combination: 1 point, 0, all wrong; reasoning: 1 point, 1/3, partial.
var prgbFixture = []struct {
	model, question, pattern string
	cells                    []prgbCell
}{
	{"m1", "q1", schemas.PatternSingle, []prgbCell{pRight, pRight, pRight}},
	{"m1", "q2", schemas.PatternSingle, []prgbCell{pRight, pWrong, pRight}},
	{"m1", "q3", schemas.PatternStar, []prgbCell{pWrong, pWrong, pRefused}},
	{"m1", "q4", schemas.PatternChain, []prgbCell{pRight, pWrong, pWrong, pError}},
	{"m2", "q1", schemas.PatternSingle, []prgbCell{pWrong, pWrong, pWrong}},
}

// prgbSets builds the fixture's sets, each with a closed-book result and a
// RARE original result (right) that PRGB must not count.
func prgbSets() []*Set {
	at := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
	var out []*Set
	for _, p := range prgbFixture {
		ref := schemas.QuestionRef{QuestionID: p.question, Pattern: p.pattern, Domain: "demo", PublishedAt: at}
		s := &Set{}
		s.Add(schemas.EvalResult{QuestionRef: ref, ModelID: p.model, VariantID: "cb-" + p.question, ClosedBook: true, Axis: schemas.AxisClosedBook, EvaluatedAt: at})
		s.Add(schemas.EvalResult{QuestionRef: ref, ModelID: p.model, VariantID: "orig-" + p.question, Axis: schemas.AxisOriginal, Correct: true, AnswerAvailable: true, EvaluatedAt: at})
		for i, c := range p.cells {
			r := schemas.EvalResult{QuestionRef: ref, ModelID: p.model, VariantID: fmt.Sprintf("%s-ph%d", p.question, i+1),
				Axis: schemas.AxisPlaceholder, Kind: fmt.Sprintf("placeholder_%d", i+1), AnswerAvailable: true, EvaluatedAt: at}
			switch c {
			case pRight:
				r.Correct = true
			case pRefused:
				r.Refused = true
			case pError:
				r.Error = "model unavailable"
			}
			s.Add(r)
		}
		out = append(out, s)
	}
	return out
}

func TestPRGBOutcomesPerVariant(t *testing.T) {
	var all []schemas.Outcome
	for _, s := range prgbSets() {
		all = append(all, PRGB.Outcomes(s.For(PRGB))...)
	}
	// 3+3+3+3+3 variants without error.
	if len(all) != 15 {
		t.Fatalf("%d outcomes, want 15 (one per placeholder result without error)", len(all))
	}
	sum := map[string]float64{}
	for _, o := range all {
		if o.Family != schemas.FamilyPRGB || o.Axis != schemas.AxisPlaceholder {
			t.Errorf("outcome %+v: want family prgb on the placeholder axis", o)
		}
		if want := TaskClass(o.Pattern); o.Metric != want {
			t.Errorf("%s: metric %q, want task class %q", o.QuestionID, o.Metric, want)
		}
		sum[o.ModelID+"/"+o.QuestionID] += o.Value
	}
	want := map[string]float64{"m1/q1": 3, "m1/q2": 2, "m1/q3": 0, "m1/q4": 1, "m2/q1": 0}
	for k, v := range want {
		if sum[k] != v {
			t.Errorf("%s: %v correct variants, want %v", k, sum[k], v)
		}
	}
}

func TestTaskClassFollowsPattern(t *testing.T) {
	for p, want := range map[string]string{schemas.PatternSingle: TaskFiltering, schemas.PatternStar: TaskCombination,
		schemas.PatternInvertedStar: TaskCombination, schemas.PatternChain: TaskReasoning, schemas.PatternPath: TaskReasoning} {
		if got := TaskClass(p); got != want {
			t.Errorf("TaskClass(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestPRGBScoresView runs the fixture's outcomes through the ClickHouse
// sink into chDB and reads prgb_scores and prgb_task_scores: the
// hand-computed means and shares above.
func TestPRGBScoresView(t *testing.T) {
	if testing.Short() {
		t.Skip("opens chDB")
	}
	var recs []streams.Record
	for _, s := range prgbSets() {
		for _, o := range PRGB.Outcomes(s.For(PRGB)) {
			b, err := schemas.Encode(&o)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, streams.Record{Topic: streams.TopicOutcomes, Key: []byte(o.Key()), Value: b})
		}
	}
	got := prgbViews(t, recs)
	want := "m1\t4\t0.5\t0.25\t0.5\t0.25\n" +
		"m2\t1\t0\t0\t0\t1\n" +
		"--\n" +
		"m1\tcombination\t1\t0\t0\t0\t1\n" +
		"m1\tfiltering\t2\t0.8333\t0.5\t0.5\t0\n" +
		"m1\treasoning\t1\t0.3333\t0\t1\t0\n" +
		"m2\tfiltering\t1\t0\t0\t0\t1\n"
	if got != want {
		t.Errorf("PRGB views:\n%s\nwant:\n%s", got, want)
	}
}

func prgbViews(t *testing.T, recs []streams.Record) string {
	t.Helper()
	ctx := context.Background()
	e := outcomesEngine(t, recs)
	a, err := e.Query(ctx, "SELECT model_id, n, round(score, 4), round(all_correct_share, 4), round(partial_share, 4), round(all_wrong_share, 4) FROM robustream.prgb_scores ORDER BY model_id", "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Query(ctx, "SELECT model_id, task_class, n, round(score, 4), round(all_correct_share, 4), round(partial_share, 4), round(all_wrong_share, 4) FROM robustream.prgb_task_scores ORDER BY model_id, task_class", "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	return string(a) + "--\n" + string(b)
}
