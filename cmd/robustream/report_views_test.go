package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/metrics"
	"github.com/robustream/robustream/sinks/clickhouse"
)

// TestReportMatchesViews: on the report's fixture (eight GRADE questions,
// RARE rows with a retrieval-hit row beside them), the report's GRADE
// cells are grade_matrix's rows (the dashboard's all-time panel), with two
// questions in each D_r quartile; the report used to bin the same eight
// questions 3/2/2/1 by value bounds of its own. RARE's rows are
// rare_scores'. /api/scores by_kind never averages the retrieval-hit row
// into f.
func TestReportMatchesViews(t *testing.T) {
	dataDir := t.TempDir()
	robustream(t, "migrate", "--data-dir", dataDir)
	insertOutcomes(t, dataDir, reportDataset(), time.Now())

	var rep metricReport
	if err := json.Unmarshal([]byte(robustream(t, "report", "--data-dir", dataDir, "--format", "json")), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	questions := map[int]int{}
	for _, c := range rep.GRADE.Cells {
		got = append(got, fmt.Sprintf("%s %d %d %d %.6f", c.Model, c.Hops, c.Quartile, c.N, float64(c.ErrorRate)))
		if c.Model == "qwen2.5-7b" {
			questions[c.Quartile] += int(c.N) // one outcome per question here
		}
	}
	view := robustream(t, "sql", "--data-dir", dataDir, `SELECT model_id, hops, dr_quartile, n, round(error_rate, 6)
FROM robustream.grade_matrix ORDER BY model_id, sim_func, hops, dr_quartile`)
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(view), "\n") {
		c := strings.Split(line, "\t")
		var rate float64
		fmt.Sscan(c[4], &rate)
		want = append(want, fmt.Sprintf("%s %s %s %s %.6f", c[0], c[1], c[2], c[3], rate))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) == 0 {
		t.Errorf("report GRADE cells differ from grade_matrix:\nreport:\n%s\nview:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if fmt.Sprint(questions) != fmt.Sprint(map[int]int{1: 2, 2: 2, 3: 2, 4: 2}) {
		t.Errorf("questions per D_r quartile %v, want 2/2/2/2", questions)
	}

	rare := robustream(t, "sql", "--data-dir", dataDir, `SELECT model_id, n, round(overall, 6), round(query_robustness, 6)
FROM robustream.rare_scores ORDER BY model_id`)
	var gotRARE []string
	for _, x := range rep.RARE {
		gotRARE = append(gotRARE, fmt.Sprintf("%s\t%d\t%v\t%v", x.Model, x.Outcomes, round6(x.Overall), round6(x.Query)))
	}
	if strings.Join(gotRARE, "\n") != strings.TrimSpace(rare) {
		t.Errorf("report RARE rows differ from rare_scores:\nreport:\n%s\nview:\n%s", strings.Join(gotRARE, "\n"), rare)
	}

	// /api/scores by_kind, on the same data in-process.
	ctx := context.Background()
	e, err := clickhouse.Open(ctx, clickhouse.Config{DataDir: dataDir})
	if errors.Is(err, clickhouse.ErrNoChDB) {
		t.Skipf("chDB unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	resp, err := (&engine{ch: e}).loadScores(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range resp.ByKind {
		// qwen2.5-7b's original rows are f = 1 (q1, q2); its retrieval-hit
		// row (value 0, axis original) would pull the mean to 2/3.
		if k.Model == "qwen2.5-7b" && k.Axis == "original" && (k.N != 2 || k.Score == nil || *k.Score != 1) {
			t.Errorf("by_kind qwen2.5-7b original: n %d score %v, want n 2 score 1 (f rows only)", k.N, *k.Score)
		}
	}
	if len(resp.ByKind) == 0 {
		t.Error("by_kind is empty")
	}
	// Per retriever and with intervals: the API's figures are the report's.
	for _, m := range resp.Models {
		for _, x := range rep.RARE {
			if x.Model != m.Model {
				continue
			}
			if len(m.Retrievers) != len(x.Retrievers) || len(m.Retrievers) == 0 || m.Retrievers[0].Retriever != x.Retrievers[0].Retriever ||
				m.Retrievers[0].Retrieval == nil || round6(metrics.Score(*m.Retrievers[0].Retrieval)) != round6(x.Retrievers[0].Retrieval) {
				t.Errorf("%s: /api/scores retrievers %+v, report %+v", m.Model, m.Retrievers, x.Retrievers)
			}
			if m.OverallCI == nil || round6(metrics.Score(m.OverallCI[0])) != round6(x.OverallCI[0]) || round6(metrics.Score(m.OverallCI[1])) != round6(x.OverallCI[1]) {
				t.Errorf("%s: /api/scores overall_ci %v, report %v", m.Model, m.OverallCI, x.OverallCI)
			}
		}
	}
}

func round6(s metrics.Score) string {
	f := float64(s)
	if f != f {
		return "nan"
	}
	return fmt.Sprint(float64(int64(f*1e6+0.5)) / 1e6)
}
