package reader

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
)

// drive keeps workers calls to d in flight, each with a prompt of its own,
// until n calls have ended, and returns the largest window seen.
func drive(t *testing.T, d *dispatcher, workers, n int, prefix string) (widest int, errs int) {
	t.Helper()
	var next, failed atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				q := fmt.Sprintf("%s question %d?", prefix, i)
				if _, _, err := d.call(t.Context(), provider.Query{Question: q, Prompt: "Question: " + q + "\nAnswer:"}); err != nil {
					failed.Add(1)
				}
				mu.Lock()
				widest = max(widest, d.gate.Limit())
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return widest, int(failed.Load())
}

// TestAutoWindowWithoutGauges: against a server of 16 slots with
// long-tailed service times that publishes no queue gauges, or publishes
// them for another served model name, the automatic window grows past its
// start (8, which leaves half the slots idle) from latency alone. The
// second case says once which names it saw.
func TestAutoWindowWithoutGauges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		metrics simserver.MetricsFlavor
		served  string
	}{
		{"no gauges", simserver.MetricsNone, ""},
		{"vLLM gauges for another name", simserver.MetricsVLLM, "other-name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim, err := simserver.Start(simserver.Config{MaxNumSeqs: 16, Metrics: tc.metrics, MetricsModel: tc.served, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			defer sim.Close()
			m, err := provider.NewOpenAI("sim", provider.OpenAIOptions{BaseURL: sim.BaseURL(), Model: simserver.DefaultModel, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			d := newDispatcher(m, false, time.Now)
			var warnings []string
			var wmu sync.Mutex
			d.gate.warn = func(msg string, args ...any) {
				wmu.Lock()
				defer wmu.Unlock()
				warnings = append(warnings, fmt.Sprint(msg, args))
			}
			widest, failed := drive(t, d, 64, 1500, "warm-up")
			if failed > 0 {
				t.Fatalf("%d calls failed", failed)
			}
			if widest <= autoStart {
				t.Fatalf("the window stayed at %d (start %d) without gauges", widest, autoStart)
			}
			// Utilization once the window has found its level.
			sim.ResetStats()
			if _, failed := drive(t, d, 64, 1500, "measured"); failed > 0 {
				t.Fatalf("%d calls failed", failed)
			}
			st := sim.Stats()
			// Logged, not asserted: on a loaded machine the client itself
			// can fall behind whatever the window (robustream bench
			// inference measures it on a quiet one).
			t.Logf("widest window %d, now %d; slot utilization %.1f%%", widest, d.gate.Limit(), 100*st.Utilization)
			wmu.Lock()
			defer wmu.Unlock()
			switch {
			case tc.served == "" && len(warnings) != 0:
				t.Errorf("a server without gauges is not worth a warning: %q", warnings)
			case tc.served != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tc.served)):
				t.Errorf("warnings %q, want one naming %q", warnings, tc.served)
			}
		})
	}
}

// TestAutoWindowBacksOff: 429 and 503 cut an automatic window, once per
// window of calls under way rather than once per failed call.
func TestAutoWindowBacksOff(t *testing.T) {
	// The gate alone: sixteen calls under way all fail at once.
	g := newGate(0, false)
	g.limit = 16
	for range 16 {
		if err := g.acquire(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
	}
	for range 16 {
		g.release(overloaded, 0)
	}
	if g.Limit() != 12 {
		t.Errorf("16 failures of one window left it at %d, want one cut to 12", g.Limit())
	}
	if err := g.acquire(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	g.release(overloaded, 0)
	if g.Limit() != 9 {
		t.Errorf("a failure sent after the cut left the window at %d, want 9", g.Limit())
	}

	// Over HTTP: a server answering 503 to everything.
	unavailable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer unavailable.Close()
	m, err := provider.NewOpenAI("m", provider.OpenAIOptions{BaseURL: unavailable.URL + "/v1", Model: "m", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d := newDispatcher(m, false, time.Now)
	if _, failed := drive(t, d, 16, 200, "503"); failed != 200 {
		t.Fatalf("%d of 200 calls failed, want all", failed)
	}
	// The circuit breaker soon fails calls without sending them, so only
	// the first few reach the window.
	if d.gate.Limit() >= autoStart {
		t.Errorf("after 200 calls answered 503 the window is %d, the start", d.gate.Limit())
	}

	// A server whose gateway starts answering 429 once the window has
	// grown. Those 429s never reach the server's queue, so its gauges
	// (vLLM's) show room: the cut must hold all the same.
	for _, metrics := range []simserver.MetricsFlavor{simserver.MetricsVLLM, simserver.MetricsNone} {
		t.Run("429 "+string(metrics), func(t *testing.T) {
			sim, err := simserver.Start(simserver.Config{Metrics: metrics, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			defer sim.Close()
			m, err := provider.NewOpenAI("m", provider.OpenAIOptions{BaseURL: sim.BaseURL(), Model: simserver.DefaultModel, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			d := newDispatcher(m, false, time.Now)
			if _, failed := drive(t, d, 64, 1000, "before"); failed > 0 {
				t.Fatalf("%d calls failed before the 429s", failed)
			}
			grown := d.gate.Limit()
			if err := sim.SetFaults(simserver.Faults{RateLimitBurst: 1, RateLimitFor: time.Minute}); err != nil {
				t.Fatal(err)
			}
			if _, failed := drive(t, d, 64, 200, "limited"); failed != 200 {
				t.Fatalf("%d of 200 calls failed, want all", failed)
			}
			if d.gate.Limit() >= grown {
				t.Errorf("after 200 calls answered 429 the window is %d, as before them (%d)", d.gate.Limit(), grown)
			}
		})
	}
}

// TestAutoWindowCap: max_in_flight_cap bounds an automatic window, however
// flat the latency stays.
func TestAutoWindowCap(t *testing.T) {
	m := &countingModel{id: "gpu", pause: time.Millisecond, limits: provider.Limits{MaxInFlightCap: 5}}
	d := newDispatcher(m, false, time.Now)
	if _, failed := drive(t, d, 32, 600, "capped"); failed > 0 {
		t.Fatalf("%d calls failed", failed)
	}
	if d.gate.Limit() != 5 || m.peak.Load() > 5 {
		t.Errorf("window %d, %d calls at once; want 5 at most", d.gate.Limit(), m.peak.Load())
	}
	if errs := checkLimits("models[0]", provider.Limits{MaxInFlightCap: autoMax + 1}); len(errs) != 1 {
		t.Errorf("a cap past %d: %v", autoMax, errs)
	}
}
