package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/schemas"
)

// axisFamilies maps each axis to the registered families that score it,
// for fan-out: which family a request's cell belongs to is what pairing
// will score it for, so the caps and the cost per family follow the one
// registry.
func axisFamilies(families []pair.Family) map[string][]string {
	out := map[string][]string{}
	for _, f := range families {
		for _, a := range f.Axes {
			out[a] = append(out[a], f.Name)
		}
	}
	return out
}

// callsCollector publishes fan-out's requests per model and family. The
// models change on a reload of models.yaml and the families with the
// registry, so the series are read from the stage at each scrape rather
// than registered one by one.
type callsCollector struct {
	e                      *engine
	calls, questions, capd *prometheus.Desc
}

func newCallsCollector(e *engine) *callsCollector {
	return &callsCollector{e: e,
		calls: prometheus.NewDesc("robustream_fanout_requests_total",
			"Requests fan-out sent to a model, by the metric family that scores their cell (baseline: the original and closed-book requests every family shares).",
			[]string{"model", "family"}, nil),
		questions: prometheus.NewDesc("robustream_fanout_questions_total",
			"Questions fan-out has asked the models: divide requests_total by it for calls per question.", nil, nil),
		capd: prometheus.NewDesc("robustream_fanout_capped_cells_total",
			"Variants a family's cap (stages.fanout.families.<name>.max_cells_per_question) kept from being asked, by family.",
			[]string{"family"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *callsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.calls
	ch <- c.questions
	ch <- c.capd
}

// Collect implements prometheus.Collector.
func (c *callsCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.e.fanout
	if st == nil {
		return
	}
	for k, n := range st.Calls() {
		ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(n), k.Model, k.Family)
	}
	ch <- prometheus.MustNewConstMetric(c.questions, prometheus.CounterValue, float64(st.Questions()))
	for f, n := range st.Capped() {
		ch <- prometheus.MustNewConstMetric(c.capd, prometheus.CounterValue, float64(n), f)
	}
}

// exposeCalls registers the fan-out cost series once per engine.
func (e *engine) exposeCalls() {
	if e.callsExposed {
		return // a stage built again (bench) is read through e.fanout
	}
	e.callsExposed = true
	e.reg.MustRegister(newCallsCollector(e))
}

// writeCost prints, per model, the requests per question fan-out sent in
// this run, by family, and what the caps left out: the cost of a family
// stays visible as kinds are added to it.
func writeCost(st *fanout.Stage, caps map[string]fanout.FamilyConfig, w io.Writer) {
	if st == nil {
		return
	}
	q := st.Questions()
	calls := st.Calls()
	if q == 0 || len(calls) == 0 {
		fmt.Fprintf(w, "calls per question per model: no question was asked in this run\n\n")
		return
	}
	byModel := map[string]map[string]int64{}
	for k, n := range calls {
		if byModel[k.Model] == nil {
			byModel[k.Model] = map[string]int64{}
		}
		byModel[k.Model][k.Family] += n
	}
	fmt.Fprintf(w, "calls per question per model (%d question(s) asked in this run; requests before answer-cache hits):\n", q)
	for _, m := range slices.Sorted(maps.Keys(byModel)) {
		fams := byModel[m]
		var parts []string
		var total int64
		// baseline first (the original and closed-book requests), then
		// the families by name.
		names := slices.Sorted(maps.Keys(fams))
		if i := slices.Index(names, fanout.FamilyBaseline); i > 0 {
			names = append([]string{fanout.FamilyBaseline}, slices.Delete(names, i, i+1)...)
		}
		for _, f := range names {
			parts = append(parts, fmt.Sprintf("%s %.1f", f, float64(fams[f])/float64(q)))
			total += fams[f]
		}
		fmt.Fprintf(w, "  %s: %s · total %.1f\n", m, strings.Join(parts, ", "), float64(total)/float64(q))
	}
	capped := st.Capped()
	for _, f := range slices.Sorted(maps.Keys(caps)) {
		if n := caps[f].MaxCellsPerQuestion; n > 0 {
			fmt.Fprintf(w, "  %s capped at %d cell(s) per question (stages.fanout.families.%s.max_cells_per_question): %d variant(s) not asked\n", f, n, f, capped[f])
		}
	}
	fmt.Fprintln(w)
}

// modelPrice is a model's price per 1,000 tokens (models.yaml
// price_per_1k_input, price_per_1k_output), in the currency of the budget.
type modelPrice struct {
	In, Out float64
}

// priceOf reads and checks an openai entry's prices.
func priceOf(o *openaiModel) (modelPrice, error) {
	for _, p := range []struct {
		key string
		v   float64
	}{{"price_per_1k_input", o.PricePer1kInput}, {"price_per_1k_output", o.PricePer1kOutput}} {
		if p.v < 0 || math.IsNaN(p.v) || math.IsInf(p.v, 0) {
			return modelPrice{}, fmt.Errorf("%s: %v is not a price ≥ 0", p.key, p.v)
		}
	}
	return modelPrice{In: o.PricePer1kInput, Out: o.PricePer1kOutput}, nil
}

// of is the cost of in prompt and out completion tokens.
func (p modelPrice) of(in, out int64) float64 {
	return p.In*float64(in)/1000 + p.Out*float64(out)/1000
}

// costRow is the cost of one model's requests of one family: each request
// id once (identical prompts share one call), with the tokens the answers
// reported.
type costRow struct {
	Model     string  `json:"model"`
	Family    string  `json:"family"` // baseline: the original and closed-book requests every family shares
	Requests  int64   `json:"requests"`
	TokensIn  int64   `json:"tokens_in"`
	TokensOut int64   `json:"tokens_out"`
	Cost      float64 `json:"cost"`
	Priced    bool    `json:"priced"` // false: models.yaml gives the model no price (cost 0)
}

// costSince is the SQL start of a window of evaluation time for costRows
// ("" for all time).
func costSince(win time.Duration) string {
	if win <= 0 {
		return ""
	}
	return fmt.Sprintf("now() - %d", int64(win/time.Second))
}

// costRows computes the cost per model and family from the eval results
// evaluated since the SQL DateTime expression since ("": all), labelling a
// request's family as fan-out does (the families that score its axis,
// joined by "+").
func costRows(ctx context.Context, query queryFunc, since string, prices map[string]modelPrice, families []pair.Family) ([]costRow, error) {
	where := ""
	if since != "" {
		where = "WHERE evaluated_at >= " + since
	}
	// A request id is shared by every cell whose prompt is the same (an
	// original and a retrieval variant whose retriever found the golden
	// contexts, say): its one call is labelled the same way whatever the
	// order its rows were stored in, so the same corpus gives the same
	// rows. It is the baseline's when any of its cells is an original or
	// closed-book request (the call every family shares, made anyway),
	// else the first of its axes by name; tokens are the answer's, the
	// same on every row of one call (max only to be order-free).
	sql := fmt.Sprintf(`SELECT model_id, ax, cb, count(), sum(ti), sum(tout) FROM (
  SELECT model_id, request_id,
    max(closed_book = 1 OR axis IN ('%s', '%s')) AS cb,
    if(cb = 1, '%s', min(axis)) AS ax,
    max(tokens_in) AS ti, max(tokens_out) AS tout
  FROM robustream.eval_results %s GROUP BY model_id, request_id)
GROUP BY model_id, ax, cb ORDER BY model_id, ax`, schemas.AxisOriginal, schemas.AxisClosedBook, schemas.AxisOriginal, where)
	out, err := query(ctx, sql, "TabSeparated")
	if err != nil {
		return nil, fmt.Errorf("cost: %w", err)
	}
	fams := axisFamilies(families)
	byKey := map[[2]string]*costRow{}
	var keys [][2]string
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			continue
		}
		family := fanout.FamilyBaseline
		if f[2] != "1" && f[1] != schemas.AxisOriginal && f[1] != schemas.AxisClosedBook {
			family = strings.Join(slices.Sorted(slices.Values(fams[f[1]])), "+") // as fan-out labels it
			if family == "" {
				family = "unscored"
			}
		}
		k := [2]string{f[0], family}
		r := byKey[k]
		if r == nil {
			_, ok := prices[f[0]]
			r = &costRow{Model: f[0], Family: family, Priced: ok}
			byKey[k] = r
			keys = append(keys, k)
		}
		var n, in, o int64
		fmt.Sscan(f[3], &n)
		fmt.Sscan(f[4], &in)
		fmt.Sscan(f[5], &o)
		r.Requests += n
		r.TokensIn += in
		r.TokensOut += o
		r.Cost = prices[f[0]].of(r.TokensIn, r.TokensOut)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	rows := make([]costRow, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, *byKey[k])
	}
	return rows, nil
}

// writeCostText prints the cost per run, model and family.
func writeCostText(w io.Writer, rows []costRow) {
	if len(rows) == 0 {
		return
	}
	var total float64
	var priced bool
	byModel := map[string]float64{}
	for _, r := range rows {
		total += r.Cost
		byModel[r.Model] += r.Cost
		priced = priced || r.Priced
	}
	if !priced {
		return // no price in models.yaml: the calls per question above are the cost
	}
	fmt.Fprintf(w, "cost %.4f (each request id once; tokens as the answers reported them)\n", total)
	fmt.Fprintf(w, "%-32s %-14s %9s %11s %11s %10s\n", "model", "family", "requests", "tokens in", "tokens out", "cost")
	for _, r := range rows {
		if !r.Priced {
			continue
		}
		fmt.Fprintf(w, "%-32s %-14s %9d %11d %11d %10.4f\n", r.Model, r.Family, r.Requests, r.TokensIn, r.TokensOut, r.Cost)
	}
	for _, m := range slices.Sorted(maps.Keys(byModel)) {
		if byModel[m] > 0 {
			fmt.Fprintf(w, "%-32s %-14s %9s %11s %11s %10.4f\n", m, "total", "", "", "", byModel[m])
		}
	}
	fmt.Fprintln(w)
}

// budget returns the run's budget (stages.infer.budget, --budget) over the
// prices of models.yaml, once per engine; nil without one.
func (e *engine) budget() (*reader.Budget, error) {
	if e.spend != nil {
		return e.spend, nil
	}
	prices := map[string]reader.Price{}
	for id, p := range e.models.prices {
		prices[id] = reader.Price{In: p.In, Out: p.Out}
	}
	b, err := reader.NewBudget(e.cfg.Stages.Infer.BudgetAmount, prices)
	if err != nil {
		return nil, err
	}
	if b != nil && len(prices) == 0 {
		e.log.Warn("a budget is set but no model has a price (models.yaml price_per_1k_input, price_per_1k_output): nothing counts against it", "budget", b.Limit())
	}
	e.spend = b
	return b, nil
}

// writeBudget says what the run spent of its budget and how many requests
// it did not send.
func writeBudget(ctx context.Context, e *engine, w io.Writer) error {
	b := e.spend
	if b == nil {
		return nil
	}
	out, err := e.ch.Query(ctx, fmt.Sprintf("SELECT model_id, count() FROM robustream.eval_results WHERE startsWith(error, '%s') GROUP BY model_id ORDER BY model_id", reader.ErrBudgetExhausted), "TabSeparated")
	if err != nil {
		return err
	}
	rows := strings.TrimSpace(string(out))
	if !b.Exhausted() {
		fmt.Fprintf(w, "budget: %.4f spent of %.4f\n\n", b.Spent(), b.Limit())
		return nil
	}
	fmt.Fprintf(w, "budget exhausted: %.4f spent of %.4f (calls in flight when it was reached finish); requests not sent, ended as '%s' error results:\n", b.Spent(), b.Limit(), reader.ErrBudgetExhausted)
	for _, line := range strings.Split(rows, "\n") {
		if m, n, ok := strings.Cut(line, "\t"); ok {
			fmt.Fprintf(w, "  %s: %s\n", m, n)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// costAPI serves GET /api/cost?window=: the cost per model and family over
// the window, with the run's budget when this process has one.
func (s *server) costAPI(w http.ResponseWriter, r *http.Request) {
	win, _, ok := s.windowOf(w, r)
	if !ok {
		return
	}
	rows, err := costRows(r.Context(), s.e.ch.Query, win.since, s.e.models.prices, metricFamilies)
	resp := map[string]any{"rows": rows, "updated_at": time.Now().UTC()}
	var total float64
	for _, c := range rows {
		total += c.Cost
	}
	resp["total"] = total
	if b := s.e.spend; b != nil {
		resp["budget"] = map[string]any{"limit": b.Limit(), "spent": b.Spent(), "exhausted": b.Exhausted()}
	}
	s.writeJSON(w, resp, err)
}
