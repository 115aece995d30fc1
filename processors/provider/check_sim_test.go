package provider_test

import (
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
)

// checkWithin runs one check bounded by 5 s: a problem named after that
// would come out as the deadline instead, and fail the test's wants.
func checkWithin(t *testing.T, m Model) CheckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	start := time.Now()
	r := Check(ctx, m, Query{Question: "What colour is the sky in the probe?", Contexts: []string{"In the probe the sky is green."},
		Prompt: "Context: In the probe the sky is green.\nQuestion: What colour is the sky in the probe?\nAnswer:"})
	t.Logf("%s: %s in %s (problem %q, answer %q, notes %v)", r.ID, r.Describe, time.Since(start).Round(time.Millisecond), r.Problem, r.Answer, r.Notes)
	return r
}

func wantProblem(t *testing.T, r CheckResult, permanent bool, wants ...string) {
	t.Helper()
	if r.OK() {
		t.Fatalf("%s: no problem found; answer %q", r.ID, r.Answer)
	}
	if r.Permanent != permanent {
		t.Errorf("%s: permanent %v, want %v (%s)", r.ID, r.Permanent, permanent, r.Problem)
	}
	for _, w := range wants {
		if !strings.Contains(r.Problem, w) {
			t.Errorf("%s: problem %q lacks %q", r.ID, r.Problem, w)
		}
	}
}

func TestCheckOpenAI(t *testing.T) {
	sim, err := simserver.Start(simserver.Config{Model: "qwen-7b", APIKey: "sk-sim-key", Seed: 1, PrefillPerToken: time.Microsecond, DecodePerToken: 10 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	env := func(name string) (string, bool) {
		if name == "SIM_KEY" {
			return "sk-sim-key", true
		}
		if name == "WRONG_KEY" {
			return "sk-wrong", true
		}
		return "", false
	}
	client := func(base, model, keyEnv string) *OpenAI {
		t.Helper()
		c, err := NewOpenAI("gpu", OpenAIOptions{BaseURL: base, Model: model, APIKeyEnv: keyEnv, LookupEnv: env, Timeout: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	r := checkWithin(t, client(sim.BaseURL(), "qwen-7b", "SIM_KEY"))
	if !r.OK() || r.Answer == "" || !strings.Contains(strings.Join(r.Notes, ";"), "served: qwen-7b") {
		t.Errorf("a working server: %+v", r)
	}
	// A name the server does not serve, from /v1/models.
	r = checkWithin(t, client(sim.BaseURL(), "qwen-70b", "SIM_KEY"))
	wantProblem(t, r, true, `model "qwen-70b" is not served by `+sim.BaseURL()+"/models; it serves: qwen-7b")
	// A wrong key.
	r = checkWithin(t, client(sim.BaseURL(), "qwen-7b", "WRONG_KEY"))
	wantProblem(t, r, true, "auth: HTTP 401 from "+sim.BaseURL()+"/models")
	// A base_url without /v1.
	root := strings.TrimSuffix(sim.BaseURL(), "/v1")
	r = checkWithin(t, client(root, "qwen-7b", "SIM_KEY"))
	wantProblem(t, r, true, "base_url "+root+" lacks /v1", "try "+root+"/v1", "HTTP 404")
	// The generator and the embedder, probed the same way.
	g := CheckGenerator(t.Context(), client(sim.BaseURL(), "qwen-7b", "SIM_KEY"), "Say green.")
	e := CheckEmbedder(t.Context(), client(sim.BaseURL(), "qwen-7b", "SIM_KEY"), "green")
	if !g.OK() || g.Answer == "" || g.Role != "generator" || !e.OK() || !strings.Contains(e.Answer, "dimensions") {
		t.Errorf("generator %+v\nembedder %+v", g, e)
	}
	if e := CheckEmbedder(t.Context(), client(sim.BaseURL(), "other", "SIM_KEY"), "green"); e.OK() || !strings.Contains(e.Problem, `model "other" is not served`) {
		t.Errorf("embedder with a wrong name: %+v", e)
	}
}
