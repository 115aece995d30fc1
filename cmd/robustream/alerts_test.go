package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/drift"
	"github.com/robustream/robustream/sinks/alert"
)

// TestAlertsConfig: alerts.* come from YAML, env and flags, receivers from
// YAML; every error carries its path; the stages run only when configured.
func TestAlertsConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte(`alerts:
  recent_window: 30m
  max_drop: 0.2
  receivers:
    - {name: ops, kind: slack, url: "https://hooks.example.com/${ALERTS_TEST_TOKEN}", headers: {X-Token: "${ALERTS_TEST_TOKEN}"}}
    - {name: am, kind: alertmanager, url: "http://127.0.0.1:9093"}
`), 0o600)
	t.Setenv("ALERTS_TEST_TOKEN", "t0ken")
	t.Setenv("ROBUSTREAM_ALERTS_MIN_SAMPLES", "80")
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l := newLoader(fs, runKeys...)
	if err := fs.Parse([]string{"--config", file, "--alerts-cooldown", "1h"}); err != nil {
		t.Fatal(err)
	}
	cfg, errs := l.load()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	a := cfg.Alerts
	if a.RecentWindow != 30*time.Minute || a.MaxDrop != 0.2 || a.MinSamples != 80 || a.Cooldown != time.Hour ||
		a.Interval != drift.Defaults().Interval || len(a.Receivers) != 2 || a.Receivers[0].Kind != alert.Slack || !a.on() {
		t.Errorf("alerts config %+v", a)
	}
	if cfg.dashboardURL() != "http://127.0.0.1:8080/" {
		t.Errorf("dashboard url %q", cfg.dashboardURL())
	}
	// Unconfigured: neither the evaluator nor the receivers' stage runs.
	def := defaultConfig()
	if def.Alerts.on() || receiversStage().enabled(&def) {
		t.Error("alerts on by default")
	}
	if !isPeriodicStage(drift.StageName) || !knownStage(alert.StageName) {
		t.Error("alert stages are not registered")
	}

	t.Setenv("ALERTS_TEST_TOKEN", "")
	t.Setenv("ROBUSTREAM_ALERTS_ALPHA", "0")
	fs = flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l = newLoader(fs, runKeys...)
	fs.Parse([]string{"--config", file})
	_, errs = l.load()
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"alerts.alpha: 0 must be in (0, 1)",
		"alerts.receivers[0].url: references ${ALERTS_TEST_TOKEN}, which is not set",
		"alerts.receivers[0].headers.X-Token: references ${ALERTS_TEST_TOKEN}"} {
		if !strings.Contains(all, want) {
			t.Errorf("errors lack %q:\n%s", want, all)
		}
	}
}
