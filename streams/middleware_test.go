package streams

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func callOf(fn func(ctx context.Context) error) funcProcessor {
	return funcProcessor{name: "p", fn: func(ctx context.Context, m Message) ([]Record, error) {
		if err := fn(ctx); err != nil {
			return nil, err
		}
		return []Record{{Topic: "out", Value: m.Value}}, nil
	}}
}

func TestTimeoutMiddleware(t *testing.T) {
	slow := callOf(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	_, err := Chain(slow, Timeout(20*time.Millisecond)).Process(context.Background(), Message{})
	if !errors.Is(err, ErrTimeout) || IsPermanent(err) {
		t.Fatalf("a call past its timeout: %v, want a retryable ErrTimeout", err)
	}
	fast := callOf(func(context.Context) error { return nil })
	if recs, err := Chain(fast, Timeout(time.Minute)).Process(context.Background(), Message{Value: []byte("x")}); err != nil || len(recs) != 1 {
		t.Fatalf("a call within its timeout: %v %v", recs, err)
	}
	// The caller's own cancellation is not a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Chain(slow, Timeout(time.Minute)).Process(ctx, Message{}); errors.Is(err, ErrTimeout) {
		t.Fatalf("a cancelled call reported as a timeout: %v", err)
	}
}

func TestCircuitBreaker(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	var calls atomic.Int64
	failing := true
	svc := callOf(func(context.Context) error {
		calls.Add(1)
		if failing {
			return errors.New("503")
		}
		return nil
	})
	p := Chain(svc, CircuitBreaker(3, 10*time.Second, clock))
	call := func() error { _, err := p.Process(context.Background(), Message{}); return err }
	for i := 0; i < 3; i++ {
		if err := call(); err == nil || errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("failure %d: %v", i+1, err)
		}
	}
	// Open: fails fast without calling, and says how long to wait.
	err := call()
	var ra interface{ RetryAfter() time.Duration }
	if !errors.Is(err, ErrCircuitOpen) || !errors.As(err, &ra) || ra.RetryAfter() != 10*time.Second || calls.Load() != 3 {
		t.Fatalf("open breaker: %v (calls %d)", err, calls.Load())
	}
	// Permanent errors do not count toward opening.
	bad := Chain(callOf(func(context.Context) error { return Permanent(errors.New("bad input")) }), CircuitBreaker(1, time.Second, clock))
	for i := 0; i < 3; i++ {
		if _, err := bad.Process(context.Background(), Message{}); errors.Is(err, ErrCircuitOpen) {
			t.Fatal("permanent errors opened the breaker")
		}
	}
	// After the cooldown one trial goes through; it fails: open again.
	now = now.Add(11 * time.Second)
	if err := call(); err == nil || errors.Is(err, ErrCircuitOpen) || calls.Load() != 4 {
		t.Fatalf("half-open trial: %v (calls %d)", err, calls.Load())
	}
	if err := call(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("after a failed trial: %v, want open", err)
	}
	// The service recovers: the next trial closes the breaker.
	now = now.Add(11 * time.Second)
	failing = false
	if err := call(); err != nil {
		t.Fatalf("successful trial: %v", err)
	}
	if err := call(); err != nil || calls.Load() != 6 {
		t.Fatalf("closed again: %v (calls %d)", err, calls.Load())
	}
}

func TestRateLimit(t *testing.T) {
	ok := callOf(func(context.Context) error { return nil })
	p := Chain(ok, RateLimit(0.001, 1)) // one token, then one per 1000 s
	if _, err := p.Process(context.Background(), Message{}); err != nil {
		t.Fatalf("first call: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Process(ctx, Message{}); err == nil {
		t.Fatal("a second call got through a limit of one per 1000 s")
	}
}

// TestBreakerOpenIsNotAnAttempt: the runner waits for an open breaker
// instead of spending a message's attempts on it.
func TestBreakerOpenIsNotAnAttempt(t *testing.T) {
	var n atomic.Int64
	p := callOf(func(context.Context) error {
		if n.Add(1) <= 3 {
			return circuitOpen{left: time.Millisecond}
		}
		return nil
	})
	var retries int
	recs, err := Retry(RetryPolicy{MaxAttempts: 2, Base: time.Millisecond, Max: time.Millisecond}, func(error) { retries++ })(p).Process(context.Background(), Message{})
	if err != nil || len(recs) != 1 || retries != 0 {
		t.Fatalf("after three open-breaker answers: %v, %d retries, err %v; want success on the first attempt", recs, retries, err)
	}
}

// TestRetryRecoverCount: the middleware the runner puts around every
// processor retries transient errors up to the policy, never retries a
// permanent one, turns a panic into a permanent error, counts every failed
// call, and says how many attempts the final error took.
func TestRetryRecoverCount(t *testing.T) {
	pol := RetryPolicy{MaxAttempts: 3, Base: time.Millisecond, Max: time.Millisecond}
	run := func(f func(n int64) error) (calls int64, retries, errs int, err error) {
		var n atomic.Int64
		p := Chain(callOf(func(context.Context) error { return f(n.Add(1)) }), Retry(pol, func(error) { retries++ }), CountErrors(func(error) { errs++ }), Recover())
		_, err = p.Process(context.Background(), Message{})
		return n.Load(), retries, errs, err
	}

	calls, retries, errs, err := run(func(n int64) error {
		if n < 3 {
			return errors.New("HTTP 503")
		}
		return nil
	})
	if err != nil || calls != 3 || retries != 2 || errs != 2 {
		t.Errorf("flaky: %d calls, %d retries, %d errors, err %v; want success on the third call", calls, retries, errs, err)
	}

	calls, retries, errs, err = run(func(int64) error { return errors.New("HTTP 503") })
	if err == nil || Attempts(err) != 3 || calls != 3 || retries != 2 || errs != 3 {
		t.Errorf("down: %d calls (%d attempts), %d retries, %d errors, err %v", calls, Attempts(err), retries, errs, err)
	}

	calls, _, _, err = run(func(int64) error { return Permanent(errors.New("bad input")) })
	if !IsPermanent(err) || Attempts(err) != 1 || calls != 1 {
		t.Errorf("permanent: %d calls, %d attempts, err %v", calls, Attempts(err), err)
	}

	calls, _, errs, err = run(func(int64) error { panic("nil map") })
	if !errors.Is(err, ErrPanic) || !IsPermanent(err) || calls != 1 || errs != 1 || !strings.Contains(err.Error(), "nil map") {
		t.Errorf("panic: %d calls, %d errors, err %v", calls, errs, err)
	}
	if Attempts(errors.New("plain")) != 1 {
		t.Error("an error that did not come through Retry was tried once")
	}
}

// Wrapping keeps a stage's terminal records.
var _ Terminator = wrapped{}
