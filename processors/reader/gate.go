package reader

import (
	"context"
	"math"
	"sync"
	"time"
)

// gate is the in-flight window of one model: at most limit calls at once;
// callers beyond it wait in a queue. When a slot frees the next caller
// goes at once (no batch barrier), preferring one whose prompt shares its
// contexts with the call just sent, so that a server with a prefix cache
// (vLLM's automatic prefix caching) finds the shared context's blocks still
// cached. A waiter is passed over at most maxSkips times, so affinity never
// starves anyone.
//
// With a fixed window the limit never moves. With an automatic one
// (max_in_flight: auto) it is adjusted from the server's own queue when the
// model reports it (load), so that a few requests always wait on the
// server and its batch never runs short, otherwise from errors: additive
// increase while calls succeed, multiplicative decrease on overload (429,
// 503, timeouts).
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
	// probing says a goroutine is polling it.
	load    func(ctx context.Context) (running, waiting float64, err error)
	probing bool
	// queued: the server has been seen queueing; growth is gentler after.
	queued bool
	// successes since the last increase (auto without load).
	successes int
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
	g := &gate{limit: float64(limit), min: 1, max: float64(limit), affinity: affinity}
	if limit <= 0 {
		g.auto, g.limit, g.max = true, autoStart, autoMax
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
		g.mu.Unlock()
		return nil
	}
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

// release frees a slot.
func (g *gate) release(o outcome) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inFlight--
	if g.auto {
		switch o {
		case overloaded:
			g.limit = math.Max(g.min, g.limit*0.75)
			g.successes = 0
		case succeeded:
			// Without the server's queue to go by, grow by one slot per
			// window's worth of successes, and only while the window is
			// the bottleneck (every slot was in use).
			if g.load == nil && g.inFlight+1 >= int(g.limit) {
				if g.successes++; float64(g.successes) >= g.limit {
					g.limit = math.Min(g.max, g.limit+1)
					g.successes = 0
				}
			}
		}
	}
	g.grant()
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
func (g *gate) probe() {
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	for first := true; ; first = false {
		if !first {
			<-t.C
		}
		g.mu.Lock()
		idle := g.inFlight == 0 && len(g.queue) == 0
		if idle {
			g.probing = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), probeEvery)
		running, waiting, err := g.load(ctx)
		cancel()
		if err != nil {
			continue // the latency of calls will tell; keep the window
		}
		g.mu.Lock()
		target := math.Max(2, running/8)
		switch {
		case waiting < target && g.inFlight+1 >= int(g.limit):
			// Room on the server: double until it first queues (slow
			// start), then grow by a quarter.
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
