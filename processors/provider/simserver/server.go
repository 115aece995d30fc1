package simserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrClosed is returned by Restart and SetFaults after Close.
var ErrClosed = errors.New("simserver: server closed")

// Server is a running simulated server. Its methods are safe for concurrent
// use, including while requests are in flight.
type Server struct {
	cfg    Config // defaults applied; Faults live in faults below
	addr   string // host:port, kept across Restart
	answer func(prompt string) string
	epoch  time.Time // origin of the nanosecond clock of stats

	handlers sync.WaitGroup // handlers of every life, waited for by Close

	mu     sync.Mutex
	life   *life // nil while killed or closed
	closed bool
	faults Faults
	burst  time.Time // end of the current burst of 429s
	stats  counters
	seen   map[promptKey]*promptRecord
	// resends are the receipts of prompts answered before, each with the
	// delivery of that answer, judged when Stats are read.
	resends []resend
	// embedded counts the receipts of each embeddings request's inputs,
	// which number its attempts for the fault draws.
	embedded map[promptKey]int
	// played counts the requests each entry of cfg.Recorded answered.
	played map[int]int
}

// life is one run of the server between Start or Restart and Kill: its HTTP
// server, its queue and its prefix cache. Handlers keep the life they began
// in, so a request that outlives a Kill releases its slot in the queue it
// took it from, not in the next life's.
type life struct {
	ln     net.Listener
	http   *http.Server
	ctx    context.Context // cancelled by Kill: in-flight work stops
	cancel context.CancelFunc
	slots  slots
	cache  *prefixCache
	vllm   vllmCounters // the /metrics counters, which a restart resets
	// conns are the life's open client connections, under s.mu.
	conns map[net.Conn]*conn
}

// Start starts a server on 127.0.0.1, on a port the system chooses.
func Start(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("simserver: config: %w", err)
	}
	answer := cfg.Answer
	if answer == nil {
		answer = newAnswerer()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("simserver: listen: %w", err)
	}
	s := &Server{
		cfg:      cfg,
		addr:     ln.Addr().String(),
		answer:   answer,
		epoch:    time.Now(),
		faults:   cfg.Faults,
		seen:     map[promptKey]*promptRecord{},
		embedded: map[promptKey]int{},
		played:   map[int]int{},
	}
	s.stats.since = s.now()
	s.mu.Lock()
	s.serve(ln)
	s.mu.Unlock()
	return s, nil
}

// serve begins a new life on ln. s.mu is held.
func (s *Server) serve(ln net.Listener) {
	ctx, cancel := context.WithCancel(context.Background())
	ln = trackingListener{ln}
	l := &life{ln: ln, ctx: ctx, cancel: cancel, cache: newPrefixCache(s.cfg.PrefixCacheBlocks), vllm: vllmCounters{success: map[string]int{}},
		conns: map[net.Conn]*conn{}}
	l.slots.init()
	l.http = &http.Server{Handler: s.routes(l), ReadHeaderTimeout: time.Minute,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			cr := &conn{}
			s.mu.Lock()
			l.conns[c] = cr
			s.mu.Unlock()
			return context.WithValue(ctx, connKey{}, cr)
		},
		ConnState: func(c net.Conn, state http.ConnState) {
			s.mu.Lock()
			defer s.mu.Unlock()
			cr := l.conns[c]
			if cr == nil {
				return
			}
			switch state {
			case http.StateActive:
				cr.requests++
			case http.StateClosed, http.StateHijacked:
				if cr.closedAt == 0 {
					cr.closedAt = s.now()
				}
				if tc, ok := c.(*trackedConn); ok && tc.reset.Load() {
					cr.unread = true
				}
				delete(l.conns, c)
			}
		}}
	s.life = l
	s.burst = time.Time{}
	go l.http.Serve(ln) // returns ErrServerClosed on Kill or Close
}

// BaseURL is the server's OpenAI base URL, http://127.0.0.1:PORT/v1. It
// stays the same across Kill and Restart.
func (s *Server) BaseURL() string { return "http://" + s.addr + "/v1" }

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.addr }

// Kill stops the server abruptly, like a crashed process: it closes the
// listener and every open connection, so requests in flight or queued fail
// at their clients, and new ones are refused until Restart. As after a real
// crash, a client's pooled keep-alive connections are dead too, and the
// next request sent on one fails even once the server is back. It does
// nothing when the server is already down.
func (s *Server) Kill() {
	s.mu.Lock()
	old := s.killLocked()
	s.mu.Unlock()
	old.close()
}

// killLocked ends the current life under s.mu and returns it; the caller
// closes it with close once s.mu is released.
func (s *Server) killLocked() *life {
	l := s.life
	if l == nil {
		return nil
	}
	now := s.now()
	for _, cr := range l.conns { // closed now, whenever their goroutines notice
		cr.closedAt = now
	}
	// The listener is closed here, not only by http.Server.Close, which
	// knows it only once Serve has begun: a Restart right after Start
	// must find the port free.
	l.ln.Close()
	s.life = nil // from now on handle refuses this life's requests
	return l
}

// close closes a killed life's connections, then ends its handlers: in
// that order, so that no handler ended early can leave an empty 200 on a
// connection still open. It must run without s.mu: http.Server.Close
// waits for Serve to return, and Serve may be inside the ConnContext or
// ConnState hook of a connection it has just accepted, which takes s.mu.
func (l *life) close() {
	if l != nil {
		l.http.Close() // errors are the listener's close errors, nothing to act on
		l.cancel()
	}
}

// Restart brings the server back on the same address with an empty queue,
// an empty prefix cache and zeroed /metrics counters, as a restarted vLLM
// process would. A running server is killed first. Stats and Received
// carry over: they describe the whole test, not one life of the server.
func (s *Server) Restart() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	old := s.killLocked()
	ln, err := net.Listen("tcp", s.addr)
	if err == nil {
		s.serve(ln)
	}
	s.mu.Unlock()
	old.close()
	if err != nil {
		return fmt.Errorf("simserver: listen again on %s: %w", s.addr, err)
	}
	return nil
}

// Close kills the server for good and waits for its handlers to return.
// It is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	old := s.killLocked()
	s.mu.Unlock()
	old.close()
	s.handlers.Wait()
	return nil
}

// SetFaults replaces the injected faults, effective for the requests that
// arrive next.
func (s *Server) SetFaults(f Faults) error {
	f, err := f.withDefaults()
	if err != nil {
		return fmt.Errorf("simserver: faults: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.faults = f
	if f.RateLimitBurst == 0 {
		s.burst = time.Time{} // turning bursts off ends the current one
	}
	return nil
}

// now is the time since s.epoch, the clock of the counters.
func (s *Server) now() time.Duration { return time.Since(s.epoch) }

// routes returns the handler of life l.
func (s *Server) routes(l *life) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handle(l, s.chat))
	mux.HandleFunc("POST /v1/completions", s.handle(l, s.completions))
	mux.HandleFunc("POST /v1/embeddings", s.handle(l, s.embeddings))
	mux.HandleFunc("GET /v1/models", s.handle(l, s.models))
	mux.HandleFunc("GET /metrics", s.handle(l, s.metrics))
	mux.HandleFunc("/", s.handle(l, func(_ context.Context, w http.ResponseWriter, r *http.Request, _ *life) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "not_found", fmt.Sprintf("no route %s %s", r.Method, r.URL.Path))
	}))
	return mux
}

// handlerFunc is a handler of one life. ctx ends when the client goes away
// or the life is killed.
type handlerFunc func(ctx context.Context, w http.ResponseWriter, r *http.Request, l *life)

// handle wraps h: it counts the handler for Close and ties its context to
// the life, since a Kill must stop even the handlers whose connection the
// HTTP server has not noticed closing yet.
func (s *Server) handle(l *life, h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed || s.life != l {
			s.mu.Unlock()
			// A request that raced with Kill: fail it like the others.
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		s.handlers.Add(1) // under s.mu, so never after Close began waiting
		s.mu.Unlock()
		defer s.handlers.Done()
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(l.ctx, cancel)()
		h(ctx, w, r, l)
	}
}

// trackingListener accepts connections that note how their client closed.
type trackingListener struct{ net.Listener }

func (l trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &trackedConn{Conn: c}, nil
}

// trackedConn is a client connection that notes a reset: a TCP stack
// closing a socket whose received data was never read resets the
// connection instead of ending it, so a reset after an answer says the
// client dropped it unread.
type trackedConn struct {
	net.Conn
	reset atomic.Bool
}

func (c *trackedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if errors.Is(err, syscall.ECONNRESET) {
		c.reset.Store(true)
	}
	return n, err
}
