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
	"syscall"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// chDB runs one ClickHouse inside the process and allows one storage path
// per process, so every Open in the process shares one connection: the
// first boots the engine, later ones take a reference, and the last Close
// shuts it down and frees the data directory for other processes.
var (
	chdbMu     sync.Mutex
	chdbShared *chdbInstance
)

// chdbInstance is the process-wide engine behind every chdbEngine handle.
type chdbInstance struct {
	dataDir string
	conn    *chdbConn
	refs    int
	version string
	// turn serializes statements: a chDB connection runs one at a time. A
	// channel rather than a mutex so that waiting honours the context.
	turn chan struct{}
	// shut is set, with the turn held, once the connection is closed.
	shut bool
	seq  atomic.Uint64
}

type chdbEngine struct {
	inst   *chdbInstance
	closed atomic.Bool
}

func openChDB(ctx context.Context, cfg Config) (Engine, error) {
	lib, err := resolveLibPath(cfg.LibPath)
	if err != nil {
		return nil, err
	}
	if err := loadChDB(lib); err != nil {
		return nil, err
	}
	dataDir := cfg.DataDir
	if dataDir != "" {
		if dataDir, err = filepath.Abs(dataDir); err != nil {
			return nil, fmt.Errorf("cannot resolve data dir: %w", err)
		}
	}

	chdbMu.Lock()
	defer chdbMu.Unlock()
	if inst := chdbShared; inst != nil {
		if inst.dataDir != dataDir {
			return nil, fmt.Errorf("chDB is already open on %q in this process and allows one data dir per process (asked for %q)", inst.dataDir, dataDir)
		}
		inst.refs++
		return &chdbEngine{inst: inst}, nil
	}

	args := []string{"clickhouse"}
	var storage string
	if dataDir != "" {
		storage = filepath.Join(dataDir, "clickhouse")
		if err := os.MkdirAll(storage, 0o700); err != nil {
			return nil, fmt.Errorf("cannot create chDB storage: %w", err)
		}
		if locked(storage) {
			return nil, lockedError(dataDir)
		}
		args = append(args, "--path="+storage+"/")
	}
	conn, err := connectChDB(args)
	if err != nil {
		// chDB prints why on stderr and returns no connection; the common
		// reason is another process that took the directory since the
		// check above.
		if storage != "" && locked(storage) {
			return nil, lockedError(dataDir)
		}
		return nil, fmt.Errorf("cannot start chDB on %q: %w", dataDir, err)
	}
	inst := &chdbInstance{dataDir: dataDir, conn: conn, refs: 1, turn: make(chan struct{}, 1)}
	out, err := conn.query("SELECT version()", "TabSeparated")
	if err != nil {
		conn.close()
		return nil, fmt.Errorf("cannot read chDB version: %w", err)
	}
	inst.version = strings.TrimSpace(string(out))
	chdbShared = inst
	return &chdbEngine{inst: inst}, nil
}

// locked reports whether another process holds the ClickHouse status file
// of storage. ClickHouse takes an exclusive flock on <path>/status for as
// long as it runs; probing it ourselves turns chDB's "Cannot lock file …"
// (which it only logs) into ErrLocked. It must not run while this process
// holds the engine: our own probe would then contend with chDB's lock.
func locked(storage string) bool {
	f, err := os.Open(filepath.Join(storage, "status"))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

func lockedError(dataDir string) error {
	return fmt.Errorf("%w: %s is held by a running engine; use its HTTP API (robustream sql/report against it) or stop it first", ErrLocked, dataDir)
}

func (e *chdbEngine) Kind() string { return "chdb" }

func (e *chdbEngine) ServerVersion(ctx context.Context) (string, error) {
	if e.closed.Load() {
		return "", errClosed("chdb")
	}
	return e.inst.version, nil
}

func (e *chdbEngine) SupportsDedup() bool {
	return schemas.CompareVersions(e.inst.version, dedupMinVersion) >= 0
}

// do runs fn with the connection to itself. chDB cannot interrupt a running
// statement, so the context is honoured only until the statement starts.
func (e *chdbEngine) do(ctx context.Context, fn func(c *chdbConn) error) error {
	if e.closed.Load() {
		return errClosed("chdb")
	}
	select {
	case e.inst.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-e.inst.turn }()
	if e.inst.shut {
		return errClosed("chdb")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// A write that found no space comes back as a ClickHouse exception
	// (NOT_ENOUGH_SPACE, or errno 28 in text): say "disk full" and where.
	where := "chDB's temporary storage"
	if e.inst.dataDir != "" {
		where = filepath.Join(e.inst.dataDir, "clickhouse")
	}
	return streams.DiskFull(fn(e.inst.conn), where)
}

func (e *chdbEngine) Exec(ctx context.Context, query string) error {
	return e.do(ctx, func(c *chdbConn) error {
		_, err := c.query(query, "TabSeparated")
		return err
	})
}

func (e *chdbEngine) Query(ctx context.Context, query, format string) ([]byte, error) {
	if format == "" {
		format = "TabSeparated"
	}
	var out []byte
	err := e.do(ctx, func(c *chdbConn) error {
		var err error
		out, err = c.query(query, format)
		return err
	})
	return out, err
}

// InsertArrow hands rec to chDB through the Arrow C stream interface and
// inserts it with INSERT … SELECT FROM arrowstream(): no serialization, and
// the only path that scales (inline ArrowStream data in the query text
// failed for a 17 MB batch; docs/architecture.md, Embedded and cluster modes).
func (e *chdbEngine) InsertArrow(ctx context.Context, table string, rec arrow.Record, dedupToken string) error {
	if rec.NumRows() == 0 {
		return nil
	}
	name := fmt.Sprintf("rs_insert_%d", e.inst.seq.Add(1))
	cols := columnList(rec.Schema())
	var settings string
	if dedupToken != "" && e.SupportsDedup() {
		// The token makes a retried block a no-op in the raw table; the
		// second setting carries that to the views' target tables, which
		// need their own deduplication window (see the min-22.2 DDL).
		settings = " SETTINGS insert_deduplicate = 1, insert_deduplication_token = " + quoteString(dedupToken) +
			", deduplicate_blocks_in_dependent_materialized_views = 1"
	}
	q := fmt.Sprintf("INSERT INTO %s.%s %s%s SELECT %s FROM arrowstream(%s)",
		Database, quoteIdent(table), cols, settings, strings.Trim(cols, "()"), quoteString(name))
	return e.do(ctx, func(c *chdbConn) error {
		return c.withArrow(name, rec, func() error {
			if _, err := c.query(q, "TabSeparated"); err != nil {
				return fmt.Errorf("cannot insert into %s: %w", table, err)
			}
			return nil
		})
	})
}

func (e *chdbEngine) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	chdbMu.Lock()
	defer chdbMu.Unlock()
	inst := e.inst
	inst.refs--
	if inst.refs > 0 {
		return nil
	}
	// Wait for a statement in flight, then shut the engine down; anything
	// still queued for a turn finds it shut.
	inst.turn <- struct{}{}
	inst.conn.close()
	inst.shut = true
	<-inst.turn
	chdbShared = nil
	return nil
}
