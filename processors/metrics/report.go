package metrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Report is every family's scores over one window of evaluation time, each
// from its family's aggregations (the views' own text, with the window):
// what `robustream report` prints and --format json writes. Scores are
// null in JSON where there is nothing to score; x_ci is the 95%
// confidence interval of score x over its units (questions, instances,
// data points), null below two units.
type Report struct {
	Window        string      `json:"window"`
	WindowSeconds int64       `json:"window_seconds"` // 0: all time
	Source        string      `json:"source"`
	RARE          []RARERow   `json:"rare"`
	SURE          []SURERow   `json:"sure"`
	GRADE         GRADEReport `json:"grade"`
	PRGB          []PRGBRow   `json:"prgb"`
	Models        []string    `json:"models"`
}

// RARERow is RARE's judge f per model: means of per-question means, the
// pooled means over outcomes beside them, and retrieval robustness per
// retriever.
type RARERow struct {
	Model       string `json:"model"`
	Baseline    bool   `json:"baseline"`
	Outcomes    int64  `json:"outcomes"`
	Questions   int64  `json:"questions"`
	Overall     Score  `json:"overall"`
	OverallCI   CI     `json:"overall_ci"`
	Query       Score  `json:"query"`
	QueryCI     CI     `json:"query_ci"`
	Document    Score  `json:"document"`
	DocumentCI  CI     `json:"document_ci"`
	Retrieval   Score  `json:"retrieval"`
	RetrievalCI CI     `json:"retrieval_ci"`
	Pooled      struct {
		Overall   Score `json:"overall"`
		Query     Score `json:"query"`
		Document  Score `json:"document"`
		Retrieval Score `json:"retrieval"`
	} `json:"pooled"`
	// Retrievers is retrieval robustness per retriever (RARE §3.3.4: the
	// retrieval variant's kind, bm25_top3, emb_<name>_top3).
	Retrievers []RetrieverRow `json:"retrievers"`
}

// RetrieverRow is RARE's retrieval robustness of one retriever.
type RetrieverRow struct {
	Retriever   string `json:"retriever"`
	Outcomes    int64  `json:"outcomes"`
	Questions   int64  `json:"questions"`
	Retrieval   Score  `json:"retrieval"`
	RetrievalCI CI     `json:"retrieval_ci"`
	Pooled      Score  `json:"pooled"`
}

// SURERow is SURE's RR, WR and LR of one model over one slice: Split is
// "all" or a Known/Unknown × Golden/Noise cell ("known/golden", …); Kind
// is "" over every kind, else axis/kind (split "all").
type SURERow struct {
	Model        string `json:"model"`
	Split        string `json:"split"`
	Kind         string `json:"kind,omitempty"`
	N            int64  `json:"n"`
	RR           Score  `json:"rr"`
	RRCI         CI     `json:"rr_ci"`
	WR           Score  `json:"wr"`
	WRCI         CI     `json:"wr_ci"`
	LR           Score  `json:"lr"`
	LRCI         CI     `json:"lr_ci"`
	AccOriginal  Score  `json:"acc_original"`
	AccPerturbed Score  `json:"acc_perturbed"`
}

// GRADEReport is GRADE's hops × D_r quartile error matrix: Cells under
// GRADE's D_r (the least similar chunk), Alternatives under the mean and
// power-mean aggregations (GRADE Table 3), Quartiles the bounds of every
// aggregation's quartiles over the window's questions.
type GRADEReport struct {
	Cells        []GRADECell     `json:"cells"`
	Alternatives []GRADECell     `json:"alternatives"`
	Quartiles    []GRADEQuartile `json:"quartiles"`
}

// GRADECell is one cell of the matrix.
type GRADECell struct {
	Model       string `json:"model"`
	SimFunc     string `json:"sim_func"`
	DRAgg       string `json:"dr_agg"`
	Hops        int    `json:"hops"`
	Quartile    int    `json:"dr_quartile"`
	N           int64  `json:"n"`
	Questions   int64  `json:"questions"`
	ErrorRate   Score  `json:"error_rate"`
	ErrorRateCI CI     `json:"error_rate_ci"`
	DrMin       Score  `json:"dr_min"`
	DrMax       Score  `json:"dr_max"`
}

// GRADEQuartile is one D_r quartile's bounds.
type GRADEQuartile struct {
	SimFunc   string `json:"sim_func"`
	DRAgg     string `json:"dr_agg"`
	Quartile  int    `json:"dr_quartile"`
	Questions int64  `json:"questions"`
	DrMin     Score  `json:"dr_min"`
	DrMax     Score  `json:"dr_max"`
}

// PRGBRow is PRGB per model: a data point is a (model, question), scored
// by the mean over its placeholder variants.
type PRGBRow struct {
	Model      string `json:"model"`
	Points     int64  `json:"points"`
	Score      Score  `json:"score"`
	ScoreCI    CI     `json:"score_ci"`
	AllCorrect Score  `json:"all_correct_share"`
	Partial    Score  `json:"partial_share"`
	AllWrong   Score  `json:"all_wrong_share"`
	Outcomes   int64  `json:"outcomes"`
}

// ReportWindow is the window of a report over the last win of evaluation
// time (all time when win is 0).
func ReportWindow(win time.Duration) Window {
	if win <= 0 {
		return AllTime
	}
	return Since(fmt.Sprintf("now() - %d", int64(win/time.Second)))
}

// BuildReport runs every family's aggregations over the last win of
// evaluation time (0: all time); label names the window.
func BuildReport(ctx context.Context, q QueryFunc, label string, win time.Duration) (*Report, error) {
	r := &Report{Window: label, WindowSeconds: int64(win / time.Second),
		Source: "the score views' definitions (processors/metrics), as the dashboard runs them",
		RARE:   []RARERow{}, SURE: []SURERow{}, PRGB: []PRGBRow{}, Models: []string{},
		GRADE: GRADEReport{Cells: []GRADECell{}, Alternatives: []GRADECell{}, Quartiles: []GRADEQuartile{}}}
	if r.Window == "" {
		r.Window = "all"
	}
	w := ReportWindow(win)
	seen := map[string]bool{}
	model := func(m string) {
		if !seen[m] {
			seen[m] = true
			r.Models = append(r.Models, m)
		}
	}
	run := func(f Family, agg string) ([]Row, error) {
		rows, err := Rows(ctx, q, f.Aggregation(agg).Query(w))
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", agg, err)
		}
		for _, row := range rows {
			if m, ok := row["model_id"]; ok {
				model(m)
			}
		}
		return rows, nil
	}

	rare, err := run(RARE, "rare_scores")
	if err != nil {
		return nil, err
	}
	retrievers, err := run(RARE, "rare_retrieval_scores")
	if err != nil {
		return nil, err
	}
	for _, c := range rare {
		x := RARERow{Model: c["model_id"], Baseline: strings.HasPrefix(c["model_id"], "builtin:"), Outcomes: c.Count("n"), Questions: c.Count("questions"),
			Overall: c.Score("overall"), OverallCI: c.CI("overall"), Query: c.Score("query_robustness"), QueryCI: c.CI("query_robustness"),
			Document: c.Score("document_robustness"), DocumentCI: c.CI("document_robustness"),
			Retrieval: c.Score("retrieval_robustness"), RetrievalCI: c.CI("retrieval_robustness"), Retrievers: []RetrieverRow{}}
		x.Pooled.Overall, x.Pooled.Query = c.Score("overall_pooled"), c.Score("query_robustness_pooled")
		x.Pooled.Document, x.Pooled.Retrieval = c.Score("document_robustness_pooled"), c.Score("retrieval_robustness_pooled")
		for _, t := range retrievers {
			if t["model_id"] == x.Model {
				x.Retrievers = append(x.Retrievers, RetrieverRow{Retriever: t["retriever"], Outcomes: t.Count("n"), Questions: t.Count("questions"),
					Retrieval: t.Score("retrieval_robustness"), RetrievalCI: t.CI("retrieval_robustness"), Pooled: t.Score("retrieval_robustness_pooled")})
			}
		}
		r.RARE = append(r.RARE, x)
	}

	totals, err := run(SURE, "sure_model_scores")
	if err != nil {
		return nil, err
	}
	splits, err := run(SURE, "sure_split_scores")
	if err != nil {
		return nil, err
	}
	kinds, err := run(SURE, "sure_kind_scores")
	if err != nil {
		return nil, err
	}
	sure := func(c Row, split, kind string) SURERow {
		return SURERow{Model: c["model_id"], Split: split, Kind: kind, N: c.Count("n"),
			RR: c.Score("rr"), RRCI: c.CI("rr"), WR: c.Score("wr"), WRCI: c.CI("wr"), LR: c.Score("lr"), LRCI: c.CI("lr"),
			AccOriginal: c.Score("acc_original"), AccPerturbed: c.Score("acc_perturbed")}
	}
	for _, t := range totals {
		r.SURE = append(r.SURE, sure(t, "all", ""))
		// Cells known before unknown, golden before noise.
		var cells []Row
		for _, c := range splits {
			if c["model_id"] == t["model_id"] {
				cells = append(cells, c)
			}
		}
		sort.SliceStable(cells, func(i, j int) bool {
			return cells[i]["known"]+cells[i]["golden"] > cells[j]["known"]+cells[j]["golden"]
		})
		for _, c := range cells {
			r.SURE = append(r.SURE, sure(c, SURESplit(c["known"], c["golden"]), ""))
		}
		for _, c := range kinds {
			if c["model_id"] == t["model_id"] {
				r.SURE = append(r.SURE, sure(c, "all", c["axis"]+"/"+c["kind"]))
			}
		}
	}

	for _, agg := range []string{"grade_matrix_by_dr_agg", "grade_dr_quartiles"} {
		rows, err := run(GRADE, agg)
		if err != nil {
			return nil, err
		}
		for _, c := range rows {
			qn, _ := strconv.Atoi(c["dr_quartile"])
			if agg == "grade_dr_quartiles" {
				r.GRADE.Quartiles = append(r.GRADE.Quartiles, GRADEQuartile{SimFunc: c["sim_func"], DRAgg: c["dr_agg"], Quartile: qn,
					Questions: c.Count("questions"), DrMin: c.Score("dr_min"), DrMax: c.Score("dr_max")})
				continue
			}
			h, _ := strconv.Atoi(c["hops"])
			cell := GRADECell{Model: c["model_id"], SimFunc: c["sim_func"], DRAgg: c["dr_agg"], Hops: h, Quartile: qn,
				N: c.Count("n"), Questions: c.Count("questions"), ErrorRate: c.Score("error_rate"), ErrorRateCI: c.CI("error_rate"),
				DrMin: c.Score("dr_min"), DrMax: c.Score("dr_max")}
			if cell.DRAgg == "min" {
				r.GRADE.Cells = append(r.GRADE.Cells, cell)
			} else {
				r.GRADE.Alternatives = append(r.GRADE.Alternatives, cell)
			}
		}
	}

	prgb, err := run(PRGB, "prgb_scores")
	if err != nil {
		return nil, err
	}
	for _, c := range prgb {
		r.PRGB = append(r.PRGB, PRGBRow{Model: c["model_id"], Points: c.Count("n"), Score: c.Score("score"), ScoreCI: c.CI("score"),
			AllCorrect: c.Score("all_correct_share"), Partial: c.Score("partial_share"), AllWrong: c.Score("all_wrong_share"), Outcomes: c.Count("outcomes")})
	}
	sort.Strings(r.Models)
	return r, nil
}

// SURESplit names a Known × Golden cell from the views' 0/1 columns.
func SURESplit(known, golden string) string {
	k, g := "unknown", "noise"
	if known == "1" {
		k = "known"
	}
	if golden == "1" {
		g = "golden"
	}
	return k + "/" + g
}

// ModelLabel marks the built-in baselines.
func ModelLabel(model string) string {
	if strings.HasPrefix(model, "builtin:") {
		return model + " (baseline)"
	}
	return model
}

// shade renders an error rate as a block: light for few errors, full for
// all wrong.
func shade(rate Score) string {
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

// ciText is a known interval as "lo–hi", else "—".
func ciText(c CI) string {
	if !c.Known() {
		return "—"
	}
	return fmt.Sprintf("%.3f–%.3f", float64(c[0]), float64(c[1]))
}

// WriteText prints the report's family sections (the caller adds its own
// after them and trims the lines).
func (r *Report) WriteText(w io.Writer) {
	if r.WindowSeconds == 0 {
		fmt.Fprintf(w, "robustness report · window: all time · from the score views' definitions\n\n")
	} else {
		fmt.Fprintf(w, "robustness report · window: last %s of evaluation time · from the score views' definitions\n\n", r.Window)
	}

	fmt.Fprintf(w, "RARE robustness (judge f, mean of per-question means; 1 = robust; 95%% CI of overall over questions)\n")
	if len(r.RARE) == 0 {
		fmt.Fprintf(w, "  (no RARE outcomes)\n")
	} else {
		fmt.Fprintf(w, "  %-34s %8s %9s %8s %11s %8s %8s %9s %7s\n", "model", "outcomes", "questions", "overall", "95% CI", "query", "document", "retrieval", "pooled")
		for _, x := range r.RARE {
			fmt.Fprintf(w, "  %-34s %8d %9d %8s %11s %8s %8s %9s %7s\n", ModelLabel(x.Model), x.Outcomes, x.Questions,
				x.Overall.Text(), ciText(x.OverallCI), x.Query.Text(), x.Document.Text(), x.Retrieval.Text(), x.Pooled.Overall.Text())
			for _, t := range x.Retrievers {
				fmt.Fprintf(w, "    %-32s %8d %9d %8s %11s\n", "retrieval · "+t.Retriever, t.Outcomes, t.Questions, t.Retrieval.Text(), ciText(t.RetrievalCI))
			}
		}
	}

	fmt.Fprintf(w, "\nSURE (shares of C = Y(original) − Y(perturbed): RR right→right/wrong→wrong, WR wrong→right, LR right→wrong)\n")
	if len(r.SURE) == 0 {
		fmt.Fprintf(w, "  (no SURE outcomes)\n")
	} else {
		fmt.Fprintf(w, "  %-34s %-30s %8s %7s %7s %7s\n", "model", "split / kind", "n", "RR", "WR", "LR")
		for _, x := range r.SURE {
			name, slice := ModelLabel(x.Model), x.Split
			if x.Split != "all" || x.Kind != "" {
				name = ""
			}
			if x.Kind != "" {
				slice = "  " + x.Kind
			}
			fmt.Fprintf(w, "  %-34s %-30s %8d %7s %7s %7s\n", name, slice, x.N, x.RR.Text(), x.WR.Text(), x.LR.Text())
		}
	}

	fmt.Fprintf(w, "\nGRADE error rate (hops × D_r quartile; shade ' ' <0.2 ░ <0.4 ▒ <0.6 ▓ <0.8 █ ≥0.8, · no questions)\n")
	if len(r.GRADE.Cells) == 0 {
		fmt.Fprintf(w, "  (no GRADE outcomes)\n")
	} else {
		fmt.Fprintf(w, "  D_r quartiles ranked over the window's questions (bins differ in size by one at most)\n")
		writeQuartiles(w, r.GRADE.Quartiles, "min")
		writeMatrix(w, r.GRADE.Cells)
		if len(r.GRADE.Alternatives) > 0 {
			fmt.Fprintf(w, "  D_r aggregated otherwise, for comparison (GRADE Table 3)\n")
			for _, agg := range DRAggregations[1:] {
				var cells []GRADECell
				for _, c := range r.GRADE.Alternatives {
					if c.DRAgg == agg {
						cells = append(cells, c)
					}
				}
				if len(cells) == 0 {
					continue
				}
				fmt.Fprintf(w, "  D_r = %s\n", agg)
				writeQuartiles(w, r.GRADE.Quartiles, agg)
				writeMatrix(w, cells)
			}
		}
	}

	fmt.Fprintf(w, "\nPRGB (per (model, question): mean over placeholder variants)\n")
	if len(r.PRGB) == 0 {
		fmt.Fprintf(w, "  (no PRGB outcomes)\n")
	} else {
		fmt.Fprintf(w, "  %-34s %8s %7s %11s %11s %8s %9s\n", "model", "points", "score", "95% CI", "all-correct", "partial", "all-wrong")
		for _, x := range r.PRGB {
			fmt.Fprintf(w, "  %-34s %8d %7s %11s %11s %8s %9s\n", ModelLabel(x.Model), x.Points, x.Score.Text(), ciText(x.ScoreCI), x.AllCorrect.Text(), x.Partial.Text(), x.AllWrong.Text())
		}
	}
}

// writeQuartiles prints the D_r bounds of agg's quartiles, per similarity
// function.
func writeQuartiles(w io.Writer, qs []GRADEQuartile, agg string) {
	line := map[string][]string{}
	var sims []string
	for _, q := range qs {
		if q.DRAgg != agg {
			continue
		}
		if _, ok := line[q.SimFunc]; !ok {
			sims = append(sims, q.SimFunc)
		}
		line[q.SimFunc] = append(line[q.SimFunc], fmt.Sprintf("Q%d %s–%s (%d)", q.Quartile, q.DrMin.Text(), q.DrMax.Text(), q.Questions))
	}
	for _, s := range sims {
		label := s
		if label == "" {
			label = "(no similarity function)"
		}
		fmt.Fprintf(w, "  D_r bounds · %s: %s\n", label, strings.Join(line[s], " · "))
	}
}

// writeMatrix prints one heat-map table per (model, similarity function).
func writeMatrix(w io.Writer, cells []GRADECell) {
	byModel := map[string]map[[2]int]GRADECell{}
	var models []string
	maxHops := 0
	for _, c := range cells {
		key := c.Model + "\x00" + c.SimFunc
		if byModel[key] == nil {
			byModel[key] = map[[2]int]GRADECell{}
			models = append(models, key)
		}
		byModel[key][[2]int{c.Hops, c.Quartile}] = c
		maxHops = max(maxHops, c.Hops)
	}
	for _, m := range models {
		model, sim, _ := strings.Cut(m, "\x00")
		label := ModelLabel(model)
		if sim != "" {
			label += " · " + sim
		}
		fmt.Fprintf(w, "  %s\n    %-5s", label, "hops")
		for q := 1; q <= 4; q++ {
			fmt.Fprintf(w, " %-12s", fmt.Sprintf("Q%d", q))
		}
		fmt.Fprintln(w)
		minHops := maxHops
		for k := range byModel[m] {
			minHops = min(minHops, k[0])
		}
		for h := minHops; h <= maxHops; h++ {
			fmt.Fprintf(w, "    %-5d", h)
			for q := 1; q <= 4; q++ {
				c, ok := byModel[m][[2]int{h, q}]
				if !ok {
					fmt.Fprintf(w, " %-12s", "·")
					continue
				}
				fmt.Fprintf(w, " %-12s", fmt.Sprintf("%s%s%s (%d)", shade(c.ErrorRate), shade(c.ErrorRate), c.ErrorRate.Text(), c.N))
			}
			fmt.Fprintln(w)
		}
	}
}

// WriteSummary prints RARE's scores per model over all time, the short
// table that ends `eval --once`.
func WriteSummary(ctx context.Context, q QueryFunc, w io.Writer) error {
	rows, err := Rows(ctx, q, RARE.Aggregation("rare_scores").Query(AllTime))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "RARE robustness (mean judge f; 1 = robust)\n")
	fmt.Fprintf(w, "%-36s %8s %8s %8s %8s %9s\n", "model", "outcomes", "overall", "query", "document", "retrieval")
	if len(rows) == 0 {
		fmt.Fprintln(w, "(no outcomes yet)")
		return nil
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%-36s %8d %8s %8s %8s %9s\n", ModelLabel(r["model_id"]), r.Count("n"), r.Score("overall").Text(),
			r.Score("query_robustness").Text(), r.Score("document_robustness").Text(), r.Score("retrieval_robustness").Text())
	}
	return nil
}
