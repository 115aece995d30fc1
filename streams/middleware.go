package streams

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Middleware wraps a processor with behaviour every stage may need, so that
// no processor carries its own copy. The stage's options choose a rate
// limit, a circuit breaker and a per-call timeout (StageOptions.Middleware);
// the runner adds, outside them, retries with the stage's policy
// (Retry), error counts (CountErrors) and panic capture (Recover), and
// dead-letters what still fails, asking the processor for its terminal
// records (Terminator).
type Middleware func(Processor) Processor

// Chain wraps p in mws, the first outermost.
func Chain(p Processor, mws ...Middleware) Processor {
	for i := len(mws) - 1; i >= 0; i-- {
		p = mws[i](p)
	}
	return p
}

// wrapped is a processor whose Process is replaced; Terminal is passed
// through so that wrapping never hides a stage's terminal records.
type wrapped struct {
	Processor
	process func(ctx context.Context, m Message) ([]Record, error)
}

func (w wrapped) Process(ctx context.Context, m Message) ([]Record, error) { return w.process(ctx, m) }

func (w wrapped) Terminal(m Message, err error) []Record {
	if t, ok := w.Processor.(Terminator); ok {
		return t.Terminal(m, err)
	}
	return nil
}

// ErrTimeout marks a call that ran past its stage's timeout. It is retried.
var ErrTimeout = errors.New("processing timed out")

// Timeout bounds each call: its context ends after d. A call that overran
// returns ErrTimeout (retryable) unless it produced its result anyway.
func Timeout(d time.Duration) Middleware {
	return func(p Processor) Processor {
		return wrapped{Processor: p, process: func(ctx context.Context, m Message) ([]Record, error) {
			cctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			recs, err := p.Process(cctx, m)
			if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("%w after %s: %w", ErrTimeout, d, err)
			}
			return recs, err
		}}
	}
}

// ErrCircuitOpen is returned, without calling the processor, while a
// circuit breaker is open. It carries the time left (RetryAfter), so the
// runner's backoff waits for the breaker rather than spending attempts.
var ErrCircuitOpen = errors.New("circuit breaker open")

type circuitOpen struct{ left time.Duration }

func (e circuitOpen) Error() string {
	return fmt.Sprintf("%s for another %s", ErrCircuitOpen, e.left.Round(time.Millisecond))
}
func (e circuitOpen) Unwrap() error             { return ErrCircuitOpen }
func (e circuitOpen) RetryAfter() time.Duration { return e.left }

// Breaker is a circuit breaker: it opens after failures consecutive
// retryable failures and stays open for cooldown, failing calls fast; then
// one trial call goes through (half-open): success closes it, failure opens
// it again. Permanent errors (bad input) say nothing about the service and
// do not count. It is safe for concurrent use. The CircuitBreaker
// middleware puts one around a whole processor; a stage that calls several
// services (one per model) keeps one per service.
type Breaker struct {
	failures int
	cooldown time.Duration
	now      func() time.Time

	mu          sync.Mutex
	consecutive int
	openUntil   time.Time
	trial       bool // a half-open trial call is under way
}

// NewBreaker returns a closed breaker. now is the clock (nil: time.Now).
func NewBreaker(failures int, cooldown time.Duration, now func() time.Time) *Breaker {
	if now == nil {
		now = time.Now
	}
	return &Breaker{failures: max(failures, 1), cooldown: cooldown, now: now}
}

// Allow reports whether a call may go now. If not, the error wraps
// ErrCircuitOpen and carries the time left (RetryAfter). A call that was
// allowed must be followed by exactly one Done.
func (b *Breaker) Allow() (trial bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.now(); t.Before(b.openUntil) || (b.trial && !b.openUntil.IsZero()) {
		return false, circuitOpen{left: max(b.openUntil.Sub(t), time.Millisecond)}
	}
	if !b.openUntil.IsZero() {
		b.trial = true // cooldown over: this call is the trial
	}
	return b.trial, nil
}

// Done records the outcome of an allowed call; cancelled says the caller
// gave up (shutdown), which says nothing about the service.
func (b *Breaker) Done(trial bool, err error, cancelled bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if trial {
		b.trial = false
	}
	switch {
	case err == nil || IsPermanent(err) || cancelled:
		if err == nil || !trial {
			b.consecutive, b.openUntil = 0, time.Time{}
		}
	default:
		b.consecutive++
		if trial || b.consecutive >= b.failures {
			b.openUntil = b.now().Add(b.cooldown)
		}
	}
}

// CircuitBreaker puts a Breaker (NewBreaker(failures, cooldown, now))
// around the processor.
func CircuitBreaker(failures int, cooldown time.Duration, now func() time.Time) Middleware {
	return func(p Processor) Processor {
		b := NewBreaker(failures, cooldown, now)
		return wrapped{Processor: p, process: func(ctx context.Context, m Message) ([]Record, error) {
			trial, err := b.Allow()
			if err != nil {
				return nil, err
			}
			recs, err := p.Process(ctx, m)
			b.Done(trial, err, ctx.Err() != nil)
			return recs, err
		}}
	}
}

// RateLimit lets at most perSecond calls start per second, with bursts of
// burst, waiting for a token (a token bucket); the wait ends with ctx.
func RateLimit(perSecond float64, burst int) Middleware {
	return func(p Processor) Processor {
		lim := rate.NewLimiter(rate.Limit(perSecond), max(burst, 1))
		return wrapped{Processor: p, process: func(ctx context.Context, m Message) ([]Record, error) {
			if err := lim.Wait(ctx); err != nil {
				return nil, fmt.Errorf("rate limit: %w", err)
			}
			return p.Process(ctx, m)
		}}
	}
}
