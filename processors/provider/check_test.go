package provider

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

var probe = Query{Question: "What colour is the sky in the probe?", Contexts: []string{"In the probe the sky is green."},
	Prompt: "Context: In the probe the sky is green.\nQuestion: What colour is the sky in the probe?\nAnswer:"}

// checkWithin runs one check bounded by 5 s: a problem named after that
// would come out as the deadline instead, and fail the test's wants.
func checkWithin(t *testing.T, m Model) CheckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	start := time.Now()
	r := Check(ctx, m, probe)
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

// ragService is a RAG service answering {"result": {"text": …, "passages": […]}}
// on /ask when the request carries the token, 401 otherwise, 404 elsewhere.
func ragService(t *testing.T) string {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != "/ask":
			http.Error(w, `{"detail": "Not Found"}`, http.StatusNotFound)
		case r.Header.Get("Authorization") != "Bearer "+ragToken:
			http.Error(w, `{"detail": "invalid token"}`, http.StatusUnauthorized)
		default:
			var q struct{ Question string }
			json.NewDecoder(r.Body).Decode(&q)
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"result": map[string]any{"text": "green", "passages": []any{
				map[string]any{"content": "In the probe the sky is green.", "score": 0.9}}}, "took_ms": 3})
		}
	}).URL
}

func TestCheckRAGEndpoint(t *testing.T) {
	url := ragService(t)
	auth := map[string]string{"Authorization": "Bearer ${RAG_TOKEN}"}
	// Right: the parsed answer, the contexts and the latency.
	r := checkWithin(t, newRAG(t, url+"/ask", RAGEndpointOptions{Headers: auth, AnswerField: "result.text", ContextsField: "result.passages"}))
	if !r.OK() || r.Answer != "green" || len(r.Contexts) != 1 || r.Contexts[0] != "In the probe the sky is green." || r.Latency <= 0 {
		t.Errorf("a working service: %+v", r)
	}
	// A wrong answer_field: the path, where it stopped and the keys there.
	r = checkWithin(t, newRAG(t, url+"/ask", RAGEndpointOptions{Headers: auth, AnswerField: "data.answer"}))
	wantProblem(t, r, true, "no answer at answer_field data.answer", `no key "data" at the top level; keys there: result, took_ms`)
	r = checkWithin(t, newRAG(t, url+"/ask", RAGEndpointOptions{Headers: auth, AnswerField: "result.answer"}))
	wantProblem(t, r, true, `no key "answer" at result; keys there: passages, text`)
	// A wrong URL: the status and the URL.
	r = checkWithin(t, newRAG(t, url+"/query", RAGEndpointOptions{Headers: auth, AnswerField: "result.text"}))
	wantProblem(t, r, true, "HTTP 404 from "+url+"/query")
	// No token: auth, with the status and the URL, never the token.
	r = checkWithin(t, newRAG(t, url+"/ask", RAGEndpointOptions{AnswerField: "result.text"}))
	wantProblem(t, r, true, "auth: HTTP 401 from "+url+"/ask", "invalid token")
	// Nothing listening: unreachable, transient, named within the bound.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/ask"
	ln.Close()
	r = checkWithin(t, newRAG(t, dead, RAGEndpointOptions{}))
	wantProblem(t, r, false, "unreachable or failing: "+dead, "refused")
}

func TestCheckBuiltin(t *testing.T) {
	r := Check(t.Context(), Builtins()[IDLexical], probe)
	if !r.OK() || r.Answer == "" || !strings.Contains(r.Describe, IDLexical) {
		t.Errorf("built-in reader: %+v", r)
	}
}
