package metrics

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

// storeResults writes results through the eval_results sink.
func storeResults(t *testing.T, e clickhouse.Engine, rs []*schemas.EvalResult) {
	t.Helper()
	s, err := clickhouse.NewSink(e, "eval_results", nil)
	if err != nil {
		t.Fatal(err)
	}
	var batch []streams.Message
	for i, r := range rs {
		schemas.Stamp(r, r.RequestID+"/"+r.VariantID)
		b, err := schemas.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, streams.Message{Topic: streams.TopicEvalResults, Offset: int64(i), Key: []byte(r.Key()), Value: b})
	}
	if err := s.Write(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
}

// TestRetrievalByHand: the retrieval metrics of stored results, worked out
// by hand. shop-rag's five results are the verdicts of the reader's hand
// fixture (processors/reader TestRetrievalMetricsByHand: single hop,
// multi-hop with one of two chunks, fragments, a miss, nothing retrieved):
// hit rate 3/5, recall (1 + 0.5 + 0.5)/5 = 0.4, precision (2/3 + 0.5 +
// 0.5)/5 = 1/3, MRR (0.5 + 1 + 0.5)/5 = 0.4. A not-yet-indexed result and
// a failed call are left out; a reader's results through bm25_top3 are
// their own row; results without retrieval are in no row.
func TestRetrievalByHand(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := func(id, model, retriever string, n int, hit bool, recall, precision, rr float64) *schemas.EvalResult {
		res := &schemas.EvalResult{RequestID: id, VariantID: "v-" + id, ModelID: model, Axis: "original", Kind: "original",
			Retriever: retriever, RetrievalHit: hit, RetrievalRecall: recall, RetrievalPrecision: precision, RetrievalRR: rr, EvaluatedAt: at}
		for i := range n {
			res.Retrieved = append(res.Retrieved, "passage "+string(rune('a'+i)))
		}
		return res
	}
	rs := []*schemas.EvalResult{
		r("q1", "shop-rag", "service", 3, true, 1, 2.0/3, 0.5),
		r("q2", "shop-rag", "service", 2, true, 0.5, 0.5, 1),
		r("q3", "shop-rag", "service", 2, true, 0.5, 0.5, 0.5),
		r("q4", "shop-rag", "service", 1, false, 0, 0, 0),
		r("q5", "shop-rag", "service", 0, false, 0, 0, 0),
		r("b1", "builtin:lexical", "bm25_top3", 3, true, 1, 1.0/3, 1.0/3),
		r("b2", "builtin:lexical", "bm25_top3", 3, false, 0, 0, 0),
		r("plain", "builtin:lexical", "", 0, false, 0, 0, 0),
	}
	early := r("q6", "shop-rag", "service", 2, false, 0, 0, 0)
	early.IndexState = schemas.IndexNotIndexed
	failed := r("q7", "shop-rag", "service", 0, false, 0, 0, 0)
	failed.Error = "timeout"
	rs = append(rs, early, failed)
	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		storeResults(t, e, rs)
		got, err := Retrieval(context.Background(), e.Query, AllTime)
		if err != nil {
			t.Fatal(err)
		}
		want := []RetrievalRow{
			{Model: "builtin:lexical", Retriever: "bm25_top3", K: 3, N: 2, HitRate: 0.5, Recall: 0.5, Precision: 1.0 / 6, MRR: 1.0 / 6},
			{Model: "shop-rag", Retriever: "service", K: 3, N: 5, HitRate: 0.6, Recall: 0.4, Precision: 1.0 / 3, MRR: 0.4},
		}
		if len(got) != len(want) {
			t.Fatalf("rows %+v, want %+v", got, want)
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.Model != w.Model || g.Retriever != w.Retriever || g.K != w.K || g.N != w.N || !close(g.HitRate, w.HitRate) ||
				!close(g.Recall, w.Recall) || !close(g.Precision, w.Precision) || !close(g.MRR, w.MRR) {
				t.Errorf("row %d: %+v, want %+v", i, g, w)
			}
		}
		// Intervals over the results, from the per-result values here:
		// shop-rag's hits 3 of 5 (Wilson), recall 1 .5 .5 0 0, precision
		// 2/3 .5 .5 0 0, reciprocal ranks .5 1 .5 0 0 (normal).
		s := got[1]
		_, recall := meanCI(1, 0.5, 0.5, 0, 0)
		_, precision := meanCI(2.0/3, 0.5, 0.5, 0, 0)
		_, mrr := meanCI(0.5, 1, 0.5, 0, 0)
		for _, c := range []struct {
			name      string
			got, want [2]float64
		}{
			{"hit_rate", [2]float64{float64(s.HitRateCI[0]), float64(s.HitRateCI[1])}, wilsonGo(3, 5)},
			{"recall", [2]float64{float64(s.RecallCI[0]), float64(s.RecallCI[1])}, recall},
			{"precision", [2]float64{float64(s.PrecisionCI[0]), float64(s.PrecisionCI[1])}, precision},
			{"mrr", [2]float64{float64(s.MRRCI[0]), float64(s.MRRCI[1])}, mrr},
		} {
			if !near(Score(c.got[0]), c.want[0]) || !near(Score(c.got[1]), c.want[1]) {
				t.Errorf("shop-rag %s_ci %v, want %v", c.name, c.got, c.want)
			}
		}
		// bm25_top3's hit rate 1 of 2: Wilson keeps a width.
		if b := got[0].HitRateCI; !near(b[0], wilsonGo(1, 2)[0]) || !near(b[1], wilsonGo(1, 2)[1]) {
			t.Errorf("bm25_top3 hit_rate_ci %v, want %v", b, wilsonGo(1, 2))
		}
	})
}

// TestFreshnessByHand: time-to-knowledge from stored results of tracked
// questions. qa: first asked at 0, not indexed at 1m, indexed at 5m (ttk
// 300 s). qb: indexed at the first ask (0 s). qc: not indexed at 0 and 1m,
// still waiting. qd: given up after its schedule. qe's query variant and an
// untracked model are in no row. Indexed ttks {0, 300}: p50 300
// (quantileExact takes the element at floor(0.5·n), the upper median), max
// 300.
func TestFreshnessByHand(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var rs []*schemas.EvalResult
	add := func(q, model, axis, state string, after time.Duration) {
		rs = append(rs, &schemas.EvalResult{RequestID: q + "-" + after.String(), VariantID: "v-" + q + "-" + axis, ModelID: model,
			Axis: axis, Kind: axis, Retriever: "service", IndexState: state, EvaluatedAt: t0.Add(after)})
	}
	add("qa", "shop-rag", "original", schemas.IndexNotIndexed, 0)
	add("qa", "shop-rag", "original", schemas.IndexNotIndexed, time.Minute)
	add("qa", "shop-rag", "original", schemas.IndexIndexed, 5*time.Minute)
	add("qb", "shop-rag", "original", schemas.IndexIndexed, 0)
	add("qc", "shop-rag", "original", schemas.IndexNotIndexed, 0)
	add("qc", "shop-rag", "original", schemas.IndexNotIndexed, time.Minute)
	add("qd", "shop-rag", "original", schemas.IndexNotIndexed, 0)
	add("qd", "shop-rag", "original", schemas.IndexGaveUp, 24*time.Hour)
	add("qe", "shop-rag", "query", schemas.IndexIndexed, 0)
	add("qf", "other-rag", "original", "", 0)
	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		storeResults(t, e, rs)
		got, err := Freshness(context.Background(), e.Query, AllTime)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("rows %+v, want shop-rag's alone", got)
		}
		g := got[0]
		if g.Model != "shop-rag" || g.Questions != 4 || g.Indexed != 2 || g.Waiting != 1 || g.GaveUp != 1 ||
			!close(g.P50, 300) || !close(g.Max, 300) {
			t.Errorf("%+v, want 4 questions, 2 indexed, 1 waiting, 1 given up, p50 300 s, max 300 s", g)
		}
		// qb at the first ask, qa in (60 s, 300 s].
		want := []TTKBucket{{0, 1}, {60, 0}, {300, 1}, {900, 0}, {3600, 0}, {21600, 0}, {86400, 0}, {-1, 0}}
		if !slices.Equal(g.Histogram, want) {
			t.Errorf("histogram %v, want %v", g.Histogram, want)
		}
		var b strings.Builder
		WriteFreshnessText(&b, got)
		if !strings.Contains(b.String(), "indexed at: first ask 1, ≤1m 0, ≤5m 1, ≤15m 0, ≤1h 0, ≤6h 0, ≤24h 0, longer 0") {
			t.Errorf("text report:\n%s", b.String())
		}
	})
}

func close(a, b Score) bool { return math.Abs(float64(a)-float64(b)) < 1e-9 }
