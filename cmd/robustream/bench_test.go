package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// benchEngine starts the bench's engine (embedded broker, no ClickHouse) on
// one demo period, as `robustream bench --periods 1` does.
func benchEngine(t *testing.T) (*engine, map[string][]streams.Message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cfg := defaultConfig()
	e, inputs, err := benchSetup(ctx, &cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.close)
	return e, inputs
}

// TestBenchMeasuresEveryStageDoingItsWork runs the bench's stage path on a
// small input: every processor stage of the registry gets a row, and every
// row comes from a run where the stage emitted records and dead-lettered
// none — the questions row included, which once fed triplets to pairing.
func TestBenchMeasuresEveryStageDoingItsWork(t *testing.T) {
	e, inputs := benchEngine(t)
	var out bytes.Buffer
	rows, err := benchStages(context.Background(), e, inputs, 1, nil, &out)
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out.String())
	}
	var want []string
	var idle []stageSpec
	for _, spec := range selectStages(nil) {
		if !strings.HasPrefix(spec.name, "sink.") && (spec.enabled == nil || spec.enabled(e.cfg)) {
			if stageIdle(spec, e) != "" {
				idle = append(idle, spec)
				continue
			}
			want = append(want, spec.name)
		}
	}
	// The bench has no generator and no remote model under test, so
	// source_self is idle; an idle stage is listed with its reason, and
	// the claim is checked: fed its input, it does make nothing.
	if !slices.ContainsFunc(idle, func(sp stageSpec) bool { return sp.name == perturb.SelfStageName }) {
		t.Errorf("source_self is not idle under the bench's models (no generator, built-in readers only)")
	}
	for _, spec := range idle {
		if !strings.Contains(out.String(), spec.name+" idle under this configuration, not measured: ") {
			t.Errorf("idle stage %s is not listed as idle:\n%s", spec.name, out.String())
		}
		var in []streams.Message
		for _, tp := range spec.inputs {
			in = append(in, inputs[tp]...)
		}
		if row, err := benchStage(context.Background(), e, spec, in); err == nil || !strings.Contains(err.Error(), "emitted nothing") || row.DLQ != 0 {
			t.Errorf("stage %s, said to be idle, on %d inputs: err %v, %d records, %d dead letters", spec.name, len(in), err, row.Out, row.DLQ)
		}
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Name)
		if r.Out == 0 || r.DLQ != 0 || r.Rate <= 0 {
			t.Errorf("stage %s: %d inputs gave %d records and %d dead letters at %.0f ev/s", r.Name, r.Events, r.Out, r.DLQ, r.Rate)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("bench measured %v, want every processor stage %v", got, want)
	}
	if !slices.Contains(got, question.StageName) || !slices.Contains(got, pair.StageName) {
		t.Errorf("the stateful stages are missing from %v", got)
	}
	t.Logf("\n%s", out.String())
}

// TestBenchRefusesAStageFedTheWrongInput: pairing fed triplets (the old
// bench's mistake) dead-letters them, and the bench returns an error naming
// the stage and the first reason instead of a figure.
func TestBenchRefusesAStageFedTheWrongInput(t *testing.T) {
	e, inputs := benchEngine(t)
	spec := selectStages([]string{pair.StageName})[0]
	triplets := inputs[streams.TopicTriplets]
	if len(triplets) == 0 {
		t.Fatal("no triplets in the bench input")
	}
	row, err := benchStage(context.Background(), e, spec, triplets)
	if err == nil {
		t.Fatalf("pairing fed %d triplets gave a figure: %+v", len(triplets), row)
	}
	for _, want := range []string{"stage pair", "dead-lettered", "first: eval result"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if row.DLQ != len(triplets) {
		t.Errorf("counted %d dead letters, want all %d inputs", row.DLQ, len(triplets))
	}
}

// TestBenchRefusesAStageThatEmitsNothing: the questions stage fed its
// triplets without the End records that close each chunk asks nothing, and
// a run that emitted nothing is an error, not a figure.
func TestBenchRefusesAStageThatEmitsNothing(t *testing.T) {
	e, inputs := benchEngine(t)
	var open []streams.Message
	for _, m := range inputs[streams.TopicTriplets] {
		var tr schemas.Triplet
		if err := schemas.Decode(m.Value, &tr); err != nil {
			t.Fatal(err)
		}
		if !tr.End {
			open = append(open, m)
		}
	}
	if len(open) == 0 || len(open) == len(inputs[streams.TopicTriplets]) {
		t.Fatalf("expected triplets and End records in the input, got %d of %d without End", len(open), len(inputs[streams.TopicTriplets]))
	}
	spec := selectStages([]string{question.StageName})[0]
	row, err := benchStage(context.Background(), e, spec, open)
	if err == nil || !strings.Contains(err.Error(), "stage questions emitted nothing") {
		t.Fatalf("questions without End records: err = %v, row %+v", err, row)
	}
	if row.DLQ != 0 {
		t.Errorf("the input was valid, yet %d dead letters", row.DLQ)
	}
}
