package provider

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ragToken is the secret the RAG tests' headers reference as ${RAG_TOKEN}.
const ragToken = "rag-secret-token-42"

func ragEnv(name string) (string, bool) {
	switch name {
	case "RAG_TOKEN":
		return ragToken, true
	case "EMPTY":
		return "", true
	}
	return "", false
}

// newRAG returns a RAG client of srv's path with opts.
func newRAG(t *testing.T, url string, opts RAGEndpointOptions) *RAGEndpoint {
	t.Helper()
	opts.URL, opts.LookupEnv = url, ragEnv
	r, err := NewRAGEndpoint("rag", opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRAGEndpointPost(t *testing.T) {
	f := func(reply string, want Answer) {
		t.Helper()
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != "/ask" {
				t.Errorf("request %s %s, want POST /ask", r.Method, r.URL.Path)
			}
			if got := r.Header.Get("Authorization"); got != "Bearer "+ragToken {
				t.Errorf("Authorization %q: ${RAG_TOKEN} not expanded", got)
			}
			if got := r.Header.Get("X-Tenant"); got != "acme" {
				t.Errorf("X-Tenant %q", got)
			}
			want := map[string]any{"input": map[string]any{"query": "Who is the CFO of Northwind Bank?"}}
			if got := decodeBody(t, r); !reflect.DeepEqual(got, want) {
				t.Errorf("body %v, want %v (the question alone, at input.query)", got, want)
			}
			io.WriteString(w, reply)
		})
		rag := newRAG(t, srv.URL+"/ask", RAGEndpointOptions{
			Headers:       map[string]string{"Authorization": "Bearer ${RAG_TOKEN}", "X-Tenant": "acme"},
			QuestionField: "input.query",
			AnswerField:   "data.answer",
			ContextsField: "data.sources",
		})
		got, err := rag.Answer(t.Context(), Query{
			Question: "Who is the CFO of Northwind Bank?",
			Contexts: []string{"not sent"},
			Prompt:   "not sent either",
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Answer = %#v, want %#v", got, want)
		}
	}
	f(`{"data": {"answer": " Maria Lopez ", "sources": ["Northwind Bank appointed Maria Lopez.", "Other."]}}`,
		Answer{Text: "Maria Lopez", Contexts: []string{"Northwind Bank appointed Maria Lopez.", "Other."}})
	// Objects, with each of the text fields, in their order of preference.
	f(`{"data": {"answer": "Maria Lopez", "sources": [
		{"text": "t", "content": "not this"},
		{"content": "c", "score": 0.9},
		{"page_content": "p", "metadata": {"source": "a.md"}},
		{"chunk": "k", "id": 3}]}}`,
		Answer{Text: "Maria Lopez", Contexts: []string{"t", "c", "p", "k"},
			// Sources where any passage has one; a score on one passage only
			// is no ranking: none kept.
			ContextSources: []string{"", "", "a.md", "3"}})
	// Every passage scored, sources under the default keys.
	f(`{"data": {"answer": "Maria Lopez", "sources": [
		{"text": "a", "source": "bank.md", "score": 12.5},
		{"text": "b", "url": "https://x/y", "relevance_score": 3}]}}`,
		Answer{Text: "Maria Lopez", Contexts: []string{"a", "b"}, ContextSources: []string{"bank.md", "https://x/y"}, ContextScores: []float64{12.5, 3}})
	// No contexts retrieved.
	f(`{"data": {"answer": "no such info", "sources": []}}`, Answer{Text: "no such info", Contexts: []string{}})
	f(`{"data": {"answer": "no such info"}}`, Answer{Text: "no such info"})
}

func TestRAGEndpointGet(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("method %s, want GET", r.Method)
		}
		if got, want := r.URL.Query(), map[string][]string{"lang": {"en"}, "q": {"What is 6 × 7?"}}; !reflect.DeepEqual(map[string][]string(got), want) {
			t.Errorf("query %v, want %v", got, want)
		}
		io.WriteString(w, `{"result": [{"answer": 42}]}`)
	})
	rag := newRAG(t, srv.URL+"/search?lang=en", RAGEndpointOptions{Method: "get", QuestionField: "q", AnswerField: "result.0.answer"})
	got, err := rag.Answer(t.Context(), Query{Question: "What is 6 × 7?"})
	if err != nil || !reflect.DeepEqual(got, Answer{Text: "42"}) {
		t.Errorf("Answer = %#v, %v; want 42", got, err)
	}
}

func TestRAGEndpointErrors(t *testing.T) {
	f := func(status int, reply string, class error, want string) {
		t.Helper()
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(status)
			io.WriteString(w, reply)
		})
		rag := newRAG(t, srv.URL+"/ask?api_key=${RAG_TOKEN}", RAGEndpointOptions{
			Headers: map[string]string{"X-Api-Key": "${RAG_TOKEN}"}, AnswerField: "data.answer", ContextsField: "data.sources",
		})
		_, err := rag.Answer(t.Context(), Query{Question: "q"})
		if err == nil {
			t.Fatalf("HTTP %d %s: no error", status, reply)
		}
		if !errors.Is(err, class) {
			t.Errorf("error %q is not %v", err, class)
		}
		msg := err.Error()
		if !strings.Contains(msg, "model rag: "+srv.URL+"/ask:") || !strings.Contains(msg, want) {
			t.Errorf("error %q does not name the model and endpoint, or lacks %q", msg, want)
		}
		if strings.Contains(msg, ragToken) || strings.Contains(msg, "api_key") {
			t.Errorf("error %q holds a secret", msg)
		}
		var ra interface{ RetryAfter() time.Duration }
		if errors.As(err, &ra) && class == ErrRateLimited && ra.RetryAfter() != 3*time.Second {
			t.Errorf("RetryAfter() = %s, want 3s", ra.RetryAfter())
		}
	}
	f(429, "", ErrRateLimited, "HTTP 429")
	f(502, "bad gateway", ErrUnavailable, "bad gateway")
	f(400, `{"detail": "question too long"}`, ErrRejected, "question too long")
	f(403, `{"error": "key `+ragToken+` has no access"}`, ErrRejected, "key [redacted] has no access")
	f(200, `{"data": {"answer": "x"`, ErrUnavailable, "malformed response")
	// A reply that lacks what the configuration names is permanent, and
	// the error says where the path stopped and what was there.
	f(200, `{"data": {"text": "x", "score": 1}}`, ErrRejected, `no answer at answer_field data.answer: no key "answer" at data; keys there: score, text`)
	f(200, `{"result": {"answer": "x"}}`, ErrRejected, `no key "data" at the top level; keys there: result`)
	f(200, `{"data": ["x"]}`, ErrRejected, `no item "answer" in the list at data of 1 item(s)`)
	f(200, `{"data": "x"}`, ErrRejected, `data is a string, which has no key "answer"`)
	f(200, `{"data": {"answer": null}}`, ErrRejected, "no answer at answer_field data.answer: data.answer is null")
	f(200, `{"data": {"answer": {"text": "x"}}}`, ErrRejected, "the answer at answer_field data.answer is an object, not a string")
	f(200, `{"data": {"answer": "x", "sources": "one"}}`, ErrRejected, "contexts at contexts_field data.sources: a string, not a list")
	f(200, `{"data": {"answer": "x", "sources": [{"body": "?"}]}}`, ErrRejected, "item 0 has none of the text fields text, content, page_content, chunk")
	f(200, `{"data": {"answer": "x", "sources": [7]}}`, ErrRejected, "item 0 is a number")
}

func TestNewRAGEndpointValidation(t *testing.T) {
	f := func(opts RAGEndpointOptions, wants ...string) {
		t.Helper()
		opts.LookupEnv = ragEnv
		_, err := NewRAGEndpoint("rag", opts)
		if err == nil {
			t.Fatalf("%+v accepted", opts)
		}
		for _, want := range wants {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if strings.Contains(err.Error(), ragToken) {
			t.Errorf("error holds the token:\n%v", err)
		}
		if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != len(wants) {
			t.Errorf("%d errors, want %d:\n%v", n, len(wants), err)
		}
	}
	f(RAGEndpointOptions{}, "url: missing")
	f(RAGEndpointOptions{URL: "unix:///run/rag.sock"}, `url: "unix:///run/rag.sock" is not an http or https URL`)
	f(RAGEndpointOptions{URL: "http://rag/ask", Method: "PUT"}, `method: "PUT" is not POST or GET`)
	f(RAGEndpointOptions{URL: "http://rag/ask", Headers: map[string]string{"Authorization": "Bearer ${RAG_TOKN}"}},
		"headers.Authorization: environment variable RAG_TOKN is not set")
	f(RAGEndpointOptions{URL: "http://rag/ask", Headers: map[string]string{
		"X-Empty": "${EMPTY}", "X-Open": "${RAG_TOKEN", "X-Bad": "${1X}", "Bad Name": "v", "X-Line": "a${RAG_TOKEN}\nb"}},
		`headers: "Bad Name" is not a header name`,
		"headers.X-Bad: ${1X}: not an environment variable name",
		"headers.X-Empty: environment variable EMPTY is not set",
		"headers.X-Line: the value holds a line break",
		"headers.X-Open: unterminated ${")
	f(RAGEndpointOptions{URL: "http://rag/ask", QuestionField: "input..query", AnswerField: ".answer", ContextsField: "docs.", Timeout: -1, MaxInFlight: -2},
		`question_field: "input..query" has an empty segment`, `answer_field: ".answer" has an empty segment`,
		`contexts_field: "docs." has an empty segment`, "timeout: -1ns is negative", "max_in_flight: -2 is negative")

	// A GET parameter name may hold dots; "$" without a brace is literal.
	r, err := NewRAGEndpoint("rag", RAGEndpointOptions{URL: "https://rag.example/ask", Method: "GET", QuestionField: "filter.q",
		Headers: map[string]string{"X-Price": "$5", "Authorization": "Bearer ${RAG_TOKEN}"}, MaxInFlight: 8, LookupEnv: ragEnv})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := LimitsOf(r); !ok || got != (Limits{MaxInFlight: 8}) {
		t.Errorf("LimitsOf = %+v, %v", got, ok)
	}
	if _, ok := DecodingOf(r); ok {
		t.Error("a RAG service has decoding parameters")
	}
	if got, want := r.String(), "rag-endpoint rag (GET https://rag.example/ask)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if s := fmt.Sprintf("%v %+v %#v %+v", r, *r, r, *r.remote); strings.Contains(s, ragToken) {
		t.Errorf("a printed client holds the token: %s", s)
	}
}

func TestExpandEnv(t *testing.T) {
	f := func(in, want, wantErr string) {
		t.Helper()
		got, err := expandEnv(in, ragEnv)
		if fmt.Sprint(err) != wantErr && !(err == nil && wantErr == "") {
			t.Errorf("expandEnv(%q) error %v, want %q", in, err, wantErr)
		}
		if got != want {
			t.Errorf("expandEnv(%q) = %q, want %q", in, got, want)
		}
	}
	f("plain", "plain", "")
	f("", "", "")
	f("Bearer ${RAG_TOKEN}", "Bearer "+ragToken, "")
	f("${RAG_TOKEN}:${RAG_TOKEN}", ragToken+":"+ragToken, "")
	f("$RAG_TOKEN costs $5 {x}", "$RAG_TOKEN costs $5 {x}", "")
	f("${NOPE}", "", "environment variable NOPE is not set")
	f("${}", "", "${}: not an environment variable name")
	f("a ${RAG_TOKEN", "", "unterminated ${")
}

// TestRAGEndpointContextFields: configured source and score paths inside
// the context objects win over the defaults, plain strings still work
// beside them, and a score or source of the wrong type is a clear error.
func TestRAGEndpointContextFields(t *testing.T) {
	reply := ""
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, reply) })
	rag := newRAG(t, srv.URL, RAGEndpointOptions{ContextsField: "hits", ContextSourceField: "meta.file", ContextScoreField: "meta.bm25"})
	ask := func(body string) (Answer, error) {
		reply = body
		return rag.Answer(t.Context(), Query{Question: "q"})
	}
	got, err := ask(`{"answer": "x", "hits": [{"text": "one", "source": "ignored", "score": 9, "meta": {"file": "a.md", "bm25": 2.25}},
		{"text": "two", "meta": {"file": 7, "bm25": 1}}]}`)
	want := Answer{Text: "x", Contexts: []string{"one", "two"}, ContextSources: []string{"a.md", "7"}, ContextScores: []float64{2.25, 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("configured fields: %#v, %v; want %#v", got, err, want)
	}
	got, err = ask(`{"answer": "x", "hits": ["plain", {"text": "obj", "meta": {"file": "b.md", "bm25": 1}}]}`)
	want = Answer{Text: "x", Contexts: []string{"plain", "obj"}, ContextSources: []string{"", "b.md"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("strings beside objects: %#v, %v; want %#v", got, err, want)
	}
	for body, msg := range map[string]string{
		`{"answer": "x", "hits": [{"text": "a", "meta": {"bm25": "high"}}]}`: "item 0: the score at meta.bm25 is a string, not a number",
		`{"answer": "x", "hits": [{"text": "a", "meta": {"file": true}}]}`:   "item 0: the source at meta.file is a boolean",
	} {
		if _, err := ask(body); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one saying %q", body, err, msg)
		}
	}
	if _, err := NewRAGEndpoint("r", RAGEndpointOptions{URL: "http://x", ContextScoreField: "a..b"}); err == nil || !strings.Contains(err.Error(), "context_score_field") {
		t.Errorf("bad context_score_field: %v", err)
	}
}
