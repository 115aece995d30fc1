package metrics

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/robustream/robustream/sinks/clickhouse"
)

// rareFixture: one model, three questions, every RARE axis and two
// retrievers; a retrieval-hit row and a stale RARE row on the spurious
// axis that must count nowhere.
func rareFixture() []outcome {
	f := func(q, axis, kind string, v float64) outcome {
		return outcome{family: "rare", metric: MetricF, model: "m", question: q, axis: axis, kind: kind, hops: 1, value: v}
	}
	return []outcome{
		f("q1", "original", "original", 1), f("q1", "query", "char", 1), f("q1", "query", "qwerty", 0),
		f("q1", "document", "answer_removed", 0), f("q1", "retrieval", "bm25_top3", 1), f("q1", "retrieval", "emb_x_top3", 0),
		f("q1", "cross", "char+answer_removed", 1),
		f("q2", "original", "original", 0), f("q2", "query", "char", 0), f("q2", "retrieval", "bm25_top3", 1),
		f("q3", "original", "original", 1), f("q3", "document", "answer_removed", 1), f("q3", "document", "back_translation", 1),
		{family: "rare", metric: MetricRetrievalHit, model: "m", question: "q1", axis: "original", kind: "original", value: 0},
		f("q3", "spurious", "format_json", 0),
	}
}

func near(a Score, b float64) bool {
	return math.Abs(float64(a)-b) <= 1e-9 || (math.IsNaN(float64(a)) && math.IsNaN(b))
}

// meanCI is the mean of xs and its 95% normal interval clipped to [0, 1]
// (the Wilson interval when every value is the same), computed here from
// the per-question values (not with the views' SQL).
func meanCI(xs ...float64) (float64, [2]float64) {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	if ss < 1e-18 { // every value the same: the Wilson interval of the mean
		return m, wilsonGo(m*float64(len(xs)), float64(len(xs)))
	}
	h := 1.96 * math.Sqrt(ss/float64(len(xs)-1)) / math.Sqrt(float64(len(xs)))
	return m, [2]float64{math.Max(0, m-h), math.Min(1, m+h)}
}

// TestRAREScores: RARE's four scores by hand. Per question: q1 overall
// 4/7 (seven f rows), query 1/2, document 0, retrieval 1/2 (bm25 1, emb 0);
// q2 overall 1/3, query 0, retrieval 1; q3 overall 1, document 1. Across
// questions: overall (4/7 + 1/3 + 1)/3, query 1/4, document 1/2,
// retrieval 3/4; per retriever bm25_top3 1 (q1, q2) and emb_x_top3 0 (q1).
// The view, the report and /api/scores' query agree.
func TestRAREScores(t *testing.T) {
	overall, overallCI := meanCI(4.0/7, 1.0/3, 1)
	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		insert(t, e, time.Now(), 0, rareFixture())
		view := rowsOf(t, e, "SELECT * FROM robustream.rare_scores")
		if len(view) != 1 {
			t.Fatalf("rare_scores: %v", view)
		}
		v := view[0]
		for col, want := range map[string]float64{"overall": overall, "query_robustness": 0.25, "document_robustness": 0.5, "retrieval_robustness": 0.75,
			"n": 13, "questions": 3, "overall_pooled": 8.0 / 13, "query_robustness_pooled": 1.0 / 3, "document_robustness_pooled": 2.0 / 3, "retrieval_robustness_pooled": 2.0 / 3} {
			if !near(v.Score(col), want) {
				t.Errorf("rare_scores.%s = %s, want %g", col, v[col], want)
			}
		}
		rep, err := BuildReport(context.Background(), e.Query, "all", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.RARE) != 1 {
			t.Fatalf("report RARE rows: %+v", rep.RARE)
		}
		x := rep.RARE[0]
		if !near(x.Overall, overall) || !near(x.Query, 0.25) || !near(x.Document, 0.5) || !near(x.Retrieval, 0.75) || x.Outcomes != 13 || x.Questions != 3 {
			t.Errorf("report RARE %+v", x)
		}
		if !near(x.OverallCI[0], overallCI[0]) || !near(x.OverallCI[1], overallCI[1]) {
			t.Errorf("overall CI %v, want %v", x.OverallCI, overallCI)
		}
		_, queryCI := meanCI(0.5, 0)
		if !near(x.QueryCI[0], queryCI[0]) || !near(x.QueryCI[1], queryCI[1]) {
			t.Errorf("query CI %v, want %v", x.QueryCI, queryCI)
		}
		if len(x.Retrievers) != 2 || x.Retrievers[0].Retriever != "bm25_top3" || !near(x.Retrievers[0].Retrieval, 1) || x.Retrievers[0].Questions != 2 ||
			x.Retrievers[1].Retriever != "emb_x_top3" || !near(x.Retrievers[1].Retrieval, 0) || x.Retrievers[1].Questions != 1 {
			t.Errorf("retrievers %+v", x.Retrievers)
		}
		if x.Retrievers[1].RetrievalCI.Known() {
			t.Errorf("emb_x_top3 has one question, yet a CI %v", x.Retrievers[1].RetrievalCI)
		}
		// The dashboard's /api/scores reads the same aggregation.
		api := rowsOf(t, e, RARE.Aggregation("rare_scores").Query(AllTime))
		if len(api) != 1 || !near(api[0].Score("overall"), overall) || !near(api[0].Score("retrieval_robustness"), 0.75) {
			t.Errorf("/api/scores query: %v", api)
		}
		// by_kind: f rows on RARE's axes only (no retrieval-hit row, no
		// spurious row).
		for _, r := range rowsOf(t, e, KindsQuery("robustream.robustness_1h", "")) {
			if r["axis"] == "spurious" || (r["axis"] == "original" && r.Count("cnt") != 3) {
				t.Errorf("kinds row %v", r)
			}
		}
	})
}
