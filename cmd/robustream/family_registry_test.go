package main

import (
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/schemas"
)

// TestKindFamiliesAgree: every registered kind declares exactly the
// registered families that score its axis. A SURE spurious kind added with
// one registry line and its own declaration passes and is scored by no
// RARE; one that claims RARE (or a RARE query kind that forgets to) is a
// start-up error naming it.
func TestKindFamiliesAgree(t *testing.T) {
	if err := checkKindFamilies(perturbKinds, metricFamilies); err != nil {
		t.Fatalf("the registries disagree: %v", err)
	}
	same := func(_ *perturb.Perturber, in *perturb.Input) (perturb.Made, error) {
		return perturb.Made{Query: in.Question.Question, Contexts: in.Question.GTChunks, AnswerAvailable: true}, nil
	}
	formatJSON := perturb.Kind{Axis: schemas.AxisSpurious, Name: "format_toml", Make: same, Families: []string{schemas.FamilySURE}}
	// SURE scores the spurious axis: a new spurious kind declaring it passes.
	if err := checkKindFamilies(append(perturbKinds, formatJSON), metricFamilies); err != nil {
		t.Errorf("spurious kind declaring SURE: %v", err)
	}
	formatJSON.Families = nil
	err := checkKindFamilies(append(perturbKinds, formatJSON), metricFamilies)
	if err == nil || !strings.Contains(err.Error(), "spurious/format_toml declares families [], but the families scoring axis spurious are [sure]") {
		t.Errorf("spurious kind declaring no family: err = %v", err)
	}
	formatJSON.Families = []string{schemas.FamilyRARE}
	err = checkKindFamilies(append(perturbKinds, formatJSON), metricFamilies)
	if err == nil || !strings.Contains(err.Error(), "spurious/format_toml declares families [rare]") {
		t.Errorf("spurious kind claiming RARE: err = %v", err)
	}
	forgetful := perturb.Kind{Axis: schemas.AxisQuery, Name: "shout", Make: same}
	err = checkKindFamilies(append(perturbKinds, forgetful), metricFamilies)
	if err == nil || !strings.Contains(err.Error(), "query/shout declares families [], but the families scoring axis query are [rare]") {
		t.Errorf("query kind declaring no family: err = %v", err)
	}
	// And the start-up check runs it.
	if err := checkTopology(registry(), append(perturbKinds, formatJSON)); err == nil || !strings.Contains(err.Error(), "format_toml") {
		t.Errorf("checkTopology: err = %v, want the kind named", err)
	}
}
