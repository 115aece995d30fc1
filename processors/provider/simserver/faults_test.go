package simserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
)

func TestFaults(t *testing.T) {
	f := func(faults Faults, check func(r response) error) {
		t.Helper()
		s := start(t, with(Config{Faults: faults}))
		const n = 20
		for i := range n {
			if err := check(post(nil, s, "/chat/completions", chat(fmt.Sprint("prompt ", i)))); err != nil {
				t.Fatalf("%+v, request %d: %v", faults, i, err)
			}
		}
		if st := s.Stats(); st.Failed != n || st.Completed != 0 || st.Answered != 0 || st.Requests != n {
			t.Errorf("%+v: stats %+v", faults, st)
		}
	}
	isError := func(r response, codes ...int) error {
		if r.err != nil {
			return r.err
		}
		var e errorResp
		if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Message == "" {
			return fmt.Errorf("status %d with body %s, want an OpenAI error", r.status, r.body)
		}
		for _, c := range codes {
			if r.status == c {
				return nil
			}
		}
		return fmt.Errorf("status %d, want one of %v", r.status, codes)
	}
	f(Faults{ServerError: 1}, func(r response) error { return isError(r, 500, 502, 503) })
	f(Faults{RateLimitBurst: 1}, func(r response) error {
		if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs < 1 {
			return fmt.Errorf("Retry-After %q, want whole seconds ≥ 1", r.header.Get("Retry-After"))
		}
		return isError(r, http.StatusTooManyRequests)
	})
	f(Faults{Malformed: 1}, func(r response) error {
		var c chatResp
		if r.err != nil || r.status != http.StatusOK {
			return fmt.Errorf("%v %d, want 200", r.err, r.status)
		}
		if err := json.Unmarshal(r.body, &c); err == nil {
			return fmt.Errorf("body %s decodes", r.body)
		}
		return nil
	})
	f(Faults{Timeout: 1, HangFor: time.Millisecond}, func(r response) error { return isError(r, http.StatusGatewayTimeout) })
}

func TestTimeoutHoldsUntilClientGivesUp(t *testing.T) {
	s := start(t, with(Config{Faults: Faults{Timeout: 1}})) // hangs 30 s
	client := &http.Client{Timeout: 50 * time.Millisecond}
	if r := post(client, s, "/chat/completions", chat("q")); r.err == nil {
		t.Fatalf("a hung request answered %d", r.status)
	}
	waitFor(t, "the hang to end with the client", func() bool { return s.Stats().Failed == 1 })
	if st := s.Stats(); st.Served != 0 || st.MaxRunning != 0 {
		t.Errorf("a hung request took a slot: %+v", st)
	}
}

func TestRateLimitBurst(t *testing.T) {
	s := start(t, with(Config{}))
	// One request starts a burst; while it lasts every request gets 429,
	// whatever the draw.
	if err := s.SetFaults(Faults{RateLimitBurst: 1, RateLimitFor: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if r := post(nil, s, "/chat/completions", chat("first")); r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "3600" {
		t.Fatalf("first: %d Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	if err := s.SetFaults(Faults{RateLimitBurst: 1e-9, RateLimitFor: time.Hour}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if r := post(nil, s, "/embeddings", map[string]any{"input": fmt.Sprint(i)}); r.status != http.StatusTooManyRequests {
			t.Errorf("request %d in the burst: %d", i, r.status)
		}
	}
	// Turning bursts off ends the current one.
	if err := s.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
	if r := post(nil, s, "/chat/completions", chat("after")); r.status != http.StatusOK {
		t.Errorf("after the burst: %d", r.status)
	}
}

func TestEmbeddingFaults(t *testing.T) {
	s := start(t, Config{Faults: Faults{ServerError: 1}})
	if r := post(nil, s, "/embeddings", map[string]any{"input": "x"}); r.status < 500 {
		t.Errorf("embeddings with ServerError 1: %v %d", r.err, r.status)
	}
}

// TestFaultsReplay: the faults of the n-th receipt of a prompt depend on
// Seed, the prompt and n only, so a run replays them whatever the order
// the requests arrive in.
func TestFaultsReplay(t *testing.T) {
	cfg := with(Config{Seed: 7, Faults: Faults{ServerError: 0.3, Malformed: 0.2}})
	prompts := make([]string, 40)
	for i := range prompts {
		prompts[i] = fmt.Sprint("question ", i)
	}
	// outcomes sends every prompt twice, concurrently or one by one.
	outcomes := func(cfg Config, concurrent bool) string {
		s := start(t, cfg)
		got := make([][2]int, len(prompts))
		send := func(i int) {
			for k := range 2 {
				r := post(nil, s, "/completions", map[string]any{"prompt": prompts[i]})
				if r.status == http.StatusOK && json.Unmarshal(r.body, &completionResp{}) != nil {
					r.status = -1 // malformed
				}
				got[i][k] = r.status
			}
		}
		var wg sync.WaitGroup
		for i := range prompts {
			if concurrent {
				wg.Go(func() { send(i) })
			} else {
				send(i)
			}
		}
		wg.Wait()
		return fmt.Sprint(got)
	}
	one, other := outcomes(cfg, false), outcomes(cfg, true)
	if one != other {
		t.Errorf("the same seed replayed differently:\n%s\n%s", one, other)
	}
	for _, want := range []string{"200", "-1", "50"} {
		if !strings.Contains(one, want) {
			t.Errorf("no %s among the outcomes %s", want, one)
		}
	}
	cfg.Seed = 8
	if outcomes(cfg, true) == one {
		t.Error("another seed replayed the same faults")
	}
}

func TestConfigErrors(t *testing.T) {
	_, err := Start(Config{MaxNumSeqs: -1, DecodePerToken: -time.Second, Faults: Faults{ServerError: 1.5, Timeout: -0.1}})
	if err == nil {
		t.Fatal("Start accepted an invalid config")
	}
	for _, want := range []string{"MaxNumSeqs", "DecodePerToken", "Faults: ServerError", "Timeout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	s := start(t, Config{})
	if err := s.SetFaults(Faults{Malformed: 2}); err == nil {
		t.Error("SetFaults accepted Malformed 2")
	}
}

// TestRefusal: with Refusal 1 every chat is answered 200 with the refusal,
// with 0.5 about half are, and SetFaults switches it while serving.
func TestRefusal(t *testing.T) {
	s := start(t, with(Config{Answer: func(string) string { return "Paris" }}))
	ask := func(i int) string {
		t.Helper()
		r := post(nil, s, "/chat/completions", chat(fmt.Sprint("prompt ", i)))
		var c chatResp
		r.decode(t, &c)
		if len(c.Choices) != 1 {
			t.Fatalf("%d choices", len(c.Choices))
		}
		return c.Choices[0].Message.Content
	}
	count := func(from, n int) (refused int) {
		for i := from; i < from+n; i++ {
			switch a := ask(i); a {
			case provider.RefusalText:
				refused++
			case "Paris":
			default:
				t.Fatalf("answer %q", a)
			}
		}
		return refused
	}
	if n := count(0, 20); n != 0 {
		t.Errorf("%d refusals without the fault", n)
	}
	if err := s.SetFaults(Faults{Refusal: 1}); err != nil {
		t.Fatal(err)
	}
	if n := count(20, 20); n != 20 {
		t.Errorf("%d of 20 refused with Refusal 1", n)
	}
	if err := s.SetFaults(Faults{Refusal: 0.5}); err != nil {
		t.Fatal(err)
	}
	if n := count(40, 200); n < 70 || n > 130 {
		t.Errorf("%d of 200 refused with Refusal 0.5", n)
	}
	if st := s.Stats(); st.Failed != 0 {
		t.Errorf("refusals counted as failures: %+v", st)
	}
	if err := s.SetFaults(Faults{Refusal: 1.5}); err == nil {
		t.Error("Refusal 1.5 accepted")
	}
}
