package main

import (
	"strings"
	"testing"

	"github.com/robustream/robustream/streams"
)

// TestCheckTopology: the registry is a connected graph, and a stage whose
// input nobody writes is a start-up error naming the stage and topic.
func TestCheckTopology(t *testing.T) {
	if err := checkTopology(registry(), perturbKinds); err != nil {
		t.Fatalf("the registry: %v", err)
	}
	orphan := append(registry(), stageSpec{name: "orphan", inputs: []string{streams.TopicEvalRequests + "-typo", "rs-test.nobody"}})
	err := checkTopology(orphan, perturbKinds)
	if err == nil {
		t.Fatal("a stage reading topics nobody writes passed the check")
	}
	for _, want := range []string{"stage orphan reads " + streams.TopicEvalRequests + "-typo", "stage orphan reads rs-test.nobody"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// Every processor stage declares what it writes.
	for _, sp := range registry() {
		if !strings.HasPrefix(sp.name, "sink.") && len(sp.outputs) == 0 {
			t.Errorf("stage %s declares no outputs", sp.name)
		}
	}
}
