package reader

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/robustream/robustream/streams"
)

// ErrModelDown starts the error of every request of a model that has been
// declared down: it is permanent, so the request ends at once as an error
// result (Terminal) and its pairing set closes with the cell marked.
var ErrModelDown = errors.New("model down")

// A model is declared down when downFailures calls in a row failed, over
// at least downAfter, with no success in between. Signs of overload (a
// timeout, 429, 503, 504: outcomeOf's overloaded) neither count nor break
// the streak: a busy server is slowed down by the window and the breaker,
// not declared down, so an endpoint that only ever times out stays up.
// The circuit breaker
// alone only slows a dead endpoint to one call per cooldown, each request
// waiting its turn; declaring the model down ends its pending requests at
// once while the other models go on. While it is down, one call per
// downProbe is let through to see whether it is back; its first success
// lifts the state.
const (
	downFailures = 8
	downAfter    = 10 * time.Second
	downProbe    = 30 * time.Second
)

// health tracks one model's streak of failed calls and its down state. It
// is safe for concurrent use.
type health struct {
	mu     sync.Mutex
	streak int       // failed calls in a row
	first  time.Time // when the streak began
	last   error     // the streak's latest error
	down   time.Time // when declared down; zero while up
	probe  time.Time // when the next probe may go, while down
	probin bool      // a probe is under way
}

// allow reports whether a call may go: always while up; while down, only
// the probe that is due (probe true), else a permanent ErrModelDown error
// naming the reason.
func (h *health) allow(now time.Time) (probe bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down.IsZero() {
		return false, nil
	}
	if !h.probin && !now.Before(h.probe) {
		h.probin = true
		return true, nil
	}
	return false, streams.Permanent(fmt.Errorf("%w since %s (%d calls in a row failed over %s; next check in %s): %v",
		ErrModelDown, h.down.UTC().Format(time.RFC3339), h.streak, h.down.Sub(h.first).Round(time.Second),
		max(h.probe.Sub(now), 0).Round(time.Second), h.last))
}

// done records how an allowed call ended. cancelled (the caller gave up)
// says nothing about the model; overloaded (a sign of a busy server) does
// not count toward declaring it down.
func (h *health) done(probe bool, err error, cancelled, overloaded bool, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if probe {
		h.probin = false
	}
	switch {
	case cancelled && err != nil:
		return
	case err != nil && overloaded:
		if probe {
			h.probe = now.Add(downProbe)
		}
		return
	case err == nil:
		h.streak, h.last, h.down = 0, nil, time.Time{}
		return
	}
	if h.streak == 0 {
		h.first = now
	}
	h.streak++
	h.last = err
	if !h.down.IsZero() {
		h.probe = now.Add(downProbe)
		return
	}
	if h.streak >= downFailures && now.Sub(h.first) >= downAfter {
		h.down, h.probe = now, now.Add(downProbe)
	}
}

// isDown reports whether the model is declared down, and why.
func (h *health) isDown() (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.down.IsZero(), h.last
}
