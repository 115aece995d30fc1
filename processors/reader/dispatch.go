package reader

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// checkLimits reports dispatch limits the dispatcher cannot apply.
func checkLimits(path string, l provider.Limits) []error {
	var errs []error
	if l.MaxInFlight < 0 || l.MaxInFlight > autoMax {
		errs = append(errs, fmt.Errorf("%s.max_in_flight: %d out of range 0..%d", path, l.MaxInFlight, autoMax))
	}
	if l.MaxInFlightCap < 0 || l.MaxInFlightCap > autoMax {
		errs = append(errs, fmt.Errorf("%s.max_in_flight_cap: %d out of range 0..%d", path, l.MaxInFlightCap, autoMax))
	}
	if l.RequestsPerSecond < 0 || l.TokensPerSecond < 0 {
		errs = append(errs, fmt.Errorf("%s: rate limits must not be negative", path))
	}
	return errs
}

// Circuit breaker of each model's endpoint: open after breakerFailures
// consecutive retryable failures, for breakerCooldown.
const (
	breakerFailures = 5
	breakerCooldown = 5 * time.Second
)

// dispatcher calls one model within its limits: rate limits first (a call
// waits for its turn without holding a slot), then the circuit breaker,
// then a slot of the in-flight window.
type dispatcher struct {
	model provider.Model
	// remote models have dispatch limits (provider.LimitsOf) and their
	// answers are cached; the built-in readers are neither: they answer
	// locally in microseconds, and caching them would cost more than it
	// saves.
	remote  bool
	gate    *gate
	rps     *rate.Limiter
	tps     *rate.Limiter
	breaker *streams.Breaker
	// health declares the model down when it keeps failing (down.go).
	health health
	now    func() time.Time
}

// loadReporter is implemented by models whose server reports its queue
// (vLLM's /metrics): the automatic window steers by it.
type loadReporter interface {
	Load(ctx context.Context) (running, waiting float64, err error)
}

// newDispatcher applies m's limits (provider.LimitsOf); a model without
// any (the built-in readers: local and CPU-bound) gets a wide fixed window.
func newDispatcher(m provider.Model, affinity bool, now func() time.Time) *dispatcher {
	l, remote := provider.LimitsOf(m)
	if !remote {
		l.MaxInFlight, affinity = autoMax, false
	}
	d := &dispatcher{model: m, remote: remote, gate: newGate(l.MaxInFlight, affinity),
		breaker: streams.NewBreaker(breakerFailures, breakerCooldown, now), now: now}
	if d.gate.auto && l.MaxInFlightCap > 0 {
		d.gate.max = float64(l.MaxInFlightCap)
		d.gate.limit = math.Min(d.gate.limit, d.gate.max)
	}
	if lr, ok := m.(loadReporter); ok {
		d.gate.load = lr.Load
	}
	if l.RequestsPerSecond > 0 {
		d.rps = rate.NewLimiter(rate.Limit(l.RequestsPerSecond), max(1, int(l.RequestsPerSecond)))
	}
	if l.TokensPerSecond > 0 {
		d.tps = rate.NewLimiter(rate.Limit(l.TokensPerSecond), max(1, int(l.TokensPerSecond)))
	}
	return d
}

// call asks the model once and returns its answer and latency.
func (d *dispatcher) call(ctx context.Context, q provider.Query) (provider.Answer, time.Duration, error) {
	if d.rps != nil {
		if err := d.rps.Wait(ctx); err != nil {
			return provider.Answer{}, 0, fmt.Errorf("requests_per_second: %w", err)
		}
	}
	if d.tps != nil {
		if err := d.tps.WaitN(ctx, min(len(q.Prompt)/4+1, d.tps.Burst())); err != nil {
			return provider.Answer{}, 0, fmt.Errorf("tokens_per_second: %w", err)
		}
	}
	// A model declared down fails at once, but for one probe now and then,
	// which goes past the breaker: it is what lifts the state.
	probe, err := d.health.allow(d.now())
	if err != nil {
		return provider.Answer{}, 0, fmt.Errorf("model %s: %w", d.model.ID(), err)
	}
	trial := false
	if !probe {
		if trial, err = d.breaker.Allow(); err != nil {
			return provider.Answer{}, 0, err
		}
	}
	if err := d.gate.acquire(ctx, prefixKey(q.Contexts)); err != nil {
		if !probe {
			d.breaker.Done(trial, nil, true)
		}
		d.health.done(probe, err, true, false, d.now())
		return provider.Answer{}, 0, err
	}
	start := d.now()
	a, err := d.model.Answer(ctx, q)
	end := d.now()
	latency := end.Sub(start)
	err = classify(err)
	out := outcomeOf(err)
	d.gate.release(out, latency)
	if !probe {
		d.breaker.Done(trial, err, ctx.Err() != nil)
	}
	d.health.done(probe, err, ctx.Err() != nil, out == overloaded, end)
	return a, latency, err
}

// Down reports whether model id is declared down (ErrModelDown) and the
// error of its last failed call.
func (s *Stage) Down(id string) (bool, error) {
	d, ok := (*s.models.Load())[id]
	if !ok {
		return false, nil
	}
	return d.health.isDown()
}

// prefixKey names what a prompt shares with others: its contexts, which
// come before the question (processors/fanout Prompt), so that requests
// with the same key share a long prompt prefix.
func prefixKey(contexts []string) string {
	if len(contexts) == 0 {
		return ""
	}
	return schemas.ID(strings.Join(contexts, "\x00"))
}

// classify marks errors that retrying cannot help as permanent.
func classify(err error) error {
	if err != nil && errors.Is(err, provider.ErrRejected) {
		return streams.Permanent(err)
	}
	return err
}

// outcomeOf tells the window how a call ended.
func outcomeOf(err error) outcome {
	switch {
	case err == nil:
		return succeeded
	case errors.Is(err, provider.ErrRateLimited), errors.Is(err, context.DeadlineExceeded):
		return overloaded
	}
	var ce *provider.CallError
	switch {
	case errors.As(err, &ce) && (ce.Status == 503 || ce.Status == 504):
		return overloaded
	default:
		return failed
	}
}
