package main

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// shout is a perturbation kind defined in this file only: the question in
// capitals.
var shout = perturb.Kind{Axis: schemas.AxisQuery, Name: "shout", Families: []string{schemas.FamilyRARE},
	Make: func(_ *perturb.Perturber, in *perturb.Input) (perturb.Made, error) {
		return perturb.Made{Query: strings.ToUpper(in.Question.Question), Contexts: in.Question.GTChunks, AnswerAvailable: true}, nil
	}}

// paraphrase needs the generator LLM, which this build does not have.
var paraphrase = perturb.Kind{Axis: schemas.AxisQuery, Name: "llm_paraphrase", Families: []string{schemas.FamilyRARE}, NeedsLLM: true,
	Make: func(*perturb.Perturber, *perturb.Input) (perturb.Made, error) {
		panic("an LLM kind ran without a generator")
	}}

// TestPerturbKindRegistry: a perturbation kind is added with its definition
// and one registry line; an LLM kind without a generator is skipped and
// counted, never silently missing.
func TestPerturbKindRegistry(t *testing.T) {
	defer func(k []perturb.Kind) { perturbKinds = k }(perturbKinds)
	perturbKinds = append(perturbKinds, shout, paraphrase)

	cfg := defaultConfig()
	e := &engine{cfg: &cfg, log: slog.New(slog.DiscardHandler), reg: prometheus.NewRegistry()}
	var spec stageSpec
	for _, s := range registry() {
		if s.name == perturb.StageName {
			spec = s
		}
	}
	st, err := spec.build(e)
	if err != nil {
		t.Fatal(err)
	}
	q := &schemas.Question{QuestionID: "q1", Question: "Who leads Northwind Bank?", Answer: "Maria Lopez",
		GTChunks: []string{"Northwind Bank appointed Maria Lopez as chief executive in 2026."}}
	schemas.Stamp(q, q.QuestionID)
	b, err := schemas.Encode(q)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Processor.Process(context.Background(), streams.Message{Value: b})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range recs {
		var v schemas.Variant
		if err := schemas.Decode(r.Value, &v); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, v.Kind)
		// The set also holds the retrieval slots, made by the retrieve stage.
		if want := len(recs) + len(retrievalKinds(&cfg, e.models)); v.Kind == "shout" && (v.Query != "WHO LEADS NORTHWIND BANK?" || v.SetSize != want) {
			t.Errorf("shout variant: %q, set size %d, want %d", v.Query, v.SetSize, want)
		}
	}
	if !slices.Contains(kinds, "shout") || slices.Contains(kinds, "llm_paraphrase") {
		t.Errorf("variant kinds %v: want shout, and no llm_paraphrase without a generator", kinds)
	}
	skipped := st.Processor.(*perturb.Stage).Skipped()
	if skipped["llm_paraphrase"] != 1 {
		t.Errorf("skipped %v: the LLM kind must be counted", skipped)
	}
}
