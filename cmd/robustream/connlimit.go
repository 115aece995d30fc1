package main

import (
	"container/list"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The HTTP server's connections are capped, overall and per client address,
// so that no client can take the descriptors chDB and the Kafka clients need
// (an engine that runs out of them is aborted by chDB). The cap is enforced
// in front of http.Server by connLimiter, a net.Listener.
//
// At the cap a new connection is not left waiting in the accept queue (that
// would starve the probes behind a flood): the listener makes room by
// closing the connection that has waited longest between requests (idle
// keep-alive, or connected and still silent), and refuses the new one
// (accept, then close) only when every connection is busy with a request.
// A flood of idle connections therefore churns through its own connections
// while a fresh client, such as the kubelet's /readyz probe, gets in.

// connLimiter wraps a listener with the caps.
type connLimiter struct {
	net.Listener
	max, perClient int
	log            *slog.Logger

	mu      sync.Mutex
	total   int
	clients map[string]*clientConns
	// waiting holds every connection not inside a request, the one that
	// has waited longest first: the candidates for eviction.
	waiting *list.List

	refused, evicted atomic.Int64
	// last* are the counts at the last log line (under mu).
	lastLog                  time.Time
	lastRefused, lastEvicted int64
}

// clientConns counts one client address's connections; the entry exists
// only while the client has one, which bounds the map by the cap.
type clientConns struct {
	n       int
	waiting *list.List
}

// limitedConn is a connection the limiter admitted.
type limitedConn struct {
	net.Conn
	l      *connLimiter
	client string
	// Under l.mu: positions in the waiting lists (nil while busy), and
	// whether the slot has been given back.
	inAll, inClient *list.Element
	released        bool
}

func newConnLimiter(ln net.Listener, max, perClient int, log *slog.Logger) *connLimiter {
	return &connLimiter{Listener: ln, max: max, perClient: min(perClient, max), log: log,
		clients: map[string]*clientConns{}, waiting: list.New()}
}

// clientKey is the address a per-client cap counts by: the IP, or for IPv6
// its /64, which one host usually holds whole.
func clientKey(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	if ip4 := ta.IP.To4(); ip4 != nil {
		return ip4.String()
	}
	return ta.IP.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// Accept returns the next connection within the caps. A connection over a
// cap is closed here and Accept goes on: an error would stop http.Server.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
		c.Close()
		l.refused.Add(1)
		l.report()
	}
}

// admit takes a slot for c, evicting waiting connections as needed, or
// returns nil when every connection in the way is busy.
func (l *connLimiter) admit(c net.Conn) *limitedConn {
	key := clientKey(c.RemoteAddr())
	var victims []*limitedConn
	l.mu.Lock()
	cl := l.clients[key]
	if cl != nil && cl.n >= l.perClient {
		e := cl.waiting.Front()
		if e == nil {
			l.mu.Unlock()
			return nil
		}
		v := e.Value.(*limitedConn)
		l.release(v)
		victims = append(victims, v)
	}
	if l.total >= l.max {
		e := l.waiting.Front()
		if e == nil {
			l.mu.Unlock()
			closeAll(victims) // already released: their slots are free for others
			return nil
		}
		v := e.Value.(*limitedConn)
		l.release(v)
		victims = append(victims, v)
	}
	cl = l.clients[key] // release may have dropped the entry
	if cl == nil {
		cl = &clientConns{waiting: list.New()}
		l.clients[key] = cl
	}
	lc := &limitedConn{Conn: c, l: l, client: key}
	cl.n++
	l.total++
	lc.inAll = l.waiting.PushBack(lc)
	lc.inClient = cl.waiting.PushBack(lc)
	l.mu.Unlock()
	if len(victims) > 0 {
		l.evicted.Add(int64(len(victims)))
		closeAll(victims)
		l.report()
	}
	return lc
}

func closeAll(cs []*limitedConn) {
	for _, c := range cs {
		c.Conn.Close() // the server's read fails and it drops the connection
	}
}

// release gives c's slot back (l.mu held); idempotent.
func (l *connLimiter) release(c *limitedConn) {
	if c.released {
		return
	}
	c.released = true
	l.busy(c)
	l.total--
	cl := l.clients[c.client]
	if cl.n--; cl.n == 0 {
		delete(l.clients, c.client)
	}
}

// busy takes c off the waiting lists (l.mu held).
func (l *connLimiter) busy(c *limitedConn) {
	if c.inAll != nil {
		l.waiting.Remove(c.inAll)
		c.inAll = nil
	}
	if c.inClient != nil {
		l.clients[c.client].waiting.Remove(c.inClient)
		c.inClient = nil
	}
}

// connState is http.Server's ConnState hook: a connection inside a request
// cannot be evicted, one waiting for its next request can.
func (l *connLimiter) connState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.released {
		return
	}
	switch st {
	case http.StateActive, http.StateHijacked:
		l.busy(c)
	case http.StateIdle:
		if c.inAll == nil {
			c.inAll = l.waiting.PushBack(c)
			c.inClient = l.clients[c.client].waiting.PushBack(c)
		}
	case http.StateClosed:
		l.release(c)
	}
}

// Close gives the slot back and closes the connection.
func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.release(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// open returns the connections held now.
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// report logs, at most every 10 s, how many connections the caps turned
// away: a flood makes one line, not one per connection.
func (l *connLimiter) report() {
	if l.log == nil {
		return
	}
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.lastLog) < 10*time.Second {
		l.mu.Unlock()
		return
	}
	r, e := l.refused.Load(), l.evicted.Load()
	dr, de := r-l.lastRefused, e-l.lastEvicted
	l.lastLog, l.lastRefused, l.lastEvicted = now, r, e
	open := l.total
	l.mu.Unlock()
	l.log.Warn("http: connection cap reached", "open", open, "max", l.max, "per_client", l.perClient,
		"refused", dr, "idle_closed", de)
}

// The descriptor budget. chDB (parts, marks, its own threads' pipes) and the
// Kafka clients need descriptors the HTTP server must not take: a reserve of
// at least half the limit, and at least min(2048, ¾ of it), stays theirs.

// raiseFileLimit lifts the soft RLIMIT_NOFILE to the hard limit (Go does so
// at start on Linux already; doing it here makes it explicit and reports the
// result) and returns the soft limit in force.
func raiseFileLimit() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	if r.Cur < r.Max {
		want := r
		want.Cur = r.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
			return r.Cur, err
		}
		r = want
	}
	return r.Cur, nil
}

// minConnCap is the smallest connection cap worth serving with.
const minConnCap = 16

// connCap returns the connection cap for a descriptor limit: the configured
// one, lowered so that the reserve stays free, and why when lowered.
func connCap(configured int, limit uint64) (int, string) {
	if limit > 1<<40 {
		limit = 1 << 40 // RLIM_INFINITY
	}
	lim := int(limit)
	reserve := max(lim/2, min(2048, lim*3/4))
	budget := max(lim-reserve, minConnCap)
	if configured <= budget {
		return configured, ""
	}
	return budget, fmt.Sprintf("http_max_conns %d lowered to %d: the descriptor limit is %d and %d stay reserved for ClickHouse and Kafka (raise the limit with ulimit -n)",
		configured, budget, lim, reserve)
}
