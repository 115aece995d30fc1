package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/robustream/robustream/sinks/clickhouse"
)

// TestScoresAPIIntervals: GET /api/scores, served over HTTP from a data dir
// holding a small RARE fixture, gives each score's 95% interval over
// questions as computed here by hand (mean ± 1.96 · s / √n over the
// per-question means, s the sample standard deviation, clipped to
// [0, 1]); a model with one question gets scores but no interval.
//
// Model m, four questions; per question the f values by axis (kind in
// brackets):
//
//	q1: original 1, query 1 1, document 1, retrieval (bm25_top3) 1 → overall 5/5 = 1,   query 1
//	q2: original 1, query 1 0, document 1, retrieval (bm25_top3) 0 → overall 3/5 = 0.6, query 0.5
//	q3: original 0, query 0 0, document 0, retrieval (bm25_top3) 1 → overall 1/5 = 0.2, query 0
//	q4: original 1, query 1 0, document 0, retrieval (bm25_top3) 1 → overall 3/5 = 0.6, query 0.5
//
// overall: mean 0.6, deviations 0.4 0 −0.4 0, s² = 0.32/3, s = 0.326599,
// half = 1.96 · 0.326599 / 2 = 0.320067 → [0.279933, 0.920067].
// query: mean 0.5, deviations 0.5 0 −0.5 0, s² = 0.5/3, s = 0.408248,
// half = 0.400083 → [0.099917, 0.900083].
// document (1 1 0 0): mean 0.5, s² = 1/3, half = 0.565803 → [0, 1]
// (both sides clipped).
// retrieval (1 0 1 1): mean 0.75, s² = 0.25, half = 0.49 → [0.26, 1] (the
// upper side clipped); bm25_top3 alone is the same.
func TestScoresAPIIntervals(t *testing.T) {
	dataDir := t.TempDir()
	robustream(t, "migrate", "--data-dir", dataDir)
	var rows []reportOutcome
	f := func(model, q, axis, kind string, v float64) {
		rows = append(rows, reportOutcome{id: fmt.Sprintf("ci%03d", len(rows)), family: "rare", metric: "f", model: model, question: q,
			axis: axis, kind: kind, hops: 1, known: 1, golden: 1, value: v, age: time.Hour})
	}
	for _, q := range []struct {
		id                      string
		orig, q1, q2, doc, retr float64
	}{{"q1", 1, 1, 1, 1, 1}, {"q2", 1, 1, 0, 1, 0}, {"q3", 0, 0, 0, 0, 1}, {"q4", 1, 1, 0, 0, 1}} {
		f("m", q.id, "original", "original", q.orig)
		f("m", q.id, "query", "char", q.q1)
		f("m", q.id, "query", "qwerty", q.q2)
		f("m", q.id, "document", "answer_removed", q.doc)
		f("m", q.id, "retrieval", "bm25_top3", q.retr)
	}
	// One question only: no spread to estimate.
	f("solo", "s1", "original", "original", 1)
	f("solo", "s1", "query", "char", 0)
	insertOutcomes(t, dataDir, rows, time.Now())

	ctx := context.Background()
	e, err := clickhouse.Open(ctx, clickhouse.Config{DataDir: dataDir})
	if errors.Is(err, clickhouse.ErrNoChDB) {
		t.Skipf("chDB unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	srv := httptest.NewServer(http.HandlerFunc((&server{e: &engine{ch: e}}).scores))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/scores: %d %s", resp.StatusCode, body)
	}
	var got scoresResponse
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	byModel := map[string]scoreRow{}
	for _, m := range got.Models {
		byModel[m.Model] = m
	}

	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6 }
	check := func(what string, v *float64, ci *[2]float64, want float64, lo, hi float64) {
		t.Helper()
		if v == nil || !near(*v, want) {
			t.Errorf("%s = %v, want %v", what, v, want)
		}
		if ci == nil || !near(ci[0], lo) || !near(ci[1], hi) {
			t.Errorf("%s_ci = %v, want [%v, %v]", what, ci, lo, hi)
		}
	}
	m, ok := byModel["m"]
	if !ok {
		t.Fatalf("no model m in %s", body)
	}
	if m.N != 20 {
		t.Errorf("m: n = %d, want 20 outcomes", m.N)
	}
	check("overall", m.Overall, m.OverallCI, 0.6, 0.279933, 0.920067)
	check("query", m.Query, m.QueryCI, 0.5, 0.099917, 0.900083)
	check("document", m.Document, m.DocumentCI, 0.5, 0, 1)
	check("retrieval", m.Retrieval, m.RetrievalCI, 0.75, 0.26, 1)
	if len(m.Retrievers) != 1 || m.Retrievers[0].Retriever != "bm25_top3" || m.Retrievers[0].Questions != 4 {
		t.Fatalf("retrievers %+v, want bm25_top3 over 4 questions", m.Retrievers)
	}
	check("retrievers[bm25_top3].retrieval", m.Retrievers[0].Retrieval, m.Retrievers[0].RetrievalCI, 0.75, 0.26, 1)

	solo, ok := byModel["solo"]
	if !ok {
		t.Fatalf("no model solo in %s", body)
	}
	if solo.Overall == nil || !near(*solo.Overall, 0.5) || solo.OverallCI != nil || solo.QueryCI != nil {
		t.Errorf("solo: overall %v overall_ci %v query_ci %v; want 0.5 and no intervals (one question)", solo.Overall, solo.OverallCI, solo.QueryCI)
	}
	// In the JSON itself the interval sits beside its score as [lo, hi].
	var raw struct {
		Models []map[string]json.RawMessage `json:"models"`
	}
	json.Unmarshal(body, &raw)
	for _, r := range raw.Models {
		if string(r["model"]) == `"m"` {
			var pair []float64
			if err := json.Unmarshal(r["overall_ci"], &pair); err != nil || len(pair) != 2 {
				t.Errorf("overall_ci in JSON is %s, want [lo, hi]", r["overall_ci"])
			}
		}
	}
}
