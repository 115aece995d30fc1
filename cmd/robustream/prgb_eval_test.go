package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestEvalOnceDemoPRGB: eval --once on the demo feed writes PRGB outcomes
// for every model, only on the placeholder axis, never a RARE row there,
// and report prints the PRGB table with numbers for each model.
func TestEvalOnceDemoPRGB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the engine over the demo feed")
	}
	data := t.TempDir()
	robustream(t, "eval", "--once", "--source", "demo", "--data-dir", data)
	models := strings.Fields(robustream(t, "sql", "--data-dir", data, "SELECT DISTINCT model_id FROM robustream.outcomes WHERE family = 'rare' ORDER BY model_id"))
	if len(models) == 0 {
		t.Fatal("no models scored")
	}
	for _, m := range models {
		if n := sqlCount(t, "SELECT count() FROM robustream.outcomes FINAL WHERE family = 'prgb' AND model_id = '"+m+"'", "--data-dir", data); n < 100 {
			t.Errorf("%s: %d PRGB outcomes, want at least 100 on the demo feed", m, n)
		}
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes WHERE family = 'prgb' AND (axis != 'placeholder' OR metric NOT IN ('filtering', 'combination', 'reasoning'))", "--data-dir", data); n != 0 {
		t.Errorf("%d PRGB outcomes off the placeholder axis or without a task class", n)
	}
	// Noise documents from the graph beyond the question's own documents
	// (docs/methods.md, PRGB): most placeholder variants carry some, and
	// pairing scores them.
	withNoise := sqlCount(t, "SELECT count() FROM robustream.variants WHERE axis = 'placeholder' AND length(contexts) > 2", "--data-dir", data)
	all := sqlCount(t, "SELECT count() FROM robustream.variants WHERE axis = 'placeholder'", "--data-dir", data)
	if withNoise*2 < all || withNoise == 0 {
		t.Errorf("%d of %d placeholder variants carry noise documents, want most", withNoise, all)
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes AS o INNER JOIN robustream.variants AS v ON o.variant_id = v.variant_id WHERE o.family = 'prgb' AND length(v.contexts) > 2", "--data-dir", data); n == 0 {
		t.Error("no PRGB outcome on a variant with noise documents")
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes WHERE family = 'rare' AND axis = 'placeholder'", "--data-dir", data); n != 0 {
		t.Errorf("%d RARE outcomes on the placeholder axis", n)
	}
	report := robustream(t, "report", "--data-dir", data)
	_, section, ok := strings.Cut(report, "\nPRGB")
	if !ok {
		t.Fatalf("report has no PRGB section:\n%s", report)
	}
	for _, m := range models {
		if !regexp.MustCompile(regexp.QuoteMeta(m) + `[^\n]*\s\d+\s+[01]\.\d{3}`).MatchString(section) {
			t.Errorf("report's PRGB section has no numbers for %s:\n%s", m, section)
		}
	}
}
