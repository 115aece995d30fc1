package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFreshnessScheduleFlag: the schedule of stages.infer.freshness is a
// comma-separated list of durations on the command line and in the
// environment; a bad element is an error naming it.
func TestFreshnessScheduleFlag(t *testing.T) {
	cfg, err := parseConfig(flag.NewFlagSet("run", flag.ContinueOnError),
		[]string{"--stages-infer-freshness-schedule", "1m, 5m,15m", "--stages-infer-freshness-models", "shop-rag"}, io.Discard, runKeys...)
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.Stages.Infer.Config.Freshness
	if want := []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute}; !slices.Equal(f.Schedule, want) || !slices.Equal(f.Models, []string{"shop-rag"}) {
		t.Errorf("schedule %v models %v, want %v and shop-rag", f.Schedule, f.Models, want)
	}
	t.Setenv("ROBUSTREAM_STAGES_INFER_FRESHNESS_SCHEDULE", "2m,soon")
	_, err = parseConfig(flag.NewFlagSet("run", flag.ContinueOnError), nil, io.Discard, runKeys...)
	if err == nil || !strings.Contains(err.Error(), `"soon" is not a duration`) {
		t.Errorf("a bad schedule element: %v", err)
	}
}
