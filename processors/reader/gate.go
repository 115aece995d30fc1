package reader

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/robustream/robustream/processors/provider"
)

// gate is the in-flight window of one model: at most limit calls at once;
// callers beyond it wait in a queue. When a slot frees the next caller
// goes at once (no batch barrier), preferring one whose prompt shares its
// contexts with the call just sent, so that a server with a prefix cache
// (vLLM's automatic prefix caching) finds the shared context's blocks still
// cached. A waiter is passed over at most maxSkips times, so affinity never
// starves anyone.
//
// With a fixed window the limit never moves. An automatic one
// (max_in_flight: auto) is steered by the server's own queue when the model
// reports it (load: vLLM's, SGLang's, TGI's or llama.cpp's gauges), so that
// a few requests always wait on the server and its batch never runs short;
// otherwise by the latency of calls (knee, below). Either way it is cut by a
// quarter on overload (429, 503, timeouts), once per window of calls.
type gate struct {
	mu       sync.Mutex
	limit    float64
	min, max float64
	auto     bool
	affinity bool
	inFlight int
	queue    []*waiter
	lastKey  string

	// load, when set, reports the server's running and waiting requests;
	// probing says a goroutine is polling it. A server that has no gauges
	// for the model (provider.ErrNoLoad) is not asked again: load is
	// cleared.
	load    func(ctx context.Context) (running, waiting float64, err error)
	probing bool
	// steered: the last reading of the server's queue succeeded, so the
	// probe steers the window and latency does not.
	steered bool
	// queued: the server has been seen queueing; growth is gentler after.
	queued bool
	// knee steers the window by latency while no reading steers it.
	knee knee
	// calm counts the releases during which a further overload does not
	// cut the window again: the calls already under way were sent before
	// the cut and fail for the same reason.
	calm int
	// warn logs the line that says why the window goes by latency.
	warn func(msg string, args ...any)
}

type waiter struct {
	key     string
	skipped int
	ready   chan struct{}
}

const (
	// maxSkips bounds how often affinity may pass over the oldest waiter.
	maxSkips = 8
	// autoStart, autoMax bound an automatic window.
	autoStart = 8
	autoMax   = 1024
	// probeEvery is how often an automatic window reads the server's
	// queue.
	probeEvery = 100 * time.Millisecond
)

// newGate returns a window of fixed size limit, or an automatic one when
// limit is 0.
func newGate(limit int, affinity bool) *gate {
	g := &gate{limit: float64(limit), min: 1, max: float64(limit), affinity: affinity, warn: slog.Warn}
	if limit <= 0 {
		g.auto, g.limit, g.max = true, autoStart, autoMax
		g.knee.slowStart = true
	}
	return g
}

// Limit returns the current window.
func (g *gate) Limit() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return int(g.limit)
}

// acquire waits for a slot; key names the prompt's shared prefix.
func (g *gate) acquire(ctx context.Context, key string) error {
	g.mu.Lock()
	if g.auto && g.load != nil && !g.probing {
		g.probing = true
		go g.probe()
	}
	if len(g.queue) == 0 && g.inFlight < int(g.limit) {
		g.inFlight++
		g.lastKey = key
		if g.inFlight >= int(g.limit) {
			g.knee.full = true
		}
		g.mu.Unlock()
		return nil
	}
	g.knee.full = true // a caller waits: the window is the bottleneck
	w := &waiter{key: key, ready: make(chan struct{})}
	g.queue = append(g.queue, w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		for i, q := range g.queue {
			if q == w {
				g.queue = append(g.queue[:i], g.queue[i+1:]...)
				return ctx.Err()
			}
		}
		// Granted meanwhile: hand the slot on.
		g.inFlight--
		g.grant()
		return ctx.Err()
	}
}

// outcome is how a call ended, for the automatic window.
type outcome int

const (
	succeeded  outcome = iota
	failed             // an error that says nothing about load
	overloaded         // 429, 503, a timeout: the server has too much
)

// release frees a slot; latency is how long a succeeded call took.
func (g *gate) release(o outcome, latency time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inFlight--
	if g.auto {
		calm := g.calm > 0
		g.calm = max(0, g.calm-1)
		switch o {
		case overloaded:
			if !calm {
				g.setLimit(g.limit * 0.75)
				g.calm = g.inFlight
			}
			g.knee.overloaded()
		case succeeded:
			if !g.steered {
				if l, ok := g.knee.observe(latency, g.limit); ok {
					g.setLimit(l)
				}
			}
		}
	}
	g.grant()
}

// setLimit moves an automatic window within its bounds; the calls under
// way were sent under the old one, so the knee does not time them.
func (g *gate) setLimit(l float64) {
	l = math.Max(g.min, math.Min(g.max, l))
	if l != g.limit {
		g.limit = l
		g.knee.restart(g.inFlight)
	}
}

// grant hands free slots to waiters; g.mu is held.
func (g *gate) grant() {
	for g.inFlight < int(g.limit) && len(g.queue) > 0 {
		i := 0
		if g.affinity && g.queue[0].key != g.lastKey && g.queue[0].skipped < maxSkips {
			for j, w := range g.queue {
				if w.key == g.lastKey {
					i = j
					break
				}
			}
			if i > 0 {
				g.queue[0].skipped++
			}
		}
		w := g.queue[i]
		g.queue = append(g.queue[:i], g.queue[i+1:]...)
		g.inFlight++
		g.lastKey = w.key
		close(w.ready)
	}
}

// probe polls the server's queue while there is work, steering the window
// so that a few requests wait on the server: running + a small queue. A
// server that keeps no queue while our window is full has room: grow by a
// quarter. One whose queue is longer than needed: shrink toward running +
// target. It stops when the gate is idle and restarts with the next call.
// A server without gauges for the model (provider.ErrNoLoad) is not asked
// again; the window goes by latency from then on, and says so once.
func (g *gate) probe() {
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	for first := true; ; first = false {
		if !first {
			<-t.C
		}
		g.mu.Lock()
		load := g.load
		if g.inFlight == 0 && len(g.queue) == 0 {
			g.probing = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), probeEvery)
		running, waiting, err := load(ctx)
		cancel()
		if err != nil {
			g.mu.Lock()
			g.steered = false // latency steers until a reading comes
			if !errors.Is(err, provider.ErrNoLoad) {
				g.mu.Unlock()
				continue // the server unreachable for a moment
			}
			g.load, g.probing = nil, false
			g.mu.Unlock()
			if errors.Is(err, provider.ErrNoLoadForModel) {
				g.warn("max_in_flight auto: the server's queue gauges are for other served models; the window goes by latency and errors", "err", err)
			} else {
				slog.Info("max_in_flight auto: the server publishes no queue gauges; the window goes by latency and errors", "err", err)
			}
			return
		}
		g.mu.Lock()
		if !g.steered {
			g.steered = true
			g.knee.restart(g.inFlight)
		}
		target := math.Max(2, running/8)
		switch {
		case waiting < target && g.inFlight+1 >= int(g.limit) && g.calm == 0:
			// Room on the server: double until it first queues (slow
			// start), then grow by a quarter. Not while the calls sent
			// before an overload cut are still coming back: a gateway's
			// 429s never show in the server's queue.
			step := g.limit
			if g.queued {
				step = math.Max(1, g.limit/4)
			}
			g.limit = math.Min(g.max, g.limit+step)
		case waiting > 2*target:
			g.queued = true
			g.limit = math.Max(g.min, math.Min(g.limit, math.Max(running+target, g.limit*0.8)))
		default:
			g.queued = g.queued || waiting >= target
		}
		g.grant()
		g.mu.Unlock()
	}
}
