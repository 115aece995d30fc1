package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testKey is the API key the tests' servers expect. It must never appear in
// an error or a printed client.
const testKey = "sk-test-0123456789abcdef"

// testEnv is a LookupEnv holding the test key as OPENAI_TEST_KEY.
func testEnv(name string) (string, bool) {
	if name == "OPENAI_TEST_KEY" {
		return testKey, true
	}
	return "", false
}

// serve starts a real HTTP server with handler h, closed at the end of the
// test.
func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// newOpenAI returns a client of srv's /v1 with the test key and opts.
func newOpenAI(t *testing.T, srv *httptest.Server, opts OpenAIOptions) *OpenAI {
	t.Helper()
	opts.BaseURL = srv.URL + "/v1"
	if opts.Model == "" {
		opts.Model = "qwen2.5-7b"
	}
	opts.APIKeyEnv, opts.LookupEnv = "OPENAI_TEST_KEY", testEnv
	c, err := NewOpenAI("gpt", opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// decodeBody decodes a request's JSON body into a generic map.
func decodeBody(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		t.Errorf("request body: %v", err)
	}
	return body
}

func TestOpenAIChatRequestAndAnswer(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("Authorization %q, want the bearer key", got)
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type %q", got)
		}
		want := map[string]any{
			"model":       "qwen2.5-7b",
			"messages":    []any{map[string]any{"role": "user", "content": "Context: …\nQuestion: capital of France?"}},
			"temperature": 0.0,
			"max_tokens":  64.0,
		}
		if got := decodeBody(t, r); !reflect.DeepEqual(got, want) {
			t.Errorf("body %v, want %v", got, want)
		}
		io.WriteString(w, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"  Paris\n"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`)
	})
	c := newOpenAI(t, srv, OpenAIOptions{})
	got, err := c.Answer(t.Context(), Query{Question: "capital of France?", Contexts: []string{"…"}, Prompt: "Context: …\nQuestion: capital of France?"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Answer{Text: "Paris", TokensIn: 12, TokensOut: 3}); !reflect.DeepEqual(got, want) {
		t.Errorf("Answer = %+v, want %+v", got, want)
	}
}

func TestOpenAICompletionsRequestAndAnswer(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/completions" {
			t.Errorf("path %s, want /v1/completions", r.URL.Path)
		}
		want := map[string]any{"model": "qwen2.5-7b", "prompt": "Q: 2+2?\nA:", "temperature": 0.5, "max_tokens": 8.0}
		if got := decodeBody(t, r); !reflect.DeepEqual(got, want) {
			t.Errorf("body %v, want %v", got, want)
		}
		io.WriteString(w, `{"choices":[{"index":0,"text":" 4\n","finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":1}}`)
	})
	c := newOpenAI(t, srv, OpenAIOptions{Endpoint: EndpointCompletions, Temperature: 0.5, MaxTokens: 8})
	got, err := c.Answer(t.Context(), Query{Question: "2+2?", Prompt: "Q: 2+2?\nA:"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Answer{Text: "4", TokensIn: 7, TokensOut: 1}); !reflect.DeepEqual(got, want) {
		t.Errorf("Answer = %+v, want %+v", got, want)
	}
	if got, want := c.Decoding(), "max_tokens=8,temperature=0.5"; got != want {
		t.Errorf("Decoding() = %q, want %q", got, want)
	}
}

// checkCallError checks what every client error must carry: its class, the
// model id and the endpoint, and never the key.
func checkCallError(t *testing.T, err error, class error, endpoint string) *CallError {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", class)
	}
	if !errors.Is(err, class) {
		t.Errorf("error %q is not %v", err, class)
	}
	for _, other := range []error{ErrRateLimited, ErrUnavailable, ErrRejected} {
		if other != class && errors.Is(err, other) {
			t.Errorf("error %q is %v too", err, other)
		}
	}
	msg := err.Error()
	if !strings.Contains(msg, "model gpt") || !strings.Contains(msg, endpoint) {
		t.Errorf("error %q does not name model gpt and %s", msg, endpoint)
	}
	if strings.Contains(msg, testKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), testKey) {
		t.Errorf("error %q holds the API key", msg)
	}
	var ce *CallError
	if !errors.As(err, &ce) {
		t.Fatalf("error %q is not a *CallError", msg)
	}
	return ce
}

func TestOpenAIErrorClasses(t *testing.T) {
	f := func(name string, h http.HandlerFunc, class error, status int, retryAfter func(time.Duration) bool, detail string) {
		t.Helper()
		srv := serve(t, h)
		c := newOpenAI(t, srv, OpenAIOptions{Timeout: 200 * time.Millisecond})
		_, err := c.Answer(t.Context(), Query{Prompt: "p"})
		ce := checkCallError(t, err, class, srv.URL+"/v1/chat/completions")
		if ce.Status != status {
			t.Errorf("%s: status %d, want %d", name, ce.Status, status)
		}
		if ra := ce.RetryAfter(); !retryAfter(ra) {
			t.Errorf("%s: RetryAfter() = %s", name, ra)
		}
		if !strings.Contains(err.Error(), detail) {
			t.Errorf("%s: error %q lacks %q", name, err, detail)
		}
	}
	reply := func(status int, header map[string]string, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for k, v := range header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	zero := func(d time.Duration) bool { return d == 0 }

	f("429 in seconds", reply(429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"slow down"}}`),
		ErrRateLimited, 429, func(d time.Duration) bool { return d == 7*time.Second }, "retry after 7s")
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	f("429 as a date", reply(429, map[string]string{"Retry-After": date}, ""),
		ErrRateLimited, 429, func(d time.Duration) bool { return d > 20*time.Second && d <= 30*time.Second }, "rate limited")
	f("429 without a hint", reply(429, nil, ""), ErrRateLimited, 429, zero, "rate limited (HTTP 429)")
	f("503", reply(503, map[string]string{"Retry-After": "2"}, "upstream overloaded"),
		ErrUnavailable, 503, func(d time.Duration) bool { return d == 2*time.Second }, "upstream overloaded")
	f("500", reply(500, nil, `{"error":"engine dead"}`), ErrUnavailable, 500, zero, "engine dead")
	f("408", reply(408, nil, ""), ErrUnavailable, 408, zero, "HTTP 408")
	f("400 with a message", reply(400, map[string]string{"Retry-After": "9"}, `{"object":"error","message":"This model's maximum context length is 4096 tokens","type":"BadRequestError"}`),
		ErrRejected, 400, zero, "maximum context length is 4096 tokens")
	f("401 echoing the key", reply(401, nil, `{"error":{"message":"Incorrect API key provided: `+testKey+`","type":"invalid_request_error"}}`),
		ErrRejected, 401, zero, "Incorrect API key provided: [redacted]")
	f("404", reply(404, nil, `{"detail":"Not Found"}`), ErrRejected, 404, zero, "Not Found")
	f("422 with a list", reply(422, nil, `{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`),
		ErrRejected, 422, zero, "field required")
	f("long message is cut", reply(400, nil, strings.Repeat("é", 500)), ErrRejected, 400, zero, "é…")
	f("malformed JSON", reply(200, nil, `{"choices": [`), ErrUnavailable, 0, zero, "malformed response")
	f("empty choices", reply(200, nil, `{"choices": [], "usage": {}}`), ErrUnavailable, 0, zero, "no choices")
	f("a choice without a message", reply(200, nil, `{"choices": [{"index": 0, "text": "x"}]}`), ErrUnavailable, 0, zero, "without a message")
	f("timeout", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices a client going away only once the body is read
		<-r.Context().Done()
	},
		ErrUnavailable, 0, zero, "no complete reply within 200ms")

	// The client's own timeout says so to a caller that paces its calls.
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	})
	_, err := newOpenAI(t, srv, OpenAIOptions{Timeout: 20 * time.Millisecond}).Answer(t.Context(), Query{Prompt: "p"})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("timeout error %v is not both ErrUnavailable and context.DeadlineExceeded", err)
	}

	// Nothing listening: a transport error, retryable.
	srv = httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c, err := NewOpenAI("gpt", OpenAIOptions{BaseURL: base + "/v1", Model: "m", APIKeyEnv: "OPENAI_TEST_KEY", LookupEnv: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Answer(t.Context(), Query{Prompt: "p"})
	checkCallError(t, err, ErrUnavailable, base+"/v1/chat/completions")
	if !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error %q does not say the connection was refused", err)
	}
}

// TestOpenAICallerCancels checks that a caller giving up is not blamed on
// the service: the error is the context's, in no class.
func TestOpenAICallerCancels(t *testing.T) {
	arrived := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		close(arrived)
		<-r.Context().Done()
	})
	c := newOpenAI(t, srv, OpenAIOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-arrived; cancel() }()
	_, err := c.Answer(ctx, Query{Prompt: "p"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	for _, class := range []error{ErrRateLimited, ErrUnavailable, ErrRejected} {
		if errors.Is(err, class) {
			t.Errorf("error %q is %v", err, class)
		}
	}
}

// batchServer answers completions requests whose prompt is a string or a
// list, each choice "answer to <prompt>", in reverse order so that the
// client must route by index; it records each request's prompts.
type batchServer struct {
	mu       sync.Mutex
	requests [][]string
	skip     string // a prompt left without a choice
}

func (b *batchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Prompt json.RawMessage `json:"prompt"`
	}
	json.NewDecoder(r.Body).Decode(&body)
	var prompts []string
	if json.Unmarshal(body.Prompt, &prompts) != nil {
		var one string
		json.Unmarshal(body.Prompt, &one)
		prompts = []string{one}
	}
	b.mu.Lock()
	b.requests = append(b.requests, prompts)
	b.mu.Unlock()
	type choice struct {
		Index int    `json:"index"`
		Text  string `json:"text"`
	}
	var choices []choice
	for i := len(prompts) - 1; i >= 0; i-- {
		if prompts[i] != b.skip {
			choices = append(choices, choice{i, " answer to " + prompts[i]})
		}
	}
	json.NewEncoder(w).Encode(map[string]any{
		"choices": choices,
		"usage":   map[string]int{"prompt_tokens": 10*len(prompts) + 1, "completion_tokens": 3 * len(prompts)},
	})
}

func TestOpenAIBatching(t *testing.T) {
	f := func(calls, size int, linger time.Duration, skip string, wantSizes []int) {
		t.Helper()
		bs := &batchServer{skip: skip}
		srv := serve(t, bs.ServeHTTP)
		c := newOpenAI(t, srv, OpenAIOptions{Endpoint: EndpointCompletions, BatchSize: size})
		c.batch.linger = linger // long enough that every call joins; a full batch does not wait for it
		answers := make([]Answer, calls)
		errs := make([]error, calls)
		var wg sync.WaitGroup
		for i := range calls {
			wg.Go(func() {
				answers[i], errs[i] = c.Answer(t.Context(), Query{Prompt: fmt.Sprintf("p%d", i)})
			})
		}
		wg.Wait()
		var sizes []int
		for _, r := range bs.requests {
			sizes = append(sizes, len(r))
		}
		if !reflect.DeepEqual(sizes, wantSizes) {
			t.Errorf("%d calls, batch size %d: request sizes %v, want %v", calls, size, sizes, wantSizes)
		}
		in, out := 0, 0
		for i := range calls {
			p := fmt.Sprintf("p%d", i)
			if p == skip {
				checkCallError(t, errs[i], ErrUnavailable, srv.URL+"/v1/completions")
				continue
			}
			if errs[i] != nil {
				t.Errorf("call %d: %v", i, errs[i])
				continue
			}
			if want := "answer to " + p; answers[i].Text != want {
				t.Errorf("call %d got %q, want %q", i, answers[i].Text, want)
			}
			in, out = in+answers[i].TokensIn, out+answers[i].TokensOut
		}
		if skip == "" && (in != 10*calls+len(wantSizes) || out != 3*calls) {
			t.Errorf("token shares sum to %d in, %d out; want %d, %d", in, out, 10*calls+len(wantSizes), 3*calls)
		}
	}
	f(8, 4, time.Minute, "", []int{4, 4})       // full batches go at once
	f(3, 4, 100*time.Millisecond, "", []int{3}) // a partial batch goes when its linger is over
	f(4, 4, time.Minute, "p2", []int{4})        // one prompt without a choice fails alone
	f(1, 4, time.Millisecond, "", []int{1})     // a lone call waits only the linger
}

func TestOpenAIBatchCallerCancels(t *testing.T) {
	bs := &batchServer{}
	srv := serve(t, bs.ServeHTTP)
	c := newOpenAI(t, srv, OpenAIOptions{Endpoint: EndpointCompletions, BatchSize: 4})
	c.batch.linger = time.Minute
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Answer(ctx, Query{Prompt: "p"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "model gpt") {
		t.Errorf("error %v, want the deadline, naming the model", err)
	}
}

func TestOpenAIGenerate(t *testing.T) {
	var empty atomic.Bool
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body := decodeBody(t, r)
		if _, ok := body["max_tokens"]; ok {
			t.Errorf("max_tokens sent although the options leave it to the server: %v", body)
		}
		if body["temperature"] != 0.3 {
			t.Errorf("temperature %v, want 0.3", body["temperature"])
		}
		content := `"(Acme, revenue, $4.2 billion)"`
		if empty.Load() {
			content = `"  "`
		}
		io.WriteString(w, `{"choices":[{"index":0,"message":{"content":`+content+`}}]}`)
	})
	c := newOpenAI(t, srv, OpenAIOptions{})
	got, err := c.Generate(t.Context(), "extract triplets", GenerateOptions{Temperature: 0.3})
	if err != nil || got != "(Acme, revenue, $4.2 billion)" {
		t.Errorf("Generate = %q, %v", got, err)
	}
	empty.Store(true)
	_, err = c.Generate(t.Context(), "extract triplets", GenerateOptions{Temperature: 0.3})
	checkCallError(t, err, ErrUnavailable, srv.URL+"/v1/chat/completions")
}

func TestOpenAIEmbed(t *testing.T) {
	f := func(reply string, texts []string, want [][]float32, wantErr string) {
		t.Helper()
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/embeddings" {
				t.Errorf("path %s, want /v1/embeddings", r.URL.Path)
			}
			body := decodeBody(t, r)
			if fmt.Sprint(body["input"]) != fmt.Sprint(texts) || body["model"] != "qwen2.5-7b" {
				t.Errorf("body %v, want input %v", body, texts)
			}
			io.WriteString(w, reply)
		})
		got, err := newOpenAI(t, srv, OpenAIOptions{}).Embed(t.Context(), texts)
		if wantErr != "" {
			checkCallError(t, err, ErrUnavailable, srv.URL+"/v1/embeddings")
			if !strings.Contains(fmt.Sprint(err), wantErr) {
				t.Errorf("error %v lacks %q", err, wantErr)
			}
			return
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Embed = %v, %v; want %v", got, err, want)
		}
	}
	texts := []string{"a", "b", "c"}
	// Items out of order are put back in input order by their index.
	f(`{"data":[{"index":2,"embedding":[3,3]},{"index":0,"embedding":[1,1]},{"index":1,"embedding":[2,2]}]}`,
		texts, [][]float32{{1, 1}, {2, 2}, {3, 3}}, "")
	f(`{"data":[{"index":0,"embedding":[1,1]},{"index":1,"embedding":[2,2]}]}`, texts, nil, "2 vectors for 3 texts")
	f(`{"data":[{"index":0,"embedding":[1,1]},{"index":0,"embedding":[2,2]},{"index":1,"embedding":[3,3]}]}`, texts, nil, "two vectors for index 0")
	f(`{"data":[{"index":0,"embedding":[1,1]},{"index":1,"embedding":[2]},{"index":2,"embedding":[3,3]}]}`, texts, nil, "dimensions 2 and 1")
	f(`{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2]},{"index":7,"embedding":[3]}]}`, texts, nil, "vector index 7")
	f(`<html>`, texts, nil, "malformed response")

	if got, err := (&OpenAI{}).Embed(t.Context(), nil); got != nil || err != nil {
		t.Errorf("Embed(nil) = %v, %v; want no call", got, err)
	}
}

func TestNewOpenAIValidation(t *testing.T) {
	f := func(n int, opts OpenAIOptions, wants ...string) {
		t.Helper()
		if opts.LookupEnv == nil {
			opts.LookupEnv = testEnv
		}
		_, err := NewOpenAI("gpt", opts)
		if err == nil {
			t.Fatalf("%+v accepted", opts)
		}
		for _, want := range wants {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("error holds the key:\n%v", err)
		}
		if got := len(err.(interface{ Unwrap() []error }).Unwrap()); got != n {
			t.Errorf("%d errors, want %d:\n%v", got, n, err)
		}
	}
	ok := OpenAIOptions{BaseURL: "http://localhost:8000/v1", Model: "m"}
	with := func(change func(*OpenAIOptions)) OpenAIOptions { o := ok; change(&o); return o }

	f(2, OpenAIOptions{}, "base_url: missing", "model: missing")
	f(1, with(func(o *OpenAIOptions) { o.BaseURL = "localhost:8000/v1" }), `base_url: "localhost:8000/v1" is not an http or https URL`)
	f(1, with(func(o *OpenAIOptions) { o.BaseURL = "ftp://host/v1" }), "base_url:", "not an http or https URL")
	f(1, with(func(o *OpenAIOptions) { o.BaseURL = "http:///v1" }), "base_url:", "has no host")
	f(1, with(func(o *OpenAIOptions) { o.BaseURL = "http://host/v1?key=x" }), "base_url:", "must not have a query")
	f(1, with(func(o *OpenAIOptions) { o.APIKeyEnv = "MISSING_KEY" }), "api_key_env: environment variable MISSING_KEY is not set")
	f(1, with(func(o *OpenAIOptions) { o.APIKeyEnv = testKey }), "api_key_env: not an environment variable name")
	f(1, with(func(o *OpenAIOptions) { o.Endpoint = "responses" }), `endpoint: "responses" is not chat or completions`)
	f(7, with(func(o *OpenAIOptions) {
		o.Limits = Limits{MaxInFlight: -1, RequestsPerSecond: -2, TokensPerSecond: -3}
		o.Timeout, o.Temperature, o.MaxTokens, o.BatchSize = -time.Second, -1, -5, -1
	}), "max_in_flight: -1 is negative", "requests_per_second: -2", "tokens_per_second: -3", "timeout: -1s is negative",
		"temperature: -1", "max_tokens: -5 is negative", "batch_size: -1 is negative")
	f(1, with(func(o *OpenAIOptions) { o.BatchSize = 8 }), "batch_size: batching needs endpoint: completions")

	// The defaults, the limits, and no key in any printed form.
	c, err := NewOpenAI("gpt", with(func(o *OpenAIOptions) {
		o.APIKeyEnv, o.LookupEnv = "OPENAI_TEST_KEY", testEnv
		o.Limits = Limits{MaxInFlight: 8, RequestsPerSecond: 5}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Decoding(), "max_tokens=64,temperature=0"; got != want {
		t.Errorf("Decoding() = %q, want %q", got, want)
	}
	if got, ok := LimitsOf(c); !ok || got != (Limits{MaxInFlight: 8, RequestsPerSecond: 5}) {
		t.Errorf("LimitsOf = %+v, %v", got, ok)
	}
	if d, ok := DecodingOf(c); !ok || d != c.Decoding() {
		t.Errorf("DecodingOf = %q, %v", d, ok)
	}
	if got, want := c.String(), "openai model gpt (m at http://localhost:8000/v1/chat/completions)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if s := fmt.Sprintf("%v %+v %#v %+v %#v", c, *c, c, *c.remote, c.remote); strings.Contains(s, testKey) {
		t.Errorf("a printed client holds the key: %s", s)
	}
	if _, ok := LimitsOf(Builtins()[IDLexical]); ok {
		t.Error("a built-in reader has limits")
	}
	if _, ok := DecodingOf(Builtins()[IDLexical]); ok {
		t.Error("a built-in reader has decoding parameters")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 11, 22, 12, 0, 0, 0, time.UTC)
	f := func(v string, want time.Duration) {
		t.Helper()
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", v, got, want)
		}
	}
	f("", 0)
	f("0", 0)
	f("-3", 0)
	f(" 12 ", 12*time.Second)
	f("99999999999", 24*time.Hour) // capped: a day is already absurd
	f("Sat, 22 Nov 2025 12:01:30 GMT", 90*time.Second)
	f("Saturday, 22-Nov-25 12:00:05 GMT", 5*time.Second) // RFC 850, still valid in HTTP
	f("Sat, 22 Nov 2025 11:00:00 GMT", 0)                // in the past
	f("soon", 0)
}
