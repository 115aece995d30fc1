package simserver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Defaults applied by Start to the zero fields of Config and Faults.
const (
	DefaultModel                 = "sim"
	DefaultMaxNumSeqs            = 16
	DefaultPrefillPerToken       = 20 * time.Microsecond
	DefaultCachedPrefillPerToken = 2 * time.Microsecond
	DefaultDecodePerToken        = time.Millisecond
	DefaultPrefixCacheBlocks     = 4096
	// DefaultOutputMedian and DefaultOutputSigma shape the default output
	// length, LogNormal(8, 1): half the answers take 8 tokens or fewer,
	// the mean is about 13 and one in a hundred exceeds 80, the long tail
	// that makes some sequences hold their slot ten times longer than most.
	DefaultOutputMedian = 8
	DefaultOutputSigma  = 1.0
	// DefaultMaxTokens caps the output of a request that sets no
	// max_tokens, as a model's context length would.
	DefaultMaxTokens = 1024
	DefaultHangFor   = 30 * time.Second
	DefaultRateLimit = time.Second
)

// Config configures a simulated server. The zero value serves model "sim"
// with the defaults above; Start applies them and validates the rest. A
// zero duration means its default, so a test that wants a nearly free step
// sets it to a nanosecond.
type Config struct {
	// Model is the model name served; requests naming another get 404.
	Model string
	// APIKey, when set, is required of every /v1 request as
	// "Authorization: Bearer <key>", else 401. /metrics stays open, as
	// vLLM's does.
	APIKey string
	// MaxNumSeqs is how many sequences run at once, vLLM's max_num_seqs.
	// Every prompt is a sequence (a completions request with a list of
	// prompts runs as several); the others wait in a FIFO queue.
	MaxNumSeqs int
	// PrefillPerToken is the cost of a prompt token not in the prefix
	// cache, CachedPrefillPerToken of one found there.
	PrefillPerToken, CachedPrefillPerToken time.Duration
	// DecodePerToken is the cost of an output token. The costs do not
	// depend on how many sequences run, the simplification that makes
	// capacity MaxNumSeqs / mean service time.
	DecodePerToken time.Duration
	// OutputTokens draws the output length of a sequence, before the cap
	// of max_tokens; at least the answer's own length is used. Nil means
	// LogNormal(DefaultOutputMedian, DefaultOutputSigma). It is called
	// with a generator seeded per prompt and attempt (see Seed).
	OutputTokens func(rng *rand.Rand) int
	// PrefixCacheBlocks is the capacity of the prefix cache, in blocks of
	// BlockTokens tokens, evicted least recently used first. Negative
	// disables the cache.
	PrefixCacheBlocks int
	// Seed seeds every draw: faults and output lengths of the n-th
	// receipt of a prompt depend only on Seed, the prompt and n.
	Seed uint64
	// Answer is what the "model" replies to a prompt; it must be safe for
	// concurrent use and should be quick, since it runs while the sequence
	// holds its slot. Nil means the default answerer: the built-in lexical
	// reader on the contexts and question parsed out of the engine's
	// prompt, "no such info" when there are none.
	Answer func(prompt string) string
	// LostCut is how soon after an answer was written its connection may
	// close, with no request after it, for the answer to count as lost,
	// so that the prompt sent again is no duplicate (Stats.Duplicates): a
	// client whose deadline passes as the answer goes out, or that stalls
	// until it has, drops the connection without using the answer, and
	// so does a Kill. Set it above the client's own timeout. Zero means
	// DefaultLostCut.
	LostCut time.Duration
	// Faults are the faults injected from the start; SetFaults changes them.
	Faults Faults
	// Metrics is whose queue gauges /metrics publishes (MetricsVLLM when
	// empty), so that a client's automatic window can be tried against
	// each server it must handle, MetricsNone among them.
	Metrics MetricsFlavor
	// MetricsModel is the model_name label of the gauges that carry one;
	// empty means Model. Another name plays a server whose served model
	// name is not the one the client asks for.
	MetricsModel string
	// Recorded, when set, answers chat and completions prompts from a
	// script of recorded replies (recorded.go) instead of Answer, and
	// replaces the drawn faults of those requests by the statuses it
	// scripts. Start works on its own copy.
	Recorded *Recording
}

// Faults are the injected faults, each a probability per request in [0, 1].
// They are drawn in the order below, the first that fires wins, from the
// generator of the request's first prompt and attempt.
type Faults struct {
	// RateLimitBurst is the chance that a request starts a burst: it and
	// every request for the next RateLimitFor get 429 with a Retry-After
	// header, in whole seconds, of when the burst ends. A gateway answers
	// them: they never reach the queue.
	RateLimitBurst float64
	// RateLimitFor is the length of a burst; zero means DefaultRateLimit.
	RateLimitFor time.Duration
	// ServerError is the share of requests answered 500, 502 or 503 at
	// once, without reaching the queue.
	ServerError float64
	// Timeout is the share of requests that hang, without holding a slot,
	// until the client gives up or HangFor passes, then get 504.
	Timeout float64
	// HangFor bounds a hang; zero means DefaultHangFor.
	HangFor time.Duration
	// Malformed is the share of requests that are served in full and then
	// answered 200 with a truncated JSON body.
	Malformed float64
	// Refusal is the share of sequences served in full and answered 200
	// with a refusal ("no such info", provider.RefusalText) instead of the
	// answer: a model that starts declining to answer, as after a change
	// of its safety filter or system prompt. A recorded reply is never
	// replaced.
	Refusal float64
}

// LogNormal returns an output-length distribution: median·e^(sigma·Z),
// rounded, at least 1. Sigma 0 gives the median every time.
func LogNormal(median, sigma float64) func(rng *rand.Rand) int {
	return func(rng *rand.Rand) int {
		n := math.Round(median * math.Exp(sigma*rng.NormFloat64()))
		if n < 1 || math.IsNaN(n) {
			return 1
		}
		return int(min(n, math.MaxInt32))
	}
}

// withDefaults returns cfg with its zero fields set to the defaults, and
// every error in what remains.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.MaxNumSeqs == 0 {
		cfg.MaxNumSeqs = DefaultMaxNumSeqs
	}
	if cfg.PrefillPerToken == 0 {
		cfg.PrefillPerToken = DefaultPrefillPerToken
	}
	if cfg.CachedPrefillPerToken == 0 {
		cfg.CachedPrefillPerToken = DefaultCachedPrefillPerToken
	}
	if cfg.DecodePerToken == 0 {
		cfg.DecodePerToken = DefaultDecodePerToken
	}
	if cfg.OutputTokens == nil {
		cfg.OutputTokens = LogNormal(DefaultOutputMedian, DefaultOutputSigma)
	}
	if cfg.PrefixCacheBlocks == 0 {
		cfg.PrefixCacheBlocks = DefaultPrefixCacheBlocks
	}
	if cfg.Metrics == "" {
		cfg.Metrics = MetricsVLLM
	}
	if cfg.LostCut == 0 {
		cfg.LostCut = DefaultLostCut
	}
	if cfg.MetricsModel == "" {
		cfg.MetricsModel = cfg.Model
	}
	var errs []error
	switch cfg.Metrics {
	case MetricsVLLM, MetricsSGLang, MetricsTGI, MetricsLlamaCpp, MetricsNone:
	default:
		errs = append(errs, fmt.Errorf("Metrics: unknown flavor %q", cfg.Metrics))
	}
	if cfg.MaxNumSeqs < 0 {
		errs = append(errs, fmt.Errorf("MaxNumSeqs: %d is negative", cfg.MaxNumSeqs))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"PrefillPerToken", cfg.PrefillPerToken}, {"CachedPrefillPerToken", cfg.CachedPrefillPerToken}, {"DecodePerToken", cfg.DecodePerToken}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s: %v is negative", d.name, d.v))
		}
	}
	if cfg.Recorded != nil {
		rec := &Recording{Entries: slices.Clone(cfg.Recorded.Entries)}
		if err := rec.compile(); err != nil {
			errs = append(errs, fmt.Errorf("Recorded: %w", err))
		}
		cfg.Recorded = rec
	}
	var err error
	cfg.Faults, err = cfg.Faults.withDefaults()
	if err != nil {
		errs = append(errs, fmt.Errorf("Faults: %w", err))
	}
	return cfg, errors.Join(errs...)
}

// withDefaults returns f with its zero durations set to the defaults, and
// every probability outside [0, 1] as an error.
func (f Faults) withDefaults() (Faults, error) {
	if f.RateLimitFor == 0 {
		f.RateLimitFor = DefaultRateLimit
	}
	if f.HangFor == 0 {
		f.HangFor = DefaultHangFor
	}
	var errs []error
	for _, p := range []struct {
		name string
		v    float64
	}{{"RateLimitBurst", f.RateLimitBurst}, {"ServerError", f.ServerError}, {"Timeout", f.Timeout}, {"Malformed", f.Malformed}, {"Refusal", f.Refusal}} {
		if !(p.v >= 0 && p.v <= 1) {
			errs = append(errs, fmt.Errorf("%s: %v not in [0, 1]", p.name, p.v))
		}
	}
	if f.RateLimitFor < 0 {
		errs = append(errs, fmt.Errorf("RateLimitFor: %v is negative", f.RateLimitFor))
	}
	if f.HangFor < 0 {
		errs = append(errs, fmt.Errorf("HangFor: %v is negative", f.HangFor))
	}
	return f, errors.Join(errs...)
}

// ServiceTime is the time a sequence holds its slot under cfg's costs:
// prefill of its uncached and cached prompt tokens, then decode of its
// output tokens. Zero costs count as their defaults, as in Start.
// Capacity, in sequences per second, is MaxNumSeqs over its mean.
func (cfg Config) ServiceTime(promptTokens, cachedTokens, outputTokens int) time.Duration {
	c, _ := cfg.withDefaults()
	return c.serviceTime(promptTokens, cachedTokens, outputTokens)
}

// serviceTime is ServiceTime for a config with its defaults applied.
func (cfg Config) serviceTime(promptTokens, cachedTokens, outputTokens int) time.Duration {
	return time.Duration(promptTokens-cachedTokens)*cfg.PrefillPerToken +
		time.Duration(cachedTokens)*cfg.CachedPrefillPerToken +
		time.Duration(outputTokens)*cfg.DecodePerToken
}
