package metrics

import (
	"strings"

	"github.com/robustream/robustream/schemas"
)

// AxisCross is the axis of RARE's cross cells (a perturbed query over a
// perturbed context); perturb makes them, pair scores them.
const AxisCross = "cross"

// RARE's outcome metrics: the judge f (Table 2) of every contextual
// result, and, for a model that retrieves its own contexts, whether its
// passages held a ground-truth chunk (a hit rate, never a robustness
// score).
const (
	MetricF            = "f"
	MetricRetrievalHit = "retrieval_hit"
)

// RAREAxes are the axes RARE scores (RARE §3.1–3.3; docs/methods.md,
// RARE's judge f and pairing): the original variant and the cross cells
// for overall robustness (eq. 1), the query and document perturbations
// (eqs. 2, 3) and each retriever's top-k (eq. 4). Never SURE's spurious
// features nor PRGB's placeholders and noise: those measure other things,
// on cells RARE's tables do not have.
var RAREAxes = []string{schemas.AxisOriginal, schemas.AxisQuery, schemas.AxisDocument, schemas.AxisRetrieval, AxisCross}

// RAREWhere selects RARE's judge f rows on RARE's axes, in
// robustream.outcomes and the rolling tables alike.
func RAREWhere() string {
	return "family = '" + schemas.FamilyRARE + "' AND metric = '" + MetricF + "' AND axis IN (" + quoted(RAREAxes) + ")"
}

// RARE: robustness as the judge f (RARE §3.3, Table 2) averaged per
// question, then across questions: overall (every RARE axis), query,
// document and retrieval robustness (eqs. 1–4); retrieval also per
// retriever (a retrieval kind, bm25_top3, emb_<name>_top3).
var RARE = Family{
	Name:      schemas.FamilyRARE,
	Axes:      RAREAxes,
	Metrics:   []string{MetricF, MetricRetrievalHit},
	Selection: RAREWhere(),
	Series:    RAREWhere(),
	Rows:      []RowView{rareQuestionScores, rareRetrievalQuestions},
	Aggregations: []Aggregation{
		{Name: "rare_scores", Build: rareScores,
			Doc: `RARE's scores per model (RARE §3.3.1–3.3.4, eqs. 1–4). Two aggregations across
questions, each named: overall, query_robustness, document_robustness,
retrieval_robustness are means of per-question means (every question weighs
the same, however many variants it has; a question counts for an axis only
if it has an outcome there); *_pooled are means over all outcome rows. n
counts outcomes, questions (model, question) pairs; NaN where a model has no
outcome on an axis.`,
			Columns: cols("model_id overall query_robustness document_robustness retrieval_robustness n questions overall_pooled query_robustness_pooled document_robustness_pooled retrieval_robustness_pooled")},
		{Name: "rare_retrieval_scores", Build: rareRetrievalScores,
			Doc: `RARE's retrieval robustness per model and retriever (RARE §3.3.4, eq. 4): the
mean f over the retriever's top-k contexts with the original query, a mean of
per-question means (pooled beside it).`,
			Columns: cols("model_id retriever n questions retrieval_robustness retrieval_robustness_pooled")},
		{Name: "retrieval_hit_rates", Build: retrievalHitRates,
			Doc: `Retrieval hit rate per model that retrieves its own contexts (a RAG service):
the share of its answers whose passages include a ground-truth chunk. A
model without such outcomes has no row.`,
			Columns: cols("model_id hit_rate n")},
	},
}

func cols(s string) []string { return strings.Fields(s) }

var rareQuestionScores = RowView{
	Name: "rare_question_scores",
	Doc: `RARE (§3.3, Table 2): one row per (model, question) with its judge f outcomes
counted and summed per axis, and the question's own means; NaN where the
question has no outcome on an axis. Only RARE's axes count (RAREWhere): a
RARE row on another axis, written by builds before families declared their
axes, never moves RARE's scores.`,
	Columns: cols("model_id question_id pattern hops domain published_at evaluated_at n f_sum query_n query_sum document_n document_sum retrieval_n retrieval_sum overall query_robustness document_robustness retrieval_robustness"),
	SQL: `SELECT
    model_id, question_id, pattern, hops, domain, published_at,
    last_evaluated AS evaluated_at,
    cnt AS n,
    f_sum,
    query_cnt AS query_n, query_f AS query_sum,
    document_cnt AS document_n, document_f AS document_sum,
    retrieval_cnt AS retrieval_n, retrieval_f AS retrieval_sum,
    f_sum / cnt AS overall,
    if(query_cnt = 0, nan, query_f / query_cnt) AS query_robustness,
    if(document_cnt = 0, nan, document_f / document_cnt) AS document_robustness,
    if(retrieval_cnt = 0, nan, retrieval_f / retrieval_cnt) AS retrieval_robustness
FROM
(
    SELECT
        model_id, question_id, pattern, hops, domain, published_at,
        max(evaluated_at) AS last_evaluated,
        count() AS cnt,
        sum(value) AS f_sum,
        countIf(axis = 'query') AS query_cnt,
        sumIf(value, axis = 'query') AS query_f,
        countIf(axis = 'document') AS document_cnt,
        sumIf(value, axis = 'document') AS document_f,
        countIf(axis = 'retrieval') AS retrieval_cnt,
        sumIf(value, axis = 'retrieval') AS retrieval_f
    FROM robustream.outcomes FINAL
    WHERE ` + RAREWhere() + `
    GROUP BY model_id, question_id, pattern, hops, domain, published_at
)`,
}

var rareRetrievalQuestions = RowView{
	Name: "rare_retrieval_questions",
	Doc: `RARE's retrieval cells: one row per (model, question, retriever), the
retriever being the retrieval variant's kind (bm25_top3, emb_<name>_top3),
with the mean f over its outcomes.`,
	Columns: cols("model_id question_id retriever pattern hops domain published_at evaluated_at n f_sum retrieval_robustness"),
	SQL: `SELECT
    model_id, question_id, retriever, pattern, hops, domain, published_at,
    last_evaluated AS evaluated_at,
    cnt AS n,
    f_sum,
    f_sum / cnt AS retrieval_robustness
FROM
(
    SELECT
        model_id, question_id, kind AS retriever, pattern, hops, domain, published_at,
        max(evaluated_at) AS last_evaluated,
        count() AS cnt,
        sum(value) AS f_sum
    FROM robustream.outcomes FINAL
    WHERE ` + RAREWhere() + ` AND axis = 'retrieval'
    GROUP BY model_id, question_id, kind, pattern, hops, domain, published_at
)`,
}

func rareScores(w Window, o Options) string {
	outer := []string{
		"model_id",
		"overall_qsum / q_cnt AS overall",
		"if(query_q = 0, nan, query_qsum / query_q) AS query_robustness",
		"if(document_q = 0, nan, document_qsum / document_q) AS document_robustness",
		"if(retrieval_q = 0, nan, retrieval_qsum / retrieval_q) AS retrieval_robustness",
		"all_n AS n",
		"q_cnt AS questions",
		"all_sum / all_n AS overall_pooled",
		"if(query_cnt = 0, nan, query_fsum / query_cnt) AS query_robustness_pooled",
		"if(document_cnt = 0, nan, document_fsum / document_cnt) AS document_robustness_pooled",
		"if(retrieval_cnt = 0, nan, retrieval_fsum / retrieval_cnt) AS retrieval_robustness_pooled",
	}
	inner := []string{
		"model_id",
		"count() AS q_cnt",
		"sum(overall) AS overall_qsum",
		"countIf(query_n > 0) AS query_q",
		"sumIf(query_robustness, query_n > 0) AS query_qsum",
		"countIf(document_n > 0) AS document_q",
		"sumIf(document_robustness, document_n > 0) AS document_qsum",
		"countIf(retrieval_n > 0) AS retrieval_q",
		"sumIf(retrieval_robustness, retrieval_n > 0) AS retrieval_qsum",
		"sum(n) AS all_n",
		"sum(f_sum) AS all_sum",
		"sum(query_n) AS query_cnt",
		"sum(query_sum) AS query_fsum",
		"sum(document_n) AS document_cnt",
		"sum(document_sum) AS document_fsum",
		"sum(retrieval_n) AS retrieval_cnt",
		"sum(retrieval_sum) AS retrieval_fsum",
	}
	if o.Extra {
		outer = append(outer, ci("overall", "overall_qsum / q_cnt", "overall_sd", "q_cnt")...)
		inner = append(inner, "stddevSamp(overall) AS overall_sd")
		for _, a := range []string{"query", "document", "retrieval"} {
			outer = append(outer, ci(a+"_robustness", a+"_qsum / "+a+"_q", a+"_sd", a+"_q")...)
			inner = append(inner, "stddevSampIf("+a+"_robustness, "+a+"_n > 0) AS "+a+"_sd")
		}
	}
	return `SELECT
` + list("    ", outer) + `
FROM
(
    SELECT
` + list("        ", inner) + `
    FROM robustream.rare_question_scores` + where("    ", w) + `
    GROUP BY model_id
)` + orderBy(o, "model_id")
}

func rareRetrievalScores(w Window, o Options) string {
	outer := []string{
		"model_id",
		"retriever",
		"all_n AS n",
		"q_cnt AS questions",
		"qsum / q_cnt AS retrieval_robustness",
		"all_sum / all_n AS retrieval_robustness_pooled",
	}
	inner := []string{"model_id", "retriever", "count() AS q_cnt", "sum(retrieval_robustness) AS qsum", "sum(n) AS all_n", "sum(f_sum) AS all_sum"}
	if o.Extra {
		outer = append(outer, ci("retrieval_robustness", "qsum / q_cnt", "q_sd", "q_cnt")...)
		inner = append(inner, "stddevSamp(retrieval_robustness) AS q_sd")
	}
	return `SELECT
` + list("    ", outer) + `
FROM
(
    SELECT
` + list("        ", inner) + `
    FROM robustream.rare_retrieval_questions` + where("    ", w) + `
    GROUP BY model_id, retriever
)` + orderBy(o, "model_id, retriever")
}

// retrievalHitRates reads the outcomes themselves (a hit is one answer's,
// not a question's): FINAL, so a row delivered twice counts once.
func retrievalHitRates(w Window, o Options) string {
	return `SELECT
    model_id,
    hit_sum / hit_n AS hit_rate,
    hit_n AS n
FROM
(
    SELECT model_id, count() AS hit_n, sum(value) AS hit_sum
    FROM robustream.outcomes FINAL` + where("    ", w, "family = '"+schemas.FamilyRARE+"' AND metric = '"+MetricRetrievalHit+"'") + `
    GROUP BY model_id
)` + orderBy(o, "model_id")
}
