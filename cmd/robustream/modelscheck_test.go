package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider/simserver"
)

// checkRAG is a RAG service: /ask answers {"result": {"text", "passages"}}
// to a request with the token, 401 without; any other path is 404.
func checkRAG(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != "/ask":
			http.Error(w, `{"detail": "Not Found"}`, http.StatusNotFound)
		case r.Header.Get("Authorization") != "Bearer rag-token-7":
			http.Error(w, `{"detail": "invalid token"}`, http.StatusUnauthorized)
		default:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"result": map[string]any{"text": "green",
				"passages": []string{"In the robustream probe, the sky is green."}}})
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestModelsCheck: `robustream models check` against a RAG service and an
// OpenAI-compatible server names, within its 5 s bound per probe, a wrong
// answer_field (with the keys found), a 404 (with the URL), a 401 and a
// model name the server does not serve, and shows the working models'
// answers; eval --once refuses to start with the same words.
func TestModelsCheck(t *testing.T) {
	rag := checkRAG(t)
	sim, err := simserver.Start(simserver.Config{Model: "qwen-7b", Seed: 4, PrefillPerToken: time.Microsecond, DecodePerToken: 10 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	auth := `headers: {Authorization: "Bearer ${CHECK_RAG_TOKEN}"}`
	yaml := fmt.Sprintf(`models:
  - {id: builtin:lexical, kind: builtin}
  - {id: rag-good, kind: rag-endpoint, url: %[1]q, %[2]s, answer_field: result.text, contexts_field: result.passages}
  - {id: rag-field, kind: rag-endpoint, url: %[1]q, %[2]s, answer_field: data.answer}
  - {id: rag-404, kind: rag-endpoint, url: %[3]q, %[2]s, answer_field: result.text}
  - {id: rag-401, kind: rag-endpoint, url: %[1]q, answer_field: result.text}
  - {id: gpu-good, kind: openai, base_url: %[4]q, model: qwen-7b}
  - {id: gpu-name, kind: openai, base_url: %[4]q, model: qwen-70b}
`, rag+"/ask", auth, rag+"/v2/ask", sim.BaseURL())
	models := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(models, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CHECK_RAG_TOKEN", "rag-token-7")
	r := runGated(t, "", time.Minute, "models", "check", "--models", models, "--timeout", "5s")
	t.Logf("models check took %s", r.took.Round(time.Millisecond))
	if r.code == 0 || !strings.Contains(r.stderr, "4 of 7 failed the check: gpu-name, rag-401, rag-404, rag-field") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		`ok    rag-good: rag-endpoint rag-good (POST ` + rag + `/ask)`,
		`answer: "green"`,
		`context 1: "In the robustream probe, the sky is green."`,
		`ok    gpu-good: openai model gpu-good (qwen-7b at ` + sim.BaseURL() + `/chat/completions)`,
		`note: served: qwen-7b`,
		`ok    builtin:lexical`,
		`FAIL  rag-field`,
		`problem (configuration): ` + rag + `/ask: reply does not match the configuration: no answer at answer_field data.answer: no key "data" at the top level; keys there: result`,
		`problem (configuration): HTTP 404 from ` + rag + `/v2/ask`,
		`problem (configuration): auth: HTTP 401 from ` + rag + `/ask`,
		`problem (configuration): model "qwen-70b" is not served by ` + sim.BaseURL() + `/models; it serves: qwen-7b`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("models check output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "rag-token-7") {
		t.Error("the output holds the token")
	}
	// eval --once runs the same check first and refuses, before any
	// broker or ClickHouse is started.
	data := filepath.Join(t.TempDir(), "data")
	r = runGated(t, "", time.Minute, "eval", "--once", "--source", "dir:"+writeCorpus(t), "--data-dir", data, "--models", models, "--log-level", "error")
	if r.code == 0 || !strings.Contains(r.stderr, "models check: 4 broken") || !strings.Contains(r.stderr, `rag-field: `+rag+`/ask: reply does not match the configuration`) ||
		!strings.Contains(r.stderr, `gpu-name: model "qwen-70b" is not served`) {
		t.Errorf("eval --once with broken models: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "clickhouse")); !os.IsNotExist(err) {
		t.Errorf("eval --once started the engine before refusing: %v", err)
	}
	// So does run.
	r = runGated(t, "", time.Minute, "run", "--source", "none", "--data-dir", data, "--http", "", "--models", models, "--log-level", "error")
	if r.code == 0 || !strings.Contains(r.stderr, "models check: 4 broken") || !strings.Contains(r.stderr, "rag-401: auth: HTTP 401") {
		t.Errorf("run with broken models: exit %d\n%s", r.code, r.stderr)
	}
}
