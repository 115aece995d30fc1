package main

// The CI gate of eval --once (gate.go wires it): whether a run passes, over
// its failed requests, score thresholds and a comparison with a baseline
// run, each outcome a gateCheck that names its figures, and the JUnit XML
// CI systems read.
//
// Scores are read from the report's JSON form (`robustream report --format
// json`, eval --once --report): the same document whether it comes from
// this run or from a baseline saved earlier, whatever the Go types behind
// it; how a score is computed is processors/metrics' business.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/robustream/robustream/processors/drift"
)

// gateReport is the part of a report's JSON the gate reads. Scores are null
// (nil) where there is nothing to score; intervals are [lo, hi] or null.
type gateReport struct {
	RARE []struct {
		Model     string    `json:"model"`
		Baseline  bool      `json:"baseline"`
		Outcomes  int64     `json:"outcomes"`
		Questions int64     `json:"questions"`
		Overall   *float64  `json:"overall"`
		OverallCI []float64 `json:"overall_ci"`
		Query     *float64  `json:"query"`
		QueryCI   []float64 `json:"query_ci"`
		Document  *float64  `json:"document"`
		DocCI     []float64 `json:"document_ci"`
		Retrieval *float64  `json:"retrieval"`
		RetrCI    []float64 `json:"retrieval_ci"`
		Pooled    struct {
			Overall *float64 `json:"overall"`
		} `json:"pooled"`
	} `json:"rare"`
	SURE []struct {
		Model string    `json:"model"`
		Split string    `json:"split"`
		Kind  string    `json:"kind"`
		N     int64     `json:"n"`
		RR    *float64  `json:"rr"`
		RRCI  []float64 `json:"rr_ci"`
	} `json:"sure"`
	PRGB []struct {
		Model      string    `json:"model"`
		Points     int64     `json:"points"`
		Score      *float64  `json:"score"`
		ScoreCI    []float64 `json:"score_ci"`
		AllCorrect *float64  `json:"all_correct_share"`
	} `json:"prgb"`
}

// parseGateReport reads a report's JSON form.
func parseGateReport(b []byte) (*gateReport, error) {
	var r gateReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("not a robustream report (robustream report --format json): %w", err)
	}
	if r.RARE == nil && r.SURE == nil && r.PRGB == nil {
		return nil, errors.New("not a robustream report (robustream report --format json): no rare, sure or prgb section")
	}
	return &r, nil
}

// gateValue is one score of one model: the score, its 95% interval when the
// report has one, and how many units it averages (questions, instances or
// data points).
type gateValue struct {
	Score float64
	CI    []float64
	N     int64
}

// gateMetric is a score the gate can hold to a threshold: higher is better.
type gateMetric struct {
	Family, Name string
	// Unit names what N counts.
	Unit string
	get  func(r *gateReport, model string) (gateValue, bool)
}

// FullName is FAMILY.METRIC, as --fail-under spells it.
func (m gateMetric) FullName() string { return m.Family + "." + m.Name }

func gateVal(p *float64, ci []float64, n int64) (gateValue, bool) {
	if p == nil || math.IsNaN(*p) {
		return gateValue{}, false
	}
	return gateValue{Score: *p, CI: ci, N: n}, true
}

// gateMetrics are the scores --fail-under accepts, all "higher is better":
// RARE's robustness (overall and per axis), SURE's robustness rate over
// all its instances, PRGB's data-point score and share of all-correct
// points.
var gateMetrics = []gateMetric{
	{"rare", "overall", "questions", func(r *gateReport, m string) (gateValue, bool) {
		for _, x := range r.RARE {
			if x.Model == m {
				return gateVal(x.Overall, x.OverallCI, x.Questions)
			}
		}
		return gateValue{}, false
	}},
	{"rare", "query", "questions", func(r *gateReport, m string) (gateValue, bool) {
		for _, x := range r.RARE {
			if x.Model == m {
				return gateVal(x.Query, x.QueryCI, x.Questions)
			}
		}
		return gateValue{}, false
	}},
	{"rare", "document", "questions", func(r *gateReport, m string) (gateValue, bool) {
		for _, x := range r.RARE {
			if x.Model == m {
				return gateVal(x.Document, x.DocCI, x.Questions)
			}
		}
		return gateValue{}, false
	}},
	{"rare", "retrieval", "questions", func(r *gateReport, m string) (gateValue, bool) {
		for _, x := range r.RARE {
			if x.Model == m {
				return gateVal(x.Retrieval, x.RetrCI, x.Questions)
			}
		}
		return gateValue{}, false
	}},
	{"sure", "rr", "instances", func(r *gateReport, m string) (gateValue, bool) {
		for _, x := range r.SURE {
			if x.Model == m && x.Split == "all" && x.Kind == "" {
				return gateVal(x.RR, x.RRCI, x.N)
			}
		}
		return gateValue{}, false
	}},
	{"prgb", "score", "points", func(r *gateReport, m string) (gateValue, bool) {
		for _, x := range r.PRGB {
			if x.Model == m {
				return gateVal(x.Score, x.ScoreCI, x.Points)
			}
		}
		return gateValue{}, false
	}},
	{"prgb", "all_correct", "points", func(r *gateReport, m string) (gateValue, bool) {
		for _, x := range r.PRGB {
			if x.Model == m {
				return gateVal(x.AllCorrect, nil, x.Points)
			}
		}
		return gateValue{}, false
	}},
}

// gateMetricNames lists FAMILY.METRIC of every gateMetric.
func gateMetricNames() []string {
	out := make([]string, len(gateMetrics))
	for i, m := range gateMetrics {
		out[i] = m.FullName()
	}
	return out
}

// threshold is one --fail-under: a model's score (every model under test
// when Model is "") must be at least Min.
type threshold struct {
	Model      string
	gateMetric gateMetric
	Min        float64
}

func (t threshold) String() string {
	s := fmt.Sprintf("%s>=%s", t.gateMetric.FullName(), strconv.FormatFloat(t.Min, 'f', -1, 64))
	if t.Model != "" {
		s = t.Model + ":" + s
	}
	return s
}

// parseThreshold reads [MODEL:]FAMILY.METRIC=VALUE. A model id may hold
// colons (builtin:lexical:rare.overall=0.3): the model is everything before
// the last one. An unknown metric is an error listing the valid names.
func parseThreshold(spec string) (threshold, error) {
	lhs, rhs, ok := strings.Cut(spec, "=")
	if !ok {
		return threshold{}, fmt.Errorf("%q: want [MODEL:]FAMILY.METRIC=VALUE, e.g. rare.overall=0.7", spec)
	}
	var t threshold
	name := lhs
	if i := strings.LastIndex(lhs, ":"); i >= 0 {
		t.Model, name = lhs[:i], lhs[i+1:]
		if t.Model == "" {
			return threshold{}, fmt.Errorf("%q: empty model before %q", spec, name)
		}
	}
	found := false
	for _, m := range gateMetrics {
		if m.FullName() == strings.ToLower(strings.TrimSpace(name)) {
			t.gateMetric, found = m, true
		}
	}
	if !found {
		return threshold{}, fmt.Errorf("%q: unknown metric %q; valid: %s", spec, name, strings.Join(gateMetricNames(), ", "))
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(rhs), 64)
	if err != nil || v < 0 || v > 1 {
		return threshold{}, fmt.Errorf("%q: %q is not a score between 0 and 1", spec, rhs)
	}
	t.Min = v
	return t, nil
}

// gateCheck is one gated gateFigure: its JUnit test case.
type gateCheck struct {
	// Class groups the checks: "requests", "fail-under" or "baseline".
	Class string
	// Name names the case: the model, and the metric when there is one.
	Name string
	// Failed and Skipped say how it ended; neither: it passed.
	Failed, Skipped bool
	// Message is the one line a failure is named by; Figures says what
	// was measured (for a pass as well).
	Message, Figures string
}

// modelRequests is how a model's requests ended in a run.
type modelRequests struct {
	Model string
	// Total counts the requests with a result; Failed those whose
	// result is an error (variants not made are neither).
	Total, Failed int64
	// LastError is one failed request's error.
	LastError string
}

// checkRequests fails a model whose failed share exceeds maxFailed, and a
// model whose every request failed whatever maxFailed says; a model with
// no result while others have some fails too (it was never asked).
func checkRequests(reqs []modelRequests, maxFailed float64) []gateCheck {
	var any bool
	for _, r := range reqs {
		any = any || r.Total > 0
	}
	var out []gateCheck
	for _, r := range reqs {
		c := gateCheck{Class: "requests", Name: r.Model}
		share := 0.0
		if r.Total > 0 {
			share = float64(r.Failed) / float64(r.Total)
		}
		c.Figures = fmt.Sprintf("%d of %d request(s) failed (%.1f%%; --max-failed %.1f%%)", r.Failed, r.Total, 100*share, 100*maxFailed)
		switch {
		case r.Total == 0 && any:
			c.Failed, c.Message = true, fmt.Sprintf("model %s: no results at all, while other models have some", r.Model)
		case r.Total == 0:
			c.Failed, c.Message = true, fmt.Sprintf("model %s: no results: the run asked no question (an empty source?)", r.Model)
		case r.Failed == r.Total:
			c.Failed, c.Message = true, fmt.Sprintf("model %s: every request failed (%d of %d): %s", r.Model, r.Failed, r.Total, r.LastError)
		case share > maxFailed:
			c.Failed, c.Message = true, fmt.Sprintf("model %s: %s: %s", r.Model, c.Figures, r.LastError)
		}
		if r.LastError != "" {
			c.Figures += "; an error: " + r.LastError
		}
		out = append(out, c)
	}
	return out
}

// checkThresholds holds every model's scores to the thresholds. A
// threshold without a model applies to the models under test (underTest;
// the built-in baselines only when nothing else runs) and skips a model
// with no such score (a RAG service has no document axis); one naming its
// model fails when the score is missing.
func checkThresholds(rep *gateReport, ts []threshold, underTest []string) []gateCheck {
	var out []gateCheck
	for _, t := range ts {
		models := underTest
		if t.Model != "" {
			models = []string{t.Model}
		}
		for _, m := range models {
			c := gateCheck{Class: "fail-under", Name: m + " " + t.gateMetric.FullName() + ">=" + strconv.FormatFloat(t.Min, 'f', -1, 64)}
			v, ok := t.gateMetric.get(rep, m)
			switch {
			case !ok && t.Model == "":
				c.Skipped, c.Figures = true, fmt.Sprintf("model %s has no %s score", m, t.gateMetric.FullName())
			case !ok:
				c.Failed = true
				c.Message = fmt.Sprintf("model %s: no %s score (nothing to score) for --fail-under %s", m, t.gateMetric.FullName(), t)
				c.Figures = c.Message
			default:
				c.Figures = fmt.Sprintf("%s = %s over %d %s (threshold %s)", t.gateMetric.FullName(), gateFigure(v), v.N, t.gateMetric.Unit, strconv.FormatFloat(t.Min, 'f', -1, 64))
				if v.Score < t.Min {
					c.Failed = true
					c.Message = fmt.Sprintf("model %s: %s = %.3f is below %s", m, t.gateMetric.FullName(), v.Score, strconv.FormatFloat(t.Min, 'f', -1, 64))
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// gateFigure renders a score with its interval when there is one.
func gateFigure(v gateValue) string {
	s := fmt.Sprintf("%.3f", v.Score)
	if len(v.CI) == 2 {
		s += fmt.Sprintf(" (95%% CI %.3f–%.3f)", v.CI[0], v.CI[1])
	}
	return s
}

// gateProportion is a baseline comparison's rate: successes of trials.
type gateProportion struct {
	name, unit string
	get        func(r *gateReport, model string) (rate float64, n int64, ok bool)
}

// gateProportions are the rates compared with a baseline: each a share of 0/1
// verdicts, as the drift evaluator's tests need (docs/methods.md, Drift
// alerts): RARE's judge f pooled over outcomes, SURE's robustness rate over
// instances, PRGB's share of all-correct data points.
var gateProportions = []gateProportion{
	{"rare.overall", "outcomes", func(r *gateReport, m string) (float64, int64, bool) {
		for _, x := range r.RARE {
			if x.Model == m && x.Pooled.Overall != nil {
				return *x.Pooled.Overall, x.Outcomes, true
			}
		}
		return 0, 0, false
	}},
	{"sure.rr", "instances", func(r *gateReport, m string) (float64, int64, bool) {
		for _, x := range r.SURE {
			if x.Model == m && x.Split == "all" && x.Kind == "" && x.RR != nil {
				return *x.RR, x.N, true
			}
		}
		return 0, 0, false
	}},
	{"prgb.all_correct", "points", func(r *gateReport, m string) (float64, int64, bool) {
		for _, x := range r.PRGB {
			if x.Model == m && x.AllCorrect != nil {
				return *x.AllCorrect, x.Points, true
			}
		}
		return 0, 0, false
	}},
}

// compareBaseline holds the run's rates to the baseline's, per model present in
// both, with the drift evaluator's test (drift.Test: Fisher's exact test
// for small counts, the two-gateProportion z-test otherwise) and its
// Benjamini-Hochberg correction over every comparison made: a rate fails
// when it dropped by at least maxDrop and the drop is significant at alpha.
// A rate with fewer than minSamples units in either run is skipped.
func compareBaseline(cur, base *gateReport, models []string, alpha, maxDrop float64, minSamples int64) []gateCheck {
	type cmp struct {
		c              gateCheck
		drop           float64
		p              float64
		test           string
		rate, baseRate float64
	}
	var tested []*cmp
	var out []*cmp
	for _, m := range models {
		for _, pr := range gateProportions {
			r, n, ok := pr.get(cur, m)
			br, bn, bok := pr.get(base, m)
			c := &cmp{c: gateCheck{Class: "baseline", Name: m + " " + pr.name}}
			out = append(out, c)
			switch {
			case !ok || !bok:
				c.c.Skipped, c.c.Figures = true, fmt.Sprintf("no %s for model %s in %s", pr.name, m, map[bool]string{true: "the baseline", false: "this run"}[ok])
				continue
			case n < minSamples || bn < minSamples:
				c.c.Skipped, c.c.Figures = true, fmt.Sprintf("%s: %d %s in this run, %d in the baseline: fewer than %d", pr.name, n, pr.unit, bn, minSamples)
				continue
			}
			c.rate, c.baseRate, c.drop = r, br, br-r
			c.p, c.test = drift.Test(r*float64(n), float64(n), br*float64(bn), float64(bn))
			c.c.Figures = fmt.Sprintf("%s %.3f over %d %s against %.3f over %d in the baseline", pr.name, r, n, pr.unit, br, bn)
			tested = append(tested, c)
		}
	}
	ps := make([]float64, len(tested))
	for i, c := range tested {
		ps[i] = c.p
	}
	qs := drift.BenjaminiHochberg(ps)
	for i, c := range tested {
		c.c.Figures += fmt.Sprintf("; drop %.3f, %s test p = %.3g, BH q = %.3g (alpha %g, max_drop %g)", c.drop, c.test, c.p, qs[i], alpha, maxDrop)
		if c.drop >= maxDrop && qs[i] <= alpha {
			c.c.Failed = true
			c.c.Message = fmt.Sprintf("model %s: %s fell from %.3f to %.3f against the baseline (q = %.3g ≤ %g)", strings.SplitN(c.c.Name, " ", 2)[0], strings.SplitN(c.c.Name, " ", 2)[1], c.baseRate, c.rate, qs[i], alpha)
		}
	}
	res := make([]gateCheck, len(out))
	for i, c := range out {
		res[i] = c.c
	}
	return res
}

// gateFailures are the messages of the failed checks, in order.
func gateFailures(checks []gateCheck) []string {
	var out []string
	for _, c := range checks {
		if c.Failed {
			out = append(out, c.Message)
		}
	}
	return out
}

// Models returns the model ids a report has scores for, sorted.
func (r *gateReport) Models() []string {
	var out []string
	for _, x := range r.RARE {
		out = append(out, x.Model)
	}
	for _, x := range r.SURE {
		out = append(out, x.Model)
	}
	for _, x := range r.PRGB {
		out = append(out, x.Model)
	}
	sort.Strings(out)
	return slices.Compact(out)
}
