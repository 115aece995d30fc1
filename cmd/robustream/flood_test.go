package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The HTTP server against clients that try to take the engine down: a flood
// of idle connections under a low descriptor limit, token guessing, and an
// off-loopback start without a token (issue 14, findings 3 and 10).

// clientFrom is an HTTP client whose connections leave from the loopback
// address from, a client address of its own for the engine's per-address
// limits.
func clientFrom(from string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

func getFrom(t *testing.T, c *http.Client, url, auth string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// floodClientEnv, set, makes the test binary a flood client: the client
// side of 25,000 connections needs more descriptors than one process may
// hold here (the hard limit can be 20,000 and a container cannot raise it),
// so the connections are spread over processes.
const floodClientEnv = "ROBUSTREAM_FLOOD_CLIENT"

// TestFloodClientProcess is a flood client when run by
// TestIdleConnectionFlood: it opens its connections from its source
// address, each asking /healthz once with keep-alive as the finding's client
// did and then staying idle; it reports "flooded <answered> <failed>", and
// on "count" from stdin how many the server still holds ("open <n>").
// It exits when stdin closes.
func TestFloodClientProcess(t *testing.T) {
	spec := os.Getenv(floodClientEnv)
	if spec == "" {
		t.Skip("run by TestIdleConnectionFlood")
	}
	var addr, from string
	var n int
	if _, err := fmt.Sscanf(spec, "%s %s %d", &addr, &from, &n); err != nil {
		t.Fatalf("%s=%q: %v", floodClientEnv, spec, err)
	}
	conns := make([]net.Conn, n)
	var answered, failed atomic.Int64
	sem := make(chan struct{}, 256)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
			c, err := d.Dial("tcp", addr)
			if err != nil {
				failed.Add(1)
				return
			}
			conns[i] = c
			c.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
			resp, err := http.ReadResponse(bufio.NewReaderSize(c, 256), nil)
			if err != nil {
				failed.Add(1) // closed at the cap, before or after its request
				return
			}
			resp.Body.Close()
			answered.Add(1)
			c.SetDeadline(time.Time{})
		}()
	}
	wg.Wait()
	fmt.Printf("flooded %d %d\n", answered.Load(), failed.Load())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() != "count" {
			continue
		}
		// Held open: a read times out; closed by the server: it returns.
		var open atomic.Int64
		for _, c := range conns {
			if c == nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.SetReadDeadline(time.Now().Add(2 * time.Second))
				_, err := c.Read(make([]byte, 1))
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					open.Add(1)
				}
			}()
		}
		wg.Wait()
		fmt.Printf("open %d\n", open.Load())
	}
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
}

// floodClient is a running flood client process.
type floodClient struct {
	from  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func startFloodClient(t *testing.T, addr, from string, n int) *floodClient {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFloodClientProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", floodClientEnv, addr, from, n))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return &floodClient{from: from, cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
}

// expect reads the client's next report, "<word> <numbers…>".
func (f *floodClient) expect(t *testing.T, word string) []int64 {
	t.Helper()
	for f.out.Scan() {
		fields := strings.Fields(f.out.Text())
		if len(fields) == 0 || fields[0] != word {
			continue // the test framework's own lines
		}
		var ns []int64
		for _, s := range fields[1:] {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("flood client %s: %q", f.from, f.out.Text())
			}
			ns = append(ns, n)
		}
		return ns
	}
	t.Fatalf("flood client %s ended before reporting %q: %v", f.from, word, f.out.Err())
	return nil
}

// TestIdleConnectionFlood: 25,000 idle keep-alive connections against an
// engine limited to 4,096 descriptors (the finding: about 20,000 ended the
// process when chDB ran out). The engine must stay alive and answer /readyz
// to a fresh client, hold no more connections than its cap, and say so.
func TestIdleConnectionFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an engine and opens 25,000 connections")
	}
	const flood, engineLimit, clients = 25_002, 4096, 3
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// The engine under `ulimit -n`: soft and hard, so it cannot raise it.
	// The configured caps are above what the limit allows: the engine must
	// lower the overall one to keep half the descriptors for chDB and Kafka.
	cmd := exec.Command("bash", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, engineLimit), binary,
		"run", "--http", addr, "--data-dir", t.TempDir(), "--source", "demo", "--demo-interval", "1s",
		"--http-max-conns", "100000", "--http-max-conns-per-client", "1000", "--http-idle-timeout", "10m")
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	alive := func(when string) {
		t.Helper()
		select {
		case err := <-done:
			done <- err
			t.Fatalf("the engine exited %s (%v):\n%s", when, err, tail(out.String(), 6000))
		default:
		}
	}
	probe := clientFrom("127.0.0.1")
	ready := func(when string) {
		t.Helper()
		var last string
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
			alive(when)
			resp, err := probe.Get("http://" + addr + "/readyz")
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return
				}
				last = fmt.Sprintf("%d %s", resp.StatusCode, b)
			} else {
				last = err.Error()
			}
		}
		t.Fatalf("/readyz %s: not 200 within 2 minutes (last: %s)\n%s", when, last, tail(out.String(), 6000))
	}
	ready("before the flood")
	if !strings.Contains(out.String(), "http_max_conns 100000 lowered to 2048") {
		t.Errorf("no log line lowering http_max_conns to 2048 under a limit of %d:\n%s", engineLimit, tail(out.String(), 3000))
	}

	// The flood, from three processes and three source addresses (so that
	// the client ports suffice and both caps are crossed).
	started := time.Now()
	fl := make([]*floodClient, clients)
	for i := range fl {
		fl[i] = startFloodClient(t, addr, fmt.Sprintf("127.0.0.%d", 2+i), flood/clients)
	}
	var answered, failed int64
	for _, f := range fl {
		r := f.expect(t, "flooded")
		answered += r[0]
		failed += r[1]
	}
	t.Logf("flood: %d connections in %s, %d answered, %d refused or closed", flood, time.Since(started).Round(time.Millisecond), answered, failed)
	alive("during the flood")

	// With the flood holding its connections: a fresh client gets /readyz,
	// so does one from a flooding address, and the engine still works.
	ready("with 25,000 connections attempted and held")
	if code, _, body := getFrom(t, clientFrom("127.0.0.2"), "http://"+addr+"/readyz", ""); code != http.StatusOK {
		t.Errorf("/readyz from a flooding address: %d %s", code, body)
	}

	// The engine holds at most its caps, counted on the clients' side.
	var open int64
	for _, f := range fl {
		fmt.Fprintln(f.stdin, "count")
	}
	for _, f := range fl {
		n := f.expect(t, "open")[0]
		if n > 1000 {
			t.Errorf("%s holds %d connections, over its per-client cap of 1000", f.from, n)
		}
		open += n
	}
	t.Logf("the engine holds %d of the flood's connections", open)
	if open > 2048 || open == 0 {
		t.Errorf("the engine holds %d of the flood's connections, want 1..2048 (its lowered cap)", open)
	}
	if !strings.Contains(out.String(), "http: connection cap reached") {
		t.Errorf("no log line about the connection cap:\n%s", tail(out.String(), 3000))
	}
	if n := strings.Count(out.String(), "http: connection cap reached"); n > 20 {
		t.Errorf("the flood flooded the log: %d cap lines", n)
	}
	code, _, body := getFrom(t, probe, "http://"+addr+"/metrics", "")
	if code != http.StatusOK || !strings.Contains(body, "robustream_http_connections_evicted_total") {
		t.Errorf("/metrics after the flood: %d, or no eviction counter", code)
	}
	time.Sleep(2 * time.Second)
	alive("after the flood")
}

// TestAuthFailuresRateLimited: wrong tokens are limited per address (429
// with Retry-After once the budget is spent, without comparing), logged as
// one summary per address without the token, and the right token from
// another address still works.
func TestAuthFailuresRateLimited(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an engine")
	}
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	token := "tok-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	_, out := startEngineProcess(t, fmt.Sprintf("127.0.0.1:%d", port), []string{"RS_TEST_TOKEN=" + token},
		"--data-dir", t.TempDir(), "--source", "none", "--http-token-env", "RS_TEST_TOKEN",
		"--http-auth-failures-per-minute", "5")

	guesser, other := clientFrom("127.0.0.1"), clientFrom("127.0.0.2")
	const guess = "Bearer guess-3c9e1d"
	for i := range 5 {
		if code, _, _ := getFrom(t, guesser, base+"/api/scores", guess); code != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d, want 401", i+1, code)
		}
	}
	// The budget is spent: 429, even with the right token (not compared).
	code, h, _ := getFrom(t, guesser, base+"/api/scores", guess)
	if code != http.StatusTooManyRequests {
		t.Fatalf("6th wrong token: %d, want 429", code)
	}
	if ra, err := strconv.Atoi(h.Get("Retry-After")); err != nil || ra < 1 || ra > 12 {
		t.Errorf("Retry-After %q, want 1..12 s (one failure refills in 12 s at 5/min)", h.Get("Retry-After"))
	}
	if code, _, _ := getFrom(t, guesser, base+"/api/scores", "Bearer "+token); code != http.StatusTooManyRequests {
		t.Errorf("the right token from the blocked address: %d, want 429 (no comparison while blocked)", code)
	}
	// A flood of guesses: all refused, none compared.
	for range 200 {
		if code, _, _ := getFrom(t, guesser, base+"/api/sql", guess); code != http.StatusTooManyRequests {
			t.Fatalf("a guess while blocked: %d, want 429", code)
		}
	}
	// Others are unaffected, and so are the probes.
	if code, _, body := getFrom(t, other, base+"/api/scores", "Bearer "+token); code != http.StatusOK {
		t.Errorf("the right token from another address: %d %.200s", code, body)
	}
	if code, _, _ := getFrom(t, guesser, base+"/readyz", ""); code != http.StatusOK {
		t.Errorf("/readyz from the blocked address: %d, want 200 (probes need no token)", code)
	}

	log := out.String()
	lines := 0
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "failed API token attempts") {
			lines++
			if !strings.Contains(l, "client=127.0.0.1") || !strings.Contains(l, "path=/api/scores") {
				t.Errorf("the failure line does not name the address and path: %s", l)
			}
		}
	}
	if lines != 1 {
		t.Errorf("%d failure lines for one address within the interval, want 1 (a flood must not flood the log):\n%s", lines, tail(log, 3000))
	}
	for _, secret := range []string{"guess-3c9e1d", token} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds a token sent (%s)", secret)
		}
	}
}

// TestOffLoopbackWithoutTokenRefusedFirst: `run` bound off loopback without
// a token is refused before the broker, chDB or any stage starts: at once,
// with nothing written to the data dir; --dry-run says so too.
func TestOffLoopbackWithoutTokenRefusedFirst(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	for _, c := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"wildcard", []string{"--http", "0.0.0.0:0"}, nil, "is not a loopback address"},
		{"no host", []string{"--http", ":0"}, nil, "is not a loopback address"},
		{"empty token variable", []string{"--http", "0.0.0.0:0", "--http-token-env", "RS_UNSET_TOKEN"}, []string{"RS_UNSET_TOKEN="}, "empty or unset"},
	} {
		for _, dry := range []bool{false, true} {
			args := append([]string{"run", "--data-dir", dataDir, "--source", "demo"}, c.args...)
			if dry {
				args = append(args, "--dry-run")
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			cmd := exec.CommandContext(ctx, binary, args...)
			cmd.Env = append(os.Environ(), c.env...)
			start := time.Now()
			b, err := cmd.CombinedOutput()
			took := time.Since(start)
			cancel()
			if err == nil {
				t.Errorf("%s (dry-run %v): run accepted it:\n%s", c.name, dry, b)
				continue
			}
			if !strings.Contains(string(b), c.want) {
				t.Errorf("%s (dry-run %v): the error does not say %q:\n%s", c.name, dry, c.want, b)
			}
			if strings.Contains(string(b), "broker started") || took > 5*time.Second {
				t.Errorf("%s (dry-run %v): refused after %s, with the broker started?\n%s", c.name, dry, took, b)
			}
			if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s (dry-run %v): the data dir exists after the refusal (%v)", c.name, dry, err)
			}
		}
	}
}
