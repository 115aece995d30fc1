package main

// eval --once's CI gate, wired: its flags, the baseline it reads before the
// run, and the checks, JUnit XML and JSON report after it (gate_checks.go
// holds the checks themselves).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/reader"
)

// gateOptions are eval --once's gate flags.
type gateOptions struct {
	maxFailed  float64
	thresholds []threshold
	baseline   string
	junit      string
	report     string
	// base is the baseline's report, read before the run.
	base *gateReport
}

// registerGate adds the gate's flags to fs.
func registerGate(fs interface {
	Func(name, usage string, fn func(string) error)
}) *gateOptions {
	g := &gateOptions{maxFailed: 0.10}
	fs.Func("max-failed", "share of a model's requests that may fail (0..1, default 0.10); a model whose every request failed always fails the run", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || v > 1 {
			return fmt.Errorf("%q is not a share between 0 and 1", s)
		}
		g.maxFailed = v
		return nil
	})
	fs.Func("fail-under", "[MODEL:]FAMILY.METRIC=VALUE: fail when a score is below VALUE (repeatable; without MODEL, every model under test); metrics: "+
		strings.Join(gateMetricNames(), ", "), func(s string) error {
		t, err := parseThreshold(s)
		if err != nil {
			return err
		}
		g.thresholds = append(g.thresholds, t)
		return nil
	})
	fs.Func("baseline", "REPORT.json (robustream report --format json, or an earlier --report) or DATA_DIR of an earlier run: fail on a significant drop against it (the drift evaluator's tests, alerts.alpha and alerts.max_drop)", func(s string) error {
		g.baseline = s
		return nil
	})
	fs.Func("junit", "write JUnit XML to FILE: a test case per model and gated metric", func(s string) error {
		g.junit = s
		return nil
	})
	fs.Func("report", "write the JSON report (robustream report --format json) to FILE", func(s string) error {
		g.report = s
		return nil
	})
	return g
}

// validate checks what needs the configuration: the models a threshold
// names, and the baseline's path.
func (g *gateOptions) validate(cfg *Config) []error {
	var errs []error
	set, merrs := readModels(cfg.Models)
	if len(merrs) == 0 {
		for _, t := range g.thresholds {
			if t.Model != "" && set.byID[t.Model] == nil {
				errs = append(errs, fmt.Errorf("--fail-under %s: no model %q in the run (models: %s)", t, t.Model, strings.Join(set.ids(), ", ")))
			}
		}
	}
	if g.baseline != "" {
		if _, err := os.Stat(g.baseline); err != nil {
			errs = append(errs, fmt.Errorf("--baseline: %w", err))
		} else if same(g.baseline, cfg.DataDir) {
			errs = append(errs, fmt.Errorf("--baseline %s is the run's own data dir: give an earlier run's report or data dir", g.baseline))
		}
	}
	for _, f := range []struct{ flag, path string }{{"--junit", g.junit}, {"--report", g.report}} {
		if f.path == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(f.path)); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Errorf("%s %s: its folder does not exist", f.flag, f.path))
		}
	}
	return errs
}

func same(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// loadBaseline reads the baseline before the run, so that a wrong one
// fails at once: a report file as is; a data dir through `robustream
// report --format json` in a child process (chDB opens one data dir per
// process, and this one is about to open the run's).
func (g *gateOptions) loadBaseline(ctx context.Context, cfg *Config) error {
	if g.baseline == "" {
		return nil
	}
	st, err := os.Stat(g.baseline)
	if err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	var b []byte
	if st.IsDir() {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("--baseline %s: %w", g.baseline, err)
		}
		args := []string{"report", "--format", "json", "--data-dir", g.baseline, "--log-level", "error"}
		if cfg.ClickHouse.ChDBLib != "" {
			args = append(args, "--clickhouse-chdb-lib", cfg.ClickHouse.ChDBLib)
		}
		cmd := exec.CommandContext(ctx, exe, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if b, err = cmd.Output(); err != nil {
			return fmt.Errorf("--baseline %s: cannot read its report: %v: %s", g.baseline, err, strings.TrimSpace(stderr.String()))
		}
	} else if b, err = os.ReadFile(g.baseline); err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	if g.base, err = parseGateReport(b); err != nil {
		return fmt.Errorf("--baseline %s: %w", g.baseline, err)
	}
	return nil
}

// errGate marks the error of a run that failed its gate.
var errGate = errors.New("the run failed its gate")

// run checks the finished run: its requests, its scores against the
// thresholds and the baseline; writes the report and the JUnit XML; prints
// the outcome; and returns an error naming every failure.
func (g *gateOptions) run(ctx context.Context, e *engine, cfg *Config, started time.Time, w io.Writer) error {
	rep, err := buildReport(ctx, e.ch.Query, "all", 0)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	rep.setGenerator(e.models.generator != nil)
	if rep.Cost, err = costRows(ctx, e.ch.Query, "", e.models.prices, metricFamilies); err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	repJSON, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	if g.report != "" {
		if err := os.WriteFile(g.report, append(repJSON, '\n'), 0o644); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
	}
	cur, err := parseGateReport(repJSON)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	reqs, err := requestCounts(ctx, e)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	checks := checkRequests(reqs, g.maxFailed)
	checks = append(checks, checkThresholds(cur, g.thresholds, underTest(e.models))...)
	if g.base != nil {
		checks = append(checks, compareBaseline(cur, g.base, e.models.ids(), cfg.Alerts.Alpha, cfg.Alerts.MaxDrop, cfg.Alerts.MinSamples)...)
	}
	if g.junit != "" {
		var b bytes.Buffer
		if err := writeJUnit(&b, checks, started, time.Since(started)); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
		if err := os.WriteFile(g.junit, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	failures := gateFailures(checks)
	fmt.Fprintf(w, "\ngate: %d check(s), %d failed\n", len(checks), len(failures))
	if len(failures) == 0 {
		return nil
	}
	for _, f := range failures {
		fmt.Fprintf(w, "  FAIL %s\n", f)
	}
	return fmt.Errorf("%w:\n  %s", errGate, strings.Join(failures, "\n  "))
}

// underTest are the models an unprefixed threshold applies to: every model
// but the built-in baselines, or the baselines when nothing else runs.
func underTest(set modelSet) []string {
	var out []string
	for _, id := range set.ids() {
		if !provider.IsBaseline(set.byID[id]) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return set.ids()
	}
	return out
}

// requestCounts counts each model's results and failed requests (error
// results; the markers of variants that were not made are neither), with
// one failed request's error.
func requestCounts(ctx context.Context, e *engine) ([]modelRequests, error) {
	notMade := sqlString(reader.ErrNotMade.Error() + "%")
	out, err := e.ch.Query(ctx, `SELECT model_id, countIf(error NOT LIKE `+notMade+`),
 countIf(error != '' AND error NOT LIKE `+notMade+`),
 anyIf(replaceRegexpAll(error, '[\t\n]', ' '), error != '' AND error NOT LIKE `+notMade+`)
FROM robustream.eval_results FINAL GROUP BY model_id ORDER BY model_id`, "TabSeparated")
	if err != nil {
		return nil, err
	}
	got := map[string]modelRequests{}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		c := strings.Split(line, "\t")
		if len(c) != 4 {
			continue
		}
		r := modelRequests{Model: c[0], LastError: bareError(c[0], unescapeTSV(c[3]))}
		r.Total, _ = strconv.ParseInt(c[1], 10, 64)
		r.Failed, _ = strconv.ParseInt(c[2], 10, 64)
		got[c[0]] = r
	}
	ids := e.models.ids()
	var reqs []modelRequests
	for _, id := range ids {
		r, ok := got[id]
		if !ok {
			r = modelRequests{Model: id}
		}
		reqs = append(reqs, r)
	}
	// Results of a model no longer in models.yaml (an earlier run on the
	// same data dir) are not this run's: left out.
	return reqs, nil
}

// bareError drops the prefixes that repeat the model (and the request id)
// in a stored error: the gate names the model once.
func bareError(model, msg string) string {
	if i := strings.Index(msg, ", request "); i >= 0 && strings.HasPrefix(msg, "model "+model+", request ") {
		if j := strings.Index(msg[i+len(", request "):], ": "); j >= 0 {
			msg = msg[i+len(", request ")+j+2:]
		}
	}
	for strings.HasPrefix(msg, "model "+model+": ") {
		msg = strings.TrimPrefix(msg, "model "+model+": ")
	}
	return msg
}

// unescapeTSV undoes TabSeparated's escapes of a string field.
func unescapeTSV(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\t`, "\t", `\n`, "\n").Replace(s)
}
