package drift

import (
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
)

// TestNextHysteresisAndCooldown walks one series through its states.
func TestNextHysteresisAndCooldown(t *testing.T) {
	c := Defaults()
	c.MaxDrop, c.Alpha, c.Cooldown = 0.1, 0.01, 30*time.Minute
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	v := func(base, recent, q float64) verdict {
		return verdict{tested: true, baseline: base, recent: recent, q: q}
	}
	f := func(prev seriesState, vd verdict, now time.Time, want string) {
		t.Helper()
		if got := next(prev, vd, c, now); got != want {
			t.Errorf("next(%+v, %+v) = %q, want %q", prev, vd, got, want)
		}
	}
	none := seriesState{}
	// Fires: significant and large enough.
	f(none, v(0.9, 0.7, 0.001), t0, Firing)
	// Significant but small: no alert (a big series detects tiny drops).
	f(none, v(0.9, 0.85, 1e-9), t0, "")
	// Large but not significant: no alert (noise of a small series).
	f(none, v(0.9, 0.7, 0.2), t0, "")
	// A rise is never an alert.
	f(none, v(0.5, 0.9, 1e-9), t0, "")
	// Untested (too few outcomes): nothing changes, firing or not.
	f(none, verdict{baseline: 0.9, recent: 0.1, q: 0}, t0, "")
	firing := seriesState{State: Firing, FiredAt: t0, Changed: t0}
	f(firing, verdict{baseline: 0.9, recent: 0.9, q: 1}, t0.Add(time.Hour), "")
	// Firing stays firing while the drop is above half of max_drop and
	// significant at ten times alpha (hysteresis on both).
	f(firing, v(0.9, 0.83, 0.09), t0.Add(time.Minute), "")
	f(firing, v(0.9, 0.7, 0.001), t0.Add(time.Minute), "")
	// And resolves below half of it, or when no longer significant at 0.1.
	f(firing, v(0.9, 0.86, 0.001), t0.Add(time.Minute), Resolved)
	f(firing, v(0.9, 0.83, 0.11), t0.Add(time.Minute), Resolved)
	// But not while the drop is still at least max_drop: a few recent
	// outcomes far below the baseline are no recovery.
	f(firing, v(0.9, 0.7, 0.3), t0.Add(time.Minute), "")
	// Against the rate it fell from (no baseline window left), only the
	// size of the drop counts.
	f(firing, verdict{tested: true, baseline: 0.9, recent: 0.5, q: 1, against: true}, t0.Add(time.Minute), "")
	f(firing, verdict{tested: true, baseline: 0.9, recent: 0.88, q: 1, against: true}, t0.Add(time.Minute), Resolved)
	// Cool-down: within 30 minutes of the resolution it may not fire again.
	resolved := seriesState{State: Resolved, FiredAt: t0, Changed: t0.Add(time.Hour)}
	f(resolved, v(0.9, 0.5, 1e-9), t0.Add(time.Hour+29*time.Minute), "")
	f(resolved, v(0.9, 0.5, 1e-9), t0.Add(time.Hour+30*time.Minute), Firing)
}

func TestConfigValidate(t *testing.T) {
	if errs := Defaults().Validate("alerts"); len(errs) != 0 {
		t.Fatalf("defaults: %v", errs)
	}
	c := Config{Interval: 0, RecentWindow: time.Minute, MinSamples: 0, Alpha: 1, MaxDrop: -1, Cooldown: -1}
	errs := c.Validate("alerts")
	want := []string{"alerts.interval", "alerts.recent_window", "alerts.baseline_window", "alerts.min_samples", "alerts.alpha", "alerts.max_drop", "alerts.cooldown"}
	if len(errs) != len(want) {
		t.Fatalf("errors %v, want one per %v", errs, want)
	}
	for i, w := range want {
		if got := errs[i].Error(); len(got) < len(w) || got[:len(w)] != w {
			t.Errorf("error %d = %q, want path %s", i, got, w)
		}
	}
}

// TestInhibitorAcrossFamilies: a model whose clean accuracy falls drops in
// every family at once (one cause, one alert); a family that fell much
// further than the clean answers still fires on its own.
func TestInhibitorAcrossFamilies(t *testing.T) {
	clean := seriesKey{Model: "m", Family: CleanFamily, Metric: CleanMetric, Axis: OriginalAxis, Kind: OriginalAxis, Domain: AllDomains}
	firing := map[seriesKey]verdict{clean: {baseline: 0.8, recent: 0.3}}
	f := func(k seriesKey, v verdict, want bool) {
		t.Helper()
		cause, held := inhibitor(k, v, firing, 0.15)
		if held != want || (held && cause != clean) {
			t.Errorf("%s (drop %.2f): held %v by %s, want held %v", k, v.drop(), held, cause, want)
		}
	}
	sure := seriesKey{Model: "m", Family: "sure", Metric: "y_original", Axis: "spurious", Kind: "format_json", Domain: AllDomains}
	prgb := seriesKey{Model: "m", Family: "prgb", Metric: "filtering", Axis: "placeholder", Kind: "placeholder_1", Domain: AllDomains}
	f(sure, verdict{baseline: 0.7, recent: 0.25}, true)
	f(prgb, verdict{baseline: 0.9, recent: 0.4}, true)
	f(prgb, verdict{baseline: 0.9, recent: 0.1}, false) // fell 0.3 further than the clean answers
	f(clean, verdict{baseline: 0.8, recent: 0.3}, false)
	other := prgb
	other.Model = "n"
	f(other, verdict{baseline: 0.9, recent: 0.4}, false) // another model's clean accuracy is fine
}

// TestInhibitorSharedRetriever: a built-in retriever's recall falls for
// every model alike and alerts once, under the model first by id; a
// service's own retriever alerts for its model; a model whose recall
// through the shared retriever fell much further alerts too.
func TestInhibitorSharedRetriever(t *testing.T) {
	key := func(model, kind string) seriesKey {
		return seriesKey{Model: model, Family: RetrievalFamily, Metric: RetrievalMetric, Axis: RetrievalAxis, Kind: kind, Domain: AllDomains}
	}
	fell := verdict{baseline: 0.8, recent: 0.5}
	firing := map[seriesKey]verdict{key("a", "bm25_top3"): fell, key("b", "bm25_top3"): fell, key("c", "bm25_top3"): fell,
		key("a", schemas.RetrieverService): fell, key("b", schemas.RetrieverService): fell}
	for _, tc := range []struct {
		k    seriesKey
		v    verdict
		held bool
	}{
		{key("a", "bm25_top3"), fell, false},
		{key("b", "bm25_top3"), fell, true},
		{key("c", "bm25_top3"), fell, true},
		{key("c", "bm25_top3"), verdict{baseline: 0.8, recent: 0.1}, false}, // fell 0.4 further
		{key("b", schemas.RetrieverService), fell, false},
	} {
		cause, held := inhibitor(tc.k, tc.v, firing, 0.15)
		if held != tc.held || held && cause != key("a", "bm25_top3") {
			t.Errorf("%s: held %v by %s, want held %v", tc.k, held, cause, tc.held)
		}
	}
}
