package pair

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// gradeCell is one retrieval result of the GRADE fixture.
type gradeCell struct {
	kind                        string
	correct, refused, available bool
	err                         string
}

// gradeFixture: two models, three questions (1, 2 and 3 hops), two
// retrievers each. Expected per (model, question), by hand:
//
//	m1 q1 (1 hop, d_r 0.2): bm25 right, emb right          → 2 rows, accuracy 1
//	m1 q2 (2 hops, d_r 0.5): bm25 wrong, emb refused        → 2 rows, accuracy 0
//	m1 q3 (3 hops, d_r 0.8): bm25 right, emb failed (left out) → 1 row, accuracy 1
//	m2 q1 (1 hop): bm25 wrong, emb right                    → 2 rows, accuracy 0.5
var gradeFixture = []struct {
	model, question string
	hops            uint8
	dr              float64
	cells           []gradeCell
}{
	{"m1", "q1", 1, 0.2, []gradeCell{{kind: "bm25_top3", correct: true, available: true}, {kind: "emb_e5_top3", correct: true, available: true}}},
	{"m1", "q2", 2, 0.5, []gradeCell{{kind: "bm25_top3", available: true}, {kind: "emb_e5_top3", refused: true}}},
	{"m1", "q3", 3, 0.8, []gradeCell{{kind: "bm25_top3", correct: true}, {kind: "emb_e5_top3", err: "model unavailable"}}},
	{"m2", "q1", 1, 0.2, []gradeCell{{kind: "bm25_top3", available: true}, {kind: "emb_e5_top3", correct: true, available: true}}},
}

// gradeSets builds the fixture's completed sets, each with a closed-book
// result (m1 knows q1) and a RARE original and query result that GRADE must
// not count.
func gradeSets(t *testing.T) []*Set {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var out []*Set
	for _, g := range gradeFixture {
		ref := schemas.QuestionRef{QuestionID: g.question, Pattern: schemas.PatternChain, Hops: g.hops, DR: g.dr, Domain: "ops", PublishedAt: at}
		slots := []string{"original/original", "query/char"}
		for _, c := range g.cells {
			slots = append(slots, schemas.Slot(schemas.AxisRetrieval, c.kind))
		}
		m := schemas.NewManifest(slots...)
		s := &Set{}
		add := func(r schemas.EvalResult) bool {
			r.QuestionRef, r.ModelID, r.Manifest, r.EvaluatedAt = ref, g.model, m, at
			schemas.Stamp(&r, "res-"+g.model+"-"+r.VariantID)
			return s.Add(r)
		}
		add(schemas.EvalResult{VariantID: "cb-" + g.question, ClosedBook: true, Axis: schemas.AxisClosedBook, Kind: schemas.KindClosedBook, Correct: g.model == "m1" && g.question == "q1"})
		add(schemas.EvalResult{VariantID: "orig-" + g.question, Axis: schemas.AxisOriginal, Kind: "original", Correct: true, AnswerAvailable: true})
		add(schemas.EvalResult{VariantID: "char-" + g.question, Axis: schemas.AxisQuery, Kind: "char", AnswerAvailable: true})
		complete := false
		for _, c := range g.cells {
			complete = add(schemas.EvalResult{VariantID: fmt.Sprintf("%s-%s", g.question, c.kind), Axis: schemas.AxisRetrieval, Kind: c.kind,
				Correct: c.correct, Refused: c.refused, AnswerAvailable: c.available, Error: c.err})
		}
		if !complete {
			t.Fatalf("%s %s: the set is not complete with every slot answered", g.model, g.question)
		}
		out = append(out, s)
	}
	return out
}

func TestGRADEOutcomesFromCompletedSets(t *testing.T) {
	type row struct {
		value          float64
		golden, known  bool
		hops           uint8
		dr             float64
		kind, metric   string
		family, axis   string
		model, variant string
	}
	var got []row
	for _, s := range gradeSets(t) {
		for _, o := range GRADE.Outcomes(s.For(GRADE)) {
			got = append(got, row{o.Value, o.Golden, o.Known, o.Hops, o.DR, o.Kind, o.Metric, o.Family, o.Axis, o.ModelID, o.VariantID})
			if o.OutcomeID == "" || o.ID != o.OutcomeID || o.EvaluatedAt.IsZero() {
				t.Errorf("outcome %+v: not stamped", o)
			}
		}
	}
	want := []row{
		{1, true, true, 1, 0.2, "bm25_top3", "correct", "grade", "retrieval", "m1", "q1-bm25_top3"},
		{1, true, true, 1, 0.2, "emb_e5_top3", "correct", "grade", "retrieval", "m1", "q1-emb_e5_top3"},
		{0, true, false, 2, 0.5, "bm25_top3", "correct", "grade", "retrieval", "m1", "q2-bm25_top3"},
		{0, false, false, 2, 0.5, "emb_e5_top3", "correct", "grade", "retrieval", "m1", "q2-emb_e5_top3"},
		{1, false, false, 3, 0.8, "bm25_top3", "correct", "grade", "retrieval", "m1", "q3-bm25_top3"},
		{0, true, false, 1, 0.2, "bm25_top3", "correct", "grade", "retrieval", "m2", "q1-bm25_top3"},
		{1, true, false, 1, 0.2, "emb_e5_top3", "correct", "grade", "retrieval", "m2", "q1-emb_e5_top3"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d outcomes, want %d:\n%+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("outcome %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	// A replay of the same set gives the same outcomes, ids included.
	a, b := GRADE.Outcomes(gradeSets(t)[0].For(GRADE)), GRADE.Outcomes(gradeSets(t)[0].For(GRADE))
	for i := range a {
		if a[i].OutcomeID != b[i].OutcomeID || a[i].Value != b[i].Value {
			t.Errorf("replayed outcome %d differs", i)
		}
	}
	// RARE still scores the retrieval results (its eq. 4), GRADE never the
	// other axes.
	rare := 0
	for _, o := range RARE.Outcomes(gradeSets(t)[0].For(RARE)) {
		if o.Axis == schemas.AxisRetrieval {
			rare++
		}
	}
	if rare != 2 {
		t.Errorf("RARE wrote %d retrieval rows for m1 q1, want 2", rare)
	}
}

// TestGRADEQuestionsView runs the fixture's outcomes through the sink into
// chDB: grade_questions holds each (model, question) with its hops, D_r
// and accuracy as worked out above, and grade_matrix has a row per hop.
func TestGRADEQuestionsView(t *testing.T) {
	if testing.Short() {
		t.Skip("opens chDB")
	}
	var recs []streams.Record
	for _, s := range gradeSets(t) {
		for _, o := range GRADE.Outcomes(s.For(GRADE)) {
			b, err := schemas.Encode(&o)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, streams.Record{Topic: streams.TopicOutcomes, Key: []byte(o.Key()), Value: b})
		}
	}
	e := outcomesEngine(t, recs)
	out, err := e.Query(context.Background(), "SELECT model_id, question_id, hops, round(difficulty, 2), n, correct, accuracy FROM robustream.grade_questions WHERE dr_agg = 'min' ORDER BY model_id, question_id", "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	want := "m1\tq1\t1\t0.2\t2\t2\t1\n" +
		"m1\tq2\t2\t0.5\t2\t0\t0\n" +
		"m1\tq3\t3\t0.8\t1\t1\t1\n" +
		"m2\tq1\t1\t0.2\t2\t1\t0.5\n"
	if string(out) != want {
		t.Errorf("grade_questions:\n%s\nwant:\n%s", out, want)
	}
	hops, err := e.Query(context.Background(), "SELECT DISTINCT hops FROM robustream.grade_matrix ORDER BY hops", "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	if string(hops) != "1\n2\n3\n" {
		t.Errorf("grade_matrix hop rows: %q, want 1, 2, 3", hops)
	}
}
