package simserver

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The OpenAI response shapes as a client decodes them, written apart from
// the server's own types so that a renamed field fails the tests.
type (
	chatResp struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		Model   string `json:"model"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage usageResp `json:"usage"`
	}
	completionResp struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Index        int    `json:"index"`
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage usageResp `json:"usage"`
	}
	usageResp struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	errorResp struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    string `json:"code"`
		} `json:"error"`
	}
)

// fast are costs that make tests quick; the timing model is the same.
var fast = Config{
	PrefillPerToken:       time.Nanosecond,
	CachedPrefillPerToken: time.Nanosecond,
	DecodePerToken:        10 * time.Microsecond,
}

// start starts a server for the test and closes it at its end.
func start(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newClient returns a client with its own connections, none left over from
// a life of a server that was since killed.
func newClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// response is what a client got: a status, headers and body, or an error.
type response struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// post sends body as JSON (a string is sent as it is) to path under the
// server's base URL.
func post(client *http.Client, s *Server, path string, body any, header ...string) response {
	var raw []byte
	if b, ok := body.(string); ok {
		raw = []byte(b)
	} else {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return response{err: err}
		}
	}
	req, err := http.NewRequest(http.MethodPost, s.BaseURL()+path, bytes.NewReader(raw))
	if err != nil {
		return response{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// chat is a chat request of one user message.
func chat(prompt string) map[string]any {
	return map[string]any{"model": "sim", "messages": []map[string]any{{"role": "user", "content": prompt}}}
}

// decode decodes a 200 response into v.
func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("request failed: %v", r.err)
	}
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("cannot decode %s: %v", r.body, err)
	}
}

// waitFor polls cond until it holds. The deadline only keeps a broken
// server from hanging the test; nothing is asserted about how long it took.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// gate is an answerer that holds the prompts starting with "hold" until
// opened, keeping their sequences in their slots, and echoes every prompt.
type gate struct {
	once sync.Once
	open chan struct{}

	mu    sync.Mutex
	order []string // prompts in the order their answering began
}

// startGated starts a server whose answerer is a gate.
func startGated(t *testing.T, cfg Config) (*Server, *gate) {
	t.Helper()
	g := &gate{open: make(chan struct{})}
	cfg.Answer = g.answer
	s := start(t, cfg)
	// Registered after start's Close, so it runs first: Close waits for
	// the held handlers.
	t.Cleanup(g.release)
	return s, g
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

func (g *gate) answer(prompt string) string {
	g.mu.Lock()
	g.order = append(g.order, prompt)
	g.mu.Unlock()
	if strings.HasPrefix(prompt, "hold") {
		<-g.open
	}
	return "echo " + prompt
}

func (g *gate) answered() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.order...)
}

// fixed is an output length that is always n.
func fixed(n int) func(*rand.Rand) int { return func(*rand.Rand) int { return n } }

// with returns cfg with fast's costs where cfg has none.
func with(cfg Config) Config {
	if cfg.PrefillPerToken == 0 {
		cfg.PrefillPerToken = fast.PrefillPerToken
	}
	if cfg.CachedPrefillPerToken == 0 {
		cfg.CachedPrefillPerToken = fast.CachedPrefillPerToken
	}
	if cfg.DecodePerToken == 0 {
		cfg.DecodePerToken = fast.DecodePerToken
	}
	return cfg
}

// openConns counts the current life's open client connections.
func (s *Server) openConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.life == nil {
		return 0
	}
	return len(s.life.conns)
}
