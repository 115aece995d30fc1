package drift

import (
	"fmt"
	"log/slog"
	"time"
)

// StageName names the evaluator (robustream run --stages alerts).
const StageName = "alerts"

// Rule is the rule name of the alerts the evaluator writes.
const Rule = "robustness_drop"

// bucket is the resolution of the rollup the evaluator reads
// (robustream.robustness_5m): window edges are rounded down to it.
const bucket = 5 * time.Minute

// Config is the alerts.* section: when and how series are compared.
type Config struct {
	Interval       time.Duration `yaml:"interval" help:"how often the drift evaluator compares the windows"`
	RecentWindow   time.Duration `yaml:"recent_window" help:"the recent window of evaluated_at compared against the baseline (rounded to 5m)"`
	BaselineWindow time.Duration `yaml:"baseline_window" help:"the baseline window, just before the recent one (rounded to 5m)"`
	MinSamples     int64         `yaml:"min_samples" help:"outcomes each window of a series needs before the series is tested"`
	Alpha          float64       `yaml:"alpha" help:"false-discovery rate of one evaluation (Benjamini-Hochberg over the series tested together)"`
	MaxDrop        float64       `yaml:"max_drop" help:"absolute drop of the robustness rate (0..1) a series must show to fire; it resolves below half of it, or below it once not significant at 10×alpha"`
	Cooldown       time.Duration `yaml:"cooldown" help:"after an alert of a series resolves, how long before it may fire again"`
	// Logger receives the evaluator's logs; nil discards them.
	Logger *slog.Logger `yaml:"-"`
	// Now is the clock of the evaluations; nil is time.Now.
	Now func() time.Time `yaml:"-"`
}

// Defaults are the values of alerts.* when unset.
func Defaults() Config {
	return Config{
		Interval:       time.Minute,
		RecentWindow:   time.Hour,
		BaselineWindow: 24 * time.Hour,
		MinSamples:     30,
		Alpha:          0.01,
		MaxDrop:        0.1,
		Cooldown:       30 * time.Minute,
	}
}

// Validate reports every error of c, each with its path under prefix
// (e.g. "alerts").
func (c Config) Validate(prefix string) []error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s.%s: "+format, append([]any{prefix, key}, args...)...))
	}
	if c.Interval < time.Second {
		bad("interval", "%s must be ≥ 1s", c.Interval)
	}
	if c.RecentWindow < bucket {
		bad("recent_window", "%s must be ≥ %s (the rollup's bucket)", c.RecentWindow, bucket)
	}
	if c.BaselineWindow < bucket {
		bad("baseline_window", "%s must be ≥ %s (the rollup's bucket)", c.BaselineWindow, bucket)
	}
	if c.MinSamples < 1 {
		bad("min_samples", "%d must be ≥ 1", c.MinSamples)
	}
	if !(c.Alpha > 0 && c.Alpha < 1) {
		bad("alpha", "%g must be in (0, 1)", c.Alpha)
	}
	if !(c.MaxDrop >= 0 && c.MaxDrop < 1) {
		bad("max_drop", "%g must be in [0, 1)", c.MaxDrop)
	}
	if c.Cooldown < 0 {
		bad("cooldown", "%s must not be negative", c.Cooldown)
	}
	return errs
}
