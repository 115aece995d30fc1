//go:build cgo && unix

package clickhouse

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestStackTraceKeepsProcess: reading system.stack_trace on the internal
// engine (the read-only path refuses the table) signals every thread of
// the process, Go's included; the process must survive it, busy
// goroutines and all. It runs in a child process, since a failure kills
// the process that reads the table.
func TestStackTraceKeepsProcess(t *testing.T) {
	if os.Getenv("ROBUSTREAM_STACK_TRACE_CHILD") != "" {
		e := sharedChDB(t)
		var stop atomic.Bool
		for range runtime.GOMAXPROCS(0) + 2 {
			// Go threads running, allocating and collecting while the
			// signals arrive.
			go func() {
				var keep [][]byte
				for !stop.Load() {
					keep = append(keep, make([]byte, 4096))
					if len(keep) > 1000 {
						keep = nil
						runtime.GC()
					}
				}
			}()
		}
		defer stop.Store(true)
		for range 5 {
			out, err := e.Query(context.Background(), "SELECT count(), countIf(length(trace) > 0) FROM system.stack_trace", "")
			if err != nil {
				t.Fatalf("system.stack_trace: %v", err)
			}
			t.Logf("threads, with a trace: %s", strings.TrimSpace(string(out)))
			time.Sleep(50 * time.Millisecond)
		}
		os.Stdout.WriteString("STACK-TRACE-SURVIVED\n")
		return
	}
	if _, err := resolveLibPath(""); err != nil {
		t.Skipf("chDB unavailable: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestStackTraceKeepsProcess$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "ROBUSTREAM_STACK_TRACE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "STACK-TRACE-SURVIVED") {
		t.Fatalf("the process reading system.stack_trace: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "with a trace") {
			t.Log(strings.TrimSpace(line))
		}
	}
}
