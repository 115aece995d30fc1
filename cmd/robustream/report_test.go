package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/report")

// reportOutcome is one row of the fixed data set of TestReportGolden.
type reportOutcome struct {
	id, family, metric, model, question, axis, kind string
	hops                                            int
	dr                                              float64
	known, golden                                   int
	value                                           float64
	age                                             time.Duration // evaluated_at = now − age
}

// reportDataset: two models, every family; some rows evaluated 10 minutes
// ago, some 3 days ago, so that --window 24h and --window all differ.
func reportDataset() []reportOutcome {
	const recent, old = 10 * time.Minute, 72 * time.Hour
	var rows []reportOutcome
	add := func(o reportOutcome) {
		o.id = fmt.Sprintf("o%03d", len(rows))
		rows = append(rows, o)
	}
	rare := func(model, q, axis string, v float64, age time.Duration) {
		add(reportOutcome{family: "rare", metric: "f", model: model, question: q, axis: axis, kind: axis + "_k", hops: 1, known: 0, golden: 1, value: v, age: age})
	}
	for _, m := range []string{"builtin:lexical", "qwen2.5-7b"} {
		good := 1.0
		if m == "builtin:lexical" {
			good = 0
		}
		// q1: 4 outcomes, q2: 2 outcomes (recent); q3 (old).
		rare(m, "q1", "original", 1, recent)
		rare(m, "q1", "query", 1, recent)
		rare(m, "q1", "query", good, recent)
		rare(m, "q1", "document", 0, recent)
		rare(m, "q2", "original", 1, recent)
		rare(m, "q2", "cross", good, recent)
		rare(m, "q3", "query", 0, old)
		rare(m, "q3", "document", 1, old)
		rare(m, "q3", "retrieval", good, old)
	}
	// A retrieval-hit outcome: family rare, but not judge f; never scored.
	add(reportOutcome{family: "rare", metric: "retrieval_hit", model: "qwen2.5-7b", question: "q1", axis: "original", value: 0, age: recent})

	sure := func(known, golden int, v float64, age time.Duration) {
		q := fmt.Sprintf("s%d", len(rows))
		add(reportOutcome{family: "sure", metric: "c", model: "qwen2.5-7b", question: q, axis: "spurious", kind: "format_json", hops: 1, known: known, golden: golden, value: v, age: age})
		// The second row SURE writes per instance (Y(original), for the
		// views' accuracies): not a C, and not counted as one.
		add(reportOutcome{family: "sure", metric: "y_original", model: "qwen2.5-7b", question: q, axis: "spurious", kind: "format_json", hops: 1, known: known, golden: golden, value: 1, age: age})
	}
	sure(1, 1, 0, recent)
	sure(1, 1, 0, recent)
	sure(1, 1, 1, recent)
	sure(1, 0, -1, recent)
	sure(0, 1, 0, recent)
	sure(0, 0, 1, old)
	sure(0, 0, 0, old)

	grade := func(model, q string, hops int, dr, v float64, age time.Duration) {
		add(reportOutcome{family: "grade", metric: "correct", model: model, question: q, axis: "retrieval", kind: "bm25_top3", hops: hops, dr: dr, known: 0, golden: 1, value: v, age: age})
	}
	for i, g := range []struct {
		hops int
		dr   float64
	}{{1, 0.1}, {1, 0.3}, {2, 0.5}, {2, 0.7}, {3, 0.9}, {3, 0.2}, {1, 0.8}, {2, 0.4}} {
		q := fmt.Sprintf("g%d", i)
		age := recent
		if i >= 6 {
			age = old
		}
		grade("qwen2.5-7b", q, g.hops, g.dr, float64((i+1)%2), age)
		grade("builtin:lexical", q, g.hops, g.dr, float64(i%3/2), age)
	}

	prgb := func(q string, vals []float64, age time.Duration) {
		for _, v := range vals {
			add(reportOutcome{family: "prgb", metric: "correct", model: "qwen2.5-7b", question: q, axis: "placeholder", kind: "date", hops: 1, value: v, age: age})
		}
	}
	prgb("p1", []float64{1, 1, 1}, recent)
	prgb("p2", []float64{1, 0, 0, 1}, recent)
	prgb("p3", []float64{0, 0}, recent)
	prgb("p4", []float64{1, 1}, old)
	return rows
}

func insertOutcomes(t *testing.T, dataDir string, rows []reportOutcome, now time.Time) {
	t.Helper()
	var vals []string
	for _, o := range rows {
		at := now.Add(-o.age).Unix()
		vals = append(vals, fmt.Sprintf("('%s','%s','%s','%s','%s','v-%s','%s','%s','single',%d,%g,'finance',%d,%d,%g,toDateTime(%d),toDateTime(%d),toDateTime(%d))",
			o.id, o.family, o.metric, o.model, o.question, o.id, o.axis, o.kind, o.hops, o.dr, o.known, o.golden, o.value, at-86400*30, at, at))
	}
	robustream(t, "sql", "--data-dir", dataDir, `INSERT INTO robustream.outcomes
 (outcome_id, family, metric, model_id, question_id, variant_id, axis, kind, pattern, hops, d_r, domain, known, golden, value, published_at, evaluated_at, produced_at)
 VALUES `+strings.Join(vals, ","))
}

// TestReportGolden stores a fixed set of outcomes in embedded chDB (through
// the binary: migrate, then INSERT with `robustream sql`), then compares
// `robustream report` in text and JSON, over all time and the last 24 hours,
// with testdata/report/*.golden. go test -run TestReportGolden -update
// rewrites them.
func TestReportGolden(t *testing.T) {
	dataDir := t.TempDir()
	robustream(t, "migrate", "--data-dir", dataDir)
	rows := reportDataset()
	now := time.Now()
	insertOutcomes(t, dataDir, rows, now)
	// The same outcomes again in a second insert (a second part): a retried
	// sink batch that the raw table's ReplacingMergeTree has not merged yet
	// must not count twice.
	insertOutcomes(t, dataDir, rows[:5], now)

	for _, tc := range []struct{ window, format string }{
		{"all", "text"}, {"all", "json"}, {"24h", "text"}, {"24h", "json"}, {"1d", "json"},
	} {
		t.Run(tc.window+"_"+tc.format, func(t *testing.T) {
			out := robustream(t, "report", "--data-dir", dataDir, "--window", tc.window, "--format", tc.format)
			if tc.format == "json" {
				var v metricReport
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatalf("report is not JSON: %v\n%s", err, out)
				}
			}
			if tc.window == "1d" {
				// 1d is 24h: same figures, another label.
				tc.window = "24h"
				out = strings.Replace(out, `"window": "1d"`, `"window": "24h"`, 1)
			}
			ext := map[string]string{"text": "txt", "json": "json"}[tc.format]
			golden := filepath.Join("testdata", "report", "window_"+tc.window+"."+ext)
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if out != string(want) {
				t.Errorf("report --window %s --format %s differs from %s (-update rewrites it)\ngot:\n%s\nwant:\n%s", tc.window, tc.format, golden, out, want)
			}
		})
	}
}

func TestReportWindowFlag(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"all": 0, "": 0, "1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "90m": 90 * time.Minute,
	} {
		got, err := parseWindow(in)
		if err != nil || got != want {
			t.Errorf("parseWindow(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"x", "7w", "-1h", "0s", "d", "1.5d"} {
		if _, err := parseWindow(bad); err == nil {
			t.Errorf("parseWindow(%q): no error", bad)
		}
	}
}
