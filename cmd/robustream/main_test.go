package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// binary is the robustream executable built once for the process-level
// tests (crash, consumer-group, server-mode): they need real processes.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(floodClientEnv) != "" {
		// A flood client (flood_test.go) is this test binary run again:
		// it needs no robustream binary.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "robustream-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "robustream")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot build robustream: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// robustream runs the binary to completion and returns stdout; it fails the
// test on a non-zero exit.
func robustream(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("robustream %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), tail(stderr.String(), 4000))
	}
	return stdout.String()
}

// startRobustream starts the binary in the background; the returned process
// is killed at the end of the test.
func startRobustream(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	return startRobustreamEnv(t, nil, args...)
}

// startRobustreamEnv is startRobustream with extra environment variables.
func startRobustreamEnv(t *testing.T, env []string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, out
}

// sqlCount runs a count query through `robustream sql`.
func sqlCount(t *testing.T, query string, args ...string) int64 {
	t.Helper()
	out := robustream(t, append(append([]string{"sql"}, args...), query)...)
	n, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		t.Fatalf("%s: not a count: %q", query, out)
	}
	return n
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitListening waits until addr accepts connections.
func waitListening(t *testing.T, addr string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s is not listening after %s", addr, within)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// writeCorpus writes a small folder of Markdown and HTML documents.
func writeCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"acme.md": "# Acme results\n\nAcme Corp's revenue in Q3 2025 was $4.2 billion. Acme Corp acquired Brightline Labs in August 2025.\n\n" +
			"Northwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 12 new branches in 2025.\n",
		"economy.html": "<html><head><title>Economy</title></head><body><h1>Freedonia</h1><p>Freedonia's inflation rate in October 2025 was 3.1 percent.</p>" +
			"<p>Globex Industries hired 450 engineers in 2025.</p><script>alert('x')</script></body></html>",
		"notes.txt": "Initech's operating margin in 2025 was 18 percent. Initech appointed Peter Gibbons as chief operating officer.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// syncBuffer is a bytes.Buffer that a process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.String()
}
