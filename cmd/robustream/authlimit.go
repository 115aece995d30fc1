package main

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// authLimiter rate-limits wrong API tokens per client address. Each address
// has a token bucket of perMinute failures, refilled at that rate: a client
// that has used it up gets 429 without its credential being compared, so
// guessing runs at perMinute per address instead of as fast as the server
// answers. Requests without credentials, and the right token, cost nothing.
//
// Failures are logged once per address and interval (address, path, counts;
// never what was sent): a flood of guesses makes one line per address.
type authLimiter struct {
	perMinute int
	interval  time.Duration
	maxKeys   int
	log       *slog.Logger

	mu      sync.Mutex
	clients map[string]*authClient
}

type authClient struct {
	lim  *rate.Limiter
	seen time.Time
	// Since the last log line.
	failed, refused int
	path            string
	logged          time.Time
}

// authLogInterval is how often one address's failures are summarized.
const authLogInterval = 30 * time.Second

// authMaxClients bounds the map: beyond it, addresses whose bucket has
// refilled go first, then the least recently seen.
const authMaxClients = 10_000

func newAuthLimiter(perMinute int, log *slog.Logger) *authLimiter {
	return &authLimiter{perMinute: perMinute, interval: authLogInterval, maxKeys: authMaxClients, log: log,
		clients: map[string]*authClient{}}
}

// blocked reports whether client has used up its failures, and when it may
// try again; a blocked request is counted for the summary line.
func (a *authLimiter) blocked(client, path string) (time.Duration, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.clients[client]
	if c == nil {
		return 0, false
	}
	now := time.Now()
	tokens := c.lim.TokensAt(now)
	if tokens >= 1 {
		return 0, false
	}
	c.seen = now
	c.refused++
	c.path = path
	perSecond := float64(a.perMinute) / 60
	return time.Duration(math.Ceil((1-tokens)/perSecond)) * time.Second, true
}

// failed records a wrong or malformed credential from client.
func (a *authLimiter) failed(client, path string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	c := a.clients[client]
	if c == nil {
		if len(a.clients) >= a.maxKeys {
			a.evict(now)
		}
		c = &authClient{lim: rate.NewLimiter(rate.Limit(float64(a.perMinute)/60), a.perMinute)}
		a.clients[client] = c
	}
	c.lim.AllowN(now, 1)
	c.seen = now
	c.failed++
	c.path = path
	if now.Sub(c.logged) >= a.interval {
		// The first failure of an interval is logged at once; the rest of
		// it waits for flush.
		a.emit(client, c, now)
	}
}

// emit logs client's summary and resets it (a.mu held).
func (a *authLimiter) emit(client string, c *authClient, now time.Time) {
	a.log.Warn("http: failed API token attempts", "client", client, "path", c.path,
		"failed", c.failed, "refused_429", c.refused, "limit_per_minute", a.perMinute)
	c.failed, c.refused, c.logged = 0, 0, now
}

// flush logs the summaries due and drops addresses with nothing pending
// whose bucket has refilled: they are as good as new.
func (a *authLimiter) flush(now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, c := range a.clients {
		if c.failed+c.refused > 0 && now.Sub(c.logged) >= a.interval {
			a.emit(k, c, now)
		}
		if c.failed+c.refused == 0 && c.lim.TokensAt(now) >= float64(a.perMinute) {
			delete(a.clients, k)
		}
	}
}

// evict makes room for one address (a.mu held): refilled ones first, else
// the least recently seen. Forgetting an address forgives it, which only
// helps a client holding more than maxKeys addresses.
func (a *authLimiter) evict(now time.Time) {
	var oldest string
	var at time.Time
	for k, c := range a.clients {
		if c.lim.TokensAt(now) >= float64(a.perMinute) {
			delete(a.clients, k)
			return
		}
		if oldest == "" || c.seen.Before(at) {
			oldest, at = k, c.seen
		}
	}
	delete(a.clients, oldest)
}

// run flushes the summaries every interval until ctx ends.
func (a *authLimiter) run(ctx context.Context) {
	t := time.NewTicker(a.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			a.flush(time.Now().Add(a.interval)) // what is pending, at exit
			return
		case now := <-t.C:
			a.flush(now)
		}
	}
}
