package metrics

import (
	"fmt"
	"strings"
)

// The generated SQL files: the score views in schemas/sql (row views in
// 030, aggregations in 050; the migrator applies them every migration)
// and the example queries of docs/queries.sql. TestGeneratedSQL fails when
// the checked-in files differ from this text; `go generate
// ./processors/metrics` rewrites them.
const (
	RowViewsFile     = "030_score_views.sql"
	AggregationsFile = "050_score_aggregates.sql"
)

const generatedNote = "-- Generated from processors/metrics (go generate ./processors/metrics); do not edit.\n"

// comment renders doc as SQL comment lines.
func comment(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(doc), "\n") {
		b.WriteString(strings.TrimRight("-- "+l, " ") + "\n")
	}
	return b.String()
}

// GenerateDDL returns the score views' DDL of families, by file name.
func GenerateDDL(families []Family) map[string]string {
	var rows, aggs strings.Builder
	rows.WriteString(generatedNote)
	rows.WriteString(comment(`Score views (docs/architecture.md, ClickHouse schema; what the scores mean:
docs/methods.md). Every metric family is declared once, in processors/metrics;
this file and ` + AggregationsFile + ` are written from those declarations. Two
layers, all plain views (nothing is stored):

  row views (this file): one row per scored unit, with its evaluated_at and
  published_at, read FINAL from outcomes (an outcome delivered twice counts
  once even before the merge).

  aggregations (` + AggregationsFile + `): the scores over all time, with stable
  names. A time window is the same query with a WHERE on the row view (18.16
  has no parameterized views); the dashboard, the report and
  docs/queries.sql run exactly that.

A plain view is dropped and created again at every migration, so a changed
definition reaches data dirs made by older builds. DROP TABLE: servers
before 20.x know no DROP VIEW. Aggregations read the row views, so they are
dropped first. Aggregates are computed in an inner query under names that
do not shadow stored columns: ClickHouse resolves an alias before a column.`))
	for _, f := range families {
		for _, a := range f.Aggregations {
			fmt.Fprintf(&rows, "DROP TABLE IF EXISTS robustream.%s;\n", a.Name)
		}
	}
	for _, f := range families {
		for _, r := range f.Rows {
			fmt.Fprintf(&rows, "DROP TABLE IF EXISTS robustream.%s;\n", r.Name)
		}
	}
	aggs.WriteString(generatedNote)
	aggs.WriteString(comment(`Score aggregations over all time, per family, from the row views of
` + RowViewsFile + ` (dropped there and created again here at every migration).
Each is its family's query with no window; docs/queries.sql shows it with one.`))
	for _, f := range families {
		for _, r := range f.Rows {
			fmt.Fprintf(&rows, "\n-- %s · %s\n%sCREATE VIEW IF NOT EXISTS robustream.%s AS\n%s;\n", strings.ToUpper(f.Name), r.Name, comment(r.Doc), r.Name, r.SQL)
		}
		for _, a := range f.Aggregations {
			fmt.Fprintf(&aggs, "\n-- %s · %s\n%sCREATE VIEW IF NOT EXISTS robustream.%s AS\n%s;\n", strings.ToUpper(f.Name), a.Name, comment(a.Doc), a.Name, a.ViewSQL())
		}
	}
	return map[string]string{RowViewsFile: rows.String(), AggregationsFile: aggs.String()}
}

// Example is one query of docs/queries.sql.
type Example struct {
	Name, Doc string
	SQL       string
}

// exampleEval and examplePub are the example windows: a day of
// evaluation, a month of publication.
var (
	exampleEval = Between("evaluated_at", "2024-04-01 00:00:00", "2024-04-02 00:00:00")
	examplePub  = Between("published_at", "2024-03-01 00:00:00", "2024-04-01 00:00:00")
)

// Examples are docs/queries.sql's queries: the families' aggregations
// over example windows, and the rolling tables read as the dashboard
// reads them.
func Examples() []Example {
	return []Example{
		{"rare_by_evaluation", "RARE's four scores per model for the questions evaluated in a window.",
			RARE.Aggregation("rare_scores").Plain(exampleEval)},
		{"rare_by_period", "The same for the questions about facts published in a period (here March 2024).",
			RARE.Aggregation("rare_scores").Plain(examplePub)},
		{"rare_retrieval_by_evaluation", "RARE's retrieval robustness per model and retriever over a window.",
			RARE.Aggregation("rare_retrieval_scores").Plain(exampleEval)},
		{"rare_hourly_rollup", `Pooled mean f per model and hour from the hourly rollup (cheap at any data
size; per-question means need rare_question_scores). Use robustness_5m or
robustness_1d for other bucket sizes.`,
			Rolling(RARE, "robustream.robustness_1h", "bucket >= "+utc("2024-04-01 00:00:00")+" AND bucket < "+utc("2024-04-02 00:00:00"), "model_id", "bucket")},
		{"rare_daily_kinds", "Pooled mean f per model, day and perturbation kind (robustness_1d).",
			Rolling(RARE, "robustream.robustness_1d", "", "model_id", "bucket", "axis", "kind")},
		{"sure_by_evaluation", `SURE's RR, WR, LR and accuracies per kind and Known × Golden over a window
(sure_kind_scores, sure_split_scores and sure_model_scores are the same
query with fewer keys).`,
			SURE.Aggregation("sure_scores").Plain(exampleEval)},
		{"grade_by_evaluation", `GRADE's hops × D_r quartile error rates for the questions evaluated in a
window, for every D_r aggregation (min is GRADE's D_r, mean and power_mean its
Table 3 alternatives). The quartiles are ranked over the window's questions,
so the window is a WHERE in the innermost query.`,
			GRADE.Aggregation("grade_matrix_by_dr_agg").Plain(exampleEval)},
		{"grade_quartiles_by_evaluation", "The D_r quartiles of the same window: questions and D_r range per quartile.",
			GRADE.Aggregation("grade_dr_quartiles").Plain(exampleEval)},
		{"grade_mean_power_mean", "The matrix of every D_r aggregation side by side for one similarity function, all time.",
			`SELECT dr_agg, model_id, hops, dr_quartile, questions, error_rate, dr_min, dr_max
FROM robustream.grade_matrix_by_dr_agg
WHERE sim_func = 'lexical_cosine'
ORDER BY dr_agg, model_id, hops, dr_quartile`},
		{"prgb_by_period", "PRGB per model and task class for the facts published in a period.",
			PRGB.Aggregation("prgb_task_scores").Plain(examplePub)},
	}
}

// GenerateQueries returns docs/queries.sql.
func GenerateQueries() string {
	var b strings.Builder
	b.WriteString(generatedNote)
	b.WriteString(comment(`Example queries over robustream's ClickHouse views (schemas/sql 020, 030,
050). Copy one, change its window, run it with
  robustream sql [--data-dir D | --clickhouse URL] "QUERY"
or any ClickHouse client. Not run by migrate. Every query works on
ClickHouse 18.16 and on chDB, and sinks/clickhouse/views_test.go runs each
one (by its name line) and checks its figures.

Windows. ClickHouse 18.16 has no parameterized views, so a window is a
WHERE on the row views, which carry two times:
  evaluated_at  when the model was evaluated (the latest result of the
                (model, question) set)
  published_at  when the facts the question rests on were published
The all-time views (rare_scores, sure_scores, grade_matrix, prgb_scores,
...) are these queries without the WHERE: both are written from one
definition per family in processors/metrics. Times are DateTime in UTC.

Across questions the default is the mean of per-question means (each
question weighs the same); the pooled mean over outcome rows is named
*_pooled. The rolling tables (robustness_5m, _1h, _1d) only have pooled
sums: aggregate them with sum(value_sum) / sum(n). RARE's rows there are
selected by family, metric f and RARE's axes, as rare_question_scores
selects them.`))
	for _, e := range Examples() {
		fmt.Fprintf(&b, "\n-- name: %s\n%s%s;\n", e.Name, comment(e.Doc), e.SQL)
	}
	return b.String()
}

// Rolling is the pooled mean value of f's series rows per keys in a
// rolling table (robustness_5m, _1h, _1d), with cond (a condition on the
// buckets, "" for none): cnt outcomes, score their mean. Keys may carry
// aliases ("model_id AS model"); the query groups and orders by them.
func Rolling(f Family, table, cond string, keys ...string) string {
	sel := f.Series
	if sel == "" {
		sel = f.Selection
	}
	return rolling(table, cond, sel, keys...)
}

func rolling(table, cond, sel string, keys ...string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k
		if _, alias, ok := strings.Cut(k, " AS "); ok {
			names[i] = alias
		}
	}
	w := sel
	if cond != "" {
		w = cond + "\n  AND " + sel
	}
	return `SELECT ` + strings.Join(keys, ", ") + `, sum(n) AS cnt, sum(value_sum) / sum(n) AS score
FROM ` + table + `
WHERE ` + w + `
GROUP BY ` + strings.Join(names, ", ") + `
HAVING cnt > 0
ORDER BY ` + strings.Join(names, ", ")
}
