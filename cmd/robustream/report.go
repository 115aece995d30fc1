package main

// `robustream report`: the robustness metrics of every family in the
// terminal (text) or as JSON.
//
// The report reads the score views the dashboard reads (schemas/sql 030,
// 035, 050), never the raw outcomes with math of its own: over all time
// the all-time views (rare_scores, grade_matrix: the dashboard's
// gradeQuery), over a window the row views (rare_question_scores,
// sure_instances, grade_questions, prgb_points, which read outcomes FINAL)
// with the dashboard's windowed SQL where it has one (gradeSince). So the
// report and the dashboard cannot disagree on a figure. The window filters
// on evaluated_at, the time of evaluation. The queries use only what
// ClickHouse 18.16 and chDB both accept, like the DDL.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/robustream/robustream/processors/pair"
)

// rareWhere selects RARE's judge f rows on RARE's axes (pair.RAREWhere),
// for the report and the dashboard's RARE queries alike.
var rareWhere = pair.RAREWhere()

func cmdReportMetrics(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	window := fs.String("window", "all", "evaluation-time window: a duration (30m, 1h, 24h), days (7d) or all")
	format := fs.String("format", "text", "output: text or json")
	cfg, err := parseConfig(fs, args, stdout, sqlKeys...)
	if err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected argument %q (usage: robustream report [--window 24h] [--format text|json])", fs.Arg(0))
	}
	win, err := parseWindow(*window)
	if err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("--format %q: want text or json", *format)
	}
	q, err := newQuerier(ctx, cfg)
	if err != nil {
		return err
	}
	defer q.close()
	rep, err := buildReport(ctx, q.query, *window, win)
	if err != nil {
		return err
	}
	if models, errs := readModels(cfg.Models); len(errs) == 0 {
		rep.setGenerator(models.generator != nil)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.writeText(stdout)
}

// parseWindow reads --window: "all" (0: no filter), a Go duration, or a
// whole number of days ("7d").
func parseWindow(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return 0, nil
	}
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil {
			return 0, fmt.Errorf("--window %q: want a duration (1h, 24h), days (7d) or all", s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("--window %q: want a duration (1h, 24h), days (7d) or all", s)
		}
	}
	if d < time.Second {
		return 0, fmt.Errorf("--window %q: must be at least 1s", s)
	}
	return d, nil
}

// metricReport is the whole report; its JSON form is the --format json
// output. Scores are null where there is nothing to score.
type metricReport struct {
	Window        string        `json:"window"`
	WindowSeconds int64         `json:"window_seconds"` // 0: all time
	Source        string        `json:"source"`
	RARE          []rareRow     `json:"rare"`
	SURE          []sureRow     `json:"sure"`
	GRADE         gradeReport   `json:"grade"`
	PRGB          []prgbRow     `json:"prgb"`
	Coverage      []coverageRow `json:"coverage"`
	Models        []string      `json:"models"`
	since         string        // the window's start, an SQL expression (the epoch for all time)
	query         queryFunc     // how to reach ClickHouse
	ctx           context.Context
	seen          map[string]bool
}

// rscore is a score, rounded in JSON, or null (NaN: nothing to average).
type rscore float64

func (s rscore) MarshalJSON() ([]byte, error) {
	f := float64(s)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(math.Round(f*1e6)/1e6, 'f', -1, 64)), nil
}

func (s rscore) text() string {
	if math.IsNaN(float64(s)) {
		return "—"
	}
	return fmt.Sprintf("%.3f", float64(s))
}

// rareRow: RARE's judge f per model. The scores are means of per-question
// means (each question weighs the same); the pooled means over all outcomes
// sit beside them.
type rareRow struct {
	Model     string `json:"model"`
	Baseline  bool   `json:"baseline"`
	Outcomes  int64  `json:"outcomes"`
	Questions int64  `json:"questions"`
	Overall   rscore `json:"overall"`
	Query     rscore `json:"query"`
	Document  rscore `json:"document"`
	Retrieval rscore `json:"retrieval"`
	Pooled    struct {
		Overall   rscore `json:"overall"`
		Query     rscore `json:"query"`
		Document  rscore `json:"document"`
		Retrieval rscore `json:"retrieval"`
	} `json:"pooled"`
}

// sureRow: SURE's RR, WR and LR per model and Known/Unknown × Golden/Noise
// split ("all" for the model's total).
type sureRow struct {
	Model string `json:"model"`
	Split string `json:"split"`
	N     int64  `json:"n"`
	RR    rscore `json:"rr"`
	WR    rscore `json:"wr"`
	LR    rscore `json:"lr"`
}

// gradeReport: GRADE's error rate per hops × D_r quartile, as grade_matrix
// gives it: quartiles ranked over the window's distinct graded questions
// (a question asked of many models weighs once; the four bins differ in
// size by one at most), per similarity function.
type gradeReport struct {
	Cells []gradeCell `json:"cells"`
}

type gradeCell struct {
	Model     string `json:"model"`
	SimFunc   string `json:"sim_func"`
	Hops      int    `json:"hops"`
	Quartile  int    `json:"dr_quartile"`
	N         int64  `json:"n"`
	ErrorRate rscore `json:"error_rate"`
	DrMin     rscore `json:"dr_min"`
	DrMax     rscore `json:"dr_max"`
}

// prgbRow: PRGB per model; a data point is a (model, question), scored by
// the mean over its placeholder variants.
type prgbRow struct {
	Model      string `json:"model"`
	Points     int64  `json:"points"`
	Score      rscore `json:"score"`
	AllCorrect rscore `json:"all_correct_share"`
	Partial    rscore `json:"partial_share"`
	AllWrong   rscore `json:"all_wrong_share"`
	Outcomes   int64  `json:"outcomes"`
}

// buildReport runs the report's queries.
func buildReport(ctx context.Context, query queryFunc, window string, win time.Duration) (*metricReport, error) {
	r := &metricReport{Window: window, WindowSeconds: int64(win / time.Second), Source: "the score views (schemas/sql), as the dashboard reads them",
		RARE: []rareRow{}, SURE: []sureRow{}, PRGB: []prgbRow{}, Models: []string{},
		GRADE: gradeReport{Cells: []gradeCell{}}, query: query, ctx: ctx, seen: map[string]bool{}}
	if r.Window == "" {
		r.Window = "all"
	}
	r.since = "toDateTime(0)"
	if win > 0 {
		r.since = fmt.Sprintf("now() - %d", r.WindowSeconds)
	}
	for _, step := range []func() error{r.loadRARE, r.loadSURE, r.loadGRADE, r.loadPRGB, r.loadCoverage} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	sort.Strings(r.Models)
	return r, nil
}

// rows runs sql and splits its TabSeparated output; every row must have
// cols columns.
func (r *metricReport) rows(sql string, cols int) ([][]string, error) {
	out, err := r.query(r.ctx, sql, "TabSeparated")
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if line == "" {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != cols {
			return nil, fmt.Errorf("report: unexpected row %q (want %d columns)", line, cols)
		}
		rows = append(rows, c)
	}
	return rows, nil
}

func (r *metricReport) model(m string) {
	if !r.seen[m] {
		r.seen[m] = true
		r.Models = append(r.Models, m)
	}
}

func rnum(s string) rscore {
	if s == `\N` || s == "" {
		return rscore(math.NaN())
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return rscore(math.NaN())
	}
	return rscore(f)
}

func rcount(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// rareColumns are rare_scores' columns in the report's order.
const rareColumns = `model_id, n, questions, overall, query_robustness, document_robustness, retrieval_robustness,
 overall_pooled, query_robustness_pooled, document_robustness_pooled, retrieval_robustness_pooled`

// rareSince is rare_scores over the questions evaluated since since: the
// view's aggregation (035) over its row view, with the window.
func rareSince(since string) string {
	return `SELECT model_id, sum(n), count(),
 avg(overall), avgIf(query_robustness, query_n > 0), avgIf(document_robustness, document_n > 0),
 avgIf(retrieval_robustness, retrieval_n > 0),
 sum(f_sum) / sum(n), if(sum(query_n) = 0, nan, sum(query_sum) / sum(query_n)),
 if(sum(document_n) = 0, nan, sum(document_sum) / sum(document_n)),
 if(sum(retrieval_n) = 0, nan, sum(retrieval_sum) / sum(retrieval_n))
FROM robustream.rare_question_scores WHERE evaluated_at >= ` + since + `
GROUP BY model_id ORDER BY model_id`
}

func (r *metricReport) loadRARE() error {
	sql := `SELECT ` + rareColumns + ` FROM robustream.rare_scores ORDER BY model_id`
	if r.WindowSeconds > 0 {
		sql = rareSince(r.since)
	}
	rows, err := r.rows(sql, 11)
	if err != nil {
		return err
	}
	for _, c := range rows {
		row := rareRow{Model: c[0], Baseline: strings.HasPrefix(c[0], "builtin:"), Outcomes: rcount(c[1]), Questions: rcount(c[2]),
			Overall: rnum(c[3]), Query: rnum(c[4]), Document: rnum(c[5]), Retrieval: rnum(c[6])}
		row.Pooled.Overall, row.Pooled.Query, row.Pooled.Document, row.Pooled.Retrieval = rnum(c[7]), rnum(c[8]), rnum(c[9]), rnum(c[10])
		r.RARE = append(r.RARE, row)
		r.model(c[0])
	}
	return nil
}

// sureSplit names a Known × Golden cell.
func sureSplit(known, golden string) string {
	k, g := "unknown", "noise"
	if known == "1" {
		k = "known"
	}
	if golden == "1" {
		g = "golden"
	}
	return k + "/" + g
}

func (r *metricReport) loadSURE() error {
	// sure_instances: one row per perturbed instance (SURE writes two
	// outcomes per instance, metric c and y_original).
	rows, err := r.rows(`SELECT model_id, known, golden, count(), countIf(c = 0), countIf(c = -1), countIf(c = 1)
FROM robustream.sure_instances WHERE evaluated_at >= `+r.since+`
GROUP BY model_id, known, golden ORDER BY model_id, known DESC, golden DESC`, 7)
	if err != nil {
		return err
	}
	type acc struct{ n, rr, wr, lr int64 }
	share := func(a acc) (rscore, rscore, rscore) {
		if a.n == 0 {
			nan := rscore(math.NaN())
			return nan, nan, nan
		}
		n := float64(a.n)
		return rscore(float64(a.rr) / n), rscore(float64(a.wr) / n), rscore(float64(a.lr) / n)
	}
	var cur string
	var total acc
	var cells []sureRow
	flush := func() {
		if cur == "" {
			return
		}
		all := sureRow{Model: cur, Split: "all", N: total.n}
		all.RR, all.WR, all.LR = share(total)
		r.SURE = append(r.SURE, all)
		r.SURE = append(r.SURE, cells...)
		r.model(cur)
	}
	for _, c := range rows {
		if c[0] != cur {
			flush()
			cur, total, cells = c[0], acc{}, nil
		}
		a := acc{rcount(c[3]), rcount(c[4]), rcount(c[5]), rcount(c[6])}
		total.n, total.rr, total.wr, total.lr = total.n+a.n, total.rr+a.rr, total.wr+a.wr, total.lr+a.lr
		row := sureRow{Model: c[0], Split: sureSplit(c[1], c[2]), N: a.n}
		row.RR, row.WR, row.LR = share(a)
		cells = append(cells, row)
	}
	flush()
	return nil
}

func (r *metricReport) loadGRADE() error {
	// The dashboard's GRADE panel, all time or windowed: the same SQL.
	sql := gradeQuery
	if r.WindowSeconds > 0 {
		sql = gradeSince(r.since)
	}
	rows, err := r.rows(sql, 8)
	if err != nil {
		return err
	}
	for _, c := range rows {
		h, _ := strconv.Atoi(c[2])
		q, _ := strconv.Atoi(c[3])
		r.GRADE.Cells = append(r.GRADE.Cells, gradeCell{Model: c[0], SimFunc: c[1], Hops: h, Quartile: q, N: rcount(c[4]),
			ErrorRate: rnum(c[5]), DrMin: rnum(c[6]), DrMax: rnum(c[7])})
		r.model(c[0])
	}
	return nil
}

func (r *metricReport) loadPRGB() error {
	rows, err := r.rows(`SELECT model_id, count(), avg(score), countIf(score = 1) / count(), countIf(score > 0 AND score < 1) / count(),
 countIf(score = 0) / count(), sum(variants)
FROM robustream.prgb_points WHERE evaluated_at >= `+r.since+`
GROUP BY model_id ORDER BY model_id`, 7)
	if err != nil {
		return err
	}
	for _, c := range rows {
		r.PRGB = append(r.PRGB, prgbRow{Model: c[0], Points: rcount(c[1]), Score: rnum(c[2]), AllCorrect: rnum(c[3]),
			Partial: rnum(c[4]), AllWrong: rnum(c[5]), Outcomes: rcount(c[6])})
		r.model(c[0])
	}
	return nil
}

func modelLabel(model string) string {
	if strings.HasPrefix(model, "builtin:") {
		return model + " (baseline)"
	}
	return model
}

// shade renders an error rate as a block: light for few errors, full for
// all wrong.
func shade(rate rscore) string {
	f := float64(rate)
	switch {
	case math.IsNaN(f):
		return "·"
	case f < 0.2:
		return " "
	case f < 0.4:
		return "░"
	case f < 0.6:
		return "▒"
	case f < 0.8:
		return "▓"
	default:
		return "█"
	}
}

func (r *metricReport) writeText(w io.Writer) error {
	var b strings.Builder
	if r.WindowSeconds == 0 {
		fmt.Fprintf(&b, "robustness report · window: all time · from the score views\n\n")
	} else {
		fmt.Fprintf(&b, "robustness report · window: last %s of evaluation time · from the score views\n\n", r.Window)
	}

	fmt.Fprintf(&b, "RARE robustness (judge f, mean of per-question means; 1 = robust)\n")
	if len(r.RARE) == 0 {
		fmt.Fprintf(&b, "  (no RARE outcomes)\n")
	} else {
		fmt.Fprintf(&b, "  %-34s %8s %9s %8s %8s %8s %9s %7s\n", "model", "outcomes", "questions", "overall", "query", "document", "retrieval", "pooled")
		for _, x := range r.RARE {
			fmt.Fprintf(&b, "  %-34s %8d %9d %8s %8s %8s %9s %7s\n", modelLabel(x.Model), x.Outcomes, x.Questions,
				x.Overall.text(), x.Query.text(), x.Document.text(), x.Retrieval.text(), x.Pooled.Overall.text())
		}
	}

	fmt.Fprintf(&b, "\nSURE (shares of C = Y(original) − Y(perturbed): RR right→right/wrong→wrong, WR wrong→right, LR right→wrong)\n")
	if len(r.SURE) == 0 {
		fmt.Fprintf(&b, "  (no SURE outcomes)\n")
	} else {
		fmt.Fprintf(&b, "  %-34s %-15s %8s %7s %7s %7s\n", "model", "split", "n", "RR", "WR", "LR")
		for _, x := range r.SURE {
			name := modelLabel(x.Model)
			if x.Split != "all" {
				name = ""
			}
			fmt.Fprintf(&b, "  %-34s %-15s %8d %7s %7s %7s\n", name, x.Split, x.N, x.RR.text(), x.WR.text(), x.LR.text())
		}
	}

	fmt.Fprintf(&b, "\nGRADE error rate (hops × D_r quartile; shade ' ' <0.2 ░ <0.4 ▒ <0.6 ▓ <0.8 █ ≥0.8, · no questions)\n")
	if len(r.GRADE.Cells) == 0 {
		fmt.Fprintf(&b, "  (no GRADE outcomes)\n")
	} else {
		fmt.Fprintf(&b, "  D_r quartiles ranked over the window's questions (bins differ in size by one at most)\n")
		byModel := map[string]map[[2]int]gradeCell{}
		var models []string
		maxHops := 0
		for _, c := range r.GRADE.Cells {
			key := c.Model + "\x00" + c.SimFunc
			if byModel[key] == nil {
				byModel[key] = map[[2]int]gradeCell{}
				models = append(models, key)
			}
			byModel[key][[2]int{c.Hops, c.Quartile}] = c
			maxHops = max(maxHops, c.Hops)
		}
		for _, m := range models {
			model, sim, _ := strings.Cut(m, "\x00")
			label := modelLabel(model)
			if sim != "" {
				label += " · " + sim
			}
			fmt.Fprintf(&b, "  %s\n    %-5s", label, "hops")
			for q := 1; q <= 4; q++ {
				fmt.Fprintf(&b, " %-12s", fmt.Sprintf("Q%d", q))
			}
			fmt.Fprintln(&b)
			minHops := maxHops
			for k := range byModel[m] {
				minHops = min(minHops, k[0])
			}
			for h := minHops; h <= maxHops; h++ {
				fmt.Fprintf(&b, "    %-5d", h)
				for q := 1; q <= 4; q++ {
					c, ok := byModel[m][[2]int{h, q}]
					if !ok {
						fmt.Fprintf(&b, " %-12s", "·")
						continue
					}
					cell := fmt.Sprintf("%s%s%s %s", shade(c.ErrorRate), shade(c.ErrorRate), c.ErrorRate.text(), fmt.Sprintf("(%d)", c.N))
					fmt.Fprintf(&b, " %-12s", cell)
				}
				fmt.Fprintln(&b)
			}
		}
	}

	fmt.Fprintf(&b, "\nPRGB (per (model, question): mean over placeholder variants)\n")
	if len(r.PRGB) == 0 {
		fmt.Fprintf(&b, "  (no PRGB outcomes)\n")
	} else {
		fmt.Fprintf(&b, "  %-34s %8s %7s %11s %8s %9s\n", "model", "points", "score", "all-correct", "partial", "all-wrong")
		for _, x := range r.PRGB {
			fmt.Fprintf(&b, "  %-34s %8d %7s %11s %8s %9s\n", modelLabel(x.Model), x.Points, x.Score.text(), x.AllCorrect.text(), x.Partial.text(), x.AllWrong.text())
		}
	}
	r.writeCoverage(&b)
	// Cells are padded to a width; a line ends at its last character.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}
