package streams

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"time"
)

// RetryPolicy is capped exponential backoff with jitter.
type RetryPolicy struct {
	// MaxAttempts is the number of attempts before a processor's message is
	// dead-lettered (sinks retry until shutdown instead: their failures are
	// outages, not bad messages).
	MaxAttempts int           `yaml:"max_attempts" help:"attempts before a message is dead-lettered"`
	Base        time.Duration `yaml:"base" help:"first backoff"`
	Max         time.Duration `yaml:"max" help:"backoff cap"`
}

// DefaultRetry is the policy stages use unless configured otherwise.
var DefaultRetry = RetryPolicy{MaxAttempts: 5, Base: 100 * time.Millisecond, Max: 5 * time.Second}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultRetry.MaxAttempts
	}
	if p.Base <= 0 {
		p.Base = DefaultRetry.Base
	}
	if p.Max <= 0 {
		p.Max = DefaultRetry.Max
	}
	return p
}

// Backoff returns the wait before attempt n+1 (n ≥ 1), honouring a
// Retry-After hint carried by err.
func (p RetryPolicy) Backoff(n int, err error) time.Duration {
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) && ra.RetryAfter() > 0 {
		return min(ra.RetryAfter(), p.Max*4)
	}
	d := p.Base << min(n-1, 20)
	if d > p.Max || d <= 0 {
		d = p.Max
	}
	// Full jitter on the upper half keeps retries of many messages from
	// arriving in lockstep.
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ErrPanic marks a processor panic, recovered and dead-lettered: one poison
// message must not take the stage down.
var ErrPanic = errors.New("processor panicked")

// Recover turns a panic of the processor into a permanent error carrying
// the panic value and stack.
func Recover() Middleware {
	return func(p Processor) Processor {
		return wrapped{Processor: p, process: func(ctx context.Context, m Message) (recs []Record, err error) {
			defer func() {
				if r := recover(); r != nil {
					recs, err = nil, Permanent(fmt.Errorf("%w: %v\n%s", ErrPanic, r, debug.Stack()))
				}
			}()
			return p.Process(ctx, m)
		}}
	}
}

// attemptsError is the final error of a message after its retries.
type attemptsError struct {
	error
	n int
}

func (e attemptsError) Unwrap() error { return e.error }

// Attempts returns how many times the message whose final error is err was
// tried (1 when err did not come through Retry). Dead letters record it.
func Attempts(err error) int {
	var a attemptsError
	if errors.As(err, &a) {
		return a.n
	}
	return 1
}

// Retry retries retryable errors with pol's capped, jittered backoff,
// honouring a Retry-After hint, until pol.MaxAttempts; the final error
// tells how many attempts were made (Attempts). onRetry, if set, is called
// before each retry. An open circuit breaker's answer is not an attempt:
// Retry waits it out. A cancelled ctx returns ctx.Err(), so that the
// message is neither committed nor dead-lettered.
func Retry(pol RetryPolicy, onRetry func(err error)) Middleware {
	pol = pol.withDefaults()
	return func(p Processor) Processor {
		return wrapped{Processor: p, process: func(ctx context.Context, m Message) ([]Record, error) {
			for attempt := 1; ; attempt++ {
				recs, err := p.Process(ctx, m)
				if err == nil {
					return recs, nil
				}
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if errors.Is(err, ErrCircuitOpen) {
					// The breaker answered, not the service: waiting for it
					// is not an attempt (it lets a trial call through later).
					attempt--
					if serr := sleep(ctx, pol.Backoff(1, err)); serr != nil {
						return nil, serr
					}
					continue
				}
				if IsPermanent(err) || attempt >= pol.MaxAttempts {
					return nil, attemptsError{err, attempt}
				}
				if onRetry != nil {
					onRetry(err)
				}
				if serr := sleep(ctx, pol.Backoff(attempt, err)); serr != nil {
					return nil, serr
				}
			}
		}}
	}
}

// CountErrors calls count for every failed call of the processor but an
// open breaker's answer (the service was not asked) or a cancelled context
// (shutdown, not a failure).
func CountErrors(count func(err error)) Middleware {
	return func(p Processor) Processor {
		return wrapped{Processor: p, process: func(ctx context.Context, m Message) ([]Record, error) {
			recs, err := p.Process(ctx, m)
			if err != nil && ctx.Err() == nil && !errors.Is(err, ErrCircuitOpen) {
				count(err)
			}
			return recs, err
		}}
	}
}
