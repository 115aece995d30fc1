package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
)

// The conformance suite runs every test against each available engine:
// embedded chDB (always, unless libchdb.so is missing) and a real
// clickhouse-server when ROBUSTREAM_TEST_CLICKHOUSE names one
// (scripts/clickhouse-test-server.sh start prints such a URL).
//
// chDB allows one engine per process, so the test binary opens it once, on
// a temp dir, and each test starts from a freshly migrated database.

var chdbFixture struct {
	once sync.Once
	e    Engine
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chdbFixture.e != nil {
		chdbFixture.e.Close()
	}
	if chdbFixture.dir != "" {
		os.RemoveAll(chdbFixture.dir)
	}
	os.Exit(code)
}

func sharedChDB(tb testing.TB) Engine {
	tb.Helper()
	f := &chdbFixture
	f.once.Do(func() {
		f.dir, f.err = os.MkdirTemp("", "robustream-chdb-test-")
		if f.err == nil {
			f.e, f.err = Open(context.Background(), Config{DataDir: f.dir})
		}
	})
	if errors.Is(f.err, ErrNoChDB) {
		tb.Skipf("chDB unavailable: %v", f.err)
	}
	if f.err != nil {
		tb.Fatalf("cannot open chDB: %v", f.err)
	}
	return f.e
}

func serverURL() string { return os.Getenv("ROBUSTREAM_TEST_CLICKHOUSE") }

func openServerForTest(tb testing.TB) Engine {
	tb.Helper()
	url := serverURL()
	if url == "" {
		tb.Skip("ROBUSTREAM_TEST_CLICKHOUSE is unset: no clickhouse-server to test against (export ROBUSTREAM_TEST_CLICKHOUSE=$(scripts/clickhouse-test-server.sh start))")
	}
	e, err := Open(context.Background(), Config{URL: url})
	if err != nil {
		tb.Fatalf("cannot open %s: %v", url, err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// forEachEngine runs fn as a subtest per engine, each on a fresh database.
func forEachEngine(t *testing.T, fn func(t *testing.T, e Engine)) {
	t.Helper()
	for _, kind := range []string{"chdb", "server"} {
		t.Run(kind, func(t *testing.T) {
			var e Engine
			if kind == "chdb" {
				e = sharedChDB(t)
			} else {
				e = openServerForTest(t)
			}
			resetDatabase(t, e)
			fn(t, e)
		})
	}
}

// resetDatabase drops robustream and migrates it again: dropping (rather
// than truncating) also forgets the deduplication log, so tests that reuse
// ids and tokens do not see each other.
func resetDatabase(tb testing.TB, e Engine) {
	tb.Helper()
	ctx := context.Background()
	if err := e.Exec(ctx, "DROP DATABASE IF EXISTS "+Database); err != nil {
		tb.Fatalf("drop database: %v", err)
	}
	if err := Migrate(ctx, e, nil); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
}

// scalar runs q and returns its TabSeparated output without the newline.
func scalar(tb testing.TB, e Engine, q string) string {
	tb.Helper()
	out, err := e.Query(context.Background(), q, "")
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	return strings.TrimSuffix(string(out), "\n")
}

func TestMigrateIdempotent(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		// resetDatabase migrated once; again must be a no-op, not an error.
		if err := Migrate(ctx, e, nil); err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		got := strings.Fields(scalar(t, e, "SELECT name FROM system.tables WHERE database = 'robustream' ORDER BY name"))
		// chunk_vectors is written by the retrieve stage, not a sink, so it
		// is no schemas.Tables() row table.
		want := append([]string{"retrieval_hit_rates", "active_questions", "current_outcomes", "model_revisions", "chunk_vectors"}, scoreViews...)
		want = append(want,
			"robustness_5m", "robustness_1h", "robustness_1d",
			"robustness_5m_mv", "robustness_1h_mv", "robustness_1d_mv")
		for _, tb := range schemas.Tables() {
			want = append(want, tb.Name)
		}
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("tables:\n got %v\nwant %v", got, want)
		}
		// The engine's own view of each raw table matches the Arrow rows.
		for _, tb := range schemas.Tables() {
			desc := scalar(t, e, fmt.Sprintf("SELECT name, type FROM system.columns WHERE database = 'robustream' AND table = '%s'", tb.Name))
			var want []string
			for _, c := range tb.Columns {
				// TabSeparated escapes the quotes of Enum8('rare' = 1, …).
				want = append(want, c.Name+"\t"+strings.ReplaceAll(c.Type, "'", `\'`))
			}
			if desc != strings.Join(want, "\n") {
				t.Errorf("%s columns:\n got %q\nwant %q", tb.Name, desc, strings.Join(want, "\n"))
			}
		}
		for _, v := range append([]string{"retrieval_hit_rates", "active_questions", "current_outcomes"}, scoreViews...) {
			if n := scalar(t, e, "SELECT count() FROM robustream."+v); n != "0" {
				t.Errorf("%s on an empty database has %s rows", v, n)
			}
		}
	})
}

func TestServerVersion(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		v, err := e.ServerVersion(context.Background())
		if err != nil || v == "" {
			t.Fatalf("ServerVersion = %q, %v", v, err)
		}
		want := schemas.CompareVersions(v, "22.2") >= 0
		if e.SupportsDedup() != want {
			t.Errorf("version %s: SupportsDedup = %v, want %v", v, e.SupportsDedup(), want)
		}
		if e.Kind() == "chdb" && !e.SupportsDedup() {
			t.Errorf("chDB %s should support deduplication", v)
		}
		t.Logf("%s %s, dedup %v", e.Kind(), v, e.SupportsDedup())
	})
}

// formatQuery covers the value kinds our tables hold, with the escapes
// that differ between formats.
const formatQuery = `SELECT toUInt8(1) AS a, toUInt64(18446744073709551615) AS big, 'x	y\n"q"''s\\' AS s, ['a', 'b''c'] AS arr, [1.5, 2] AS fl, toDateTime('2024-01-02 03:04:05', 'UTC') AS t, toDate('2024-01-02') AS d, CAST('rare' AS Enum8('rare' = 1, 'sure' = 2)) AS e, 0.1 AS f, nan AS n, 1e-7 AS tiny, 123456789.5 AS mid, 1e22 AS huge, -inf AS ninf, toNullable(NULL) AS nul, toInt32(-3) AS neg`

func TestQueryFormats(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		f := func(format, want string) {
			t.Helper()
			got, err := e.Query(context.Background(), formatQuery, format)
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if string(got) != want {
				t.Errorf("%s:\n got %q\nwant %q", format, got, want)
			}
		}
		row := "1\t18446744073709551615\tx\\ty\\n\"q\"\\'s\\\\\t['a','b\\'c']\t[1.5,2]\t2024-01-02 03:04:05\t2024-01-02\trare\t0.1\tnan\t1e-7\t123456789.5\t1e22\t-inf\t\\N\t-3\n"
		f("", row)
		f("TabSeparated", row)
		f("TabSeparatedWithNames", "a\tbig\ts\tarr\tfl\tt\td\te\tf\tn\ttiny\tmid\thuge\tninf\tnul\tneg\n"+row)
		f("CSV", "1,18446744073709551615,\"x\ty\n\"\"q\"\"'s\\\",\"['a','b\\'c']\",\"[1.5,2]\",\"2024-01-02 03:04:05\",\"2024-01-02\",\"rare\",0.1,nan,1e-7,123456789.5,1e22,-inf,\\N,-3\n")
		f("JSONEachRow", `{"a":1,"big":18446744073709551615,"s":"x\ty\n\"q\"'s\\","arr":["a","b'c"],"fl":[1.5,2],"t":"2024-01-02 03:04:05","d":"2024-01-02","e":"rare","f":0.1,"n":null,"tiny":1e-7,"mid":123456789.5,"huge":1e22,"ninf":null,"nul":null,"neg":-3}`+"\n")

		if _, err := e.Query(context.Background(), "SELECT nope FROM nowhere", ""); err == nil {
			t.Error("a bad query returned no error")
		}
	})
}

func TestOpenServerErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, Config{URL: "http://127.0.0.1:1"}); err == nil {
		t.Error("an http:// URL was accepted; the server engine speaks the native protocol")
	}
	if _, err := Open(ctx, Config{URL: "clickhouse://127.0.0.1:1?dial_timeout=200ms"}); err == nil {
		t.Error("a closed port connected")
	}
	url := serverURL()
	if url == "" {
		t.Skip("ROBUSTREAM_TEST_CLICKHOUSE is unset")
	}
	// A URL naming a database that migrate has not created yet still
	// connects, so that `robustream migrate --clickhouse …/robustream` works.
	e, err := Open(ctx, Config{URL: strings.TrimSuffix(url, "/") + "/robustream_not_yet"})
	if err != nil {
		t.Fatalf("URL with a missing database: %v", err)
	}
	e.Close()
}

// TestChDBLocked opens the shared engine's data dir from a second process,
// which chDB refuses; the user must see ErrLocked, not chDB's raw message.
func TestChDBLocked(t *testing.T) {
	if dir := os.Getenv("ROBUSTREAM_TEST_LOCK_DIR"); dir != "" {
		// Child process: report what Open says.
		_, err := Open(context.Background(), Config{DataDir: dir})
		fmt.Printf("locked=%v err=%v\n", errors.Is(err, ErrLocked), err)
		return
	}
	sharedChDB(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestChDBLocked$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ROBUSTREAM_TEST_LOCK_DIR="+chdbFixture.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("second process: %s", out)
	if !strings.Contains(string(out), "locked=true") {
		t.Fatalf("second process did not get ErrLocked:\n%s", out)
	}
	if strings.Contains(string(out), "Cannot lock file") {
		t.Errorf("the raw chDB lock message reached the user:\n%s", out)
	}
}

func TestChDBMissingLibrary(t *testing.T) {
	if os.Getenv("ROBUSTREAM_TEST_NO_LIB") != "" {
		_, err := Open(context.Background(), Config{DataDir: t.TempDir(), LibPath: "/nonexistent/libchdb.so"})
		fmt.Printf("nochdb=%v err=%v\n", errors.Is(err, ErrNoChDB), err)
		return
	}
	// In a child process: once a library is loaded, this one never loads
	// another.
	cmd := exec.Command(os.Args[0], "-test.run=^TestChDBMissingLibrary$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ROBUSTREAM_TEST_NO_LIB=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "nochdb=true") {
		t.Fatalf("a missing library did not give ErrNoChDB:\n%s", out)
	}
}

func TestResolveLibPath(t *testing.T) {
	if p, err := resolveLibPath("/x/libchdb.so"); err != nil || p != "/x/libchdb.so" {
		t.Errorf("explicit path: %q, %v", p, err)
	}
	t.Setenv("ROBUSTREAM_CHDB_LIB", "/env/libchdb.so")
	if p, err := resolveLibPath(""); err != nil || p != "/env/libchdb.so" {
		t.Errorf("env path: %q, %v", p, err)
	}
}

func TestChDBSharedInstance(t *testing.T) {
	e := sharedChDB(t)
	// One data dir per process: asking for another is an error, not a
	// silent switch.
	if _, err := Open(context.Background(), Config{DataDir: t.TempDir()}); err == nil {
		t.Error("a second data dir in the same process was accepted")
	}
	// Another handle on the same dir shares the engine; closing it leaves
	// the shared one working.
	e2, err := Open(context.Background(), Config{DataDir: chdbFixture.dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := e2.Close(); err != nil {
		t.Fatal(err)
	}
	if got := scalar(t, e, "SELECT 1"); got != "1" {
		t.Errorf("shared engine after closing a second handle: %q", got)
	}
	if err := e2.Exec(context.Background(), "SELECT 1"); err == nil {
		t.Error("a closed handle still runs statements")
	}
}

// TestChDBMemory runs chDB without a data dir (in a child process: the test
// binary's engine already owns one).
func TestChDBMemory(t *testing.T) {
	if os.Getenv("ROBUSTREAM_TEST_MEMORY") != "" {
		ctx := context.Background()
		e, err := Open(ctx, Config{})
		if err == nil {
			err = Migrate(ctx, e, nil)
		}
		if err == nil {
			err = e.Exec(ctx, "INSERT INTO robustream.alerts (alert_id) VALUES ('a')")
		}
		if err == nil {
			var out []byte
			out, err = e.Query(ctx, "SELECT count() FROM robustream.alerts", "")
			fmt.Printf("count=%s", out)
		}
		if e != nil {
			e.Close()
		}
		fmt.Printf("err=%v\n", err)
		return
	}
	sharedChDB(t) // skips when the library is missing
	cmd := exec.Command(os.Args[0], "-test.run=^TestChDBMemory$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ROBUSTREAM_TEST_MEMORY=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "count=1\nerr=<nil>") {
		t.Fatalf("in-memory chDB:\n%s", out)
	}
}

// TestChDBKeepsGoSignalHandlers checks that loading chDB left the Go
// runtime's handlers in place: a nil dereference is still a recoverable
// panic (chDB's SIGSEGV handler would kill the process) and signal.Notify
// still receives signals.
func TestChDBKeepsGoSignalHandlers(t *testing.T) {
	e := sharedChDB(t)
	if got := scalar(t, e, "SELECT 1"); got != "1" {
		t.Fatal(got)
	}
	recovered := func() (r any) {
		defer func() { r = recover() }()
		var p *int
		return *p
	}()
	if recovered == nil {
		t.Error("nil dereference did not panic")
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	defer signal.Stop(ch)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Error("SIGUSR1 did not reach signal.Notify")
	}
}

func TestChDBContext(t *testing.T) {
	e := sharedChDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.Exec(ctx, "SELECT 1"); !errors.Is(err, context.Canceled) {
		t.Errorf("Exec with a cancelled context = %v", err)
	}
}
