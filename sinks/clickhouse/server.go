package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/robustream/robustream/schemas"
)

// serverEngine speaks to a clickhouse-server over the native protocol with
// clickhouse-go/v2. Checked against Debian's 18.16: handshake, ServerVersion,
// per-query settings, column-wise batches with a column list, DateTime,
// Enum8 and Array columns all work there.
type serverEngine struct {
	conn    driver.Conn
	version string
	dedup   bool
}

// errUnknownDatabase is ClickHouse's UNKNOWN_DATABASE code.
const errUnknownDatabase = 81

func openServer(ctx context.Context, cfg Config) (Engine, error) {
	opts, err := ch.ParseDSN(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("invalid ClickHouse URL: %w", err)
	}
	if opts.Protocol != ch.Native {
		return nil, fmt.Errorf("invalid ClickHouse URL: want clickhouse://host:port (native protocol)")
	}
	conn, err := dial(ctx, opts)
	var ex *ch.Exception
	if errors.As(err, &ex) && ex.Code == errUnknownDatabase {
		// The URL may name robustream before `migrate` created it; every
		// statement we send is qualified, so the default database does.
		opts.Auth.Database = ""
		conn, err = dial(ctx, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot connect to ClickHouse at %s: %w", strings.Join(opts.Addr, ","), err)
	}
	e := &serverEngine{conn: conn}
	// SELECT version() rather than the handshake's ServerVersion: it is the
	// same on every engine and carries all four parts.
	var v string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&v); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot read server version: %w", err)
	}
	e.version = v
	e.dedup = schemas.CompareVersions(v, dedupMinVersion) >= 0
	return e, nil
}

func dial(ctx context.Context, opts *ch.Options) (driver.Conn, error) {
	conn, err := ch.Open(opts)
	if err != nil {
		return nil, err
	}
	if err := conn.Ping(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func (e *serverEngine) Kind() string { return "server" }

func (e *serverEngine) ServerVersion(ctx context.Context) (string, error) {
	return e.version, nil
}

func (e *serverEngine) SupportsDedup() bool { return e.dedup }

func (e *serverEngine) Exec(ctx context.Context, query string) error {
	return e.conn.Exec(ctx, query)
}

// Query renders the result on the client: the native protocol carries
// typed columns, not formatted text (clickhouse-go's QueryFormat is
// HTTP-only). See format.go for the supported formats.
func (e *serverEngine) Query(ctx context.Context, query, format string) ([]byte, error) {
	w, err := newRowWriter(format)
	if err != nil {
		return nil, err
	}
	rows, err := e.conn.Query(ctx, query)
	if err == io.EOF {
		// clickhouse-go returns a bare io.EOF (never wrapped) when the
		// server ends the stream before any data block: a statement
		// without a result set, such as DROP DATABASE, that succeeded. A
		// lost connection comes back wrapped, so it is not mistaken for this.
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return w.render(rows)
}

// InsertArrow appends rec column by column to a native batch. The column
// list is always spelled out: 18.16 rejects clickhouse-go batches without
// one. On servers with deduplication the token goes in as query settings.
func (e *serverEngine) InsertArrow(ctx context.Context, table string, rec arrow.Record, dedupToken string) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if dedupToken != "" && e.dedup {
		ctx = ch.Context(ctx, ch.WithSettings(ch.Settings{
			"insert_deduplicate":                                 1,
			"insert_deduplication_token":                         dedupToken,
			"deduplicate_blocks_in_dependent_materialized_views": 1,
		}))
	}
	q := fmt.Sprintf("INSERT INTO %s.%s %s", Database, quoteIdent(table), columnList(rec.Schema()))
	batch, err := e.conn.PrepareBatch(ctx, q)
	if err != nil {
		return fmt.Errorf("cannot prepare insert into %s: %w", table, err)
	}
	defer batch.Close()
	for i, col := range rec.Columns() {
		vals, err := goColumn(col)
		if err != nil {
			return fmt.Errorf("column %s: %w", rec.ColumnName(i), err)
		}
		if err := batch.Column(i).Append(vals); err != nil {
			return fmt.Errorf("column %s: %w", rec.ColumnName(i), err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("cannot insert into %s: %w", table, err)
	}
	return nil
}

// goColumn converts an Arrow column into the slice clickhouse-go appends
// column-wise. It covers the types schemas.Table produces.
func goColumn(a arrow.Array) (any, error) {
	if a.NullN() > 0 {
		return nil, errors.New("null values are not supported")
	}
	switch a := a.(type) {
	case *array.String:
		out := make([]string, a.Len())
		for i := range out {
			out[i] = a.Value(i)
		}
		return out, nil
	case *array.Uint8:
		return append([]uint8(nil), a.Uint8Values()...), nil
	case *array.Uint16:
		return append([]uint16(nil), a.Uint16Values()...), nil
	case *array.Uint32:
		return append([]uint32(nil), a.Uint32Values()...), nil
	case *array.Uint64:
		return append([]uint64(nil), a.Uint64Values()...), nil
	case *array.Int32:
		return append([]int32(nil), a.Int32Values()...), nil
	case *array.Int64:
		return append([]int64(nil), a.Int64Values()...), nil
	case *array.Float64:
		return append([]float64(nil), a.Float64Values()...), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		out := make([]time.Time, a.Len())
		for i := range out {
			out[i] = a.Value(i).ToTime(unit)
		}
		return out, nil
	case *array.List:
		switch vals := a.ListValues().(type) {
		case *array.String:
			out := make([][]string, a.Len())
			for i := range out {
				start, end := a.ValueOffsets(i)
				row := make([]string, 0, end-start)
				for j := start; j < end; j++ {
					row = append(row, vals.Value(int(j)))
				}
				out[i] = row
			}
			return out, nil
		case *array.Float64:
			out := make([][]float64, a.Len())
			for i := range out {
				start, end := a.ValueOffsets(i)
				out[i] = append([]float64{}, vals.Float64Values()[start:end]...)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("arrow type %s is not supported", a.DataType())
}

func (e *serverEngine) Close() error { return e.conn.Close() }

// explainASTMinVersion is the first ClickHouse with EXPLAIN AST.
const explainASTMinVersion = "20.6"

// serverReader is the read-only path on a server: the limits and readonly=1
// go with every query as settings, and clickhouse-go cancels the query on
// the server when the context ends. Servers with EXPLAIN AST get the same
// guard as chDB; older ones (Debian's 18.16) rely on readonly=1, which there
// also forbids every table function, and on the server's own user grants: a
// server deployment should give the SQL API a read-only ClickHouse user.
type serverReader struct {
	e     *serverEngine
	lim   Limits
	turn  chan struct{}
	guard bool
}

func (e *serverEngine) ReadOnly(_ context.Context, lim Limits) (Reader, error) {
	lim = lim.withDefaults()
	return &serverReader{e: e, lim: lim, turn: make(chan struct{}, lim.Concurrency),
		guard: schemas.CompareVersions(e.version, explainASTMinVersion) >= 0}, nil
}

func (r *serverReader) Query(ctx context.Context, query, format string) ([]byte, error) {
	format, err := checkFormat(format)
	if err != nil {
		return nil, err
	}
	// Before anything is sent: exactly one statement (a server refuses a
	// second one on the native protocol, but that is its rule, not ours).
	query, toks, err := singleStatement(query)
	if err != nil {
		return nil, err
	}
	select {
	case r.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("no free read-only turn: %w", ctx.Err())
	}
	defer func() { <-r.turn }()
	// Integers only: servers before 20.x take settings as varints, and
	// clickhouse-go refuses strings for them. The overflow modes are left at
	// their default, 'throw'.
	settings := ch.Settings{
		"max_execution_time": int(math.Ceil(r.lim.Timeout.Seconds())),
		"max_memory_usage":   int(r.lim.MaxMemoryBytes),
		"max_result_rows":    int(r.lim.MaxResultRows),
		"max_result_bytes":   int(r.lim.MaxResultBytes),
		"max_threads":        r.lim.MaxThreads,
		"readonly":           1,
	}
	ctx = ch.Context(ctx, ch.WithSettings(settings))
	if !r.guard {
		// Without the parser's view, at least the statement kind: 18.16
		// runs KILL QUERY and USE under readonly=1.
		if kw := firstKeyword(query); !slices.Contains(readKeywords, kw) {
			return nil, refused("only SELECT, WITH, DESCRIBE, SHOW, EXISTS and EXPLAIN statements are allowed (got %q)", kw)
		}
		if err := checkSystemTokens(toks); err != nil {
			return nil, err
		}
	} else {
		ast, err := r.e.Query(ctx, "EXPLAIN AST "+query, "TabSeparatedRaw")
		if err != nil {
			return nil, err
		}
		if err := checkAST(string(ast), r.lim.Databases); err != nil {
			return nil, err
		}
	}
	return r.e.Query(ctx, query, format)
}

func (r *serverReader) Close() error { return nil }

// readKeywords start the statements the read-only path runs.
var readKeywords = []string{"SELECT", "WITH", "DESCRIBE", "DESC", "SHOW", "EXISTS", "EXPLAIN"}

// firstKeyword returns the first word of query in upper case, past
// whitespace, comments and opening parentheses.
func firstKeyword(q string) string {
	for {
		q = strings.TrimLeft(q, " \t\r\n(")
		switch {
		case strings.HasPrefix(q, "--") || strings.HasPrefix(q, "#"):
			_, rest, ok := strings.Cut(q, "\n")
			if !ok {
				return ""
			}
			q = rest
		case strings.HasPrefix(q, "/*"):
			_, rest, ok := strings.Cut(q[2:], "*/")
			if !ok {
				return ""
			}
			q = rest
		default:
			end := strings.IndexFunc(q, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_')
			})
			if end < 0 {
				end = len(q)
			}
			return strings.ToUpper(q[:end])
		}
	}
}

// checkSystemTokens applies the system-table allow-list where no parse is
// at hand (servers before EXPLAIN AST), on the statement's tokens: every
// `system . name` must name an allowed table, and when one with path
// columns is read, no token may be '*' or a path column's name. Stricter
// than the parse-based check (a '*' that multiplies is refused too), never
// looser: comments and quotes are already resolved by the lexer.
func checkSystemTokens(toks []sqlToken) error {
	var pathCols []string
	for i := 0; i+2 < len(toks); i++ {
		name := toks[i]
		if (name.kind == tokWord || name.kind == tokQuoted) && isSystemDB(name.text) &&
			toks[i+1].kind == tokPunct && toks[i+1].text == "." && (toks[i+2].kind == tokWord || toks[i+2].kind == tokQuoted) {
			cols, err := systemTable(toks[i+2].text)
			if err != nil {
				return err
			}
			pathCols = append(pathCols, cols...)
		}
	}
	if len(pathCols) == 0 {
		return nil
	}
	for _, t := range toks {
		if t.kind == tokPunct && t.text == "*" {
			return refused("name the columns you read from system tables ('*' would include paths)")
		}
		if (t.kind == tokWord || t.kind == tokQuoted) && pathColumn(t.text, pathCols) {
			return refused("the columns %s are not readable through the SQL API", strings.Join(pathCols, ", "))
		}
	}
	return nil
}
