package pair

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

// This file checks RARE's scores (eqs. 1–3) end to end on hand-computed
// fixtures: questions go through the perturb and fanout stages, fake models
// answer by rule, the pair stage scores the sets, and the outcomes go
// through the ClickHouse sink into the rare_scores view (chDB, skipped when
// libchdb.so is missing). Tests may wire other stages; the package may not.

// shout is a third query kind for these fixtures, so that a question has
// four query variants (the original included) × two context variants
// (ground truth, answer removed) = 8 cells, as RARE eq. 1 counts them.
var shout = perturb.Kind{Axis: schemas.AxisQuery, Name: "shout",
	Make: func(_ *perturb.Perturber, in *perturb.Input) (perturb.Made, error) {
		return perturb.Made{Query: strings.ToUpper(in.Question.Question), Contexts: in.Question.GTChunks, AnswerAvailable: true}, nil
	}}

// behaviour is how a fake model answers: closed book, and with a context
// that does or does not hold the answer, for the original or a perturbed
// query.
type behaviour struct {
	closedBook       answer
	withAnswer       func(perturbedQuery bool) answer
	withoutAnswer    func(perturbedQuery bool) answer
	closedBookFailOn string // a question whose closed-book call gets a 503
}

func always(a answer) func(bool) answer { return func(bool) answer { return a } }

// The models of the fixtures. Per question, the 8 cells are: original ×
// ground truth, 3 perturbed queries × ground truth (eq. 2), original ×
// answer removed (eq. 3), and 3 perturbed queries × answer removed (the
// cross cells, which only eq. 1 counts).
var fixtureModels = map[string]behaviour{
	// Does not know the answer; uses a context that has it and guesses
	// (wrong, no refusal) when it has not: f = 1 on the 4 ground-truth
	// cells, 0 on the 4 answer-removed ones.
	"guesser": {closedBook: wrong, withAnswer: always(correct), withoutAnswer: always(wrong)},
	// Does not know; answers from the context or refuses: robust everywhere.
	"cautious": {closedBook: wrong, withAnswer: always(correct), withoutAnswer: always(refused)},
	// Does not know; refuses every perturbed query, guesses on the original
	// one without the answer: 1 (orig × GT) + 0 × 3 + 0 (orig × removed)
	// + 1 × 3 (a refusal is right where the answer is absent) = 4 of 8.
	"typo_sensitive": {closedBook: wrong,
		withAnswer:    func(p bool) answer { return map[bool]answer{false: correct, true: refused}[p] },
		withoutAnswer: func(p bool) answer { return map[bool]answer{false: wrong, true: refused}[p] }},
	// Knows the answer but defers to a context without it by refusing,
	// which a model that knows must not do: 4 of 8. Its closed-book call
	// for q2 fails, so q2 is unscorable; scored as "unknown" instead, its
	// refusals would count as robust and q2 would add 8 of 8.
	"knower": {closedBook: correct, withAnswer: always(correct), withoutAnswer: always(refused), closedBookFailOn: "q2"},
}

// scores is one row of rare_scores.
type scores struct {
	overall, query, document float64
	n                        int
}

// wantScores are the hand-computed scores over q1 and q2 (16 cells per
// model, 8 for the knower, whose q2 is unscorable).
var wantScores = map[string]scores{
	"cautious":       {overall: 1, query: 1, document: 1, n: 16},
	"guesser":        {overall: 0.5, query: 1, document: 0, n: 16}, // 8/16, 6/6, 0/2
	"knower":         {overall: 0.5, query: 1, document: 0, n: 8},  // 4/8, 3/3, 0/1
	"typo_sensitive": {overall: 0.5, query: 0, document: 0, n: 16}, // 8/16, 0/6, 0/2
}

func fixtureQuestions() []*schemas.Question {
	qs := []*schemas.Question{
		{QuestionID: "q1", Question: "What was Acme Corp's revenue in Q3 2025?", Answer: "$4.2 billion",
			GTChunks: []string{"Acme Corp published its quarterly report on Monday. Acme Corp's revenue in Q3 2025 was $4.2 billion."}},
		{QuestionID: "q2", Question: "Whom did Northwind Bank appoint as chief financial officer?", Answer: "Maria Lopez",
			GTChunks: []string{"Northwind Bank appointed Maria Lopez as chief financial officer in March 2025. The bank is based in Leeds."}},
	}
	for _, q := range qs {
		q.Pattern, q.Hops, q.Domain = schemas.PatternSingle, 1, "finance"
		q.PublishedAt = time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
		schemas.Stamp(q, "ev-"+q.QuestionID)
	}
	return qs
}

// runFixtures runs the fixture questions through perturb, fanout, the fake
// models and pair, and returns the outcome records and the pair stage.
// extra kinds, registered after RARE's, add their variants to every
// question.
func runFixtures(t *testing.T, extra ...perturb.Kind) ([]streams.Record, *Stage) {
	t.Helper()
	pt, err := perturb.NewStage(perturb.Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Kinds: append([]perturb.Kind{perturb.Char, perturb.QWERTY, shout, perturb.AnswerRemoved}, extra...)})
	if err != nil {
		t.Fatal(err)
	}
	models := []string{"cautious", "guesser", "knower", "typo_sensitive"}
	fo, err := fanout.NewStage(fanout.Config{Models: models})
	if err != nil {
		t.Fatal(err)
	}
	ps := NewStage(&mapStore{m: map[string][]byte{}})
	var outcomes []streams.Record
	for _, q := range fixtureQuestions() {
		variants := pt.Variants(q)
		if len(variants) != 8+len(extra) {
			t.Fatalf("%s: %d variants, want 8 (4 query variants × 2 context variants) + %d", q.QuestionID, len(variants), len(extra))
		}
		for _, v := range variants {
			for _, req := range fo.Requests(v) {
				if req.CrossSample != "3/3" {
					t.Errorf("%s %s: cross sample %q, want 3/3", req.QuestionID, req.Axis, req.CrossSample)
				}
				recs, err := ps.Process(t.Context(), message(t, fakeAnswer(req, q.Question)))
				if err != nil {
					t.Fatal(err)
				}
				outcomes = append(outcomes, recs...)
			}
		}
	}
	return outcomes, ps
}

// fakeAnswer is the infer stage for the fixture models.
func fakeAnswer(req *schemas.EvalRequest, original string) schemas.EvalResult {
	b := fixtureModels[req.ModelID]
	var a answer
	switch perturbed := req.Query != original; {
	case req.ClosedBook && req.QuestionID == b.closedBookFailOn:
		a = failed
	case req.ClosedBook:
		a = b.closedBook
	case req.AnswerAvailable:
		a = b.withAnswer(perturbed)
	default:
		a = b.withoutAnswer(perturbed)
	}
	r := schemas.EvalResult{
		QuestionRef: req.QuestionRef, RequestID: req.RequestID, ModelID: req.ModelID, VariantID: req.VariantID,
		ClosedBook: req.ClosedBook, Axis: req.Axis, Kind: req.Kind, AnswerAvailable: req.AnswerAvailable,
		Manifest: req.Manifest, Expected: req.Expected,
		Correct: a == correct, Refused: a == refused, EvaluatedAt: t0,
	}
	if a == failed {
		r.Error = "HTTP 503 after 5 attempts"
	}
	schemas.Stamp(&r, schemas.ID("result", r.RequestID, r.QuestionID, r.VariantID))
	return r
}

// TestRAREScores computes eqs. 1–3 from the outcomes as rare_scores does
// (overall over every axis, query robustness over axis query, document
// robustness over axis document) and checks the hand-computed figures.
func TestRAREScores(t *testing.T) {
	recs, ps := runFixtures(t)
	got, withoutCross := scoresOf(t, recs)
	if !maps.Equal(got, wantScores) {
		t.Errorf("scores\n got %v\nwant %v", got, wantScores)
	}
	// Without the cross cells, the guesser would get 4 of 5 per question.
	if g := withoutCross["guesser"]; g != 0.8 {
		t.Errorf("guesser without cross cells: %v, want 0.8", g)
	}
	if n := ps.Unscorable()[UnscorableKey{schemas.FamilyRARE, ReasonClosedBookFailed}]; n != 1 {
		t.Errorf("unscorable sets: %d, want 1 (knower, q2)", n)
	}
}

// scoresOf computes RARE's pooled scores per model from outcome records, as
// rare_scores does (the fixtures give every question the same cells, so
// pooled and per-question means agree), and overall without the cross
// cells.
func scoresOf(t *testing.T, recs []streams.Record) (map[string]scores, map[string]float64) {
	t.Helper()
	type sum struct{ n, f float64 }
	all, query, document := map[string]*sum{}, map[string]*sum{}, map[string]*sum{}
	withoutCross := map[string]*sum{}
	add := func(m map[string]*sum, model string, v float64) {
		if m[model] == nil {
			m[model] = &sum{}
		}
		m[model].n++
		m[model].f += v
	}
	for _, rec := range recs {
		var o schemas.Outcome
		if err := schemas.Decode(rec.Value, &o); err != nil {
			t.Fatal(err)
		}
		if o.Family != schemas.FamilyRARE || o.Metric != MetricF {
			continue
		}
		add(all, o.ModelID, o.Value)
		switch o.Axis {
		case schemas.AxisQuery:
			add(query, o.ModelID, o.Value)
		case schemas.AxisDocument:
			add(document, o.ModelID, o.Value)
		}
		if o.Axis != perturb.AxisCross {
			add(withoutCross, o.ModelID, o.Value)
		}
	}
	got, noCross := map[string]scores{}, map[string]float64{}
	for m, s := range all {
		got[m] = scores{overall: s.f / s.n, query: query[m].f / query[m].n, document: document[m].f / document[m].n, n: int(s.n)}
		noCross[m] = withoutCross[m].f / withoutCross[m].n
	}
	return got, noCross
}

// TestRAREScoresView: the same outcomes through the ClickHouse sink give the
// same figures in the rare_scores view.
func TestRAREScoresView(t *testing.T) {
	if testing.Short() {
		t.Skip("opens chDB")
	}
	recs, _ := runFixtures(t)
	if got, want := rareScoresView(t, recs), wantRAREScoresView(); got != want {
		t.Errorf("rare_scores:\n got %q\nwant %q", got, want)
	}
}

// wantRAREScoresView is wantScores as rare_scores prints them: no fixture
// model retrieves, so retrieval robustness is NaN.
func wantRAREScoresView() string {
	var want strings.Builder
	for _, m := range []string{"cautious", "guesser", "knower", "typo_sensitive"} {
		s := wantScores[m]
		fmt.Fprintf(&want, "%s\t%v\t%v\t%v\tnan\t%d\n", m, s.overall, s.query, s.document, s.n)
	}
	return want.String()
}

// rareScoresView writes recs through the ClickHouse sink into a fresh chDB
// and returns rare_scores (skipped when libchdb.so is missing).
func rareScoresView(t *testing.T, recs []streams.Record) string {
	t.Helper()
	e := outcomesEngine(t, recs)
	out, err := e.Query(context.Background(), "SELECT model_id, overall, query_robustness, document_robustness, retrieval_robustness, n FROM robustream.rare_scores ORDER BY model_id", "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// outcomesEngine writes recs through the outcomes sink into a fresh chDB
// (the test is skipped when libchdb.so is missing); closed with the test.
func outcomesEngine(t *testing.T, recs []streams.Record) clickhouse.Engine {
	t.Helper()
	ctx := context.Background()
	e, err := clickhouse.Open(ctx, clickhouse.Config{DataDir: t.TempDir()})
	if errors.Is(err, clickhouse.ErrNoChDB) {
		t.Skipf("chDB unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := clickhouse.Migrate(ctx, e, nil); err != nil {
		t.Fatal(err)
	}
	sink, err := clickhouse.NewSink(e, clickhouse.TableForTopic(streams.TopicOutcomes), nil)
	if err != nil {
		t.Fatal(err)
	}
	msgs := make([]streams.Message, len(recs))
	for i, r := range recs {
		msgs[i] = streams.Message{Topic: r.Topic, Offset: int64(i), Key: r.Key, Value: r.Value}
	}
	if err := sink.Write(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	return e
}
