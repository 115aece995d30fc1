package metrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/robustream/robustream/schemas"
)

// Retrieval metrics (docs/methods.md, Retrieval metrics): every result
// with retrieved passages carries its verdicts, computed when it was
// judged (the infer stage: hit, recall, precision, reciprocal rank), and
// the metrics of a model and retriever are their means over its results.
// Results asked before a service had indexed their document (index_state
// not_indexed) are left out, like their answers are left out of the
// robustness scores; failed calls are left out too.

// RetrievalRow is one model's retrieval through one retriever.
type RetrievalRow struct {
	Model string `json:"model"`
	// Retriever is "service" for a model that retrieves its own passages
	// (rag-endpoint), else the built-in retriever's kind (bm25_top3).
	Retriever string `json:"retriever"`
	// K is the most passages one result had.
	K int64 `json:"k"`
	// N is the number of results.
	N         int64 `json:"n"`
	HitRate   Score `json:"hit_rate"`
	Recall    Score `json:"recall"`
	Precision Score `json:"precision"`
	MRR       Score `json:"mrr"`
	// x_ci is the 95% interval of x over the results: Wilson's for the
	// hit rate (a share), the normal one for the means of per-result
	// values (docs/methods.md, Metric families).
	HitRateCI   CI `json:"hit_rate_ci"`
	RecallCI    CI `json:"recall_ci"`
	PrecisionCI CI `json:"precision_ci"`
	MRRCI       CI `json:"mrr_ci"`
}

// retrievalWhere selects the results whose retrieval is measured.
const retrievalWhere = "retriever != '' AND error = '' AND index_state != '" + schemas.IndexNotIndexed + "'"

// RetrievalQuery is the retrieval metrics per model and retriever over w.
func RetrievalQuery(w Window) string {
	cis := wilson("hit_rate", "avg(retrieval_hit)", "count()")
	for _, c := range [][2]string{{"recall", "retrieval_recall"}, {"precision", "retrieval_precision"}, {"mrr", "retrieval_rr"}} {
		cis = append(cis, ci(c[0], "avg("+c[1]+")", "stddevSamp("+c[1]+")", "count()")...)
	}
	return `SELECT model_id, retriever, max(length(retrieved)) AS k, count() AS n,
    avg(retrieval_hit) AS hit_rate, avg(retrieval_recall) AS recall,
    avg(retrieval_precision) AS precision, avg(retrieval_rr) AS mrr,
` + list("    ", cis) + `
FROM robustream.eval_results FINAL` + where("", w, retrievalWhere) + `
GROUP BY model_id, retriever
ORDER BY model_id, retriever`
}

// Retrieval runs RetrievalQuery.
func Retrieval(ctx context.Context, q QueryFunc, w Window) ([]RetrievalRow, error) {
	rows, err := Rows(ctx, q, RetrievalQuery(w))
	if err != nil {
		return nil, fmt.Errorf("retrieval metrics: %w", err)
	}
	out := []RetrievalRow{}
	for _, r := range rows {
		out = append(out, RetrievalRow{Model: r["model_id"], Retriever: r["retriever"], K: r.Count("k"), N: r.Count("n"),
			HitRate: r.Score("hit_rate"), Recall: r.Score("recall"), Precision: r.Score("precision"), MRR: r.Score("mrr"),
			HitRateCI: r.CI("hit_rate"), RecallCI: r.CI("recall"), PrecisionCI: r.CI("precision"), MRRCI: r.CI("mrr")})
	}
	return out, nil
}

// WriteRetrievalText writes the retrieval section of the text report.
func WriteRetrievalText(w io.Writer, rows []RetrievalRow) {
	fmt.Fprintln(w, "\nRetrieval (means over results with retrieved passages; docs/methods.md, Retrieval metrics)")
	if len(rows) == 0 {
		fmt.Fprintln(w, "  no results with retrieved passages")
		return
	}
	fmt.Fprintf(w, "  %-28s %-16s %3s %7s %8s %8s %9s %8s\n", "model", "retriever", "k", "n", "hit", "recall", "precision", "MRR")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-28s %-16s %3d %7d %8s %8s %9s %8s\n", r.Model, r.Retriever, r.K, r.N,
			r.HitRate.Text(), r.Recall.Text(), r.Precision.Text(), r.MRR.Text())
	}
}

// Time-to-knowledge (docs/methods.md, Freshness): for a model whose
// questions are asked again until its service retrieves them, the delay
// from the first ask about a question (seconds after its document arrived)
// to the first result that retrieved a ground-truth chunk, per question
// (its original variant).

// FreshnessRow is one model's time-to-knowledge distribution.
type FreshnessRow struct {
	Model string `json:"model"`
	// Questions were tracked; Indexed of them were retrieved, Waiting are
	// still asked again, GaveUp were never retrieved within the schedule.
	Questions int64 `json:"questions"`
	Indexed   int64 `json:"indexed"`
	Waiting   int64 `json:"waiting"`
	GaveUp    int64 `json:"gave_up"`
	// P50, P90 and Max are time-to-knowledge quantiles of the indexed
	// questions, in seconds (null when none was indexed).
	P50 Score `json:"p50_seconds"`
	P90 Score `json:"p90_seconds"`
	Max Score `json:"max_seconds"`
	// Histogram counts the indexed questions by time-to-knowledge: at the
	// first ask, then up to each of TTKBuckets, then longer.
	Histogram []TTKBucket `json:"histogram"`
}

// TTKBucket is one bar of a time-to-knowledge histogram: the questions
// indexed after more than the previous bucket's bound and at most
// UpToSeconds (0: at the first ask; -1: longer than the last bound).
type TTKBucket struct {
	UpToSeconds int64 `json:"up_to_seconds"`
	Questions   int64 `json:"questions"`
}

// TTKBuckets are the histogram's bounds in seconds: the default schedule's
// steps (1m, 5m, 15m, 1h, 6h, 24h).
var TTKBuckets = []int64{60, 300, 900, 3600, 21600, 86400}

// ttkHistogram is the SQL of the histogram's columns (h0, h1, …).
func ttkHistogram() string {
	cols := []string{"countIf(indexed_at > 0 AND ttk <= 0) AS h0"}
	prev := int64(0)
	for i, b := range TTKBuckets {
		cols = append(cols, fmt.Sprintf("countIf(indexed_at > 0 AND ttk > %d AND ttk <= %d) AS h%d", prev, b, i+1))
		prev = b
	}
	cols = append(cols, fmt.Sprintf("countIf(indexed_at > 0 AND ttk > %d) AS h%d", prev, len(TTKBuckets)+1))
	return strings.Join(cols, ",\n    ")
}

// FreshnessQuery is the time-to-knowledge per model over the questions
// first asked in w.
func FreshnessQuery(w Window) string {
	w.Column = "asked"
	return `SELECT model_id, count() AS questions, countIf(indexed_at > 0) AS indexed,
    countIf(indexed_at = 0 AND gave_up = 0) AS waiting, countIf(indexed_at = 0 AND gave_up = 1) AS gave_up_n,
    quantileExactIf(0.5)(ttk, indexed_at > 0) AS p50, quantileExactIf(0.9)(ttk, indexed_at > 0) AS p90,
    maxIf(ttk, indexed_at > 0) AS max_ttk, countIf(indexed_at > 0) AS n_ttk,
    ` + ttkHistogram() + `
FROM
(
    SELECT model_id, variant_id, min(evaluated_at) AS asked,
        toUInt32(minIf(evaluated_at, index_state = '` + schemas.IndexIndexed + `')) AS indexed_at,
        max(index_state = '` + schemas.IndexGaveUp + `') AS gave_up,
        toFloat64(indexed_at) - toFloat64(toUInt32(asked)) AS ttk
    FROM robustream.eval_results FINAL
    WHERE retriever = '` + schemas.RetrieverService + `' AND axis = 'original' AND error = '' AND index_state != ''
    GROUP BY model_id, variant_id
)` + where("", w) + `
GROUP BY model_id
ORDER BY model_id`
}

// Freshness runs FreshnessQuery.
func Freshness(ctx context.Context, q QueryFunc, w Window) ([]FreshnessRow, error) {
	rows, err := Rows(ctx, q, FreshnessQuery(w))
	if err != nil {
		return nil, fmt.Errorf("time-to-knowledge: %w", err)
	}
	out := []FreshnessRow{}
	for _, r := range rows {
		f := FreshnessRow{Model: r["model_id"], Questions: r.Count("questions"), Indexed: r.Count("indexed"),
			Waiting: r.Count("waiting"), GaveUp: r.Count("gave_up_n"), P50: NaN, P90: NaN, Max: NaN}
		if r.Count("n_ttk") > 0 {
			f.P50, f.P90, f.Max = r.Score("p50"), r.Score("p90"), r.Score("max_ttk")
		}
		f.Histogram = []TTKBucket{{UpToSeconds: 0, Questions: r.Count("h0")}}
		for i, b := range TTKBuckets {
			f.Histogram = append(f.Histogram, TTKBucket{UpToSeconds: b, Questions: r.Count(fmt.Sprintf("h%d", i+1))})
		}
		f.Histogram = append(f.Histogram, TTKBucket{UpToSeconds: -1, Questions: r.Count(fmt.Sprintf("h%d", len(TTKBuckets)+1))})
		out = append(out, f)
	}
	return out, nil
}

// WriteFreshnessText writes the time-to-knowledge section of the text
// report; nothing when no model is tracked.
func WriteFreshnessText(w io.Writer, rows []FreshnessRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nTime to knowledge (first ask to first retrieval of a ground-truth chunk; docs/methods.md, Freshness)")
	fmt.Fprintf(w, "  %-28s %9s %7s %7s %7s %9s %9s %9s\n", "model", "questions", "indexed", "waiting", "gave up", "p50", "p90", "max")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-28s %9d %7d %7d %7d %9s %9s %9s\n", r.Model, r.Questions, r.Indexed, r.Waiting, r.GaveUp,
			duration(r.P50), duration(r.P90), duration(r.Max))
		var bars []string
		for _, b := range r.Histogram {
			label := "first ask"
			switch {
			case b.UpToSeconds < 0:
				label = "longer"
			case b.UpToSeconds > 0:
				label = "≤" + duration(Score(b.UpToSeconds))
			}
			bars = append(bars, fmt.Sprintf("%s %d", label, b.Questions))
		}
		fmt.Fprintf(w, "  %-28s indexed at: %s\n", "", strings.Join(bars, ", "))
	}
}

// duration writes seconds as 45s, 5m, 2h3m; "—" for none.
func duration(s Score) string {
	f := float64(s)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	d := (time.Duration(math.Round(f)) * time.Second).String()
	if strings.HasSuffix(d, "m0s") {
		d = strings.TrimSuffix(d, "0s")
	}
	if strings.HasSuffix(d, "h0m") {
		d = strings.TrimSuffix(d, "0m")
	}
	return d
}
