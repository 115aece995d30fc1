package metrics

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/sinks/clickhouse"
)

// gradeFixture is twelve questions, worked by hand in TestGRADEMatrix:
// D_r (GRADE's min), hops, the question's mean and power-mean D_r, how
// many of m1's two retrievals (bm25_top3, emb_x_top3) were answered
// correctly, and whether m2's one retrieval was. q01–q04 were evaluated
// three days ago, the rest ten minutes ago.
var gradeFixture = []struct {
	q                   string
	dr, mean, power     float64
	hops, m1Correct, m2 int
}{
	{"q01", 0.05, 0.95, 0.05, 1, 2, 1},
	{"q02", 0.10, 0.90, 0.10, 2, 1, 1},
	{"q03", 0.15, 0.85, 0.25, 1, 2, 1},
	{"q04", 0.22, 0.78, 0.12, 1, 1, 1},
	{"q05", 0.30, 0.70, 0.30, 2, 0, 1},
	{"q06", 0.35, 0.65, 0.35, 3, 2, 1},
	{"q07", 0.41, 0.59, 0.41, 2, 1, 1},
	{"q08", 0.50, 0.50, 0.50, 1, 0, 1},
	{"q09", 0.58, 0.42, 0.58, 3, 1, 1},
	{"q10", 0.66, 0.34, 0.66, 2, 0, 1},
	{"q11", 0.80, 0.20, 0.80, 3, 1, 1},
	{"q12", 0.95, 0.05, 0.95, 3, 0, 0},
}

func writeGRADEFixture(t *testing.T, e clickhouse.Engine, now time.Time) {
	t.Helper()
	var os []outcome
	var qs []string
	for i, f := range gradeFixture {
		age := 10 * time.Minute
		if i < 4 {
			age = 72 * time.Hour
		}
		for j, kind := range []string{"bm25_top3", "emb_x_top3"} {
			v := 0.0
			if j < f.m1Correct {
				v = 1
			}
			os = append(os, outcome{family: "grade", metric: MetricCorrect, model: "m1", question: f.q, axis: "retrieval", kind: kind, hops: f.hops, dr: f.dr, value: v, age: age})
		}
		os = append(os, outcome{family: "grade", metric: MetricCorrect, model: "m2", question: f.q, axis: "retrieval", kind: "bm25_top3", hops: f.hops, dr: f.dr, value: float64(f.m2), age: age})
		qs = append(qs, fmt.Sprintf("SELECT '%s', ['dr_mean', 'dr_power_mean'], [toFloat64(%g), toFloat64(%g)], toFloat64(%g), 'lexical_cosine', toDateTime(%d)", f.q, f.mean, f.power, f.dr, now.Unix()))
	}
	insert(t, e, now, 0, os)
	if err := e.Exec(context.Background(), "INSERT INTO robustream.questions (question_id, qa_score_names, qa_score_values, d_r, sim_func, produced_at) "+strings.Join(qs, " UNION ALL ")); err != nil {
		t.Fatal(err)
	}
}

// cellText renders GRADE cells as "agg model hops quartile error n questions".
func cellText(agg, model string, hops, quartile int, errRate float64, n, questions int64) string {
	return fmt.Sprintf("%s %s h%d Q%d err=%.4f n=%d q=%d", agg, model, hops, quartile, errRate, n, questions)
}

func sorted(s []string) string {
	sort.Strings(s)
	return strings.Join(s, "\n")
}

// TestGRADEMatrix: the hops × D_r quartile error matrix of the twelve
// questions above, worked by hand, from the view, the report and the
// dashboard's query, all time and over the last 24 hours (whose eight
// questions are ranked into quartiles of their own); GRADE's min D_r and
// the mean and power-mean alternatives, with the quartile bounds.
func TestGRADEMatrix(t *testing.T) {
	// Hand-worked. All time, min: 12 questions, 3 a quartile (by D_r:
	// q01–q03, q04–q06, q07–q09, q10–q12). m1's accuracy is its correct
	// retrievals over 2; the error rate is 1 − the mean accuracy of the
	// cell's questions. m2 is right everywhere but q12.
	min := []string{
		cellText("min", "m1", 1, 1, 0, 4, 2), // q01 1, q03 1
		cellText("min", "m1", 2, 1, 0.5, 2, 1),
		cellText("min", "m1", 1, 2, 0.5, 2, 1),
		cellText("min", "m1", 2, 2, 1, 2, 1),
		cellText("min", "m1", 3, 2, 0, 2, 1),
		cellText("min", "m1", 1, 3, 1, 2, 1),
		cellText("min", "m1", 2, 3, 0.5, 2, 1),
		cellText("min", "m1", 3, 3, 0.5, 2, 1),
		cellText("min", "m1", 2, 4, 1, 2, 1),
		cellText("min", "m1", 3, 4, 0.75, 4, 2), // q11 0.5, q12 0
		cellText("min", "m2", 1, 1, 0, 2, 2),
		cellText("min", "m2", 2, 1, 0, 1, 1),
		cellText("min", "m2", 1, 2, 0, 1, 1),
		cellText("min", "m2", 2, 2, 0, 1, 1),
		cellText("min", "m2", 3, 2, 0, 1, 1),
		cellText("min", "m2", 1, 3, 0, 1, 1),
		cellText("min", "m2", 2, 3, 0, 1, 1),
		cellText("min", "m2", 3, 3, 0, 1, 1),
		cellText("min", "m2", 2, 4, 0, 1, 1),
		cellText("min", "m2", 3, 4, 0.5, 2, 2),
	}
	// mean = 1 − D_r reverses the order: Q1 q10–q12, Q2 q07–q09, Q3
	// q04–q06, Q4 q01–q03 (m1 only here).
	mean := []string{
		cellText("mean", "m1", 2, 1, 1, 2, 1),
		cellText("mean", "m1", 3, 1, 0.75, 4, 2),
		cellText("mean", "m1", 1, 2, 1, 2, 1),
		cellText("mean", "m1", 2, 2, 0.5, 2, 1),
		cellText("mean", "m1", 3, 2, 0.5, 2, 1),
		cellText("mean", "m1", 1, 3, 0.5, 2, 1),
		cellText("mean", "m1", 2, 3, 1, 2, 1),
		cellText("mean", "m1", 3, 3, 0, 2, 1),
		cellText("mean", "m1", 1, 4, 0, 4, 2),
		cellText("mean", "m1", 2, 4, 0.5, 2, 1),
	}
	// power_mean swaps q03 (0.25) and q04 (0.12): Q1 q01, q02, q04; Q2
	// q03, q05, q06; Q3 and Q4 as under min.
	power := []string{
		cellText("power_mean", "m1", 1, 1, 0.25, 4, 2), // q01 1, q04 0.5
		cellText("power_mean", "m1", 2, 1, 0.5, 2, 1),
		cellText("power_mean", "m1", 1, 2, 0, 2, 1),
		cellText("power_mean", "m1", 2, 2, 1, 2, 1),
		cellText("power_mean", "m1", 3, 2, 0, 2, 1),
		cellText("power_mean", "m1", 1, 3, 1, 2, 1),
		cellText("power_mean", "m1", 2, 3, 0.5, 2, 1),
		cellText("power_mean", "m1", 3, 3, 0.5, 2, 1),
		cellText("power_mean", "m1", 2, 4, 1, 2, 1),
		cellText("power_mean", "m1", 3, 4, 0.75, 4, 2),
	}
	bounds := []string{
		"min Q1 0.05-0.15 q=3", "min Q2 0.22-0.35 q=3", "min Q3 0.41-0.58 q=3", "min Q4 0.66-0.95 q=3",
		"mean Q1 0.05-0.34 q=3", "mean Q2 0.42-0.59 q=3", "mean Q3 0.65-0.78 q=3", "mean Q4 0.85-0.95 q=3",
		"power_mean Q1 0.05-0.12 q=3", "power_mean Q2 0.25-0.35 q=3", "power_mean Q3 0.41-0.58 q=3", "power_mean Q4 0.66-0.95 q=3",
	}
	// The last 24 hours: q05–q12, 2 a quartile (q05–q06, q07–q08,
	// q09–q10, q11–q12).
	window := []string{
		cellText("min", "m1", 2, 1, 1, 2, 1),
		cellText("min", "m1", 3, 1, 0, 2, 1),
		cellText("min", "m1", 1, 2, 1, 2, 1),
		cellText("min", "m1", 2, 2, 0.5, 2, 1),
		cellText("min", "m1", 2, 3, 1, 2, 1),
		cellText("min", "m1", 3, 3, 0.5, 2, 1),
		cellText("min", "m1", 3, 4, 0.75, 4, 2),
		cellText("min", "m2", 2, 1, 0, 1, 1),
		cellText("min", "m2", 3, 1, 0, 1, 1),
		cellText("min", "m2", 1, 2, 0, 1, 1),
		cellText("min", "m2", 2, 2, 0, 1, 1),
		cellText("min", "m2", 2, 3, 0, 1, 1),
		cellText("min", "m2", 3, 3, 0, 1, 1),
		cellText("min", "m2", 3, 4, 0.5, 2, 2),
	}
	windowBounds := []string{"min Q1 0.30-0.35 q=2", "min Q2 0.41-0.50 q=2", "min Q3 0.58-0.66 q=2", "min Q4 0.80-0.95 q=2"}
	m1 := func(cells []string) (out []string) {
		for _, c := range cells {
			if strings.Contains(c, " m1 ") {
				out = append(out, c)
			}
		}
		return out
	}

	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		ctx := context.Background()
		now := time.Now()
		writeGRADEFixture(t, e, now)

		// The all-time view.
		var view []string
		for _, r := range rowsOf(t, e, "SELECT * FROM robustream.grade_matrix") {
			view = append(view, cellText("min", r["model_id"], int(r.Count("hops")), int(r.Count("dr_quartile")), float64(r.Score("error_rate")), r.Count("n"), r.Count("questions")))
		}
		if sorted(view) != sorted(min) {
			t.Errorf("grade_matrix:\n%s\nwant\n%s", sorted(view), sorted(min))
		}
		var byAgg []string
		for _, r := range rowsOf(t, e, "SELECT * FROM robustream.grade_matrix_by_dr_agg WHERE model_id = 'm1'") {
			byAgg = append(byAgg, cellText(r["dr_agg"], r["model_id"], int(r.Count("hops")), int(r.Count("dr_quartile")), float64(r.Score("error_rate")), r.Count("n"), r.Count("questions")))
		}
		if want := sorted(append(append(m1(min), mean...), power...)); sorted(byAgg) != want {
			t.Errorf("grade_matrix_by_dr_agg:\n%s\nwant\n%s", sorted(byAgg), want)
		}
		var qb []string
		for _, r := range rowsOf(t, e, "SELECT * FROM robustream.grade_dr_quartiles") {
			qb = append(qb, fmt.Sprintf("%s Q%s %.2f-%.2f q=%s", r["dr_agg"], r["dr_quartile"], float64(r.Score("dr_min")), float64(r.Score("dr_max")), r["questions"]))
			if r["sim_func"] != "lexical_cosine" {
				t.Errorf("quartile row %v: sim_func %q", r, r["sim_func"])
			}
		}
		if sorted(qb) != sorted(bounds) {
			t.Errorf("grade_dr_quartiles:\n%s\nwant\n%s", sorted(qb), sorted(bounds))
		}

		// The report, all time and over 24 hours.
		for _, tc := range []struct {
			win          time.Duration
			cells, alts  []string
			bounds       []string
			boundsPrefix string
		}{{0, min, append(mean, power...), bounds, ""}, {24 * time.Hour, window, nil, windowBounds, "min "}} {
			rep, err := BuildReport(ctx, e.Query, "w", tc.win)
			if err != nil {
				t.Fatal(err)
			}
			var got, alts, qs []string
			for _, c := range rep.GRADE.Cells {
				got = append(got, cellText(c.DRAgg, c.Model, c.Hops, c.Quartile, float64(c.ErrorRate), c.N, c.Questions))
			}
			for _, c := range rep.GRADE.Alternatives {
				if c.Model == "m1" {
					alts = append(alts, cellText(c.DRAgg, c.Model, c.Hops, c.Quartile, float64(c.ErrorRate), c.N, c.Questions))
				}
			}
			for _, q := range rep.GRADE.Quartiles {
				if s := fmt.Sprintf("%s Q%d %.2f-%.2f q=%d", q.DRAgg, q.Quartile, float64(q.DrMin), float64(q.DrMax), q.Questions); strings.HasPrefix(s, tc.boundsPrefix) {
					qs = append(qs, s)
				}
			}
			if sorted(got) != sorted(tc.cells) {
				t.Errorf("report (window %v) GRADE cells:\n%s\nwant\n%s", tc.win, sorted(got), sorted(tc.cells))
			}
			if tc.alts != nil && sorted(alts) != sorted(tc.alts) {
				t.Errorf("report (window %v) alternatives:\n%s\nwant\n%s", tc.win, sorted(alts), sorted(tc.alts))
			}
			if sorted(qs) != sorted(tc.bounds) {
				t.Errorf("report (window %v) quartiles:\n%s\nwant\n%s", tc.win, sorted(qs), sorted(tc.bounds))
			}
			// The confidence interval of m1's 3-hop Q4 cell: error rates
			// 0.5 and 1 (q11, q12 under min, all time and windowed),
			// sample sd √0.125, half width 1.96 · √0.125 / √2 = 0.49,
			// clipped to [0, 1].
			// Every cell of two questions or more has an interval of
			// positive width around its rate, even when its questions all
			// agree (the Wilson interval then).
			for _, c := range rep.GRADE.Cells {
				lo, hi, r := float64(c.ErrorRateCI[0]), float64(c.ErrorRateCI[1]), float64(c.ErrorRate)
				if c.Questions >= 2 && !(lo < hi && lo <= r+1e-9 && r <= hi+1e-9) {
					t.Errorf("%s %d-hop Q%d: error rate %.3f over %d questions, interval [%.3f, %.3f]", c.Model, c.Hops, c.Quartile, r, c.Questions, lo, hi)
				}
			}
			for _, c := range rep.GRADE.Cells {
				if c.Model == "m1" && c.Hops == 3 && c.Quartile == 4 {
					if math.Abs(float64(c.ErrorRateCI[0])-0.26) > 1e-9 || math.Abs(float64(c.ErrorRateCI[1])-1) > 1e-9 {
						t.Errorf("m1 3-hop Q4 error CI %v, want [0.26, 1]", c.ErrorRateCI)
					}
				}
			}

			// The dashboard's panel query over the same window.
			var dash []string
			for _, r := range rowsOf(t, e, GRADEPanel(ReportWindow(tc.win))) {
				dash = append(dash, cellText("min", r["model"], int(r.Count("hops")), int(r.Count("quartile")), float64(r.Score("error_rate")), r.Count("cnt"), r.Count("questions")))
			}
			if sorted(dash) != sorted(tc.cells) {
				t.Errorf("dashboard (window %v):\n%s\nwant\n%s", tc.win, sorted(dash), sorted(tc.cells))
			}
		}
	})
}
