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

// CircuitBreaker opens after failures consecutive retryable failures and
// stays open for cooldown, failing calls fast; then one trial call goes
// through (half-open): success closes it, failure opens it again. Permanent
// errors (bad input) say nothing about the service and do not count. now
// is the clock (nil: time.Now).
func CircuitBreaker(failures int, cooldown time.Duration, now func() time.Time) Middleware {
	if now == nil {
		now = time.Now
	}
	return func(p Processor) Processor {
		var mu sync.Mutex
		consecutive := 0
		var openUntil time.Time
		trial := false // a half-open trial call is under way
		return wrapped{Processor: p, process: func(ctx context.Context, m Message) ([]Record, error) {
			mu.Lock()
			if t := now(); t.Before(openUntil) || (trial && !openUntil.IsZero()) {
				left := max(openUntil.Sub(t), time.Millisecond)
				mu.Unlock()
				return nil, circuitOpen{left: left}
			}
			if !openUntil.IsZero() {
				trial = true // cooldown over: this call is the trial
			}
			mu.Unlock()

			recs, err := p.Process(ctx, m)

			mu.Lock()
			defer mu.Unlock()
			wasTrial := trial
			trial = false
			switch {
			case err == nil || IsPermanent(err) || ctx.Err() != nil:
				if err == nil || !wasTrial {
					consecutive, openUntil = 0, time.Time{}
				}
			default:
				consecutive++
				if wasTrial || consecutive >= failures {
					openUntil = now().Add(cooldown)
				}
			}
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
