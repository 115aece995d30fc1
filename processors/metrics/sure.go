package metrics

import (
	"strings"

	"github.com/robustream/robustream/schemas"
)

// SURE's outcome metrics, two per perturbed instance under its variant id:
// c = Y(original) − Y(perturbed) ∈ {−1, 0, 1}, and Y(original) ∈ {0, 1}.
const (
	MetricC         = "c"
	MetricYOriginal = "y_original"
)

// SURE: how answers change when a context carries a spurious feature
// (SURE §3.4): per instance C = Y(original) − Y(perturbed); RR, WR and LR
// are the shares of C = 0, −1 and 1, pooled over instances as SURE reports
// them, per kind and Known/Unknown × Golden/Noise.
var SURE = Family{
	Name:      schemas.FamilySURE,
	Axes:      []string{schemas.AxisSpurious},
	Metrics:   []string{MetricC, MetricYOriginal},
	Selection: "family = '" + schemas.FamilySURE + "'",
	Cells:     "family = '" + schemas.FamilySURE + "' AND metric = '" + MetricC + "'",
	Rows:      []RowView{sureInstances},
	Aggregations: []Aggregation{
		{Name: "sure_scores", Build: sureBy("model_id, axis, kind, known, golden"),
			Doc: `SURE per perturbation kind and Known/Unknown × Golden/Noise: RR, WR and LR are
the shares of instances with C = 0, −1 and 1 (they add up to 1).
acc_original is the mean Y(original) over the same instances and
acc_perturbed = acc_original + WR − LR, the mean Y(perturbed).`,
			Columns: cols("model_id axis kind known golden n rr wr lr acc_original acc_perturbed")},
		{Name: "sure_kind_scores", Build: sureBy("model_id, axis, kind"),
			Doc:     `SURE per perturbation kind over every Known/Golden cell.`,
			Columns: cols("model_id axis kind n rr wr lr acc_original acc_perturbed")},
		{Name: "sure_split_scores", Build: sureBy("model_id, known, golden"),
			Doc:     `SURE per Known/Unknown × Golden/Noise cell over every kind.`,
			Columns: cols("model_id known golden n rr wr lr acc_original acc_perturbed")},
		{Name: "sure_model_scores", Build: sureBy("model_id"),
			Doc:     `SURE per model over every kind and cell.`,
			Columns: cols("model_id n rr wr lr acc_original acc_perturbed")},
	},
}

var sureInstances = RowView{
	Name: "sure_instances",
	Doc: `SURE (§3.4): one row per (model, perturbed instance), from its two outcomes
(metric c and y_original). Y(perturbed) = y_original − c. known = correct
closed book, golden = the context holds an answer. y_original (and so
y_perturbed) is NaN for an instance without its y_original row.`,
	Columns: cols("model_id question_id variant_id axis kind known golden pattern hops domain published_at evaluated_at c y_original y_perturbed"),
	SQL: `SELECT
    model_id, question_id, variant_id, axis, kind, known, golden,
    pattern, hops, domain, published_at,
    last_evaluated AS evaluated_at,
    c_value AS c,
    y_orig AS y_original,
    y_orig - c_value AS y_perturbed
FROM
(
    SELECT
        model_id, question_id, variant_id, axis, kind, known, golden,
        pattern, hops, domain, published_at,
        max(evaluated_at) AS last_evaluated,
        countIf(metric = '` + MetricC + `') AS c_rows,
        sumIf(value, metric = '` + MetricC + `') AS c_value,
        if(countIf(metric = '` + MetricYOriginal + `') = 0, nan, sumIf(value, metric = '` + MetricYOriginal + `')) AS y_orig
    FROM robustream.outcomes FINAL
    WHERE family = '` + schemas.FamilySURE + `'
    GROUP BY model_id, question_id, variant_id, axis, kind, known, golden,
        pattern, hops, domain, published_at
)
WHERE c_rows > 0`,
}

// sureBy is SURE's aggregation grouped by keys: every SURE score is this
// one text with other keys. The confidence intervals of the shares are
// Wilson intervals over instances (SURE's unit).
func sureBy(keys string) func(Window, Options) string {
	return func(w Window, o Options) string {
		outer := append(strings.Split(keys, ", "),
			"cnt AS n",
			"rr_cnt / cnt AS rr",
			"wr_cnt / cnt AS wr",
			"lr_cnt / cnt AS lr",
			"y_orig_sum / cnt AS acc_original",
			"y_orig_sum / cnt + wr_cnt / cnt - lr_cnt / cnt AS acc_perturbed")
		inner := append(strings.Split(keys, ", "),
			"count() AS cnt",
			"countIf(c = 0) AS rr_cnt",
			"countIf(c = -1) AS wr_cnt",
			"countIf(c = 1) AS lr_cnt",
			"sum(y_original) AS y_orig_sum")
		if o.Extra {
			for _, s := range []string{"rr", "wr", "lr"} {
				outer = append(outer, wilson(s, s+"_cnt / cnt", "cnt")...)
			}
		}
		return `SELECT
` + list("    ", outer) + `
FROM
(
    SELECT
` + list("        ", inner) + `
    FROM robustream.sure_instances` + where("    ", w) + `
    GROUP BY ` + keys + `
)` + orderBy(o, keys)
	}
}
