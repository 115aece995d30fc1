package streams

import (
	"fmt"
	"time"
)

// StageOptions are the runner's settings of one stage, configurable per
// stage (stages.<name>.* in the configuration). Zero values keep the
// runner's defaults.
type StageOptions struct {
	BatchSize   int           `yaml:"batch_size" help:"messages handled per commit (0: the stage's default)"`
	Linger      time.Duration `yaml:"linger" help:"how long to wait for more messages once one has arrived (0: the default)"`
	Concurrency int           `yaml:"concurrency" help:"messages processed in parallel, stateless stages only (0: the default)"`
	InFlight    int           `yaml:"in_flight" help:"messages in flight per partition for windowed stages such as infer (0: the stage's default)"`
	Retry       RetryPolicy   `yaml:"retry"`
	// Timeout bounds one call of the processor (0: none).
	Timeout time.Duration `yaml:"timeout" help:"longest one message may take (0: no limit)"`
	// RateLimit bounds the calls started per second (0: none), with bursts
	// of RateBurst.
	RateLimit float64 `yaml:"rate_limit" help:"messages started per second (0: no limit)"`
	RateBurst int     `yaml:"rate_burst" help:"burst of the rate limit (0: 1)"`
	// BreakerFailures consecutive failures open a circuit breaker for
	// BreakerCooldown (0: no breaker).
	BreakerFailures int           `yaml:"breaker_failures" help:"consecutive failures that open the circuit breaker (0: no breaker)"`
	BreakerCooldown time.Duration `yaml:"breaker_cooldown" help:"how long the breaker stays open (0: 30s)"`
}

// Middleware returns the middleware the options ask for: rate limit
// outermost (a call waits for its turn before the breaker or the clock
// judge it), then the breaker, then the timeout.
func (o StageOptions) Middleware() []Middleware {
	var mws []Middleware
	if o.RateLimit > 0 {
		mws = append(mws, RateLimit(o.RateLimit, o.RateBurst))
	}
	if o.BreakerFailures > 0 {
		cooldown := o.BreakerCooldown
		if cooldown <= 0 {
			cooldown = 30 * time.Second
		}
		mws = append(mws, CircuitBreaker(o.BreakerFailures, cooldown, nil))
	}
	if o.Timeout > 0 {
		mws = append(mws, Timeout(o.Timeout))
	}
	return mws
}

// Validate reports every error, each prefixed with path.
func (o StageOptions) Validate(path string) []error {
	var errs []error
	bad := func(key string, v any, want string) {
		errs = append(errs, fmt.Errorf("%s.%s: %v %s", path, key, v, want))
	}
	if o.BatchSize < 0 || o.BatchSize > 100_000 {
		bad("batch_size", o.BatchSize, "must be between 0 and 100000")
	}
	if o.Linger < 0 || o.Linger > time.Minute {
		bad("linger", o.Linger, "must be between 0 and 1m")
	}
	if o.Concurrency < 0 || o.Concurrency > 1024 {
		bad("concurrency", o.Concurrency, "must be between 0 and 1024")
	}
	if o.InFlight < 0 || o.InFlight > 8192 {
		bad("in_flight", o.InFlight, "must be between 0 and 8192")
	}
	if o.Retry.MaxAttempts < 0 || o.Retry.MaxAttempts > 100 {
		bad("retry.max_attempts", o.Retry.MaxAttempts, "must be between 0 and 100")
	}
	if o.Retry.Base < 0 || o.Retry.Max < 0 {
		bad("retry", fmt.Sprintf("base %s, max %s", o.Retry.Base, o.Retry.Max), "must not be negative")
	}
	if o.Timeout < 0 || o.Timeout > time.Hour {
		bad("timeout", o.Timeout, "must be between 0 and 1h")
	}
	if o.RateLimit < 0 || o.RateBurst < 0 {
		bad("rate_limit", fmt.Sprintf("%g (burst %d)", o.RateLimit, o.RateBurst), "must not be negative")
	}
	if o.BreakerFailures < 0 || o.BreakerCooldown < 0 {
		bad("breaker_failures", fmt.Sprintf("%d (cooldown %s)", o.BreakerFailures, o.BreakerCooldown), "must not be negative")
	}
	if o.Retry.Base > 0 && o.Retry.Max > 0 && o.Retry.Base > o.Retry.Max {
		bad("retry.base", o.Retry.Base, fmt.Sprintf("must not exceed retry.max (%s)", o.Retry.Max))
	}
	return errs
}

// Apply sets the non-zero options on st and wraps its processor in the
// middleware they ask for.
func (o StageOptions) Apply(st *Stage) {
	if o.BatchSize > 0 {
		st.BatchSize = o.BatchSize
	}
	if o.Linger > 0 {
		st.Linger = o.Linger
	}
	if o.Concurrency > 0 {
		st.Concurrency = o.Concurrency
	}
	if o.InFlight > 0 && st.InFlight > 0 {
		st.InFlight = o.InFlight // only a windowed stage has a window to size
	}
	if o.Retry.MaxAttempts > 0 {
		st.Retry.MaxAttempts = o.Retry.MaxAttempts
	}
	if o.Retry.Base > 0 {
		st.Retry.Base = o.Retry.Base
	}
	if o.Retry.Max > 0 {
		st.Retry.Max = o.Retry.Max
	}
	if st.Processor != nil {
		st.Processor = Chain(st.Processor, o.Middleware()...)
	}
}
