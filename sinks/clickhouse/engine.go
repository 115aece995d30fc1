package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// Database is the ClickHouse database robustream owns (docs/architecture.md,
// ClickHouse schema).
const Database = "robustream"

// Engine is a ClickHouse that robustream can migrate, query and insert into:
// embedded chDB or a server. Implementations are safe for concurrent use.
type Engine interface {
	// Kind is "chdb" or "server".
	Kind() string
	// ServerVersion is the engine's ClickHouse version, e.g. "26.5.1.1".
	ServerVersion(ctx context.Context) (string, error)
	// Exec runs a statement that returns no rows (DDL, INSERT … SELECT).
	Exec(ctx context.Context, query string) error
	// Query runs query and returns its output rendered in a ClickHouse
	// output format; "" means TabSeparated.
	Query(ctx context.Context, query, format string) ([]byte, error)
	// InsertArrow inserts rec into robustream.<table>, naming rec's columns
	// explicitly. A non-empty dedupToken makes a retried insert of the same
	// block a no-op where SupportsDedup reports true; elsewhere it is ignored.
	InsertArrow(ctx context.Context, table string, rec arrow.Record, dedupToken string) error
	// SupportsDedup reports whether the engine has insert_deduplication_token
	// and non_replicated_deduplication_window (ClickHouse ≥ 22.2), so that
	// retried inserts are exactly-once rather than at-least-once.
	SupportsDedup() bool
	// ReadOnly opens a path for untrusted, read-only SQL within lim (see
	// Reader). Call it after Migrate.
	ReadOnly(ctx context.Context, lim Limits) (Reader, error)
	// Close releases the engine. For chDB the process-wide connection closes
	// when its last user closes it.
	Close() error
}

// Config selects and configures an engine.
type Config struct {
	// URL is "" for embedded chDB, or clickhouse://user:pass@host:port/db for
	// a server spoken to over the native protocol (clickhouse-go/v2 DSN
	// syntax, so settings such as ?dial_timeout=5s pass through).
	URL string
	// DataDir is where chDB stores its data, under <DataDir>/clickhouse.
	// Empty means chDB's in-memory mode: nothing survives the process.
	DataDir string
	// LibPath is libchdb.so. Empty means $ROBUSTREAM_CHDB_LIB, else
	// .chdb/lib/libchdb.so next to the binary or in the repository it runs
	// from (searched upwards), else ./.chdb/lib/libchdb.so.
	LibPath string
}

// ErrLocked is returned by Open when another process holds the chDB data
// directory. chDB allows one process per directory; reach a running engine
// through its HTTP API instead.
var ErrLocked = errors.New("the data directory is in use by another robustream process")

// ErrNoChDB is returned by Open when embedded mode is requested but
// libchdb.so cannot be found or loaded.
var ErrNoChDB = errors.New("chDB is not available")

// Open connects to the engine cfg selects.
func Open(ctx context.Context, cfg Config) (Engine, error) {
	if cfg.URL == "" {
		return openChDB(ctx, cfg)
	}
	return openServer(ctx, cfg)
}

// queryError is an error reported by the engine for a statement.
type queryError struct{ msg string }

func (e *queryError) Error() string { return e.msg }

// dedupMinVersion is the first ClickHouse with non_replicated_deduplication_window.
const dedupMinVersion = "22.2"

// quoteString renders s as a ClickHouse string literal.
func quoteString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// quoteIdent renders name as a ClickHouse identifier.
func quoteIdent(name string) string {
	return "`" + strings.ReplaceAll(strings.ReplaceAll(name, `\`, `\\`), "`", "\\`") + "`"
}

// columnList is "(`a`, `b`)" for rec's columns: always named, since
// clickhouse-go batches against 18.16 fail without a column list.
func columnList(schema *arrow.Schema) string {
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = quoteIdent(f.Name)
	}
	return "(" + strings.Join(names, ", ") + ")"
}

func errClosed(kind string) error { return fmt.Errorf("%s engine is closed", kind) }
