package drift

import (
	"math"
	"time"
)

// States of an alert.
const (
	Firing   = "firing"
	Resolved = "resolved"
)

// seriesState is what the evaluator remembers of a series' alert: its
// current state and when it last changed. It is rebuilt from the alerts
// table at start (Load), so a restart neither fires again what is firing
// nor forgets a cool-down.
type seriesState struct {
	State   string
	AlertID string
	FiredAt time.Time
	Changed time.Time
	// Baseline is the rate the series fell from when it fired; Recent and
	// PValue are the firing alert's.
	Baseline, Recent, PValue float64
}

// verdict is one series' comparison in one evaluation.
type verdict struct {
	tested   bool // both windows had min_samples outcomes
	baseline float64
	recent   float64
	q        float64 // BH-adjusted p-value
	// against says the baseline is the rate the series fell from, not a
	// window: there was no test, and q means nothing.
	against bool
}

func (v verdict) drop() float64 { return v.baseline - v.recent }

// kept is the share of the baseline rate the recent window kept.
func (v verdict) kept() float64 {
	if v.baseline <= 0 {
		return 1
	}
	return v.recent / v.baseline
}

// next decides a series' transition: "" (none), Firing or Resolved.
//
// Fire when the drop is significant after the BH adjustment (q ≤ alpha) and
// at least max_drop: significance alone would alert on tiny drops of huge
// series, size alone on noise of small ones. Resolve, with hysteresis on
// both, once the drop is below half of max_drop, or below max_drop and no
// longer significant even at ten times alpha (q > 10·alpha, at most 0.5):
// a series hovering at either threshold does not flap, a recovered model
// whose windows differ by what sampling alone gives (a few points at a few
// hundred outcomes) resolves, and a few recent outcomes still far below
// the baseline do not resolve it. An untested window (too few outcomes) changes
// nothing. After a resolution the series may fire again only when
// cooldown has passed.
func next(prev seriesState, v verdict, c Config, now time.Time) string {
	if !v.tested {
		return ""
	}
	switch prev.State {
	case Firing:
		if v.drop() < c.MaxDrop/2 || (!v.against && v.q > math.Min(0.5, 10*c.Alpha) && v.drop() < c.MaxDrop) {
			return Resolved
		}
	default:
		if !prev.Changed.IsZero() && now.Sub(prev.Changed) < c.Cooldown {
			return ""
		}
		if v.q <= c.Alpha && v.drop() >= c.MaxDrop && v.drop() > 0 {
			return Firing
		}
	}
	return ""
}
