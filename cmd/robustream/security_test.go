package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The security suite: every probe of the hardening issue's findings on the
// HTTP API, against a running engine (a real process, real chDB, real HTTP).

const testSecret = "TOPSECRET-7f3a9c"

// startEngineProcess starts `robustream run` with extra environment and
// waits until its HTTP port answers.
func startEngineProcess(t *testing.T, addr string, env []string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd, out := startRobustreamEnv(t, env, append([]string{"run", "--http", addr}, args...)...)
	_, port, _ := net.SplitHostPort(addr)
	waitListening(t, "127.0.0.1:"+port, 2*time.Minute)
	return cmd, out
}

// post sends a POST to the engine and returns status and body.
func post(t *testing.T, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func get(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestSQLEndpointSecurity: findings 1 and 2 against an engine on loopback
// (no token there, as by default).
func TestSQLEndpointSecurity(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an engine")
	}
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	secretFile := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secretFile, []byte(testSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, out := startEngineProcess(t, addr, []string{"ROBUSTREAM_TEST_SECRET=" + testSecret},
		"--data-dir", dir, "--source", "demo", "--demo-interval", "1s", "--sql-timeout", "5s")
	api := "http://" + addr + "/api/sql"
	sql := func(q string, header map[string]string) (int, string) {
		t.Helper()
		return post(t, api, q, header)
	}

	// Finding 1: files written and read, the network, processes.
	victim := filepath.Join(t.TempDir(), "victim.txt")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	peer := ln.Addr().String()
	for _, q := range []string{
		fmt.Sprintf("SELECT 'x' INTO OUTFILE '%s' TRUNCATE FORMAT LineAsString", victim),
		fmt.Sprintf("SELECT 'x' INTO OUTFILE '%s/clickhouse/metadata/robustream/outcomes.sql' TRUNCATE FORMAT LineAsString", dir),
		fmt.Sprintf("SELECT * FROM file('%s')", secretFile),
		"SELECT * FROM file('/etc/shadow')",
		"SELECT * FROM file('/proc/self/environ', 'RawBLOB')",
		fmt.Sprintf("SELECT file('%s')", secretFile),
		"SELECT file('/proc/self/environ')",
		fmt.Sprintf("SELECT * FROM (SELECT * FROM file('%s', 'RawBLOB') SETTINGS readonly = 0)", secretFile),
		fmt.Sprintf("SELECT * FROM default.`%s`", secretFile),
		fmt.Sprintf("SELECT * FROM url('http://%s/', 'CSV', 'a String')", peer),
		fmt.Sprintf("SELECT * FROM s3('http://%s/b/k', 'CSV', 'a String')", peer),
		fmt.Sprintf("SELECT * FROM mysql('%s', 'd', 't', 'u', 'p')", peer),
		fmt.Sprintf("SELECT * FROM postgresql('%s', 'd', 't', 'u', 'p')", peer),
		fmt.Sprintf("SELECT * FROM remote('%s', system.one)", peer),
		"SELECT * FROM executable('id', 'TSV', 'a String')",
		"DROP TABLE robustream.outcomes",
		"INSERT INTO robustream.outcomes (outcome_id) SELECT 'x'",
		"SELECT 1; DROP TABLE robustream.outcomes",
		"SET readonly = 0",
	} {
		code, body := sql(q, nil)
		if code == http.StatusOK {
			t.Errorf("%s: ran (%q)", q, body)
		}
		if code != http.StatusForbidden && code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 403 or 400 with the reason", q, code)
		}
		if strings.TrimSpace(body) == "" {
			t.Errorf("%s: refused without a reason", q)
		}
		if strings.Contains(body, testSecret) {
			t.Errorf("%s: the answer leaks the secret: %s", q, body)
		}
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Errorf("%s was created", victim)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("%d outbound connection(s)", n)
	}
	if code, body := sql("SELECT count() FROM robustream.outcomes", nil); code != http.StatusOK {
		t.Errorf("a plain read: %d %s", code, body)
	}

	// Cross-site request forgery and DNS rebinding.
	if code, body := sql("SELECT 1", map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Errorf("POST from another origin: %d %s, want 403", code, body)
	}
	if code, body := sql("SELECT 1", map[string]string{"Sec-Fetch-Site": "cross-site"}); code != http.StatusForbidden {
		t.Errorf("cross-site POST without Origin: %d %s, want 403", code, body)
	}
	if code, body := sql("SELECT 1", map[string]string{"Origin": "http://" + addr}); code != http.StatusOK {
		t.Errorf("POST from the dashboard's own origin: %d %s", code, body)
	}
	if code, body := sql("SELECT 1", map[string]string{"Host": "evil.example:" + strings.Split(addr, ":")[1]}); code != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host (DNS rebinding): %d %s, want 421", code, body)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/scores", nil)
	req.Host = "rebound.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("GET /api/scores with a foreign Host: %v %v, want 421", resp.Status, err)
	}

	// Finding 2: the heavy queries stop at their limits, the engine's
	// memory stays bounded, and meanwhile /readyz answers and the sinks
	// write.
	if code, body := sql("SELECT length(groupArray(number)) FROM numbers(1000000000)", nil); code == http.StatusOK || !strings.Contains(body, "MEMORY_LIMIT_EXCEEDED") {
		t.Errorf("groupArray over 1e9 rows: %d %s, want the memory limit", code, body)
	}
	if code, body := sql("SELECT randomString(1000) FROM numbers(2000000)", nil); code == http.StatusOK || !strings.Contains(body, "TOO_MANY_ROWS_OR_BYTES") {
		t.Errorf("a 2 GB result: %d %.300s, want the result limit", code, body)
	}
	if peak := peakRSSOf(t, cmd.Process.Pid); peak > 3<<30 {
		t.Errorf("engine peak RSS %d MiB after the heavy queries (limit 1 GiB per query)", peak>>20)
	}

	before := countRows(t, api, "SELECT count() FROM robustream.documents")
	heavy := "SELECT count() FROM numbers_mt(1000000000000) WHERE sipHash64(number) % 7 = 1"
	done := make(chan string, 1)
	go func() { done <- postQuietly(api, heavy) }()
	time.Sleep(time.Second) // it runs for the 5 s of --sql-timeout
	// While it runs: /readyz answers, and new documents reach ClickHouse.
	if code, body := get(t, "http://"+addr+"/readyz", nil); code != http.StatusOK {
		t.Errorf("/readyz during a heavy query: %d %s", code, body)
	}
	for deadline := time.Now().Add(30 * time.Second); countRows(t, api, "SELECT count() FROM robustream.documents") <= before; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the sinks wrote nothing while a heavy query ran")
		}
		if len(done) > 0 {
			break
		}
	}
	if res := <-done; !strings.Contains(res, "TIMEOUT_EXCEEDED") {
		t.Errorf("a query past sql.timeout: %s, want TIMEOUT_EXCEEDED", res)
	}

	// (A client that goes away: TestSQLOneStatement.)

	// SIGTERM with a heavy query running: the engine stops promptly.
	go postQuietly(api, heavy)
	time.Sleep(time.Second)
	stopped := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("SIGTERM: %v\n%s", err, tail(out.String(), 2000))
	}
	t.Logf("stopped %s after SIGTERM with a heavy query running", time.Since(stopped).Round(time.Millisecond))

	// Finding 7: a private data dir.
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	for _, f := range []string{"kafka.lock", "clickhouse.lock"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v (%v), want 0600", f, fi.Mode().Perm(), err)
		}
	}
}

// postQuietly posts from a goroutine other than the test's, so it reports
// a failure in its result instead of failing the test.
func postQuietly(url, body string) string {
	resp, err := http.Post(url, "text/plain", strings.NewReader(body))
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

func countRows(t *testing.T, api, q string) int64 {
	t.Helper()
	code, body := post(t, api, q, nil)
	if code != http.StatusOK {
		t.Fatalf("%s: %d %s", q, code, body)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(body), 10, 64)
	if err != nil {
		t.Fatalf("%s: %q", q, body)
	}
	return n
}

// peakRSSOf reads VmHWM of pid in bytes.
func peakRSSOf(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if kb, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64)
			return n << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// TestHTTPAuthAndTimeouts: findings 6 and 7 against an engine bound off
// loopback with a token.
func TestHTTPAuthAndTimeouts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an engine")
	}
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	token := "tok-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	startEngineProcess(t, fmt.Sprintf("0.0.0.0:%d", port), []string{"RS_TEST_TOKEN=" + token},
		"--data-dir", t.TempDir(), "--source", "none", "--http-token-env", "RS_TEST_TOKEN",
		"--http-read-timeout", "1s", "--http-idle-timeout", "1s")

	for _, path := range []string{"/", "/metrics", "/api/scores"} {
		if code, _ := get(t, base+path, nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: %d, want 401", path, code)
		}
		if code, _ := get(t, base+path, map[string]string{"Authorization": token}); code != http.StatusUnauthorized {
			t.Errorf("GET %s with a bare token: %d, want 401", path, code)
		}
		if code, _ := get(t, base+path, map[string]string{"Authorization": "Bearer wrong"}); code != http.StatusUnauthorized {
			t.Errorf("GET %s with a wrong token: %d, want 401", path, code)
		}
		if code, body := get(t, base+path, map[string]string{"Authorization": "Bearer " + token}); code != http.StatusOK {
			t.Errorf("GET %s with the token: %d %.200s", path, code, body)
		}
	}
	// The drill-down likewise (no wrong credentials: those are limited
	// per address, and the ones above use up the allowance).
	for _, path := range []string{"/api/questions", "/api/questions/q1", "/drilldown.js"} {
		if code, _ := get(t, base+path, nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: %d, want 401", path, code)
		}
		if code, body := get(t, base+path, map[string]string{"Authorization": "Bearer " + token}); code != http.StatusOK && !(path == "/api/questions/q1" && code == http.StatusNotFound) {
			t.Errorf("GET %s with the token: %d %.200s", path, code, body)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
	req.SetBasicAuth("anyone", token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the dashboard with the token as Basic password: %v %v", resp.Status, err)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _ := get(t, base+path, nil); code != http.StatusOK {
			t.Errorf("probe %s without a token: %d, want 200", path, code)
		}
	}
	if code, _ := post(t, base+"/api/sql", "SELECT 1", map[string]string{"Authorization": token}); code != http.StatusUnauthorized {
		t.Errorf("POST /api/sql with a bare token: %d, want 401", code)
	}

	// Finding 7: a slow body and an idle keep-alive connection are cut.
	closedWithin := func(what string, write func(net.Conn)) {
		t.Helper()
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		write(c)
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, err = io.ReadAll(c) // returns when the server closes
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("%s: the connection is still open after 20 s (read and idle timeouts are 1 s)", what)
		}
	}
	closedWithin("slow body", func(c net.Conn) {
		fmt.Fprintf(c, "POST /api/sql HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\nContent-Length: 100\r\n\r\nSEL", port, token)
	})
	closedWithin("idle keep-alive", func(c net.Conn) {
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port)
	})
}

// multiStatementRefusal is what /api/sql answers to text holding more than
// one statement, whatever the text: nothing of it, nothing of the engine.
const multiStatementRefusal = "refused: send exactly one statement per request (no ';' between statements)"

// TestSQLOneStatement: the SQL API runs exactly one statement per request,
// never anything after a ';', refuses session and control statements and
// system tables outside its allow-list, and a query whose client went
// away stops running.
func TestSQLOneStatement(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an engine")
	}
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	marker := "MARKER-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	markerFile := filepath.Join(t.TempDir(), "marker.txt")
	if err := os.WriteFile(markerFile, []byte(marker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	outfile := filepath.Join(t.TempDir(), "outfile.txt")
	// No source: the engine is idle but for what the test sends, so its
	// CPU time tells whether a query still runs. A long time limit: only a
	// kill can end the heavy query early.
	cmd, out := startEngineProcess(t, addr, nil, "--data-dir", dir, "--source", "none", "--sql-timeout", "120s")
	base := "http://" + addr
	api := base + "/api/sql"

	// Every first statement, separator and second statement: refused with
	// the fixed message before any engine saw the text.
	firsts := []string{"SELECT 1", "select\t1", "SELECT ';'", "SELECT 'a'';'", "SELECT 'a\\';'", "SELECT `x;` FROM (SELECT 1 AS `x;`)",
		"SELECT \"x;\" FROM (SELECT 1 AS \"x;\")", "SELECT 1 -- ;\n", "SELECT 1 # ;\n", "SELECT 1 /* ; */", "SELECT 'é;ü' AS ünï",
		"SELECT count() FROM robustream.documents"}
	seps := []string{";", " ; ", ";\n", "\n;\n", "\t;\t", ";/* c */", "; -- c\n", "\r\n;\r\n", ";;"}
	seconds := []string{
		fmt.Sprintf("SELECT file('%s')", markerFile),
		fmt.Sprintf("SELECT * FROM file('%s', 'RawBLOB')", markerFile),
		fmt.Sprintf("SELECT 'x' INTO OUTFILE '%s'", outfile),
		fmt.Sprintf("SELECT 'x' INTO OUTFILE '%s' APPEND FORMAT LineAsString", outfile),
		"INSERT INTO robustream.documents (doc_id, version, text) VALUES ('evil', 1, 'x')",
		"KILL QUERY WHERE 1 ASYNC",
		"SYSTEM FLUSH LOGS",
		"SET readonly = 0",
		"USE default",
		"DROP TABLE robustream.outcomes",
	}
	n := 0
	for _, first := range firsts {
		for _, sep := range seps {
			for _, second := range seconds {
				for _, q := range []string{first + sep + second, first + sep + second + ";"} {
					code, body := post(t, api, q, nil)
					n++
					if code != http.StatusForbidden || strings.TrimSpace(body) != multiStatementRefusal {
						t.Errorf("%q: %d %q, want 403 %q", q, code, body, multiStatementRefusal)
					}
					if strings.Contains(body, marker) {
						t.Fatalf("%q: the second statement ran: %s", q, body)
					}
				}
			}
		}
	}
	t.Logf("%d multi-statement texts refused", n)
	if _, err := os.Stat(outfile); !os.IsNotExist(err) {
		t.Errorf("%s exists: a second statement wrote it", outfile)
	}
	if n := countRows(t, api, "SELECT count() FROM robustream.documents WHERE doc_id = 'evil'"); n != 0 {
		t.Errorf("%d rows inserted by a second statement", n)
	}
	if n := countRows(t, api, "EXISTS TABLE robustream.outcomes"); n != 1 {
		t.Errorf("robustream.outcomes is gone")
	}

	// Session and control statements, alone.
	for _, q := range []string{"KILL QUERY WHERE 1", "KILL QUERY WHERE 1 ASYNC", "KILL MUTATION WHERE 1", "SYSTEM FLUSH LOGS",
		"SYSTEM STOP MERGES", "SYSTEM SHUTDOWN", "SET readonly = 0", "SET allow_introspection_functions = 1", "USE default", "USE system",
		"kill query where 1;", "/* c */ SYSTEM RELOAD CONFIG"} {
		if code, body := post(t, api, q, nil); code != http.StatusForbidden || !strings.HasPrefix(body, "refused: ") {
			t.Errorf("%q: %d %q, want 403 refused", q, code, body)
		}
	}

	// System tables: the allow-list, in any spelling; the process lives on.
	for _, q := range []string{
		"SELECT thread_id, length(trace) FROM system.stack_trace LIMIT 3",
		"SELECT * FROM system.models",
		"SELECT query FROM system.processes",
		"SELECT query FROM system.query_log",
		"SELECT * FROM system.dictionaries",
		"SELECT name, path FROM system.disks",
		"SELECT * FROM system.settings",
		"SELECT * FROM system.errors",
		"SELECT * FROM system.asynchronous_metrics",
		"SELECT * FROM system.part_log",
		"SELECT * FROM system.detached_parts",
		"SELECT * FROM \"system\".\"stack_trace\"",
		"SELECT * FROM `system`.`models`",
		"SELECT * FROM SYSTEM.STACK_TRACE",
		"SELECT * FROM merge('system', '^stack')",
		"SELECT 1 WHERE 'x' IN system.processes",
		"SELECT metadata_path FROM system.tables",
		"SELECT * FROM system.tables",
		"SELECT data_path FROM system.databases",
		"SELECT path FROM system.parts",
		"SELECT demangle('x')",
		"SELECT addressToLine(toUInt64(0))",
	} {
		code, body := post(t, api, q, nil)
		if code != http.StatusForbidden || !strings.HasPrefix(body, "refused: ") {
			t.Errorf("%q: %d %.300q, want 403 refused", q, code, body)
		}
		if strings.Contains(body, dir) {
			t.Errorf("%q: the answer shows the data dir: %s", q, body)
		}
	}
	if code, body := get(t, base+"/readyz", nil); code != http.StatusOK {
		t.Fatalf("/readyz after the system-table probes: %d %s\n%s", code, body, tail(out.String(), 2000))
	}
	for _, q := range []string{
		"SELECT database, name, engine FROM system.tables WHERE database = 'robustream' ORDER BY name",
		"SELECT * FROM system.columns WHERE database = 'robustream' AND table = 'outcomes'",
		"SELECT name, engine FROM system.databases",
		"SELECT * FROM information_schema.tables WHERE table_schema = 'robustream'",
	} {
		code, body := post(t, api, q, nil)
		if code != http.StatusOK || !strings.Contains(body, "outcomes") && !strings.Contains(body, "robustream") {
			t.Errorf("%q: %d %.300q", q, code, body)
		}
		if strings.Contains(body, dir) || strings.Contains(body, "/store/") {
			t.Errorf("%q shows a path: %.500s", q, body)
		}
	}

	// Clients that go away: their queries stop. Both sessions of the API
	// (sql.max_concurrency 2) are taken by heavy queries; once the clients
	// have gone, a session is free again, which the read path gives back
	// only when the engine has returned from the statement, and the
	// engine's CPU goes quiet.
	heavy := "SELECT count() FROM numbers_mt(1000000000000) WHERE sipHash64(number) % 7 = 1"
	ctx, cancel := context.WithCancel(context.Background())
	for range 2 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, api, strings.NewReader(heavy))
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	quick := func(timeout time.Duration) (int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, api, strings.NewReader("SELECT 1"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := quick(500 * time.Millisecond); err != nil {
			break // no free session: both heavy queries hold one
		}
		if time.Now().After(deadline) {
			t.Fatal("the heavy queries never took the API's sessions")
		}
	}
	// Meanwhile the dashboard answers: its panels run on sessions of
	// their own.
	for _, path := range []string{"/api/alerts", "/api/series", "/api/grade", "/api/coverage"} {
		start := time.Now()
		if code, body := get(t, base+path, nil); code != http.StatusOK {
			t.Errorf("GET %s while the API's sessions are busy: %d %.200s", path, code, body)
		} else if d := time.Since(start); d > 10*time.Second {
			t.Errorf("GET %s while the API's sessions are busy took %s", path, d)
		}
	}
	// CPU is measured over two seconds each side: on a loaded machine the
	// heavy queries get what share of a core they can, so the check is
	// that the engine's use falls to well under what it was.
	busy := cpuOver(t, cmd.Process.Pid, 2*time.Second)
	if busy < 100*time.Millisecond {
		t.Errorf("the engine used %s of CPU in two seconds of heavy queries: are they running?", busy)
	}
	cancel()
	if code, err := quick(5 * time.Second); err != nil || code != http.StatusOK {
		t.Fatalf("SELECT 1 after the heavy queries' clients left: %d %v (a session is still held)", code, err)
	}
	time.Sleep(200 * time.Millisecond)
	if quiet := cpuOver(t, cmd.Process.Pid, 2*time.Second); quiet > busy/3 || quiet > 400*time.Millisecond {
		t.Errorf("the engine used %s of CPU in the two seconds after its clients left (%s before): a query still runs", quiet, busy)
	} else {
		t.Logf("engine CPU over two seconds: %s with the heavy queries, %s after their clients left", busy, quiet)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("SIGTERM: %v\n%s", err, tail(out.String(), 2000))
	}
}

// cpuOver returns the CPU time process pid uses over d.
func cpuOver(t *testing.T, pid int, d time.Duration) time.Duration {
	t.Helper()
	read := func() time.Duration {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// Fields after the command name (which may hold spaces): utime and
		// stime are the 12th and 13th, in clock ticks (100 per second on
		// Linux).
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		return time.Duration(u+s) * 10 * time.Millisecond
	}
	before := read()
	time.Sleep(d)
	return read() - before
}
