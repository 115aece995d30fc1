package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// demoEval is one `eval --once --source demo` run shared by the tests that
// read a real run (the README's figures, the topics it creates).
var demoEval struct {
	once sync.Once
	dir  string
	err  string
}

// demoEvalRun runs `eval --once --source demo --report` once per test
// binary and returns its data dir; the report is dir/report.json.
func demoEvalRun(t *testing.T) string {
	t.Helper()
	demoEval.once.Do(func() {
		dir, err := os.MkdirTemp("", "robustream-demo-eval-")
		if err != nil {
			demoEval.err = err.Error()
			return
		}
		out, err := runBinary(nil, "eval", "--once", "--source", "demo", "--data-dir", filepath.Join(dir, "data"),
			"--report", filepath.Join(dir, "report.json"), "--log-level", "warn")
		if err != nil {
			demoEval.err = err.Error() + "\n" + tail(out, 4000)
		}
		demoEval.dir = dir
	})
	if demoEval.err != "" {
		t.Fatalf("eval --once --source demo: %s", demoEval.err)
	}
	return demoEval.dir
}

// readmeFigureRow is a row of the README's figures table:
// | model | overall | query | document | retrieval |
var readmeFigureRow = regexp.MustCompile(`(?m)^\| (builtin:[a-z-]+) \(baseline\) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+)[^|]*\| ([0-9.]+)[^|]*\|$`)

// TestReadmeFigures: the RARE figures the README quotes for the demo are
// what `eval --once --source demo` measures now, within 0.02 (the demo is
// seeded; the tolerance is for the last digit of rounding and any order
// effect between runs).
func TestReadmeFigures(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := readmeFigureRow.FindAllStringSubmatch(string(b), -1)
	if len(rows) != 2 {
		t.Fatalf("the README's figures table has %d rows of the two built-in models, want 2", len(rows))
	}
	dir := demoEvalRun(t)
	rb, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		RARE []struct {
			Model                               string
			Overall, Query, Document, Retrieval float64
		} `json:"rare"`
	}
	if err := json.Unmarshal(rb, &report); err != nil {
		t.Fatal(err)
	}
	measured := map[string][4]float64{}
	for _, r := range report.RARE {
		measured[r.Model] = [4]float64{r.Overall, r.Query, r.Document, r.Retrieval}
	}
	for _, row := range rows {
		m, ok := measured[row[1]]
		if !ok {
			t.Errorf("README quotes %s, which the run did not score", row[1])
			continue
		}
		for i, name := range []string{"overall", "query", "document", "retrieval"} {
			quoted, err := strconv.ParseFloat(row[2+i], 64)
			if err != nil {
				t.Fatal(err)
			}
			if d := quoted - m[i]; d > 0.02 || d < -0.02 {
				t.Errorf("README: %s %s is %s; eval --once --source demo measures %.3f", row[1], name, row[2+i], m[i])
			}
		}
	}
	if !strings.Contains(string(b), "eval --once --source demo") {
		t.Error("the README does not say which run its figures come from")
	}
}
