package main

// `robustream report`: the robustness metrics of every family in the
// terminal (text) or as JSON. The figures come from processors/metrics
// (metrics.BuildReport): each family's aggregations, the very text of the
// score views and of the dashboard's panels, over the window; this file
// adds the coverage section and writes the output. The window filters on
// evaluated_at, the time of evaluation.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/robustream/robustream/processors/metrics"
)

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
		if rep.Cost, err = costRows(ctx, q.query, costSince(win), models.prices, metricFamilies); err != nil {
			return err
		}
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

// metricReport is the report: every family's figures (metrics.Report)
// and the coverage of the perturbation kinds; its JSON form is the
// --format json output.
type metricReport struct {
	*metrics.Report
	Coverage []coverageRow `json:"coverage"`
	// Retrieval and Freshness: processors/metrics/retrieval.go.
	Retrieval []metrics.RetrievalRow `json:"retrieval"`
	Freshness []metrics.FreshnessRow `json:"freshness"`
	// Cost per model and family (cost.go), set where the prices are known.
	Cost  []costRow `json:"cost"`
	query queryFunc
	ctx   context.Context
	// questionIDs are the questions perturbed (coverage's denominator).
	questionIDs []string
}

// buildReport runs the families' queries and the coverage counts.
func buildReport(ctx context.Context, query queryFunc, window string, win time.Duration) (*metricReport, error) {
	rep, err := metrics.BuildReport(ctx, metrics.QueryFunc(query), window, win)
	if err != nil {
		return nil, err
	}
	r := &metricReport{Report: rep, query: query, ctx: ctx}
	if err := r.loadCoverage(); err != nil {
		return nil, err
	}
	if r.Retrieval, err = metrics.Retrieval(ctx, metrics.QueryFunc(query), metrics.ReportWindow(win)); err != nil {
		return nil, err
	}
	if r.Freshness, err = metrics.Freshness(ctx, metrics.QueryFunc(query), metrics.ReportWindow(win)); err != nil {
		return nil, err
	}
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

func rcount(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func (r *metricReport) writeText(w io.Writer) error {
	var b strings.Builder
	r.Report.WriteText(&b)
	metrics.WriteRetrievalText(&b, r.Retrieval)
	metrics.WriteFreshnessText(&b, r.Freshness)
	writeCostText(&b, r.Cost)
	r.writeCoverage(&b)
	// Cells are padded to a width; a line ends at its last character.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}
