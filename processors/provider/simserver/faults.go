package simserver

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"time"
)

// fault is the fault drawn for a request.
type fault struct {
	status     int // 0: none, or the status to answer at once or after a hang
	retryAfter int // seconds, for 429
	hang       time.Duration
	malformed  bool // serve, then truncate the body
}

// serverErrors are the statuses of ServerError, the ones an overloaded or
// restarting server and its proxy give.
var serverErrors = [...]int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable}

// drawFault draws the fault of a request whose first prompt is seq. The
// draws are made whatever fires, so that changing one probability does not
// shift the others' outcomes.
func (s *Server) drawFault(seq sequence) fault {
	rng := seq.rng(s.cfg.Seed, streamFaults)
	uBurst, uServer, uTimeout, uMalformed := rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()
	code := serverErrors[rng.IntN(len(serverErrors))]

	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults
	now := time.Now()
	if now.After(s.burst) && uBurst < f.RateLimitBurst {
		s.burst = now.Add(f.RateLimitFor)
	}
	switch {
	case now.Before(s.burst):
		// Retry-After is whole seconds, rounded up so that a client that
		// honours it comes back after the burst, and at least 1.
		secs := max(1, int(math.Ceil(s.burst.Sub(now).Seconds())))
		return fault{status: http.StatusTooManyRequests, retryAfter: secs}
	case uServer < f.ServerError:
		return fault{status: code}
	case uTimeout < f.Timeout:
		return fault{status: http.StatusGatewayTimeout, hang: f.HangFor}
	case uMalformed < f.Malformed:
		return fault{malformed: true}
	}
	return fault{}
}

// inject answers a request with fault f when f answers before service,
// and reports whether it did. A hang ends with 504 unless ctx ends first,
// when nothing is written: the client is gone.
func (s *Server) inject(ctx context.Context, w http.ResponseWriter, f fault) bool {
	if f.status == 0 {
		return false
	}
	gone := f.hang > 0 && sleep(ctx, f.hang) != nil
	// Counted before the client can see the answer.
	s.count(func(c *counters) { c.Failed++ })
	switch {
	case gone:
	case f.status == http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.Itoa(f.retryAfter))
		writeError(w, f.status, "rate_limit_error", "rate_limit_exceeded", "simulated rate limit: retry after "+strconv.Itoa(f.retryAfter)+"s")
	case f.status == http.StatusGatewayTimeout:
		writeError(w, f.status, "server_error", "timeout", "simulated timeout")
	default:
		writeError(w, f.status, "server_error", "simulated_error", "simulated server error "+strconv.Itoa(f.status))
	}
	return true
}

// count applies update to the counters under s.mu.
func (s *Server) count(update func(c *counters)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	update(&s.stats)
}
