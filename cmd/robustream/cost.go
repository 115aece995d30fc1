package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/pair"
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
