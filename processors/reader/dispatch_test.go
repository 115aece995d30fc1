package reader

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// countingModel answers after a pause and records how many calls ran at once.
type countingModel struct {
	id      string
	pause   time.Duration
	calls   atomic.Int64
	running atomic.Int64
	peak    atomic.Int64
	err     error
	limits  provider.Limits
}

func (m *countingModel) ID() string              { return m.id }
func (m *countingModel) Limits() provider.Limits { return m.limits }
func (m *countingModel) Answer(ctx context.Context, q provider.Query) (provider.Answer, error) {
	m.calls.Add(1)
	cur := m.running.Add(1)
	defer m.running.Add(-1)
	for old := m.peak.Load(); cur > old && !m.peak.CompareAndSwap(old, cur); old = m.peak.Load() {
	}
	select {
	case <-time.After(m.pause):
	case <-ctx.Done():
		return provider.Answer{}, ctx.Err()
	}
	if m.err != nil {
		return provider.Answer{}, m.err
	}
	return provider.Answer{Text: "$4.2 billion", TokensIn: 30, TokensOut: 3}, nil
}

func encodeRequest(t *testing.T, r *schemas.EvalRequest) streams.Message {
	t.Helper()
	schemas.Stamp(r, "ev-"+r.RequestID+r.VariantID)
	b, err := schemas.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return streams.Message{Topic: streams.TopicEvalRequests, Key: []byte(r.QuestionID), Value: b}
}

func acmeRequest(model, requestID, variantID string) *schemas.EvalRequest {
	return &schemas.EvalRequest{QuestionRef: schemas.QuestionRef{QuestionID: "q1"}, RequestID: requestID, ModelID: model, VariantID: variantID,
		Query: "What was Acme Corp's revenue in Q3 2025?", Contexts: []string{acmeChunk}, Prompt: "prompt of " + requestID,
		Accepted: []string{"$4.2 billion"}, Axis: schemas.AxisQuery, Kind: "char", AnswerAvailable: true, Expected: 2}
}

// TestWindowBoundsCalls: a model with max_in_flight 4 never has more than 4
// calls running, however many requests arrive at once.
func TestWindowBoundsCalls(t *testing.T) {
	m := &countingModel{id: "gpu", pause: 5 * time.Millisecond, limits: provider.Limits{MaxInFlight: 4}}
	st, err := NewStage(Config{Models: map[string]provider.Model{"gpu": m}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprint("r", i)
			if _, err := st.Process(t.Context(), encodeRequest(t, acmeRequest("gpu", id, "v"+id))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if m.calls.Load() != 64 || m.peak.Load() > 4 || m.peak.Load() < 2 {
		t.Errorf("%d calls, peak %d running; want 64 calls, at most 4 at once", m.calls.Load(), m.peak.Load())
	}
}

// TestAnsweredPromptsAreNotSentAgain: a request id answered before, by this
// process or (through the changelog) by an earlier one, is served from the
// cache; concurrent identical requests make one call; each still gets its
// own result.
func TestAnsweredPromptsAreNotSentAgain(t *testing.T) {
	m := &countingModel{id: "gpu", pause: 20 * time.Millisecond}
	cache := NewCache()
	st, err := NewStage(Config{Models: map[string]provider.Model{"gpu": m}, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	// Eight variants with the same prompt (same request id), at once.
	var wg sync.WaitGroup
	var changelog atomic.Int64
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs, err := st.Process(t.Context(), encodeRequest(t, acmeRequest("gpu", "same", fmt.Sprint("v", i))))
			if err != nil {
				t.Error(err)
				return
			}
			for _, r := range recs {
				if r.Topic == streams.ChangelogTopic(StageName) {
					changelog.Add(1)
					if string(r.Key) != "same" {
						t.Errorf("changelog key %q", r.Key)
					}
				}
			}
			if recs[0].Topic != streams.TopicEvalResults {
				t.Errorf("first record on %s", recs[0].Topic)
			}
		}()
	}
	wg.Wait()
	if m.calls.Load() != 1 || changelog.Load() != 1 {
		t.Errorf("%d calls and %d changelog records for one prompt, want 1 and 1", m.calls.Load(), changelog.Load())
	}
	// Later: from the cache, no call, no changelog record.
	recs, err := st.Process(t.Context(), encodeRequest(t, acmeRequest("gpu", "same", "v-late")))
	if err != nil || len(recs) != 1 || m.calls.Load() != 1 {
		t.Fatalf("late duplicate: %d records, %d calls, err %v", len(recs), m.calls.Load(), err)
	}
	var res schemas.EvalResult
	if err := schemas.Decode(recs[0].Value, &res); err != nil || !res.Correct || res.Answer != "$4.2 billion" || res.TokensIn != 30 {
		t.Errorf("cached result %+v, err %v", res, err)
	}

	// A new process: its cache loaded from the changelog sends nothing.
	value, _ := cache.put("other", cached{Text: "$4.2 billion", TokensIn: 30})
	fresh := NewCache()
	fresh.Load("other", value)
	fresh.Load("broken", []byte("{"))
	m2 := &countingModel{id: "gpu"}
	st2, _ := NewStage(Config{Models: map[string]provider.Model{"gpu": m2}, Cache: fresh})
	if _, err := st2.Process(t.Context(), encodeRequest(t, acmeRequest("gpu", "other", "v1"))); err != nil || m2.calls.Load() != 0 {
		t.Errorf("after a restart: %d calls, err %v; want the answer from the changelog", m2.calls.Load(), err)
	}
	if fresh.Len() != 1 {
		t.Errorf("cache holds %d answers, want 1 (the broken value is skipped)", fresh.Len())
	}
}

// TestRejectedIsPermanent: a request the endpoint refuses for good (a 4xx)
// is not retried; a 503 is.
func TestRejectedIsPermanent(t *testing.T) {
	f := func(class error, permanent bool) {
		t.Helper()
		m := &countingModel{id: "gpu", err: &provider.CallError{Model: "gpu", Class: class, Status: 400}}
		st, _ := NewStage(Config{Models: map[string]provider.Model{"gpu": m}})
		_, err := st.Process(t.Context(), encodeRequest(t, acmeRequest("gpu", "r", "v")))
		if err == nil || streams.IsPermanent(err) != permanent || !errors.Is(err, class) {
			t.Errorf("%v: err %v, permanent %v; want permanent %v", class, err, streams.IsPermanent(err), permanent)
		}
	}
	f(provider.ErrRejected, true)
	f(provider.ErrUnavailable, false)
	f(provider.ErrRateLimited, false)
}

// TestGateAffinity: when a slot frees, a waiter whose prompt shares the
// contexts of the call just sent goes first, but the oldest waiter is
// passed over at most maxSkips times.
func TestGateAffinity(t *testing.T) {
	g := newGate(1, true)
	if err := g.acquire(context.Background(), "A"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	enqueue := func(key string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.acquire(context.Background(), key); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, key)
			mu.Unlock()
			g.release(succeeded, 0)
		}()
		for { // wait until queued, to fix the arrival order
			g.mu.Lock()
			n := len(g.queue)
			queued := n > 0 && g.queue[n-1].key == key
			g.mu.Unlock()
			if queued {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	enqueue("B")
	enqueue("A")
	enqueue("C")
	enqueue("A")
	g.release(succeeded, 0) // the first A finishes
	wg.Wait()
	if want := []string{"A", "A", "B", "C"}; fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("order %v, want %v (the A waiters share the prefix just sent)", order, want)
	}

	// Without affinity: arrival order.
	g = newGate(1, false)
	_ = g.acquire(context.Background(), "A")
	order = nil
	enqueue("B")
	enqueue("A")
	g.release(succeeded, 0)
	wg.Wait()
	if fmt.Sprint(order) != "[B A]" {
		t.Errorf("order without affinity %v, want [B A]", order)
	}
}

// TestGateAuto: an automatic window grows while the server keeps no queue
// and every slot is busy, and backs off when the server queues too much or
// answers 429.
func TestGateAuto(t *testing.T) {
	g := newGate(0, true)
	var running, waiting atomic.Int64
	g.load = func(context.Context) (float64, float64, error) {
		return float64(running.Load()), float64(waiting.Load()), nil
	}
	start := g.Limit()
	// Fill the window; the server runs everything, queues nothing.
	for range start {
		if err := g.acquire(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
	}
	running.Store(int64(start))
	deadline := time.Now().Add(5 * time.Second)
	for g.Limit() <= start && time.Now().Before(deadline) {
		time.Sleep(probeEvery / 2)
	}
	if g.Limit() <= start {
		t.Fatalf("window stayed at %d with an idle server queue", g.Limit())
	}
	grown := g.Limit()
	// The server now queues far more than needed.
	running.Store(4)
	waiting.Store(200)
	deadline = time.Now().Add(5 * time.Second)
	for g.Limit() >= grown && time.Now().Before(deadline) {
		time.Sleep(probeEvery / 2)
	}
	if g.Limit() >= grown {
		t.Errorf("window stayed at %d with 200 requests waiting on the server", g.Limit())
	}
	before := g.Limit()
	g.release(overloaded, 0)
	if g.Limit() >= before {
		t.Errorf("a 429 left the window at %d", g.Limit())
	}
	for range start - 1 {
		g.release(succeeded, time.Millisecond)
	}
}

// TestSetModels: a reloaded model set serves the new models at once, keeps
// the dispatcher of an unchanged model, and answers a request for a model
// no longer served with a permanent error.
func TestSetModels(t *testing.T) {
	a := &countingModel{id: "a", limits: provider.Limits{MaxInFlight: 3}}
	st, err := NewStage(Config{Models: map[string]provider.Model{"a": a}})
	if err != nil {
		t.Fatal(err)
	}
	before := (*st.models.Load())["a"]
	b := &countingModel{id: "b"}
	st.SetModels(map[string]provider.Model{"a": a, "b": b})
	if (*st.models.Load())["a"] != before {
		t.Error("an unchanged model lost its dispatcher")
	}
	if _, err := st.Process(t.Context(), encodeRequest(t, acmeRequest("b", "rb", "v"))); err != nil || b.calls.Load() != 1 {
		t.Errorf("the added model: %d calls, err %v", b.calls.Load(), err)
	}
	st.SetModels(map[string]provider.Model{"b": b})
	if _, err := st.Process(t.Context(), encodeRequest(t, acmeRequest("a", "ra", "v"))); !errors.Is(err, ErrUnknownModel) || !streams.IsPermanent(err) {
		t.Errorf("a removed model: err %v", err)
	}
}

// fakeEmbedder maps texts to fixed vectors.
type fakeEmbedder map[string][]float32

func (f fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := f[t]
		if !ok {
			return nil, fmt.Errorf("no vector for %q", t)
		}
		out[i] = v
	}
	return out, nil
}

// answerModel always answers text.
type answerModel struct{ id, text string }

func (m answerModel) ID() string { return m.id }
func (m answerModel) Answer(context.Context, provider.Query) (provider.Answer, error) {
	return provider.Answer{Text: m.text}, nil
}

// TestEmbeddingJudge: with an embedder configured, an answer the lexical
// judge misses is correct when its embedding is close enough to an
// accepted answer's, and the method says so; a distant one stays wrong,
// with its similarity recorded.
func TestEmbeddingJudge(t *testing.T) {
	emb := fakeEmbedder{
		"four point two billion dollars": {1, 0.1, 0},
		"$4.2 billion":                   {1, 0, 0},
		"a rainy Tuesday":                {0, 0, 1},
	}
	f := func(answer string, correct bool, method string) {
		t.Helper()
		res := judgeOne(t, Config{Embedder: emb}, answer)
		if res.Correct != correct || res.JudgeMethod != method || res.Similarity == 0 && method == MethodEmbedding {
			t.Errorf("%q: correct %v method %q similarity %.3f; want %v %q", answer, res.Correct, res.JudgeMethod, res.Similarity, correct, method)
		}
	}
	f("four point two billion dollars", true, MethodEmbedding)
	f("a rainy Tuesday", false, DefaultMethod)
	if _, err := NewStage(Config{Models: map[string]provider.Model{"m": answerModel{"m", "x"}}, EmbeddingThreshold: 1.5}); err == nil {
		t.Error("a threshold above 1 was accepted")
	}
}

// fakeGenerator replies by a rule on the prompt.
type fakeGenerator func(prompt string) string

func (f fakeGenerator) Generate(_ context.Context, prompt string, _ provider.GenerateOptions) (string, error) {
	return f(prompt), nil
}

// TestLLMJudge: with llm_judge on, an answer no other judge accepted is
// correct when the generator says yes, and stays wrong on no or on a reply
// that is neither; llm_judge without a generator is a configuration error.
func TestLLMJudge(t *testing.T) {
	gen := fakeGenerator(func(prompt string) string {
		switch {
		case strings.Contains(prompt, "Candidate answer: four point two billion dollars"):
			return " Yes."
		case strings.Contains(prompt, "Candidate answer: maybe"):
			return "I am not sure"
		}
		return "no"
	})
	f := func(answer string, correct bool, method string) {
		t.Helper()
		res := judgeOne(t, Config{Generator: gen, LLMJudge: true}, answer)
		if res.Correct != correct || res.JudgeMethod != method {
			t.Errorf("%q: correct %v method %q; want %v %q", answer, res.Correct, res.JudgeMethod, correct, method)
		}
	}
	f("four point two billion dollars", true, MethodLLM)
	f("three billion", false, DefaultMethod)
	f("maybe", false, DefaultMethod)
	f("$4.2 billion", true, DefaultMethod) // the lexical judge decides first
	if _, err := NewStage(Config{Models: map[string]provider.Model{"m": answerModel{"m", "x"}}, LLMJudge: true}); err == nil || !strings.Contains(err.Error(), "llm_judge") {
		t.Errorf("llm_judge without a generator: err %v", err)
	}
}

// judgeOne runs a stage configured by cfg, whose one model "m" answers
// answer, on the Acme request and returns the result.
func judgeOne(t *testing.T, cfg Config, answer string) schemas.EvalResult {
	t.Helper()
	cfg.Models = map[string]provider.Model{"m": answerModel{"m", answer}}
	st, err := NewStage(cfg)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Process(t.Context(), encodeRequest(t, acmeRequest("m", "r-"+answer, "v")))
	if err != nil {
		t.Fatal(err)
	}
	var res schemas.EvalResult
	if err := schemas.Decode(recs[0].Value, &res); err != nil {
		t.Fatal(err)
	}
	return res
}
