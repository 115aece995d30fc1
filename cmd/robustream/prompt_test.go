package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// chatRecorder is an OpenAI-compatible chat server that answers "no such
// info" and keeps every message it was sent, by model.
type chatRecorder struct {
	mu   sync.Mutex
	sent map[string][][]chatMsg // model name → each request's messages
}

type chatMsg struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (c *chatRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		fmt.Fprint(w, `{"object":"list","data":[{"id":"plain","object":"model"},{"id":"custom","object":"model"}]}`)
	case "/v1/chat/completions":
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string    `json:"model"`
			Messages []chatMsg `json:"messages"`
		}
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		// The models check's probe (before the run) is not a request of
		// the run: it is not kept.
		if n := len(req.Messages); n == 0 || !strings.Contains(req.Messages[n-1].Content, "robustream probe") {
			c.mu.Lock()
			c.sent[req.Model] = append(c.sent[req.Model], req.Messages)
			c.mu.Unlock()
		}
		fmt.Fprint(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"no such info"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3}}`)
	default:
		http.NotFound(w, r)
	}
}

// TestModelPrompt: two openai models on one server that differ only in
// their prompt (one has prompt: in models.yaml) are evaluated end to end;
// the server receives the custom system and user text from the one and
// the built-in prompt from the other, and no request id is shared.
func TestModelPrompt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	rec := &chatRecorder{sent: map[string][][]chatMsg{}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	models := filepath.Join(t.TempDir(), "models.yaml")
	yaml := fmt.Sprintf(`models:
  - {id: plain, kind: openai, base_url: %[1]q, model: plain, timeout: 5s}
  - id: custom
    kind: openai
    base_url: %[1]q
    model: custom
    timeout: 5s
    prompt:
      system: "You are the ACME-SUPPORT assistant."
      user: "PASSAGES-BELOW\n{context}\nASKED: {question}"
`, srv.URL+"/v1")
	if err := os.WriteFile(models, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "dir:" + writeCorpus(t), "--data-dir", data, "--models", models, "--log-level", "error"}, &out, &errb); code != 0 {
		t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.sent["custom"]) == 0 || len(rec.sent["plain"]) == 0 {
		t.Fatalf("requests: custom %d, plain %d", len(rec.sent["custom"]), len(rec.sent["plain"]))
	}
	withContext := 0
	for _, msgs := range rec.sent["custom"] {
		if len(msgs) != 2 || msgs[0].Role != "system" || msgs[0].Content != "You are the ACME-SUPPORT assistant." || msgs[1].Role != "user" {
			t.Fatalf("custom model sent %+v", msgs)
		}
		if strings.HasPrefix(msgs[1].Content, "PASSAGES-BELOW\nContext [1]:\n") {
			withContext++
			if !strings.Contains(msgs[1].Content, "\nASKED: ") {
				t.Errorf("custom user prompt not rendered: %q", msgs[1].Content)
			}
		} else if !strings.Contains(msgs[1].Content, "from your own knowledge") {
			// Closed-book requests keep the built-in closed-book prompt
			// (the template has no closed_book part).
			t.Errorf("custom model, neither its template nor the closed-book prompt: %q", msgs[1].Content)
		}
	}
	if withContext == 0 {
		t.Error("no request of the custom model used its template")
	}
	for _, msgs := range rec.sent["plain"] {
		if len(msgs) != 1 || msgs[0].Role != "user" || strings.Contains(msgs[0].Content, "PASSAGES-BELOW") {
			t.Fatalf("plain model sent %+v", msgs)
		}
	}
	if n := sqlCount(t, `SELECT count() FROM robustream.eval_results WHERE model_id = 'custom' AND request_id IN
 (SELECT request_id FROM robustream.eval_results WHERE model_id = 'plain')`, "--data-dir", data); n != 0 {
		t.Errorf("%d request ids shared by the two models", n)
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes WHERE model_id = 'custom'", "--data-dir", data); n == 0 {
		t.Error("no outcomes for the model with its own prompt")
	}
}
