package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/perturb"
)

// TestCoverageLLMKindsNeedGenerator: an engine run without a generator
// (no generator: in models.yaml) makes no LLM variant, and /api/coverage,
// which the dashboard's coverage table shows, lists every LLM kind as
// needing a generator, with the questions it skipped counted.
func TestCoverageLLMKindsNeedGenerator(t *testing.T) {
	data := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	engine := startBackground(t, "run", "--data-dir", data, "--http", addr, "--demo-periods", "1")
	engine.waitListening(t, addr, time.Minute)

	var llmKinds []string
	for _, k := range perturbKinds {
		if k.NeedsLLM {
			llmKinds = append(llmKinds, k.Name)
		}
	}
	// RARE's three, and SURE's five on golden and noise contexts.
	if len(llmKinds) != 3+2*5 {
		t.Fatalf("LLM kinds in the registry: %v, want llm_grammar, llm_irrelevant, back_translation and SURE's style_simple, style_complex, source_llm, logic_llm_rerank, source_self (each also _noise)", llmKinds)
	}
	var last string
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(time.Second) {
		if engine.exited() {
			t.Fatalf("robustream run exited (%v):\n%s", engine.err, tail(engine.output(), 4000))
		}
		if time.Now().After(deadline) {
			t.Fatalf("/api/coverage never showed the LLM kinds skipped for want of a generator; last:\n%s", last)
		}
		status, body, err := httpGet("http://" + addr + "/api/coverage")
		if err != nil || status != http.StatusOK {
			continue
		}
		last = body
		var cov struct{ Kinds []coverageKind }
		if err := json.Unmarshal([]byte(body), &cov); err != nil {
			t.Fatalf("/api/coverage is not JSON: %v\n%s", err, body)
		}
		rows := map[string]coverageKind{}
		for _, k := range cov.Kinds {
			rows[k.Kind] = k
		}
		done := rows[perturb.KindChar].Variants > 0 // the demo's variants are stored
		for _, name := range llmKinds {
			k, ok := rows[name]
			if !ok || k.Needs != "generator" || !strings.Contains(k.Reason, "needs a generator") || k.Variants != 0 {
				t.Fatalf("coverage row of %s: %+v (present %v), want needs generator and no variant", name, k, ok)
			}
			if k.Skipped == 0 || !strings.Contains(strings.Join(mapsKeys(k.Reasons), " "), "needs a generator") {
				done = false // not counted yet: perturb has not seen a question
			}
		}
		if done {
			t.Logf("coverage rows: %s", body)
			return
		}
	}
}

func mapsKeys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
