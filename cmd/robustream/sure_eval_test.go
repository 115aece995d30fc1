package main

import (
	"strings"
	"testing"
)

// TestEvalOnceDemoSURE: eval --once on the demo feed produces SURE outcomes
// for every model, on every Known/Unknown × Golden/Noise cell the demo's
// models reach, and the report prints SURE's table with numbers.
func TestEvalOnceDemoSURE(t *testing.T) {
	data := t.TempDir()
	robustream(t, "eval", "--once", "--source", "demo", "--data-dir", data, "--log-level", "error")
	models := strings.Fields(robustream(t, "sql", "--data-dir", data, "SELECT DISTINCT model_id FROM robustream.eval_results ORDER BY model_id"))
	if len(models) < 2 {
		t.Fatalf("models: %v", models)
	}
	for _, m := range models {
		// Both context types, and at least five of the ten kinds on each.
		for _, golden := range []string{"1", "0"} {
			n := sqlCount(t, "SELECT uniqExact(kind) FROM robustream.sure_instances WHERE model_id = '"+m+"' AND golden = "+golden, "--data-dir", data)
			if n < 5 {
				t.Errorf("%s golden=%s: SURE instances on %d kinds", m, golden, n)
			}
		}
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes WHERE family = 'rare' AND axis = 'spurious'", "--data-dir", data); n != 0 {
		t.Errorf("%d RARE outcomes on the spurious axis", n)
	}
	report := robustream(t, "report", "--data-dir", data)
	i := strings.Index(report, "SURE")
	if i < 0 {
		t.Fatalf("no SURE section:\n%s", report)
	}
	section := report[i:]
	if j := strings.Index(section, "GRADE"); j > 0 {
		section = section[:j]
	}
	if strings.Contains(section, "no data yet") || !strings.Contains(section, "unknown/golden") || !strings.Contains(section, "unknown/noise") {
		t.Errorf("SURE section without numbers:\n%s", section)
	}
}
