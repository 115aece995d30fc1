package metrics

import "github.com/robustream/robustream/schemas"

// MetricCorrect is GRADE's outcome metric: 1 when the model answered
// correctly from the top-k retrieved contexts, else 0.
const MetricCorrect = "correct"

// DRAggregations are the ways a question's chunk similarities collapse
// into its difficulty D_r (GRADE §3.3, Table 3): min is GRADE's own
// (1 − the least similar supporting chunk, the outcome's d_r), mean and
// power_mean (p = −2) are the alternatives offered for comparison, read
// from the question's QA scores dr_mean and dr_power_mean.
var DRAggregations = []string{"min", "mean", "power_mean"}

// GRADE: correctness under top-k retrieval as a function of reasoning
// depth (hops) and retrieval difficulty D_r (GRADE §3.3–4): a matrix of
// error rates, rows hops, columns D_r quartile, the quartiles ranked over
// the window's questions.
var GRADE = Family{
	Name:      schemas.FamilyGRADE,
	Axes:      []string{schemas.AxisRetrieval},
	Metrics:   []string{MetricCorrect},
	Selection: "family = '" + schemas.FamilyGRADE + "'",
	Series:    "family = '" + schemas.FamilyGRADE + "'",
	Rows:      []RowView{gradeQuestions},
	Aggregations: []Aggregation{
		{Name: "grade_matrix_by_dr_agg", Build: gradeMatrix(true),
			Doc: `GRADE's matrix (§3.3, eq. 1, §4) for every similarity function and D_r
aggregation: rows hops, columns D_r quartile, cell = error rate.
Quartiles are rank-based over the distinct questions (a question asked of
several models weighs once), separately per (sim_func, dr_agg): questions
are ordered by (difficulty, question_id) and the question of rank r among N
falls in quartile intDiv((r − 1) × 4, N) + 1, so the four bins differ in
size by one at most (ties in D_r are split by question_id). 18.16 has no
window functions: the ranks come from a sorted groupArray and arrayCumSum.
error_rate = 1 − the mean of per-question accuracies (each question weighs
the same), error_rate_pooled = 1 − correct / n over outcomes. questions
counts (model, question) pairs in the cell, dr_min/dr_max the difficulty
range it covers.`,
			Columns: cols("model_id hops dr_quartile n error_rate questions sim_func dr_agg error_rate_pooled dr_min dr_max")},
		{Name: "grade_matrix", Build: gradeMatrix(false),
			Doc:     `The matrix under GRADE's own D_r (the least similar chunk, dr_agg min), per similarity function.`,
			Columns: cols("model_id hops dr_quartile n error_rate questions sim_func error_rate_pooled dr_min dr_max")},
		{Name: "grade_dr_quartiles", Build: gradeQuartiles,
			Doc: `The D_r quartiles themselves, per similarity function and D_r aggregation:
how many distinct questions each holds and the D_r range it covers.`,
			Columns: cols("sim_func dr_agg dr_quartile questions dr_min dr_max")},
	},
}

var gradeQuestions = RowView{
	Name: "grade_questions",
	Doc: `GRADE (§3.3): one row per (model, question, D_r aggregation) with the
question's correctness under top-k retrieval (grade outcomes: value 1 =
correct), its hops and its difficulty. sim_func comes from the question
(robustream.questions, latest version): D_r from different similarity
functions never share quartiles ('' when the question row is missing).
dr_agg names how the question's chunk similarities were collapsed into D_r
(GRADE Table 3): min is the outcome's d_r, mean and power_mean (p = −2) are
the question's QA scores dr_mean and dr_power_mean when the question stage
records them, and absent otherwise.`,
	Columns: cols("model_id question_id sim_func dr_agg difficulty hops pattern domain published_at evaluated_at n correct accuracy"),
	SQL: `SELECT
    model_id, question_id, sim_func, dr_agg, difficulty, hops, pattern, domain,
    published_at, evaluated_at, n, correct, accuracy
FROM
(
    SELECT
        model_id, question_id, sim_func, hops, pattern, domain, published_at,
        last_evaluated AS evaluated_at,
        cnt AS n,
        correct_sum AS correct,
        correct_sum / cnt AS accuracy,
        q_dr,
        if(indexOf(score_names, 'dr_mean') = 0, nan, score_values[indexOf(score_names, 'dr_mean')]) AS q_dr_mean,
        if(indexOf(score_names, 'dr_power_mean') = 0, nan, score_values[indexOf(score_names, 'dr_power_mean')]) AS q_dr_power_mean
    FROM
    (
        SELECT
            model_id, question_id, hops, pattern, domain, published_at,
            max(d_r) AS q_dr,
            max(evaluated_at) AS last_evaluated,
            count() AS cnt,
            sum(value) AS correct_sum
        FROM robustream.outcomes FINAL
        WHERE family = '` + schemas.FamilyGRADE + `'
        GROUP BY model_id, question_id, hops, pattern, domain, published_at
    ) AS graded
    ALL LEFT JOIN
    (
        SELECT
            question_id,
            argMax(sim_func, produced_at) AS sim_func,
            argMax(qa_score_names, produced_at) AS score_names,
            argMax(qa_score_values, produced_at) AS score_values
        FROM robustream.questions
        GROUP BY question_id
    ) AS facts USING question_id
)
ARRAY JOIN
    [` + quoted(DRAggregations) + `] AS dr_agg,
    [q_dr, q_dr_mean, q_dr_power_mean] AS difficulty
WHERE NOT isNaN(difficulty)`,
}

// gradeRanked is the one ranking of GRADE's questions into D_r quartiles:
// one row per (model, question) of the window, with its quartile. The
// window and the D_r aggregation filter the innermost read, so the
// quartiles are those of the window's questions.
func gradeRanked(w Window, extra ...string) string {
	return `    SELECT
        sim_func, dr_agg,
        tupleElement(row, 1) AS row_dr,
        tupleElement(row, 2) AS row_question,
        tupleElement(row, 3) AS model_id,
        tupleElement(row, 4) AS hops,
        tupleElement(row, 5) AS row_n,
        tupleElement(row, 6) AS row_correct,
        intDiv((rank - 1) * 4, total) + 1 AS dr_quartile
    FROM
    (
        SELECT
            sim_func, dr_agg, sorted,
            arrayCumSum(arrayMap(i -> if(i = 1 OR tupleElement(sorted[i], 2) != tupleElement(sorted[i - 1], 2), 1, 0), arrayEnumerate(sorted))) AS ranks,
            ranks[length(ranks)] AS total
        FROM
        (
            SELECT
                sim_func, dr_agg,
                arraySort(groupArray((difficulty, question_id, model_id, hops, n, correct))) AS sorted
            FROM robustream.grade_questions` + where("            ", w, extra...) + `
            GROUP BY sim_func, dr_agg
        )
    )
    ARRAY JOIN sorted AS row, ranks AS rank`
}

// gradeMatrix is GRADE's matrix, for every D_r aggregation (byAgg) or for
// GRADE's own (min).
func gradeMatrix(byAgg bool) func(Window, Options) string {
	return func(w Window, o Options) string {
		outer := []string{
			"model_id", "hops", "dr_quartile",
			"sum(row_n) AS n",
			"1 - avg(row_correct / row_n) AS error_rate",
			"count() AS questions",
			"sim_func",
		}
		var extra []string
		if byAgg {
			outer = append(outer, "dr_agg")
		} else {
			extra = append(extra, "dr_agg = 'min'")
		}
		outer = append(outer,
			"1 - sum(row_correct) / sum(row_n) AS error_rate_pooled",
			"min(row_dr) AS dr_min",
			"max(row_dr) AS dr_max")
		if o.Extra {
			outer = append(outer, ci("error_rate", "1 - avg(row_correct / row_n)", "stddevSamp(row_correct / row_n)", "count()")...)
		}
		order := "model_id, sim_func, hops, dr_quartile"
		if byAgg {
			order = "model_id, sim_func, dr_agg, hops, dr_quartile"
		}
		return `SELECT
` + list("    ", outer) + `
FROM
(
` + gradeRanked(w, extra...) + `
)
GROUP BY sim_func, dr_agg, model_id, hops, dr_quartile` + orderBy(o, order)
	}
}

// gradeQuartiles are the quartiles' bounds: the same ranking, per
// quartile over distinct questions.
func gradeQuartiles(w Window, o Options) string {
	return `SELECT
    sim_func, dr_agg, dr_quartile,
    uniqExact(row_question) AS questions,
    min(row_dr) AS dr_min,
    max(row_dr) AS dr_max
FROM
(
` + gradeRanked(w) + `
)
GROUP BY sim_func, dr_agg, dr_quartile` + orderBy(o, "sim_func, dr_agg, dr_quartile")
}
