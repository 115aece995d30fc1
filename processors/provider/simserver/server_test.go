package simserver

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestChatShape(t *testing.T) {
	s := start(t, with(Config{Answer: func(p string) string { return "answer to " + p }, OutputTokens: fixed(7)}))
	req := chat("What is up?")
	req["temperature"] = 0.0
	var got chatResp
	post(nil, s, "/chat/completions", req).decode(t, &got)
	if !strings.HasPrefix(got.ID, "chatcmpl-") || got.Object != "chat.completion" || got.Model != "sim" || got.Created == 0 {
		t.Errorf("envelope %+v", got)
	}
	if len(got.Choices) != 1 {
		t.Fatalf("%d choices, want 1", len(got.Choices))
	}
	c := got.Choices[0]
	if c.Index != 0 || c.Message.Role != "assistant" || c.Message.Content != "answer to What is up?" || c.FinishReason != "stop" {
		t.Errorf("choice %+v", c)
	}
	want := usageResp{PromptTokens: CountTokens("What is up?"), CompletionTokens: 7}
	want.TotalTokens = want.PromptTokens + want.CompletionTokens
	if got.Usage != want || want.PromptTokens != 4 {
		t.Errorf("usage %+v, want %+v", got.Usage, want)
	}
	st := s.Stats()
	if st.Requests != 1 || st.Completed != 1 || st.Prompts != 1 || st.Answered != 1 || st.CompletionTokens != 7 || st.Temperatures[0] != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestChatPromptJoinsMessages(t *testing.T) {
	var mu sync.Mutex
	var prompts []string
	s := start(t, with(Config{Answer: func(p string) string {
		mu.Lock()
		defer mu.Unlock()
		prompts = append(prompts, p)
		return "ok"
	}}))
	f := func(messages string, want string) {
		t.Helper()
		prompts = nil
		var got chatResp
		post(nil, s, "/chat/completions", `{"model":"sim","messages":`+messages+`}`).decode(t, &got)
		if len(prompts) != 1 || prompts[0] != want {
			t.Errorf("messages %s: prompt %q, want %q", messages, prompts, want)
		}
	}
	f(`[{"role":"user","content":"one"}]`, "one")
	f(`[{"role":"system","content":"be brief"},{"role":"user","content":"one"}]`, "be brief\none")
	f(`[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]}]`, "ab")
}

func TestCompletionsShape(t *testing.T) {
	s := start(t, with(Config{Answer: func(p string) string { return strings.ToUpper(p) }, OutputTokens: fixed(3)}))
	var one completionResp
	post(nil, s, "/completions", map[string]any{"model": "sim", "prompt": "hello world"}).decode(t, &one)
	if !strings.HasPrefix(one.ID, "cmpl-") || one.Object != "text_completion" || len(one.Choices) != 1 || one.Choices[0].Text != "HELLO WORLD" {
		t.Errorf("single prompt: %+v", one)
	}

	prompts := []string{"alpha", "beta gamma", "delta, epsilon and zeta"}
	var list completionResp
	post(nil, s, "/completions", map[string]any{"model": "sim", "prompt": prompts, "temperature": 0.7}).decode(t, &list)
	if len(list.Choices) != len(prompts) {
		t.Fatalf("%d choices for %d prompts", len(list.Choices), len(prompts))
	}
	var want usageResp
	for i, c := range list.Choices {
		if c.Index != i || c.Text != strings.ToUpper(prompts[i]) || c.FinishReason != "stop" {
			t.Errorf("choice %d: %+v", i, c)
		}
		want.PromptTokens += CountTokens(prompts[i])
		want.CompletionTokens += max(3, CountTokens(c.Text)) // at least the answer
	}
	want.TotalTokens = want.PromptTokens + want.CompletionTokens
	if list.Usage != want {
		t.Errorf("usage %+v, want %+v", list.Usage, want)
	}
	st := s.Stats()
	if st.Requests != 2 || st.Completed != 2 || st.Prompts != 4 || st.Answered != 4 || st.Served != 4 || st.Temperatures[0.7] != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestMaxTokens(t *testing.T) {
	s := start(t, with(Config{Answer: func(string) string { return "one two three four five six" }, OutputTokens: fixed(100)}))
	f := func(body map[string]any, wantText, wantFinish string, wantTokens int) {
		t.Helper()
		var got chatResp
		post(nil, s, "/chat/completions", body).decode(t, &got)
		c := got.Choices[0]
		if c.Message.Content != wantText || c.FinishReason != wantFinish || got.Usage.CompletionTokens != wantTokens {
			t.Errorf("%v: %q %s %d tokens, want %q %s %d", body, c.Message.Content, c.FinishReason, got.Usage.CompletionTokens, wantText, wantFinish, wantTokens)
		}
	}
	req := func(key string, n int) map[string]any {
		r := chat("q")
		r[key] = n
		return r
	}
	f(chat("q"), "one two three four five six", "stop", 100)
	f(req("max_tokens", 100), "one two three four five six", "stop", 100)
	f(req("max_tokens", 10), "one two three four five six", "length", 10)
	f(req("max_tokens", 3), "one two three", "length", 3)
	f(req("max_completion_tokens", 2), "one two", "length", 2)

	// Output is at least the answer's length, whatever the draw.
	short := start(t, with(Config{Answer: func(string) string { return "one two three" }, OutputTokens: fixed(1)}))
	var got chatResp
	post(nil, short, "/chat/completions", chat("q")).decode(t, &got)
	if got.Usage.CompletionTokens != 3 || got.Choices[0].FinishReason != "stop" {
		t.Errorf("short draw: %+v", got)
	}
}

func TestRefusals(t *testing.T) {
	s := start(t, with(Config{APIKey: "secret", Model: "m1"}))
	auth := []string{"Authorization", "Bearer secret"}
	f := func(path string, body any, header []string, wantStatus int, wantCode string) {
		t.Helper()
		r := post(nil, s, path, body, header...)
		if r.err != nil {
			t.Fatal(r.err)
		}
		var e errorResp
		if err := json.Unmarshal(r.body, &e); err != nil {
			t.Fatalf("%s %v: error body %s does not decode: %v", path, body, r.body, err)
		}
		if r.status != wantStatus || e.Error.Code != wantCode || e.Error.Message == "" || e.Error.Type == "" {
			t.Errorf("%s %v: %d %+v, want %d %s", path, body, r.status, e, wantStatus, wantCode)
		}
	}
	ok := map[string]any{"model": "m1", "messages": []map[string]string{{"role": "user", "content": "hi"}}}
	f("/chat/completions", ok, nil, http.StatusUnauthorized, "invalid_api_key")
	f("/chat/completions", ok, []string{"Authorization", "Bearer wrong"}, http.StatusUnauthorized, "invalid_api_key")
	f("/embeddings", map[string]any{"input": "x"}, nil, http.StatusUnauthorized, "invalid_api_key")
	f("/chat/completions", chat("hi"), auth, http.StatusNotFound, "model_not_found")
	f("/completions", map[string]any{"model": "gpt-4", "prompt": "x"}, auth, http.StatusNotFound, "model_not_found")
	f("/chat/completions", `{"model": "m1", "messages": [`, auth, http.StatusBadRequest, "invalid_request")
	f("/completions", `not json`, auth, http.StatusBadRequest, "invalid_request")
	f("/embeddings", `{"input": 3}`, auth, http.StatusBadRequest, "invalid_request")
	f("/chat/completions", map[string]any{"model": "m1", "messages": []any{}}, auth, http.StatusBadRequest, "invalid_request")
	f("/completions", map[string]any{"model": "m1", "prompt": []int{1, 2}}, auth, http.StatusBadRequest, "invalid_request")
	f("/completions", map[string]any{"model": "m1", "prompt": []string{}}, auth, http.StatusBadRequest, "invalid_request")
	f("/completions", map[string]any{"model": "m1", "prompt": nil}, auth, http.StatusBadRequest, "invalid_request")
	f("/completions", map[string]any{"model": "m1", "prompt": "x", "max_tokens": 0}, auth, http.StatusBadRequest, "invalid_request")
	f("/completions", map[string]any{"model": "m1", "prompt": "x", "stream": true}, auth, http.StatusBadRequest, "invalid_request")
	f("/nowhere", ok, auth, http.StatusNotFound, "not_found")

	if r := post(nil, s, "/chat/completions", ok, auth...); r.status != http.StatusOK {
		t.Errorf("authorized request: %d %s", r.status, r.body)
	}
	if st := s.Stats(); st.Invalid != 14 || st.Requests != 15 || st.Completed != 1 || st.Prompts != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestModels(t *testing.T) {
	s := start(t, Config{Model: "llama-sim", APIKey: "k"})
	get := func(key string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodGet, s.BaseURL()+"/models", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		return http.DefaultClient.Do(req)
	}
	resp, err := get("")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without key: %d", resp.StatusCode)
	}
	resp, err = get("k")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Object != "list" || len(got.Data) != 1 || got.Data[0].ID != "llama-sim" || got.Data[0].Object != "model" {
		t.Errorf("models %+v", got)
	}
}

func TestEmbeddings(t *testing.T) {
	s := start(t, Config{})
	embedAll := func(input any) [][]float32 {
		t.Helper()
		var got struct {
			Object string `json:"object"`
			Data   []struct {
				Object    string    `json:"object"`
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		post(nil, s, "/embeddings", map[string]any{"model": "sim", "input": input}).decode(t, &got)
		out := make([][]float32, len(got.Data))
		for i, d := range got.Data {
			if d.Index != i || d.Object != "embedding" {
				t.Errorf("data[%d]: index %d object %q", i, d.Index, d.Object)
			}
			out[i] = d.Embedding
		}
		if got.Object != "list" || got.Usage.PromptTokens == 0 {
			t.Errorf("envelope %+v", got)
		}
		return out
	}
	texts := []string{
		"Acme Corp's revenue in Q3 2025 was $4.2 billion.",
		"What was Acme Corp's revenue in Q3 2025?",
		"Northwind Bank appointed Maria Lopez as chief financial officer.",
		"!!!",
	}
	vs := embedAll(texts)
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		if len(v) != EmbeddingDim {
			t.Fatalf("vector %d has dimension %d", i, len(v))
		}
		if n := dot(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has norm² %v", i, n)
		}
	}
	if again := embedAll(texts[0]); fmt.Sprint(again[0]) != fmt.Sprint(vs[0]) {
		t.Error("the same text embeds differently")
	}
	if related, unrelated := dot(vs[0], vs[1]), dot(vs[0], vs[2]); related <= unrelated {
		t.Errorf("cosine to the question %v, to an unrelated sentence %v", related, unrelated)
	}
	if st := s.Stats(); st.Prompts != 0 || st.Completed != 2 {
		t.Errorf("embeddings are not prompts: %+v", st)
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestNeverMoreThanMaxNumSeqs(t *testing.T) {
	const seqs, clients = 4, 16
	s, g := startGated(t, with(Config{MaxNumSeqs: seqs}))

	// Saturate with held prompts: MaxNumSeqs run, the rest queue.
	var wg sync.WaitGroup
	statuses := make([]int, clients)
	for i := range clients {
		wg.Go(func() {
			statuses[i] = post(nil, s, "/completions", map[string]any{"prompt": fmt.Sprintf("hold %d", i)}).status
		})
	}
	waitFor(t, "a full server and a queue", func() bool {
		st := s.Stats()
		return st.Running == seqs && st.Waiting == clients-seqs
	})
	g.release()
	wg.Wait()
	for i, st := range statuses {
		if st != http.StatusOK {
			t.Errorf("client %d: status %d", i, st)
		}
	}

	// Then many short requests from 4× as many clients as slots.
	for i := range clients {
		wg.Go(func() {
			for j := range 8 {
				r := post(nil, s, "/chat/completions", chat(fmt.Sprintf("client %d request %d", i, j)))
				if r.status != http.StatusOK {
					t.Errorf("client %d request %d: %v %d", i, j, r.err, r.status)
				}
			}
		})
	}
	wg.Wait()
	st := s.Stats()
	if st.MaxRunning != seqs {
		t.Errorf("at most %d sequences ran at once, want exactly %d", st.MaxRunning, seqs)
	}
	if st.Completed != clients*9 || st.Served != clients*9 || st.Running != 0 || st.Waiting != 0 {
		t.Errorf("stats %+v", st)
	}
	if !(st.Utilization > 0 && st.Utilization <= 1) || st.Capacity <= 0 || st.Throughput <= 0 || st.BusyTime <= 0 {
		t.Errorf("utilization %v, capacity %v, throughput %v, busy %v", st.Utilization, st.Capacity, st.Throughput, st.BusyTime)
	}
}

func TestQueueIsFIFO(t *testing.T) {
	s, g := startGated(t, with(Config{MaxNumSeqs: 1}))
	var wg sync.WaitGroup
	wg.Go(func() { post(nil, s, "/completions", map[string]any{"prompt": "hold first"}) })
	waitFor(t, "the first in its slot", func() bool { return s.Stats().Running == 1 })
	for i := range 5 {
		wg.Go(func() { post(nil, s, "/completions", map[string]any{"prompt": fmt.Sprint("queued ", i)}) })
		waitFor(t, "the queue to grow", func() bool { return s.Stats().Waiting == i+1 })
	}
	g.release()
	wg.Wait()
	want := "[hold first queued 0 queued 1 queued 2 queued 3 queued 4]"
	if got := fmt.Sprint(g.answered()); got != want {
		t.Errorf("served %s, want %s", got, want)
	}
}

func TestKillAndRestart(t *testing.T) {
	s, g := startGated(t, with(Config{MaxNumSeqs: 2}))
	base := s.BaseURL()
	const inFlight = 5
	var wg sync.WaitGroup
	errs := make([]error, inFlight)
	for i := range inFlight {
		wg.Go(func() {
			r := post(nil, s, "/chat/completions", chat(fmt.Sprint("hold ", i)))
			if errs[i] = r.err; r.err == nil {
				t.Errorf("request %d survived the kill: %d %s", i, r.status, r.body)
			}
		})
	}
	waitFor(t, "running and waiting requests", func() bool {
		st := s.Stats()
		return st.Running == 2 && st.Waiting == inFlight-2
	})
	s.Kill()
	wg.Wait() // every call returned, with an error: the gate is still shut
	if r := post(nil, s, "/chat/completions", chat("while down")); r.err == nil {
		t.Errorf("a killed server answered %d", r.status)
	}
	g.release()
	waitFor(t, "the killed requests to end", func() bool { return s.Stats().Aborted == inFlight })
	s.Kill() // a second kill does nothing

	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if s.BaseURL() != base {
		t.Errorf("base URL %s after restart, was %s", s.BaseURL(), base)
	}
	// A prompt lost in the kill may be sent again: it was never answered.
	for _, p := range []string{"hold 0", "after restart"} {
		var got chatResp
		post(nil, s, "/chat/completions", chat(p)).decode(t, &got)
		if got.Choices[0].Message.Content != "echo "+p {
			t.Errorf("%q answered %q", p, got.Choices[0].Message.Content)
		}
	}
	st := s.Stats()
	if st.Duplicates != 0 || st.Running != 0 || st.Waiting != 0 || st.Completed != 2 || s.Received("hold 0") != 2 {
		t.Errorf("stats after restart %+v", st)
	}

	// Restart of a running server is a crash and a restart.
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	// A new client: the default one may still hold a connection to the
	// killed life, which fails the next POST it carries (as it would on
	// a real crash; retrying is the client's business).
	if r := post(newClient(t), s, "/chat/completions", chat("after second restart")); r.status != http.StatusOK {
		t.Errorf("after second restart: %v %d", r.err, r.status)
	}
	s.Close()
	if err := s.Restart(); err != ErrClosed {
		t.Errorf("Restart after Close: %v, want ErrClosed", err)
	}
}

func TestRestartRightAfterStart(t *testing.T) {
	// Before its Serve goroutine runs, the HTTP server does not know its
	// listener; the port must be free all the same.
	s := start(t, with(Config{}))
	for i := range 5 {
		if err := s.Restart(); err != nil {
			t.Fatal(err)
		}
		if r := post(newClient(t), s, "/chat/completions", chat("x")); r.status != http.StatusOK {
			t.Errorf("round %d: %v %d", i, r.err, r.status)
		}
	}
}

func TestKillWhileConnectionsArrive(t *testing.T) {
	// Kill and Restart while clients keep connecting: a connection the
	// HTTP server has just accepted runs its hooks, which take the
	// server's lock, and Kill waits for that accept loop to end; holding
	// the lock across that wait deadlocked once in CI.
	s := start(t, with(Config{}))
	stop := make(chan struct{})
	var dialers sync.WaitGroup
	for range 4 {
		dialers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
					c.Close()
				}
			}
		})
	}
	done := make(chan error, 1)
	go func() {
		for i := range 2000 {
			time.Sleep(time.Duration(i%20) * 20 * time.Microsecond) // let the accept loop run
			s.Kill()
			if err := s.Restart(); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(time.Minute):
		// Deadlocked: the cleanup's Close would hang too, even after a
		// panic, so end the test binary here with every goroutine's stack.
		fmt.Fprintln(os.Stderr, "--- FAIL: TestKillWhileConnectionsArrive: Kill and Restart did not return within a minute: deadlocked with a connection's hooks")
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		os.Exit(1)
	}
	close(stop)
	dialers.Wait()
	if r := post(newClient(t), s, "/chat/completions", chat("x")); r.status != http.StatusOK {
		t.Errorf("after the restarts: %v %d", r.err, r.status)
	}
}

func TestKillDuringService(t *testing.T) {
	// Requests sleeping out their decode (an hour of it) fail when killed.
	s := start(t, Config{DecodePerToken: time.Hour, OutputTokens: fixed(1), MaxNumSeqs: 2})
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			if r := post(nil, s, "/completions", map[string]any{"prompt": fmt.Sprint("p", i)}); r.err == nil {
				t.Errorf("request %d survived the kill: %d", i, r.status)
			}
		})
	}
	waitFor(t, "requests in service", func() bool { st := s.Stats(); return st.Running == 2 && st.Waiting == 1 })
	s.Kill()
	wg.Wait()
	waitFor(t, "the killed requests to end", func() bool { return s.Stats().Aborted == 3 })
	if st := s.Stats(); st.Served != 0 || st.Running != 0 || st.BusyTime <= 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestDuplicatesAndReceived(t *testing.T) {
	s := start(t, with(Config{}))
	send := func(path string, body any, want int) {
		t.Helper()
		if r := post(nil, s, path, body); r.status != want {
			t.Fatalf("%v: %v %d, want %d", body, r.err, r.status, want)
		}
	}
	send("/chat/completions", chat("A"), 200)
	send("/chat/completions", chat("A"), 200)
	if st := s.Stats(); st.Duplicates != 1 || st.Prompts != 2 || s.Received("A") != 2 || s.Received("a") != 0 {
		t.Errorf("after A twice: %+v, received %d", st, s.Received("A"))
	}

	// A failed prompt may be retried; only a resend after success counts.
	if err := s.SetFaults(Faults{ServerError: 1}); err != nil {
		t.Fatal(err)
	}
	if r := post(nil, s, "/chat/completions", chat("B")); r.status < 500 {
		t.Fatalf("B with ServerError 1: %v %d", r.err, r.status)
	}
	if err := s.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
	send("/chat/completions", chat("B"), 200)
	if st := s.Stats(); st.Duplicates != 1 || s.Received("B") != 2 || st.Failed != 1 {
		t.Errorf("after B failed then answered: %+v", st)
	}

	// Completions count every prompt of a list, chat and completions
	// share the record of a prompt.
	send("/completions", map[string]any{"prompt": []string{"C", "C", "A"}}, 200)
	if st := s.Stats(); st.Duplicates != 2 || s.Received("C") != 2 || s.Received("A") != 3 || st.Prompts != 7 || st.Distinct != 3 {
		t.Errorf("after [C C A]: %+v", st)
	}

	s.ResetStats()
	send("/chat/completions", chat("A"), 200)
	if st := s.Stats(); st.Duplicates != 0 || st.Requests != 1 || s.Received("A") != 1 {
		t.Errorf("after ResetStats: %+v", st)
	}
}

// TestDuplicatesAcrossKill: an answer written just before a Kill may have
// been lost with the connection, so sending its prompt again after the
// restart is no duplicate; a prompt answered well before the Kill is.
func TestDuplicatesAcrossKill(t *testing.T) {
	const lostCut = 300 * time.Millisecond
	s := start(t, with(Config{LostCut: lostCut}))
	// A client for each life, keeping its connections as a dispatcher
	// does: the killed life's connections are gone.
	client := func() (func(string), func()) {
		c := &http.Client{Transport: &http.Transport{}}
		return func(prompt string) {
			t.Helper()
			if r := post(c, s, "/chat/completions", chat(prompt)); r.status != 200 {
				t.Fatalf("%s: %v %d", prompt, r.err, r.status)
			}
		}, c.CloseIdleConnections
	}
	send, done := client()
	send("early")
	time.Sleep(lostCut + 100*time.Millisecond)
	send("late")
	s.Kill()
	done()
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	send, done = client()
	defer done()
	send("late")
	if st := s.Stats(); st.Duplicates != 0 {
		t.Errorf("an answer from just before the kill, sent again: %d duplicates, want 0", st.Duplicates)
	}
	send("early")
	if st := s.Stats(); st.Duplicates != 1 || !slices.Equal(s.DuplicatedPrompts(), []string{"early"}) {
		t.Errorf("an answer from well before the kill, sent again: %d duplicates %q, want 1 (early)", st.Duplicates, s.DuplicatedPrompts())
	}
}

// TestDuplicatesAfterAbandonedAnswer: a client that closes its connection
// as the answer goes out, without reading it (its deadline passed), may
// send the prompt again without a duplicate; a client that read its answer
// and asked something else on the same connection may not, however soon it
// closes.
func TestDuplicatesAfterAbandonedAnswer(t *testing.T) {
	const lostCut = 300 * time.Millisecond
	s := start(t, with(Config{LostCut: lostCut}))
	raw := func(prompt string) net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(chat(prompt))
		fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		return c
	}
	// Abandoned: closed once the server counts the answer, unread.
	c := raw("abandoned")
	waitFor(t, "the answer", func() bool { return s.Stats().Answered == 1 })
	c.Close()
	waitFor(t, "the connection to close", func() bool { return s.openConns() == 0 })
	if r := post(nil, s, "/chat/completions", chat("abandoned")); r.status != 200 {
		t.Fatalf("abandoned again: %v %d", r.err, r.status)
	}
	if st := s.Stats(); st.Duplicates != 0 || s.Received("abandoned") != 2 {
		t.Errorf("an answer its client never read, sent again: %+v", st)
	}

	// Stalled: the answer left unread past lostCut, then dropped (the
	// socket is reset, its data unread).
	c = raw("stalled")
	waitFor(t, "the answer", func() bool { return s.Stats().Answered == 3 })
	time.Sleep(lostCut + 200*time.Millisecond)
	c.Close()
	waitFor(t, "the connection to close", func() bool { return s.openConns() <= 1 }) // the default client's stays
	if r := post(nil, s, "/chat/completions", chat("stalled")); r.status != 200 {
		t.Fatalf("stalled again: %v %d", r.err, r.status)
	}
	if st := s.Stats(); st.Duplicates != 0 || s.Received("stalled") != 2 {
		t.Errorf("an answer its stalled client dropped unread, sent again: %+v", st)
	}

	// Read, then another request on the connection, then closed at once.
	c2 := &http.Client{Transport: &http.Transport{}}
	for _, p := range []string{"read", "other"} {
		if r := post(c2, s, "/chat/completions", chat(p)); r.status != 200 {
			t.Fatalf("%s: %v %d", p, r.err, r.status)
		}
	}
	c2.CloseIdleConnections()
	if r := post(nil, s, "/chat/completions", chat("read")); r.status != 200 {
		t.Fatalf("read again: %v %d", r.err, r.status)
	}
	if st := s.Stats(); st.Duplicates != 1 || !slices.Equal(s.DuplicatedPrompts(), []string{"read"}) {
		t.Errorf("an answer read by its client, sent again: %d duplicates %q, want 1 (read)", st.Duplicates, s.DuplicatedPrompts())
	}
}
