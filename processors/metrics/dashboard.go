package metrics

import "strings"

// The dashboard's panels, each its family's aggregation over the panel's
// window (AllTime for "all") under the column names the page reads; a
// score x comes with x_ci, its 95% confidence interval [lo, hi] (nulls
// below two units).

// GRADEPanel is the GRADE heat map: grade_matrix over w.
func GRADEPanel(w Window) string {
	return `SELECT model_id AS model, sim_func, hops, dr_quartile AS quartile, n AS cnt, questions,
    error_rate, [error_rate_ci_lo, error_rate_ci_hi] AS error_rate_ci, dr_min, dr_max
FROM
(
` + GRADE.Aggregation("grade_matrix").Query(w) + `
)
ORDER BY model, sim_func, hops, quartile`
}

// SUREPanel is SURE's RR/WR/LR per kind: sure_kind_scores over w.
func SUREPanel(w Window) string {
	return `SELECT model_id AS model, axis, kind, n AS cnt, rr, [rr_ci_lo, rr_ci_hi] AS rr_ci, wr, [wr_ci_lo, wr_ci_hi] AS wr_ci,
    lr, [lr_ci_lo, lr_ci_hi] AS lr_ci, acc_original, acc_perturbed
FROM
(
` + SURE.Aggregation("sure_kind_scores").Query(w) + `
)
ORDER BY model, axis, kind`
}

// PRGBPanel is PRGB's shares per model: prgb_scores over w.
func PRGBPanel(w Window) string {
	return `SELECT model_id AS model, n AS cnt, score, [score_ci_lo, score_ci_hi] AS score_ci, all_correct_share, partial_share, all_wrong_share
FROM
(
` + PRGB.Aggregation("prgb_scores").Query(w) + `
)
ORDER BY model`
}

// SeriesQuery is the rolling score per model, family and bucket of table
// (robustness_5m, _1h, _1d) under cond: each registered family with a
// series contributes its own rows (Family.Series), so a family's points
// are the pooled mean of its rows alone.
func SeriesQuery(table, cond string) string {
	var sel []string
	for _, f := range Families {
		if f.Series != "" {
			sel = append(sel, "("+f.Series+")")
		}
	}
	return rolling(table, cond, "("+strings.Join(sel, " OR ")+")", "model_id AS model", "toString(family) AS fam", "toUInt32(bucket) AS t")
}

// KindsQuery is RARE's pooled mean f per model and perturbation kind of
// table under cond (the dashboard sets each against the model's original
// axis).
func KindsQuery(table, cond string) string {
	return Rolling(RARE, table, cond, "model_id AS model", "axis", "kind")
}

// CoverageQuery counts, per model and perturbation kind, the cells the
// registered families scored in table (a rolling table): one row per
// scored result (Family.Cells). A kind two families score (a retriever's
// top-k: RARE's f and GRADE's correctness) counts once, as the larger of
// the two. SURE records a noise context's instance under the kind without
// its _noise suffix, so both of a SURE kind's slots count under that name.
func CoverageQuery(table string) string {
	var sel []string
	for _, f := range Families {
		c := f.Cells
		if c == "" {
			c = f.Selection
		}
		sel = append(sel, "("+c+")")
	}
	return `SELECT model, axis, kind, max(family_n) AS cnt
FROM
(
    SELECT model_id AS model, axis, kind, family, sum(n) AS family_n
    FROM ` + table + `
    WHERE ` + strings.Join(sel, "\n       OR ") + `
    GROUP BY model, axis, kind, family
)
GROUP BY model, axis, kind
HAVING cnt > 0
ORDER BY model, axis, kind`
}
