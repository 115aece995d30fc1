package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// openReader opens the read-only path of e with small limits.
func openReader(t *testing.T, e Engine, lim Limits) Reader {
	t.Helper()
	r, err := e.ReadOnly(context.Background(), lim)
	if err != nil {
		t.Fatalf("ReadOnly: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// guarded reports whether the engine runs the EXPLAIN AST guard (chDB and
// servers ≥ 20.6); Debian's 18.16 relies on readonly=1 alone.
func guarded(e Engine) bool {
	v, _ := e.ServerVersion(context.Background())
	return e.Kind() == "chdb" || strings.HasPrefix(v, "2") && !strings.HasPrefix(v, "20.1")
}

// listener accepts connections and counts them: the probes of the network
// table functions point at it, so an outbound connection would show.
func listener(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String(), &n
}

// TestReadOnlyRefuses: every probe of the SQL endpoint findings is refused,
// and none of them has an effect: no file written or read, no outbound
// connection, no table changed.
func TestReadOnlyRefuses(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		r := openReader(t, e, Limits{})
		if err := e.Exec(ctx, "INSERT INTO robustream.documents (doc_id, version, text) SELECT 'd1', 1, 'secret-free'"); err != nil {
			t.Fatal(err)
		}
		victim := filepath.Join(t.TempDir(), "victim.txt")
		secretFile := filepath.Join(t.TempDir(), "secret.txt")
		if err := os.WriteFile(secretFile, []byte("TOPSECRET-1234\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("ROBUSTREAM_TEST_SECRET", "TOPSECRET-1234")
		addr, conns := listener(t)

		probes := []string{
			// Files written.
			fmt.Sprintf("SELECT 'x' INTO OUTFILE '%s' TRUNCATE FORMAT LineAsString", victim),
			fmt.Sprintf("SELECT 'x' INTO OUTFILE '%s'", victim),
			fmt.Sprintf("EXPLAIN SELECT 1 INTO OUTFILE '%s'", victim),
			fmt.Sprintf("DESCRIBE TABLE robustream.documents INTO OUTFILE '%s'", victim),
			fmt.Sprintf("SHOW TABLES INTO OUTFILE '%s'", victim),
			fmt.Sprintf("EXISTS TABLE robustream.documents INTO OUTFILE '%s'", victim),
			fmt.Sprintf("SELECT 1 UNION ALL SELECT 2 INTO OUTFILE '%s'", victim),
			fmt.Sprintf("SELECT 1 EXCEPT SELECT 2 INTO OUTFILE '%s'", victim),
			// Files read.
			fmt.Sprintf("SELECT * FROM file('%s', 'RawBLOB')", secretFile),
			"SELECT * FROM file('/proc/self/environ', 'RawBLOB')",
			fmt.Sprintf("SELECT file('%s')", secretFile),
			fmt.Sprintf("SELECT * FROM (SELECT * FROM file('%s', 'RawBLOB') SETTINGS readonly = 0)", secretFile),
			fmt.Sprintf("SELECT * FROM default.`%s`", secretFile),
			fmt.Sprintf("SELECT 1 WHERE 'TOPSECRET-1234' IN default.`%s`", secretFile),
			fmt.Sprintf("DESCRIBE TABLE file('%s', 'CSV')", secretFile),
			// The network (SSRF).
			fmt.Sprintf("SELECT * FROM url('http://%s/x', 'CSV', 'a String')", addr),
			fmt.Sprintf("SELECT * FROM s3('http://%s/b/k.csv', 'CSV', 'a String')", addr),
			fmt.Sprintf("SELECT * FROM mysql('%s', 'db', 't', 'u', 'p')", addr),
			fmt.Sprintf("SELECT * FROM postgresql('%s', 'db', 't', 'u', 'p')", addr),
			fmt.Sprintf("SELECT * FROM remote('%s', system.one)", addr),
			// Processes, other objects.
			"SELECT * FROM executable('id', 'TSV', 'a String')",
			"SELECT * FROM merge('default', '.*')",
			"SELECT joinGet('default.j', 'v', 1)",
			"SELECT dictGet('d', 'x', toUInt64(1))",
			// Writes, DDL, session changes.
			"INSERT INTO robustream.documents (doc_id, version) VALUES ('evil', 1)",
			"DROP TABLE robustream.documents",
			"TRUNCATE TABLE robustream.documents",
			"ALTER TABLE robustream.documents DELETE WHERE 1",
			"CREATE TABLE robustream.evil (a UInt8) ENGINE = Memory",
			"SET readonly = 0",
			"USE default",
			"SYSTEM FLUSH LOGS",
			"KILL QUERY WHERE 1",
			"SELECT 1; DROP TABLE robustream.documents",
			"KILL QUERY WHERE 1 ASYNC",
			"KILL MUTATION WHERE 1",
			"SYSTEM STOP MERGES",
			"SET allow_introspection_functions = 1",
			"USE system",
			"SELECT 1 SETTINGS max_memory_usage = 0",
			"SHOW TABLES FROM default",
			"OPTIMIZE TABLE robustream.documents FINAL",
		}
		// Multi-statement text in many spellings: the second statement
		// would read the secret or write the victim file.
		var multi []string
		for _, tail := range []string{
			fmt.Sprintf("SELECT file('%s')", secretFile),
			fmt.Sprintf("SELECT 'x' INTO OUTFILE '%s'", victim),
			"INSERT INTO robustream.documents (doc_id, version) VALUES ('evil', 1)",
			"KILL QUERY WHERE 1",
		} {
			for _, sep := range []string{";", " ; ", ";\n", "\t;\t", " -- c\n;", " /* ; */ ;", "; -- c\n", ";/**/", "\r\n;\r\n"} {
				multi = append(multi, "SELECT 1"+sep+tail)
			}
			multi = append(multi, "SELECT ';'; "+tail, "SELECT 1 /* x */;"+tail+";", "SELECT `a;`;"+tail, "SELECT 1 -- ;\n;"+tail)
		}
		for _, q := range multi {
			// Refused before any engine sees the text, with the fixed
			// message, whatever the engine.
			if out, err := r.Query(ctx, q, ""); err != errMultiStatement {
				t.Errorf("%q: %q, %v; want the multi-statement refusal", q, out, err)
			}
		}
		for _, q := range probes {
			out, err := r.Query(ctx, q, "")
			if err == nil && !guarded(e) && (strings.Contains(q, "INTO OUTFILE") || strings.Contains(q, "SHOW TABLES")) {
				// Without the guard (18.16): the server ignores INTO OUTFILE,
				// a clause for clients (the file checks below prove no file
				// appears), and SHOW TABLES lists names only.
				continue
			}
			if err == nil {
				t.Errorf("%s: ran (output %q), want refused", q, out)
				continue
			}
			if guarded(e) && !errors.Is(err, ErrRefused) && !strings.Contains(err.Error(), "READONLY") &&
				!strings.Contains(err.Error(), "SYNTAX_ERROR") && !strings.Contains(err.Error(), "Syntax error") {
				t.Errorf("%s: %v, want a refusal", q, err)
			}
			if strings.Contains(err.Error(), "TOPSECRET") {
				t.Errorf("%s: the error leaks the secret: %v", q, err)
			}
		}
		if _, err := os.Stat(victim); !os.IsNotExist(err) {
			t.Errorf("%s was created", victim)
		}
		if n := conns.Load(); n != 0 {
			t.Errorf("%d outbound connection(s) opened", n)
		}
		if got := scalar(t, e, "SELECT count() FROM robustream.documents"); got != "1" {
			t.Errorf("documents: %s rows after the probes, want 1", got)
		}
	})
}

// TestReadOnlySystemTables: system tables by allow-list, in every
// spelling; the allowed ones without their path columns.
func TestReadOnlySystemTables(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		r := openReader(t, e, Limits{})
		if err := e.Exec(ctx, "INSERT INTO robustream.documents (doc_id, version, text) SELECT 'd1', 1, 'a'"); err != nil {
			t.Fatal(err) // a part for system.parts
		}
		refusedQ := []string{
			"SELECT thread_id, length(trace) FROM system.stack_trace LIMIT 3",
			"SELECT * FROM system.models",
			"SELECT name FROM system.models",
			"SELECT query FROM system.processes",
			"SELECT query FROM system.query_log",
			"SELECT * FROM system.dictionaries",
			"SELECT name, path FROM system.disks",
			"SELECT * FROM system.settings",
			"SELECT * FROM system.zookeeper WHERE path = '/'",
			"SELECT query FROM `system`.`processes`",
			"SELECT query FROM \"system\".\"processes\"",
			"SELECT query FROM SYSTEM.PROCESSES",
			"SELECT query FROM system . /* c */ processes",
			"SELECT 1 WHERE 'x' IN system.processes",
			"SELECT count() FROM (SELECT * FROM system.query_log)",
			"SELECT count() FROM robustream.outcomes AS o JOIN system.processes AS p ON 1",
			"DESCRIBE (SELECT query FROM system.processes)",
			"EXPLAIN SELECT * FROM system.stack_trace",
			"SELECT * FROM merge('system', '^proc')",
			// Path columns of the allowed tables.
			"SELECT * FROM system.tables",
			"SELECT metadata_path FROM system.tables",
			"SELECT data_paths FROM system.tables",
			"SELECT t.metadata_path FROM system.tables AS t",
			"SELECT name FROM system.databases WHERE data_path != ''",
			"SELECT path FROM system.parts",
			"SELECT t.* FROM system.tables AS t",
			"WITH x AS (SELECT metadata_path AS m FROM system.tables) SELECT m FROM x",
		}
		if guarded(e) {
			refusedQ = append(refusedQ,
				"SELECT COLUMNS('path') FROM system.tables",
				"SELECT * EXCEPT (name) FROM system.databases",
				"SELECT demangle('x')",
				"SELECT addressToLine(toUInt64(0))",
				"SELECT addressToSymbol(toUInt64(0))")
		}
		for _, q := range refusedQ {
			out, err := r.Query(ctx, q, "")
			if err == nil {
				t.Errorf("%s: ran (%.200q), want refused", q, out)
			} else if (guarded(e) || !strings.Contains(q, "merge(")) && !errors.Is(err, ErrRefused) {
				t.Errorf("%s: %v, want a refusal", q, err)
			}
		}
		// The allowed ones work and show no path.
		dir := ""
		if c, ok := e.(*chdbEngine); ok {
			dir = c.inst.dataDir
		}
		for _, q := range []string{
			"SELECT database, name, engine FROM system.tables WHERE database = 'robustream' ORDER BY name",
			"SELECT * FROM system.columns WHERE database = 'robustream' AND table = 'outcomes'",
			"SELECT name, engine FROM system.databases",
			"SELECT database, table, name, rows FROM system.parts",
			"SELECT count() FROM system.functions WHERE name = 'sum'",
			"SELECT count() FROM system.one",
		} {
			out, err := r.Query(ctx, q, "TabSeparated")
			if err != nil {
				t.Errorf("%s: %v", q, err)
				continue
			}
			if len(out) == 0 {
				t.Errorf("%s: no rows", q)
			}
			if dir != "" && strings.Contains(string(out), dir) || strings.Contains(string(out), "/store/") {
				t.Errorf("%s: shows a path: %.300s", q, out)
			}
		}
		if guarded(e) {
			out, err := r.Query(ctx, "SELECT * FROM information_schema.tables WHERE table_schema = 'robustream'", "")
			if err != nil || !strings.Contains(string(out), "outcomes") || dir != "" && strings.Contains(string(out), dir) {
				t.Errorf("information_schema.tables: %v, %.300s", err, out)
			}
		}
	})
}

// TestReadOnlyAllows: ordinary analytics work on the read-only path.
func TestReadOnlyAllows(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		r := openReader(t, e, Limits{})
		if err := e.Exec(ctx, "INSERT INTO robustream.documents (doc_id, version, text) SELECT concat('d', toString(number + 1)), 1, 'a' FROM system.numbers LIMIT 2"); err != nil {
			t.Fatal(err)
		}
		f := func(q, want string) {
			t.Helper()
			out, err := r.Query(ctx, q, "TabSeparated")
			if err != nil {
				t.Errorf("%s: %v", q, err)
				return
			}
			if got := strings.TrimSpace(string(out)); want != "" && got != want {
				t.Errorf("%s = %q, want %q", q, got, want)
			}
		}
		f("SELECT count() FROM robustream.documents", "2")
		f("SELECT doc_id FROM robustream.documents AS d WHERE d.doc_id IN (SELECT 'd2') ORDER BY doc_id", "d2")
		f("SELECT count() FROM system.tables WHERE database = 'robustream' AND name = 'outcomes'", "1")
		f("EXISTS TABLE robustream.documents", "1")
		f("DESCRIBE TABLE robustream.documents", "")
		if guarded(e) {
			f("SELECT count() FROM documents", "2") // resolves in robustream
			f("WITH x AS (SELECT doc_id FROM robustream.documents) SELECT count() FROM x", "2")
			f("SELECT sum(number) FROM numbers(10)", "45")
			f("SHOW TABLES", "")
			f("EXPLAIN SELECT 1", "")
		}
	})
}

// TestReadOnlyLimits: the memory, result-size and time limits stop a query,
// a query whose caller went away is killed, and a heavy query never holds
// up the pipeline's connection.
func TestReadOnlyLimits(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		r := openReader(t, e, Limits{Timeout: time.Minute, MaxMemoryBytes: 200 << 20, MaxResultBytes: 10 << 20})
		f := func(q, wantErr string) {
			t.Helper()
			_, err := r.Query(ctx, q, "")
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Errorf("%s: err = %v, want %s", q, err, wantErr)
			}
		}
		if !guarded(e) {
			// 18.16 forbids every table function under readonly=1: the
			// generators below are refused before any limit applies.
			f("SELECT length(groupArray(number)) FROM numbers(1000000000)", "readonly")
			return
		}
		f("SELECT length(groupArray(number)) FROM numbers(1000000000)", "MEMORY_LIMIT_EXCEEDED")
		f("SELECT randomString(100) FROM numbers(1000000)", "TOO_MANY_ROWS_OR_BYTES")
		r = openReader(t, e, Limits{Timeout: time.Second})
		f("SELECT count() FROM numbers_mt(1000000000000) WHERE sipHash64(number) % 7 = 1", "TIMEOUT_EXCEEDED")
	})
}

// TestReadOnlyCancelAndIsolation (chDB): a query whose caller went away is
// killed, not left running; and while a heavy query runs on the read-only
// path, the pipeline's connection answers and inserts.
func TestReadOnlyCancelAndIsolation(t *testing.T) {
	e := sharedChDB(t)
	resetDatabase(t, e)
	r := openReader(t, e, Limits{Timeout: time.Minute})
	heavy := "SELECT count() FROM numbers_mt(1000000000000) WHERE sipHash64(number) % 7 = 1"
	running := func() string {
		return scalar(t, e, "SELECT count() FROM system.processes WHERE query LIKE '%robustream-sql%' AND query NOT LIKE '%system.processes%'")
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := r.Query(ctx, heavy, ""); done <- err }()
	deadline := time.Now().Add(30 * time.Second)
	for running() != "1" {
		if time.Now().After(deadline) {
			t.Fatal("the heavy query never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The pipeline's connection is not behind it.
	if err := e.Exec(context.Background(), "INSERT INTO robustream.documents (doc_id, version) SELECT 'during', 1"); err != nil {
		t.Fatal(err)
	}
	if got := scalar(t, e, "SELECT count() FROM robustream.documents WHERE doc_id = 'during'"); got != "1" {
		t.Fatalf("insert during the heavy query: %s rows", got)
	}
	if running() != "1" {
		t.Fatal("the heavy query ended before the pipeline's statements: they may have waited for it")
	}
	cancel() // the client goes away
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled query: %v", err)
	}
	if n := running(); n != "0" {
		t.Fatalf("%s read-only queries still running after their caller went away:\n%s", n,
			scalar(t, e, "SELECT query_id, elapsed, is_cancelled, query FROM system.processes"))
	}
	// And it uses no CPU any more (it used a core while it ran).
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	time.Sleep(time.Second)
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if busy := time.Duration(after.Utime.Nano() - before.Utime.Nano()); busy > 500*time.Millisecond {
		t.Fatalf("the process used %s of CPU in the second after the kill: the query still runs", busy)
	}
	// The connection is usable again.
	if out, err := r.Query(context.Background(), "SELECT 42", ""); err != nil || strings.TrimSpace(string(out)) != "42" {
		t.Fatalf("after a kill: %q, %v", out, err)
	}
}

// TestCheckAST covers the guard on EXPLAIN AST dumps (as chDB 26.5 prints
// them), including shapes the engine tests do not reach.
func TestCheckAST(t *testing.T) {
	dbs := []string{"robustream", "system"}
	f := func(dump string, wantRefused bool) {
		t.Helper()
		err := checkAST(dump, dbs)
		if (err != nil) != wantRefused {
			t.Errorf("checkAST(%q) = %v, want refused %v", dump, err, wantRefused)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("checkAST(%q) = %v, not ErrRefused", dump, err)
		}
	}
	f("SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 1)\n   ExpressionList (children 1)\n    Literal UInt64_1\n", false)
	// INTO OUTFILE is a literal child of the root.
	f("SelectWithUnionQuery (children 2)\n ExpressionList (children 1)\n  SelectQuery (children 1)\n   ExpressionList (children 1)\n    Literal UInt64_1\n Literal '/tmp/x'\n", true)
	f("SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 2)\n   ExpressionList (children 1)\n    Asterisk\n   TablesInSelectQuery (children 1)\n    TablesInSelectQueryElement (children 1)\n     TableExpression (children 1)\n      TableIdentifier default.a.b (alias x)\n", true)
	f("SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 2)\n   ExpressionList (children 1)\n    Asterisk\n   TablesInSelectQuery (children 1)\n    TablesInSelectQueryElement (children 1)\n     TableExpression (children 1)\n      TableIdentifier robustream.outcomes (alias o)\n", false)
	f("SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 2)\n   ExpressionList (children 1)\n    Literal UInt64_1\n   Function in (children 1)\n    ExpressionList (children 2)\n     Literal 'vm'\n     Identifier default./etc/hostname\n", true)
	f("ShowTables (children 1)\n Identifier default\n", true)
	f("ShowTables (children 1)\n Identifier robustream\n", false)
	f("ShowTables\n", false)
	f("ExistsTableQuery default t (children 2)\n Identifier default\n Identifier t\n", true)
	f("ExistsTableQuery t (children 1)\n Identifier t\n", false)
	f("UseQuery default (children 1)\n Identifier default\n", true)
	f("Set\n", true)
	f("Explain EXPLAIN (children 1)\n SelectWithUnionQuery (children 1)\n  ExpressionList (children 1)\n   SelectQuery (children 2)\n    ExpressionList (children 1)\n     Literal UInt64_1\n    TablesInSelectQuery (children 1)\n     TablesInSelectQueryElement (children 1)\n      TableExpression (children 1)\n       Function file (children 1)\n        ExpressionList (children 1)\n         Literal 'x'\n", true)
	f("garbage\n  deeper than its parent\n", true)
	// INTO OUTFILE and FORMAT on each kind of root.
	f("Explain EXPLAIN (children 2)\n SelectWithUnionQuery (children 1)\n  ExpressionList (children 1)\n   SelectQuery (children 1)\n    ExpressionList (children 1)\n     Literal UInt64_1\n Literal '/tmp/x'\n", true)
	f("Explain EXPLAIN (children 2)\n SelectWithUnionQuery (children 1)\n  ExpressionList (children 1)\n   SelectQuery (children 1)\n    ExpressionList (children 1)\n     Literal UInt64_1\n Identifier JSON\n", true)
	f("DescribeQuery (children 2)\n TableExpression (children 1)\n  TableIdentifier robustream.documents\n Literal '/tmp/x'\n", true)
	f("ShowTables (children 1)\n Literal '/tmp/x'\n", true)
	f("ExistsTableQuery robustream documents (children 3)\n Identifier robustream\n Identifier documents\n Literal '/tmp/x'\n", true)
	f("ShowCreateTableQuery robustream documents (children 3)\n Identifier robustream\n Identifier documents\n Identifier JSON\n", true)
	f("ShowCreateTableQuery robustream documents (children 2)\n Identifier robustream\n Identifier documents\n", false)
	// Two roots: a second statement's output never comes back in the refusal.
	two := "SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 1)\n   ExpressionList (children 1)\n    Literal UInt64_1\nhost-name-leaked\n"
	if err := checkAST(two, dbs); err == nil || strings.Contains(err.Error(), "host-name-leaked") {
		t.Errorf("two roots: %v, want a refusal that quotes nothing", err)
	}
	sys := func(table, col string) string {
		return "SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 2)\n   ExpressionList (children 1)\n    " + col +
			"\n   TablesInSelectQuery (children 1)\n    TablesInSelectQueryElement (children 1)\n     TableExpression (children 1)\n      TableIdentifier " + table + "\n"
	}
	f(sys("system.stack_trace", "Identifier thread_id"), true)
	f(sys("SYSTEM.processes", "Identifier query"), true)
	f(sys("system.tables", "Identifier name"), false)
	f(sys("system.tables", "Identifier t.metadata_path"), true)
	f(sys("system.tables", "Asterisk"), true)
	f(sys("system.tables", "QualifiedAsterisk (children 1)\n     Identifier t"), true)
	f(sys("system.tables", "ColumnsRegexpMatcher"), true)
	f(sys("system.columns", "Asterisk"), false)
	f("KillQueryQuery Literal_UInt64_1 ASYNC (children 1)\n Literal UInt64_1\n", true)
	f("SYSTEM query\n", true)
	f("Explain EXPLAIN (children 1)\n Explain EXPLAIN AST (children 1)\n  SelectWithUnionQuery (children 1)\n   ExpressionList (children 1)\n    SelectQuery (children 1)\n     ExpressionList (children 1)\n      Literal UInt64_1\n", true)
}

func TestFirstKeyword(t *testing.T) {
	f := func(q, want string) {
		t.Helper()
		if got := firstKeyword(q); got != want {
			t.Errorf("firstKeyword(%q) = %q, want %q", q, got, want)
		}
	}
	f("select 1", "SELECT")
	f("  -- c\n /* d */ (SELECT 1)", "SELECT")
	f("/* unterminated", "")
	f("KILL QUERY WHERE 1", "KILL")
	f("use default", "USE")
	f("# hash comment\nWITH x AS (SELECT 1) SELECT * FROM x", "WITH")
}
