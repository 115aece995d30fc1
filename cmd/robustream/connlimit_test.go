package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// limitClient is one client connection of the listener tests, dialled from
// a chosen loopback address (all of 127/8 is local on Linux) so that the
// per-client cap can be told from the overall one.
type limitClient struct {
	name string
	c    net.Conn
	r    *bufio.Reader
}

func dialFrom(t *testing.T, name, from, addr string) *limitClient {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("%s: dial from %s: %v", name, from, err)
	}
	t.Cleanup(func() { c.Close() })
	return &limitClient{name: name, c: c, r: bufio.NewReader(c)}
}

func (lc *limitClient) send(t *testing.T, path string) {
	t.Helper()
	if _, err := fmt.Fprintf(lc.c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path); err != nil {
		t.Fatalf("%s: write: %v", lc.name, err)
	}
}

// answered reads one response; an error means the server closed the
// connection instead.
func (lc *limitClient) answered() error {
	lc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(lc.r, nil)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// closed reports whether the server has closed the connection (a read
// returns at once) rather than holding it open (the read times out).
func (lc *limitClient) closed(t *testing.T) bool {
	t.Helper()
	lc.c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	_, err := lc.r.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	if err == nil {
		t.Fatalf("%s: unexpected byte from the server", lc.name)
	}
	return true
}

// TestConnLimiter drives the listener with a real http.Server: the
// per-client cap evicts that client's longest-idle connection, the overall
// cap anyone's, a cap with every connection busy refuses the newcomer, and
// closed connections give their slots back.
func TestConnLimiter(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newConnLimiter(ln, 3, 2, slog.New(slog.NewTextHandler(io.Discard, nil)))
	release := make(chan struct{})
	var inside atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/idle", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/block", func(w http.ResponseWriter, _ *http.Request) {
		inside.Add(1)
		<-release
		io.WriteString(w, "ok")
	})
	hs := &http.Server{Handler: mux, ConnState: l.connState}
	go hs.Serve(l)
	defer hs.Close()
	addr := ln.Addr().String()
	waitInside := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); inside.Load() < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d requests inside the handler, want %d", inside.Load(), n)
			}
		}
	}
	// The server marks a connection idle just after writing its response,
	// which the client may read first: wait for the mark before relying on
	// it.
	waitWaiting := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			l.mu.Lock()
			got := l.waiting.Len()
			l.mu.Unlock()
			if got == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d connections waiting, want %d", got, n)
			}
		}
	}
	idle := func(c *limitClient) {
		t.Helper()
		c.send(t, "/idle")
		if err := c.answered(); err != nil {
			t.Fatalf("%s: /idle: %v", c.name, err)
		}
	}

	// Per client: the third connection of 127.0.0.1 closes its first.
	a1 := dialFrom(t, "a1", "127.0.0.1", addr)
	idle(a1)
	waitWaiting(1)
	a2 := dialFrom(t, "a2", "127.0.0.1", addr)
	idle(a2)
	waitWaiting(2)
	a3 := dialFrom(t, "a3", "127.0.0.1", addr)
	idle(a3)
	if !a1.closed(t) {
		t.Error("a1, the longest-idle connection of 127.0.0.1, is still open after a3 went over the per-client cap of 2")
	}
	if a2.closed(t) || a3.closed(t) {
		t.Error("the per-client cap closed more than the longest-idle connection")
	}
	if n := l.open(); n != 2 {
		t.Errorf("open = %d, want 2", n)
	}

	// Per client, every connection busy: the newcomer is refused.
	a2.send(t, "/block")
	a3.send(t, "/block")
	waitInside(2)
	a4 := dialFrom(t, "a4", "127.0.0.1", addr)
	if !a4.closed(t) {
		t.Error("a4 was admitted over the per-client cap while both connections of 127.0.0.1 are busy")
	}
	if r := l.refused.Load(); r != 1 {
		t.Errorf("refused = %d, want 1", r)
	}

	// Overall: the third connection fits; a fourth, from yet another
	// address, closes the longest-idle one, which is b1.
	b1 := dialFrom(t, "b1", "127.0.0.2", addr)
	idle(b1)
	waitWaiting(1)
	b2 := dialFrom(t, "b2", "127.0.0.3", addr)
	idle(b2)
	if !b1.closed(t) {
		t.Error("b1, the only idle connection, is still open after b2 went over the overall cap of 3")
	}
	// Overall, every connection busy: refused.
	b2.send(t, "/block")
	waitInside(3)
	c1 := dialFrom(t, "c1", "127.0.0.4", addr)
	if !c1.closed(t) {
		t.Error("c1 was admitted over the overall cap while every connection is busy")
	}
	if e := l.evicted.Load(); e != 2 {
		t.Errorf("evicted = %d, want 2 (a1, b1)", e)
	}

	// The busy connections finish and keep their slots; once closed by
	// their clients, every slot and per-client entry is given back.
	close(release)
	for _, c := range []*limitClient{a2, a3, b2} {
		if err := c.answered(); err != nil {
			t.Errorf("%s: /block: %v", c.name, err)
		}
	}
	for _, c := range []*limitClient{a1, a2, a3, a4, b1, b2, c1} {
		c.c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for l.open() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	l.mu.Lock()
	open, clients, waiting := l.total, len(l.clients), l.waiting.Len()
	l.mu.Unlock()
	if open != 0 || clients != 0 || waiting != 0 {
		t.Errorf("after every client closed: %d open, %d client entries, %d waiting; want 0, 0, 0", open, clients, waiting)
	}
	// And a new client is served again.
	d := dialFrom(t, "d", "127.0.0.5", addr)
	idle(d)
}

func TestConnCapKeepsReserve(t *testing.T) {
	for _, c := range []struct {
		configured int
		limit      uint64
		want       int
		lowered    bool
	}{
		{1024, 1 << 20, 1024, false},
		{1024, 4096, 1024, false},
		{4096, 4096, 2048, true}, // half of 4096 stays reserved
		{1024, 1024, 256, true},  // ¾ of a small limit stays reserved
		{1024, 20, minConnCap, true},
		{1024, ^uint64(0), 1024, false}, // unlimited
	} {
		got, why := connCap(c.configured, c.limit)
		if got != c.want || (why != "") != c.lowered {
			t.Errorf("connCap(%d, %d) = %d %q, want %d (lowered %v)", c.configured, c.limit, got, why, c.want, c.lowered)
		}
		if c.lowered && !strings.Contains(why, "reserved for ClickHouse and Kafka") {
			t.Errorf("connCap(%d, %d): the log line %q does not say why", c.configured, c.limit, why)
		}
	}
}

// TestAuthLimiterBounded: the per-address map stays within its bound under
// failures from many addresses, and a blocked address is told when to retry.
func TestAuthLimiterBounded(t *testing.T) {
	var logged strings.Builder
	a := newAuthLimiter(5, slog.New(slog.NewTextHandler(&logged, nil)))
	a.maxKeys = 100
	for i := range 1000 {
		a.failed(fmt.Sprintf("10.0.%d.%d", i/256, i%256), "/api/sql")
	}
	if n := len(a.clients); n > 100 {
		t.Errorf("%d addresses kept, bound 100", n)
	}
	for range 5 {
		if _, blocked := a.blocked("192.0.2.1", "/"); blocked {
			t.Fatal("an address blocked before its failures were used up")
		}
		a.failed("192.0.2.1", "/")
	}
	wait, blocked := a.blocked("192.0.2.1", "/")
	if !blocked || wait < time.Second || wait > 13*time.Second {
		t.Errorf("after 5 failures at 5/min: blocked %v, retry after %s; want blocked, about 12 s", blocked, wait)
	}
	if got := strings.Count(logged.String(), "client=192.0.2.1 "); got != 1 {
		t.Errorf("%d log lines for 192.0.2.1's 5 failures, want 1 (one per interval):\n%s", got, logged.String())
	}
	a.flush(time.Now().Add(a.interval))
	if got := strings.Count(logged.String(), "client=192.0.2.1 "); got != 2 {
		t.Errorf("the summary of the interval was not flushed (%d lines)", got)
	}
}
