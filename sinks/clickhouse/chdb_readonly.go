//go:build cgo && unix

package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// chdbReader is the read-only path on chDB: connections of its own to the
// process's engine (chDB runs statements of different connections at once,
// checked on 26.5), each a session whose limits are set and then locked by
// readonly=1, and a control connection that kills a query whose caller went
// away (chDB cannot interrupt a statement through its C API, but KILL QUERY
// from another connection stops it, checked on 26.5).
type chdbReader struct {
	owner *chdbEngine // holds a reference on the instance while open
	lim   Limits
	free  chan *chdbConn
	conns int // connections in the pool, free or in use
	// parser is a session used for EXPLAIN AST alone, never for a query:
	// it only ever receives one statement the lexer approved, with the
	// same limits and readonly=1. One, since parsing is short.
	parser  chan *chdbConn
	parsers int // 1 once the parse session is open
	ctlMu   sync.Mutex
	ctl     *chdbConn
	seq     atomic.Uint64
	// open makes a new read-only session (see renew).
	open func() (*chdbConn, error)
	// tag makes query markers unique across processes sharing nothing but
	// a log: only this engine's queries appear in its system.processes.
	tag    string
	closed atomic.Bool
}

// ReadOnly opens the read-only path. Call it after Migrate: the sessions
// resolve unqualified names in the first of lim.Databases.
func (e *chdbEngine) ReadOnly(ctx context.Context, lim Limits) (Reader, error) {
	if e.closed.Load() {
		return nil, errClosed("chdb")
	}
	lim = lim.withDefaults()
	chdbMu.Lock()
	inst := e.inst
	inst.refs++ // the reader's connections need the engine up
	chdbMu.Unlock()
	r := &chdbReader{owner: &chdbEngine{inst: inst}, lim: lim, free: make(chan *chdbConn, lim.Concurrency),
		parser: make(chan *chdbConn, 1), tag: fmt.Sprintf("%d", os.Getpid())}
	args := []string{"clickhouse"}
	if inst.dataDir != "" {
		args = append(args, "--path="+filepath.Join(inst.dataDir, "clickhouse")+"/")
	}
	open := func(session []string) (*chdbConn, error) {
		c, err := connectChDB(args)
		if err != nil {
			return nil, err
		}
		for _, q := range session {
			if _, err := c.query(q, "TabSeparated"); err != nil {
				c.close()
				return nil, fmt.Errorf("cannot prepare the read-only session (%s): %w", q, err)
			}
		}
		return c, nil
	}
	session := []string{"USE " + quoteIdent(lim.Databases[0])}
	for _, s := range lim.settings() {
		session = append(session, "SET "+s)
	}
	r.open = func() (*chdbConn, error) { return open(session) }
	var err error
	for range lim.Concurrency {
		var c *chdbConn
		if c, err = r.open(); err != nil {
			break
		}
		r.conns++
		r.free <- c
	}
	if err == nil {
		var p *chdbConn
		if p, err = r.open(); err == nil {
			r.parsers++
			r.parser <- p
		}
	}
	if err == nil {
		r.ctl, err = open(nil)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *chdbReader) Query(ctx context.Context, query, format string) ([]byte, error) {
	format, err := checkFormat(format)
	if err != nil {
		return nil, err
	}
	// Before any engine sees the text: exactly one statement.
	query, _, err = singleStatement(query)
	if err != nil {
		return nil, err
	}
	if r.closed.Load() {
		return nil, errClosed("chdb")
	}

	// The engine's parser decides what the statement is, on the parse
	// session; EXPLAIN AST of one statement runs nothing (see readonly.go).
	ast, err := r.on(ctx, r.parser, "EXPLAIN AST "+query, "TabSeparatedRaw")
	if err != nil {
		return nil, err
	}
	if err := checkAST(string(ast), r.lim.Databases); err != nil {
		return nil, err
	}
	return r.on(ctx, r.free, query, format)
}

// on runs text on a session taken from pool, bounded by the session's
// limits and killed when ctx ends; a session whose statement failed is
// replaced (see renew).
func (r *chdbReader) on(ctx context.Context, pool chan *chdbConn, text, format string) ([]byte, error) {
	var c *chdbConn
	select {
	case c = <-pool:
	case <-ctx.Done():
		return nil, fmt.Errorf("no free read-only connection: %w", ctx.Err())
	}
	failed := false
	defer func() {
		if failed {
			c = r.renew(c)
		}
		pool <- c
	}()
	// A marker comment identifies the statement in system.processes for
	// KILL QUERY. It goes first, so no text of the query can hide it.
	marker := fmt.Sprintf("/* robustream-sql %s-%d */", r.tag, r.seq.Add(1))
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := c.query(marker+" "+text, format)
		done <- result{out, err}
	}()
	select {
	case res := <-done:
		failed = res.err != nil
		return res.out, res.err
	case <-ctx.Done():
		// The caller went away or its deadline passed: stop the statement
		// rather than let it hold a connection and the cores; the
		// connection is replaced once it has returned.
		r.kill(marker)
		<-done
		failed = true
		return nil, fmt.Errorf("query stopped: %w", ctx.Err())
	}
}

// renew replaces a connection whose statement failed. chDB 26.5 hands the
// partial output of a statement that failed mid-stream (a result limit, a
// kill) to the next statement of the same connection, and lists a killed
// statement in system.processes until the connection runs another: a fresh
// session has neither. If no new session can be made, the old connection is
// kept, cleared by one throw-away statement.
func (r *chdbReader) renew(c *chdbConn) *chdbConn {
	fresh, err := r.open()
	if err != nil {
		_, _ = c.query("SELECT 1", "TabSeparated")
		return c
	}
	c.close()
	return fresh
}

// kill asks the engine to cancel the statements whose text starts with
// marker.
func (r *chdbReader) kill(marker string) {
	r.ctlMu.Lock()
	defer r.ctlMu.Unlock()
	if r.ctl == nil {
		return
	}
	_, _ = r.ctl.query("KILL QUERY WHERE startsWith(query, "+quoteString(marker)+") ASYNC", "TabSeparated")
}

func (r *chdbReader) Close() error {
	if r.closed.Swap(true) {
		return nil
	}
	var errs []error
	// Stop what is running (a shutdown must not wait for a query's time
	// limit), then wait for every connection to be free.
	r.kill(fmt.Sprintf("/* robustream-sql %s-", r.tag))
	for range r.conns {
		c := <-r.free
		c.close()
	}
	for range r.parsers {
		p := <-r.parser
		p.close()
	}
	r.ctlMu.Lock()
	if r.ctl != nil {
		r.ctl.close()
		r.ctl = nil
	}
	r.ctlMu.Unlock()
	errs = append(errs, r.owner.Close())
	return errors.Join(errs...)
}

// String describes the path for logs.
func (r *chdbReader) String() string {
	return fmt.Sprintf("chDB read-only sessions ×%d (%s)", r.conns, strings.Join(r.lim.settings(), ", "))
}
