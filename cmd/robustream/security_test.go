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
	waitRunning(t, api, 1)
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

	// A client that goes away: its query is killed.
	ctx, cancel := context.WithCancel(context.Background())
	hreq, _ := http.NewRequestWithContext(ctx, http.MethodPost, api, strings.NewReader(heavy))
	go http.DefaultClient.Do(hreq)
	waitRunning(t, api, 1)
	cancel()
	waitRunning(t, api, 0)

	// SIGTERM with a heavy query running: the engine stops promptly.
	go postQuietly(api, heavy)
	waitRunning(t, api, 1)
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

// waitRunning waits until n queries of the SQL API are running.
func waitRunning(t *testing.T, api string, n int64) {
	t.Helper()
	q := "SELECT count() FROM system.processes WHERE query LIKE '%robustream-sql%' AND query NOT LIKE '%system.processes%'"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if countRows(t, api, q) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d SQL API queries running, want %d", countRows(t, api, q), n)
		}
	}
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
