package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDirSourceSwapStopsOnSIGINT is finding 6 at engine level: a `run`
// engine reads a folder holding a link to a secret outside it, a FIFO with
// no writer, and a name flipping between a harmless file, that link and a
// FIFO. Before the fix the link was followed and the FIFO's open blocked
// forever, so SIGINT no longer stopped the engine. Now: SIGINT stops it
// within 5 s, the secret never reaches documents, a file added during the
// run is ingested, and each skipped entry is named in the log.
//
// It swaps for ROBUSTREAM_RACE_SECONDS (default 12 s: a little over two of
// the source's 5 s polls).
func TestDirSourceSwapStopsOnSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an engine")
	}
	swapFor := 12 * time.Second
	if v := os.Getenv("ROBUSTREAM_RACE_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("ROBUSTREAM_RACE_SECONDS=%q: want a positive number of seconds", v)
		}
		swapFor = time.Duration(n) * time.Second
	}
	src := writeCorpus(t)
	marker := fmt.Sprintf("SECRETMARKER%d", time.Now().UnixNano())
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("# Payroll\n\nThe vault code is "+marker+".\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	leak, stuck, swap := filepath.Join(src, "leak.md"), filepath.Join(src, "stuck.md"), filepath.Join(src, "swap.md")
	if err := os.Symlink(secret, leak); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(stuck, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(swap, []byte("# Swap\n\nA harmless note about Acme Corp.\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	data := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	p := startBackground(t, "run", "--data-dir", data, "--http", addr, "--source", "dir:"+src)
	p.waitListening(t, addr, 2*time.Minute)

	// The swapper exchanges swap.md with a staged harmless file, link or
	// FIFO (renameat2 RENAME_EXCHANGE), so the name never goes missing.
	stage := t.TempDir()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	stopSwapping := sync.OnceFunc(func() { close(stop); wg.Wait() })
	t.Cleanup(stopSwapping)
	kinds := []func(string) error{
		func(p string) error {
			return os.WriteFile(p, []byte("# Swap\n\nA harmless note about Acme Corp.\n"), 0o644)
		},
		func(p string) error { return os.Symlink(secret, p) },
		func(p string) error { return unix.Mkfifo(p, 0o644) },
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(stage, "next")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.RemoveAll(tmp)
			if kinds[i%len(kinds)](tmp) != nil || unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE) != nil {
				t.Error("swap failed")
				return
			}
			time.Sleep(100 * time.Microsecond)
		}
	}()

	time.Sleep(swapFor / 2)
	added := filepath.Join(src, "added.md")
	if err := os.WriteFile(added, []byte("# Added\n\nGlobex Industries opened a plant in Ohio in 2025.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(swapFor - swapFor/2)
	// At least one poll after added.md appeared (the source polls every
	// 5 s), then stop with the FIFO still there and swap.md left a FIFO.
	stopSwapping()
	// Which kind each poll met during the race is chance (three polls,
	// three kinds); so swap.md is then left a link for one whole poll, and
	// the warning for a link that replaced a file no longer depends on luck.
	os.RemoveAll(filepath.Join(stage, "next"))
	if err := os.Symlink(secret, filepath.Join(stage, "next")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(stage, "next"), unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	time.Sleep(6 * time.Second)
	os.RemoveAll(filepath.Join(stage, "next"))
	if err := unix.Mkfifo(filepath.Join(stage, "next"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(stage, "next"), unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	time.Sleep(6 * time.Second)
	if p.exited() {
		t.Fatalf("engine exited early (%v):\n%s", p.err, tail(p.output(), 4000))
	}

	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
		t.Logf("engine exited %v after SIGINT (%v)", time.Since(start).Round(time.Millisecond), p.err)
	case <-time.After(5 * time.Second):
		t.Fatalf("engine still running 5 s after SIGINT:\n%s", tail(p.output(), 4000))
	}
	if p.err != nil {
		t.Errorf("engine exit: %v\n%s", p.err, tail(p.output(), 4000))
	}

	log := p.output()
	for _, want := range []struct{ path, reason string }{
		{leak, "symbolic link, not followed"},
		{stuck, "named pipe (FIFO)"},
		{swap, "symbolic link, not followed"},
		{swap, "named pipe (FIFO)"},
	} {
		if !logNames(log, want.path, want.reason) {
			t.Errorf("no log line names %s with %q", want.path, want.reason)
		}
	}
	if n := strings.Count(log, "path="+stuck+" "); n != 1 {
		t.Errorf("stuck.md named %d times, want once", n)
	}

	dd := []string{"--data-dir", data}
	if n := sqlCount(t, fmt.Sprintf("SELECT count() FROM robustream.documents WHERE position(text, '%s') > 0 OR position(title, '%s') > 0", marker, marker), dd...); n != 0 {
		t.Errorf("the secret reached documents %d times", n)
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.documents WHERE uri NOT LIKE 'file://"+src+"/%'", dd...); n != 0 {
		t.Errorf("%d documents from outside the folder", n)
	}
	// swap.md is not required: each 5 s poll finds it harmless only one
	// time in three.
	for _, name := range []string{"acme.md", "notes.txt", "added.md"} {
		if n := sqlCount(t, "SELECT count() FROM robustream.documents WHERE uri = 'file://"+filepath.Join(src, name)+"'", dd...); n == 0 {
			t.Errorf("%s never reached documents", name)
		}
	}
}

// logNames reports whether a line of the engine's log names path with
// reason (slog's text form: path=... reason="...").
func logNames(log, path, reason string) bool {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "path="+path+" ") && strings.Contains(line, reason) {
			return true
		}
	}
	return false
}
