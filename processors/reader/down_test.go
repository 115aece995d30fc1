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

// flakyModel fails with err while it is set, and counts its calls.
type flakyModel struct {
	id    string
	mu    sync.Mutex
	err   error
	calls atomic.Int64
}

func (m *flakyModel) ID() string              { return m.id }
func (m *flakyModel) Limits() provider.Limits { return provider.Limits{MaxInFlight: 4} }
func (m *flakyModel) set(err error) {
	m.mu.Lock()
	m.err = err
	m.mu.Unlock()
}
func (m *flakyModel) Answer(context.Context, provider.Query) (provider.Answer, error) {
	m.calls.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return provider.Answer{}, m.err
	}
	return provider.Answer{Text: "$4.2 billion"}, nil
}

// manualClock is a clock the test moves.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
func (c *manualClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestDeadModelDeclaredDown: a model whose every call fails is declared
// down once downFailures calls in a row failed over downAfter; then its
// requests fail at once, permanently, naming the last error, without
// calling it, but for one probe per downProbe; a successful probe brings
// it back.
func TestDeadModelDeclaredDown(t *testing.T) {
	clock := &manualClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	refused := &provider.CallError{Model: "gpu", Endpoint: "http://127.0.0.1:1/v1/chat/completions", Class: provider.ErrUnavailable, Detail: "connect: connection refused"}
	m := &flakyModel{id: "gpu", err: refused}
	d := newDispatcher(m, false, clock.now)
	q := provider.Query{Question: "q", Prompt: "p"}
	call := func() error {
		_, _, err := d.call(t.Context(), q)
		return err
	}
	// Five failures open the breaker; each cooldown lets one trial through.
	for i := 0; i < breakerFailures; i++ {
		if err := call(); err == nil || streams.IsPermanent(err) {
			t.Fatalf("call %d: %v, want a retryable failure", i, err)
		}
	}
	for m.calls.Load() < downFailures {
		if err := call(); !errors.Is(err, streams.ErrCircuitOpen) {
			t.Fatalf("while the breaker is open: %v", err)
		}
		if down, _ := d.health.isDown(); down {
			t.Fatalf("declared down after %d calls", m.calls.Load())
		}
		clock.add(breakerCooldown)
		if err := call(); err == nil || errors.Is(err, ErrModelDown) {
			t.Fatalf("trial: %v", err)
		}
	}
	down, last := d.health.isDown()
	if !down || !errors.Is(last, provider.ErrUnavailable) {
		t.Fatalf("after %d failures over %s: down %v (last %v)", m.calls.Load(), time.Duration(m.calls.Load()-breakerFailures)*breakerCooldown, down, last)
	}
	// Down: at once, permanent, the reason named, the model not called.
	before := m.calls.Load()
	for i := 0; i < 20; i++ {
		err := call()
		if !errors.Is(err, ErrModelDown) || !streams.IsPermanent(err) || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "model gpu") {
			t.Fatalf("request of a down model: %v", err)
		}
	}
	if m.calls.Load() != before {
		t.Errorf("a down model was called %d times", m.calls.Load()-before)
	}
	// A probe per downProbe: a failed one keeps it down.
	clock.add(downProbe)
	if err := call(); errors.Is(err, ErrModelDown) || m.calls.Load() != before+1 {
		t.Fatalf("the due probe: %v, %d calls", err, m.calls.Load()-before)
	}
	if err := call(); !errors.Is(err, ErrModelDown) {
		t.Fatalf("after a failed probe: %v", err)
	}
	// It comes back: the next probe succeeds and lifts the state.
	m.set(nil)
	clock.add(downProbe)
	if err := call(); err != nil {
		t.Fatalf("probe of a model that is back: %v", err)
	}
	if down, _ := d.health.isDown(); down {
		t.Error("still down after a successful probe")
	}
	if err := call(); err != nil {
		t.Errorf("after recovery: %v", err)
	}
}

// TestDownNeedsTime: failures in quick succession (a burst of refusals)
// are not enough; a success resets the streak.
func TestDownNeedsTime(t *testing.T) {
	clock := &manualClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := &flakyModel{id: "gpu", err: &provider.CallError{Model: "gpu", Class: provider.ErrRejected, Status: 401, Detail: "invalid key"}}
	d := newDispatcher(m, false, clock.now)
	q := provider.Query{Question: "q", Prompt: "p"}
	for i := 0; i < 3*downFailures; i++ {
		if _, _, err := d.call(t.Context(), q); !streams.IsPermanent(err) || errors.Is(err, ErrModelDown) {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	clock.add(downAfter - time.Second)
	m.set(nil)
	if _, _, err := d.call(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	m.set(&provider.CallError{Model: "gpu", Class: provider.ErrRejected, Status: 401, Detail: "invalid key"})
	clock.add(2 * time.Second)
	for i := 0; i < downFailures; i++ {
		d.call(t.Context(), q)
	}
	if down, _ := d.health.isDown(); down {
		t.Fatal("declared down although a call succeeded within the last downAfter")
	}
	clock.add(downAfter)
	d.call(t.Context(), q)
	if down, last := d.health.isDown(); !down || !strings.Contains(last.Error(), "invalid key") {
		t.Fatalf("%d refusals over %s: down %v, %v", downFailures+1, downAfter, down, last)
	}
}

// TestDownModelEndsAsErrorResult: a request of a down model fails
// permanently and its terminal record is an error result carrying the
// reason, so pairing closes the set; another model of the stage answers.
func TestDownModelEndsAsErrorResult(t *testing.T) {
	clock := &manualClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	dead := &flakyModel{id: "dead", err: &provider.CallError{Model: "dead", Class: provider.ErrUnavailable, Detail: "connection refused"}}
	good := &flakyModel{id: "good"}
	st, err := NewStage(Config{Models: map[string]provider.Model{"dead": dead, "good": good}, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	d := (*st.models.Load())["dead"]
	for i := 0; i < downFailures; i++ {
		d.health.done(false, dead.err, false, false, clock.now())
		clock.add(downAfter / downFailures * 2)
	}
	if down, _ := st.Down("dead"); !down {
		t.Fatal("not down")
	}
	msg := encodeRequest(t, acmeRequest("dead", "r1", "v1"))
	_, err = st.Process(t.Context(), msg)
	if !streams.IsPermanent(err) || !errors.Is(err, ErrModelDown) {
		t.Fatalf("request of a down model: %v", err)
	}
	recs := st.Terminal(msg, err)
	if len(recs) != 1 || recs[0].Topic != streams.TopicEvalResults {
		t.Fatalf("terminal records %+v", recs)
	}
	var res schemas.EvalResult
	if err := schemas.Decode(recs[0].Value, &res); err != nil {
		t.Fatal(err)
	}
	if res.ModelID != "dead" || !strings.Contains(res.Error, "model down") || !strings.Contains(res.Error, "connection refused") {
		t.Errorf("error result %+v", res)
	}
	if _, err := st.Process(t.Context(), encodeRequest(t, acmeRequest("good", "r2", "v1"))); err != nil {
		t.Errorf("the other model: %v", err)
	}
}

// TestOverloadIsNotDown: a model that only times out, rate-limits or
// answers 503 is overloaded, not down: however long it lasts, its calls
// keep going through the breaker and are never failed as down.
func TestOverloadIsNotDown(t *testing.T) {
	for _, overload := range []error{
		fmt.Errorf("model gpu: http://gpu/v1/chat/completions: no complete reply within 60s: %w", context.DeadlineExceeded),
		&provider.CallError{Model: "gpu", Class: provider.ErrRateLimited, Status: 429},
		&provider.CallError{Model: "gpu", Class: provider.ErrUnavailable, Status: 503},
	} {
		clock := &manualClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		m := &flakyModel{id: "gpu", err: overload}
		d := newDispatcher(m, false, clock.now)
		for i := 0; i < 200; i++ {
			_, _, err := d.call(t.Context(), provider.Query{Question: "q", Prompt: "p"})
			if errors.Is(err, ErrModelDown) {
				t.Fatalf("%v: declared down after %d calls over %s", overload, m.calls.Load(), clock.now().Sub(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			}
			clock.add(time.Second)
		}
		if m.calls.Load() < 20 {
			t.Errorf("%v: only %d calls in 200 s", overload, m.calls.Load())
		}
	}
}
