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

// safeProcess calls p.Process and turns a panic into a permanent error.
func safeProcess(ctx context.Context, p Processor, m Message) (recs []Record, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Permanent(fmt.Errorf("%w: %v\n%s", ErrPanic, r, debug.Stack()))
		}
	}()
	return p.Process(ctx, m)
}

// processWithRetry runs p on m, retrying transient errors. It returns the
// records, or the final error and the number of attempts made. A cancelled
// ctx returns ctx.Err() so that the message is neither committed nor
// dead-lettered.
func processWithRetry(ctx context.Context, p Processor, m Message, pol RetryPolicy, mt *Metrics) ([]Record, int, error) {
	for attempt := 1; ; attempt++ {
		recs, err := safeProcess(ctx, p, m)
		if err == nil {
			return recs, attempt, nil
		}
		if ctx.Err() != nil {
			return nil, attempt, ctx.Err()
		}
		if errors.Is(err, ErrCircuitOpen) {
			// The breaker answered, not the service: waiting for it is not
			// an attempt (CircuitBreaker lets a trial call through later).
			attempt--
			if serr := sleep(ctx, pol.Backoff(1, err)); serr != nil {
				return nil, attempt, serr
			}
			continue
		}
		mt.add(mErrs, p.Name(), 1)
		if IsPermanent(err) || attempt >= pol.MaxAttempts {
			return nil, attempt, err
		}
		mt.add(mRetries, p.Name(), 1)
		if serr := sleep(ctx, pol.Backoff(attempt, err)); serr != nil {
			return nil, attempt, serr
		}
	}
}
