package metrics

import (
	"strings"

	"github.com/robustream/robustream/schemas"
)

// PRGB's task classes, recorded as its outcomes' metric (the class of the
// question's pattern): each outcome's value is one placeholder variant's
// score.
const (
	TaskFiltering   = "filtering"
	TaskCombination = "combination"
	TaskReasoning   = "reasoning"
)

// PRGB: answers drawn from the given contexts rather than memory, amid
// graded noise. A data point is a (model, question), scored by the mean
// over its placeholder variants; per model, the mean point score and the
// shares of points all correct, partly correct and all wrong.
var PRGB = Family{
	Name:      schemas.FamilyPRGB,
	Axes:      []string{schemas.AxisPlaceholder},
	Metrics:   []string{TaskFiltering, TaskCombination, TaskReasoning},
	Selection: "family = '" + schemas.FamilyPRGB + "'",
	Series:    "family = '" + schemas.FamilyPRGB + "'",
	Rows:      []RowView{prgbPoints},
	Aggregations: []Aggregation{
		{Name: "prgb_scores", Build: prgbBy("model_id"),
			Doc: `PRGB per model: the mean data-point score (each point is the mean over its
placeholder variants) and the shares of points all correct (score 1),
partially correct and all wrong (score 0).`,
			Columns: cols("model_id n score all_correct_share partial_share all_wrong_share")},
		{Name: "prgb_task_scores", Build: prgbBy("model_id, task_class"),
			Doc:     `PRGB per model and task class (filtering, combination, reasoning).`,
			Columns: cols("model_id task_class n score all_correct_share partial_share all_wrong_share")},
	},
}

var prgbPoints = RowView{
	Name: "prgb_points",
	Doc: `PRGB: one row per data point, a (model, question), with its score, the mean
over its placeholder variants. The PRGB family records a data point's task
class (filtering, combination, reasoning) as the outcomes' metric.`,
	Columns: cols("model_id question_id task_class pattern hops domain published_at evaluated_at variants score"),
	SQL: `SELECT
    model_id, question_id, task_class, pattern, hops, domain, published_at,
    last_evaluated AS evaluated_at,
    cnt AS variants,
    point_score AS score
FROM
(
    SELECT
        model_id, question_id, metric AS task_class, pattern, hops, domain, published_at,
        max(evaluated_at) AS last_evaluated,
        count() AS cnt,
        avg(value) AS point_score
    FROM robustream.outcomes FINAL
    WHERE family = '` + schemas.FamilyPRGB + `'
    GROUP BY model_id, question_id, metric, pattern, hops, domain, published_at
)`,
}

// prgbBy is PRGB's aggregation grouped by keys.
func prgbBy(keys string) func(Window, Options) string {
	return func(w Window, o Options) string {
		outer := append(strings.Split(keys, ", "),
			"points AS n",
			"score_sum / points AS score",
			"all_correct / points AS all_correct_share",
			"partial / points AS partial_share",
			"all_wrong / points AS all_wrong_share")
		inner := append(strings.Split(keys, ", "),
			"count() AS points",
			"sum(score) AS score_sum",
			"countIf(score = 1) AS all_correct",
			"countIf(score > 0 AND score < 1) AS partial",
			"countIf(score = 0) AS all_wrong")
		if o.Extra {
			outer = append(outer, "variant_n AS outcomes")
			outer = append(outer, ci("score", "score_sum / points", "score_sd", "points")...)
			inner = append(inner, "sum(variants) AS variant_n", "stddevSamp(score) AS score_sd")
		}
		return `SELECT
` + list("    ", outer) + `
FROM
(
    SELECT
` + list("        ", inner) + `
    FROM robustream.prgb_points` + where("    ", w) + `
    GROUP BY ` + keys + `
)` + orderBy(o, keys)
	}
}
