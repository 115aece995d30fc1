package dir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/robustream/robustream/streams"
)

// syncLog is a log sink safe for the handler and the test to share.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) snapshot() *bytes.Buffer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.NewBuffer(bytes.Clone(l.buf.Bytes()))
}

// secretFile writes, outside any watched folder, a document-looking file
// holding a marker no test document contains: the marker reaching a record
// means a link was followed.
func secretFile(t *testing.T) (path, marker string) {
	t.Helper()
	marker = fmt.Sprintf("SECRET-MARKER-%d", time.Now().UnixNano())
	path = filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(path, []byte("# Secret\n\n"+marker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, marker
}

// guardEmit wraps c.emit and fails the test if any record carries marker.
func guardEmit(t *testing.T, c *collector, marker string, leaks *atomic.Int64) func(context.Context, ...streams.Record) error {
	return func(ctx context.Context, recs ...streams.Record) error {
		for _, r := range recs {
			if bytes.Contains(r.Value, []byte(marker)) || bytes.Contains(r.Key, []byte(marker)) {
				leaks.Add(1)
				t.Errorf("a record carries the secret: %.300s", r.Value)
			}
		}
		return c.emit(ctx, recs...)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := unix.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}

// TestSkipKinds puts one of every entry the source must not read beside a
// document and checks that each is named once, with what it is, and that
// nothing behind a link is read.
func TestSkipKinds(t *testing.T) {
	root := t.TempDir()
	secret, marker := secretFile(t)
	outside := filepath.Dir(secret)
	write(t, filepath.Join(root, "good.md"), []byte("# Good\n\nA plain document."))
	write(t, filepath.Join(root, "sub/inner.txt"), []byte("inner text"))

	type want struct {
		reason   error
		detail   string // substring of the reason
		pointsTo string // for links: the points_to attribute
	}
	wants := map[string]want{}
	link := func(name, target, pointsTo string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
		wants[name] = want{ErrSymlink, "", pointsTo}
	}
	link("to-file.md", secret, "regular file")
	link("to-dir", outside, "directory")
	link("loop-a.md", filepath.Join(root, "loop-b.md"), "symbolic link loop")
	link("loop-b.md", filepath.Join(root, "loop-a.md"), "symbolic link loop")
	link("dangling.md", filepath.Join(root, "missing.md"), "nothing (dangling)")
	link("sub/up.md", "../to-file.md", "regular file") // a chain ending outside

	mkfifo(t, filepath.Join(root, "pipe.md"))
	wants["pipe.md"] = want{ErrNotRegular, "named pipe (FIFO)", ""}

	ln, err := net.Listen("unix", filepath.Join(root, "sock.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wants["sock.md"] = want{ErrNotRegular, "socket", ""}

	// /dev/null's numbers (1, 3): a device node needs CAP_MKNOD.
	if err := unix.Mknod(filepath.Join(root, "null.md"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err == nil {
		wants["null.md"] = want{ErrNotRegular, "character device", ""}
	} else {
		t.Logf("device node case not run: mknod: %v (needs CAP_MKNOD)", err)
	}

	// A directory loop exists only through a bind mount, since links are
	// not followed: sub/again is root mounted again.
	again := filepath.Join(root, "sub/again")
	if err := os.Mkdir(again, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(root, again, "", unix.MS_BIND, ""); err == nil {
		t.Cleanup(func() { unix.Unmount(again, unix.MNT_DETACH) }) // before TempDir's removal
		wants["sub/again"] = want{ErrLoop, "", ""}
	} else {
		t.Logf("directory loop case not run: bind mount: %v (needs CAP_SYS_ADMIN)", err)
	}

	logs := &syncLog{}
	s, err := New(Config{Path: root}, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var c collector
	var leaks atomic.Int64
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), guardEmit(t, &c, marker, &leaks)) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s: an open blocked")
	}

	if len(c.docs) != 2 || c.docs[filepath.Join(root, "good.md")].Text == "" || c.docs[filepath.Join(root, "sub/inner.txt")].Text == "" {
		t.Errorf("emitted %d documents %v, want good.md and sub/inner.txt", len(c.docs), keys(c.docs))
	}
	warned := skipWarnings(t, logs.snapshot())
	for name, w := range wants {
		r, ok := warned[filepath.Join(root, name)]
		if !ok {
			t.Errorf("%s: no warning names it", name)
			continue
		}
		reason, _ := r["reason"].(string)
		if !strings.Contains(reason, w.reason.Error()) || !strings.Contains(reason, w.detail) {
			t.Errorf("%s: reason %q, want %q with %q", name, reason, w.reason, w.detail)
		}
		if pt, _ := r["points_to"].(string); pt != w.pointsTo {
			t.Errorf("%s: points_to %q, want %q", name, pt, w.pointsTo)
		}
		if r["level"] != "WARN" {
			t.Errorf("%s: level %v", name, r["level"])
		}
	}
	if len(warned) != len(wants) {
		t.Errorf("%d warnings, want %d:\n%s", len(warned), len(wants), logs.snapshot())
	}
	if st := s.Stats(); st.Skipped != int64(len(wants)) || st.Emitted != 2 {
		t.Errorf("stats %+v, want 2 emitted and %d skipped", st, len(wants))
	}

	// A second scan names nothing again: the entries are still there.
	before := logs.snapshot().Len()
	if err := s.Run(context.Background(), guardEmit(t, &c, marker, &leaks)); err != nil {
		t.Fatal(err)
	}
	if after := logs.snapshot(); after.Len() != before {
		t.Errorf("second scan logged again:\n%s", after.Bytes()[before:])
	}

	// A FIFO that goes and comes back is named again.
	pipe := filepath.Join(root, "pipe.md")
	os.Remove(pipe)
	if err := s.Run(context.Background(), guardEmit(t, &c, marker, &leaks)); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, pipe)
	if err := s.Run(context.Background(), guardEmit(t, &c, marker, &leaks)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range parseLogs(t, logs.snapshot()) {
		if r["path"] == pipe {
			n++
		}
	}
	if n != 2 {
		t.Errorf("the re-created FIFO was named %d times in all, want 2 (once per appearance)", n)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestCheckOpened is the check after the open, reached deterministically:
// the descriptor of another file, or of a FIFO, is refused as changed.
func TestCheckOpened(t *testing.T) {
	dir := t.TempDir()
	a, b, p := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md"), filepath.Join(dir, "p.md")
	write(t, a, []byte("a"))
	write(t, b, []byte("b"))
	mkfifo(t, p)
	idAt := func(path string) fileID {
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			t.Fatal(err)
		}
		return idOf(&st)
	}
	open := func(path string) int {
		// In a goroutine: without O_NONBLOCK the FIFO's open would block
		// for good, and the test would hang instead of failing.
		type result struct {
			fd  int
			err error
		}
		ch := make(chan result, 1)
		go func() {
			fd, err := unix.Open(path, openFlags, 0)
			ch <- result{fd, err}
		}()
		select {
		case r := <-ch:
			if r.err != nil {
				t.Fatalf("open %s: %v", path, r.err)
			}
			return r.fd
		case <-time.After(5 * time.Second):
			t.Fatalf("open %s with openFlags blocked", path)
		}
		return -1
	}
	f, err := checkOpened(open(a), a, idAt(a))
	if err != nil {
		t.Fatalf("the listed file itself: %v", err)
	}
	f.f.Close()
	if _, err := checkOpened(open(b), a, idAt(a)); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "another file") {
		t.Errorf("another file: %v, want ErrChanged", err)
	}
	if _, err := checkOpened(open(p), a, idAt(a)); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("a FIFO: %v, want ErrChanged naming the FIFO", err)
	}
	// The flags: a link is refused by the open itself.
	l := filepath.Join(dir, "l.md")
	if err := os.Symlink(a, l); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Open(l, openFlags, 0); openClass(err) != ErrChanged {
		t.Errorf("open of a link with openFlags: %v, want ELOOP", err)
	}
}

// TestSwapInWindow replaces an entry exactly between its listing and its
// open, the window an attacker aims for, for each kind of replacement. The
// replacement must not be read, the scan must not block, and the entry must
// be named as changed; a file replaced by another regular file is read at
// the next scan.
func TestSwapInWindow(t *testing.T) {
	secret, marker := secretFile(t)
	cases := []struct {
		name    string
		entry   string                  // relative path the hook swaps
		replace func(path string) error // runs on Run's goroutine: no t.Fatal
		later   string                  // text the next scan must emit for entry, if any
	}{
		{"link to a secret file", "a.md", func(p string) error {
			return renameOver(p, func(tmp string) error { return os.Symlink(secret, tmp) })
		}, ""},
		{"FIFO without writer", "a.md", func(p string) error {
			return renameOver(p, func(tmp string) error { return unix.Mkfifo(tmp, 0o644) })
		}, ""},
		{"another regular file", "a.md", func(p string) error {
			return renameOver(p, func(tmp string) error { return os.WriteFile(tmp, []byte("# Other\n\nReplacement text."), 0o644) })
		}, "# Other\n\nReplacement text."},
		{"parent folder swapped for a link", "sub", func(p string) error {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			return os.Symlink(filepath.Dir(secret), p)
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, filepath.Join(root, "a.md"), []byte("# A\n\nHarmless."))
			write(t, filepath.Join(root, "sub/secret.md"), []byte("# Inner\n\nHarmless too."))
			target := filepath.Join(root, tc.entry)
			logs := &syncLog{}
			s, err := New(Config{Path: root}, slog.New(slog.NewJSONHandler(logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			swapped := false
			s.hookBeforeOpen = func(path string) {
				if path == target && !swapped {
					swapped = true
					if err := tc.replace(path); err != nil {
						t.Errorf("replace %s: %v", path, err)
					}
				}
			}
			var c collector
			var leaks atomic.Int64
			done := make(chan error, 1)
			go func() { done <- s.Run(context.Background(), guardEmit(t, &c, marker, &leaks)) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the scan blocked on the swapped-in entry")
			}
			if !swapped {
				t.Fatal("the hook never saw the entry")
			}
			if _, ok := c.docs[target]; ok {
				t.Errorf("%s emitted in the scan it was swapped in", tc.entry)
			}
			for p := range c.docs {
				if strings.HasPrefix(p, target+"/") {
					t.Errorf("%s emitted through the swapped folder", p)
				}
			}
			w, ok := skipWarnings(t, logs.snapshot())[target]
			if reason, _ := w["reason"].(string); !ok || !strings.HasPrefix(reason, ErrChanged.Error()) {
				t.Errorf("warning for %s: %v, want %q", tc.entry, w, ErrChanged)
			}
			if tc.later == "" {
				return
			}
			if err := s.Run(context.Background(), guardEmit(t, &c, marker, &leaks)); err != nil {
				t.Fatal(err)
			}
			if got := c.docs[target].Text; got != tc.later {
				t.Errorf("next scan emitted %q for %s, want %q", got, tc.entry, tc.later)
			}
		})
	}
}

// renameOver replaces path atomically with what make creates beside it
// (under a name that is no document).
func renameOver(path string, make func(string) error) error {
	tmp := path + ".new"
	if err := make(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// raceDuration is how long TestSwapRace swaps: 3 s by default, the
// acceptance run's 30 s with ROBUSTREAM_RACE_SECONDS=30.
func raceDuration(t *testing.T) time.Duration {
	v := os.Getenv("ROBUSTREAM_RACE_SECONDS")
	if v == "" {
		return 3 * time.Second
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("ROBUSTREAM_RACE_SECONDS=%q: want a positive number of seconds", v)
	}
	return time.Duration(n) * time.Second
}

// TestSwapRace is the reported attack, run against a source polling every
// millisecond: one name flips between a harmless file, a link to a secret
// outside the folder and a FIFO with no writer; a subdirectory flips
// between a real folder and a link to the secret's folder. The secret must
// never be emitted, the other files must keep flowing, each kind of skip
// must be named once, and the source must stop promptly on cancel while a
// FIFO with no writer sits in the folder.
func TestSwapRace(t *testing.T) {
	d := raceDuration(t)
	root := t.TempDir()
	secret, marker := secretFile(t)
	write(t, filepath.Join(root, "steady.md"), []byte("# Steady\n\nAlways here."))
	mkfifo(t, filepath.Join(root, "stuck.md")) // never opened for writing
	swap := filepath.Join(root, "swap.md")
	write(t, swap, []byte("# Swap\n\nHarmless."))
	sub := filepath.Join(root, "sub")
	write(t, filepath.Join(sub, "inner.md"), []byte("# Inner\n\nHarmless too."))

	logs := &syncLog{}
	s, err := New(Config{Path: root, Watch: true, PollInterval: time.Millisecond}, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	// Widen the window between listing and open a little, as a slow disk
	// or a busy machine would, so that the swapper lands in it often.
	s.hookBeforeOpen = func(path string) {
		if path == swap || path == sub {
			time.Sleep(20 * time.Microsecond)
		}
	}
	var c collector
	var leaks atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, guardEmit(t, &c, marker, &leaks)) }()

	// Each swap exchanges the name with a staging one outside the folder
	// (renameat2 RENAME_EXCHANGE, atomic), so the name always exists and
	// only its kind changes: the source never sees it missing, and every
	// (path, kind) warning is due exactly once.
	stage := t.TempDir()
	stop := make(chan struct{})
	var swapper sync.WaitGroup
	// Registered after the temporary folders, so it runs before their
	// removal even when the test fails early.
	stopSwapping := sync.OnceFunc(func() {
		close(stop)
		swapper.Wait()
	})
	t.Cleanup(stopSwapping)
	var swaps atomic.Int64
	replace := func(tmp, dst string, make func(string) error) {
		tmp = filepath.Join(stage, tmp)
		if err := os.RemoveAll(tmp); err != nil {
			t.Errorf("clear %s: %v", tmp, err)
			return
		}
		if err := make(tmp); err != nil {
			t.Errorf("make %s: %v", tmp, err)
			return
		}
		if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dst, unix.RENAME_EXCHANGE); err != nil {
			t.Errorf("exchange %s: %v", dst, err)
			return
		}
		swaps.Add(1)
	}
	swapper.Add(2)
	go func() {
		defer swapper.Done()
		kinds := []func(string) error{
			func(p string) error { return os.WriteFile(p, []byte("# Swap\n\nHarmless."), 0o644) },
			func(p string) error { return os.Symlink(secret, p) },
			func(p string) error { return unix.Mkfifo(p, 0o644) },
		}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			replace("swap", swap, kinds[i%len(kinds)])
		}
	}()
	go func() {
		defer swapper.Done()
		kinds := []func(string) error{
			func(p string) error {
				if err := os.Mkdir(p, 0o755); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(p, "inner.md"), []byte("# Inner\n\nHarmless too."), 0o644)
			},
			func(p string) error { return os.Symlink(filepath.Dir(secret), p) },
		}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			replace("sub", sub, kinds[i%len(kinds)])
		}
	}()

	// Halfway, a new document: ingestion must go on beside the swapping.
	time.Sleep(d / 2)
	added := filepath.Join(root, "added.md")
	write(t, added, []byte("# Added\n\nWritten during the race."))
	deadline := time.Now().Add(d/2 + 5*time.Second)
	for {
		c.mu.Lock()
		_, ok := c.docs[added]
		c.mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("added.md was not emitted while the swapping went on")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rest := time.Until(deadline.Add(-5 * time.Second)); rest > 0 {
		time.Sleep(rest)
	}
	stopSwapping()

	// Stop with stuck.md, a FIFO with no writer, still in the folder; the
	// swapped name is left a FIFO too.
	replace("swap", swap, func(p string) error { return unix.Mkfifo(p, 0o644) })
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run returned %v after cancel", err)
		}
		t.Logf("Run returned %v after cancel", time.Since(start).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of cancel with a FIFO in the folder")
	}

	if leaks.Load() != 0 {
		t.Fatalf("the secret was emitted %d times", leaks.Load())
	}
	c.mu.Lock()
	for _, name := range []string{"steady.md", "swap.md", "sub/inner.md", "added.md"} {
		if _, ok := c.docs[filepath.Join(root, name)]; !ok {
			t.Errorf("%s was never emitted", name)
		}
	}
	for p := range c.docs {
		if !strings.HasPrefix(p, root+string(filepath.Separator)) {
			t.Errorf("a document from outside the folder: %s", p)
		}
	}
	c.mu.Unlock()

	// Each kind is named, and each (path, kind) once: the names stayed
	// present throughout, so nothing is forgotten and warned again.
	seen := map[warnKey]int{}
	for _, r := range parseLogs(t, logs.snapshot()) {
		if r["msg"] != "file skipped" {
			continue
		}
		p, _ := r["path"].(string)
		reason, _ := r["reason"].(string)
		class := reason
		for _, e := range []error{ErrSymlink, ErrNotRegular, ErrChanged, ErrUnreadable, ErrLoop} {
			if strings.HasPrefix(reason, e.Error()) {
				class = e.Error()
			}
		}
		seen[warnKey{strings.TrimPrefix(p, root+"/"), class}]++
	}
	for _, k := range []warnKey{
		{"stuck.md", ErrNotRegular.Error()},
		{"swap.md", ErrNotRegular.Error()},
		{"swap.md", ErrSymlink.Error()},
		{"sub", ErrSymlink.Error()},
	} {
		if seen[k] == 0 {
			t.Errorf("no warning for %s: %s", k.path, k.class)
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s (%s) named %d times, want once", k.path, k.class, n)
		}
	}
	t.Logf("%v of swapping, %d swaps, %d documents emitted; warnings: %v", d, swaps.Load(), c.count(), seen)
}

// TestRootForms covers the configured path itself, which is the operator's
// choice and opened as given: a single file is read, a link to a folder is
// walked (documents named under the link's path), and a FIFO given as the
// path is named and does not block.
func TestRootForms(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.md")
	write(t, file, []byte("# One\n\nA single file."))
	folder := filepath.Join(dir, "folder")
	write(t, filepath.Join(folder, "two.txt"), []byte("two"))
	link := filepath.Join(dir, "link")
	if err := os.Symlink(folder, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.md")
	mkfifo(t, fifo)
	pdf := filepath.Join(dir, "report.pdf")
	write(t, pdf, []byte("%PDF-1.7"))

	run := func(path string) (*collector, *syncLog) {
		t.Helper()
		logs := &syncLog{}
		s, err := New(Config{Path: path}, slog.New(slog.NewJSONHandler(logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		c := &collector{}
		done := make(chan error, 1)
		go func() { done <- s.Run(context.Background(), c.emit) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Run(%s): %v", path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Run(%s) blocked", path)
		}
		return c, logs
	}
	if c, _ := run(file); len(c.docs) != 1 || c.docs[file].Text != "# One\n\nA single file." {
		t.Errorf("single file: %v", keys(c.docs))
	}
	if c, _ := run(link); len(c.docs) != 1 || c.docs[filepath.Join(link, "two.txt")].Text != "two" {
		t.Errorf("link to a folder as the path: %v", keys(c.docs))
	}
	c, logs := run(fifo)
	w, ok := skipWarnings(t, logs.snapshot())[fifo]
	if reason, _ := w["reason"].(string); len(c.docs) != 0 || !ok || !strings.Contains(reason, "named pipe (FIFO)") {
		t.Errorf("FIFO as the path: %d documents, warning %v", len(c.docs), w)
	}
	c, logs = run(pdf)
	if _, ok := skipWarnings(t, logs.snapshot())[pdf]; len(c.docs) != 0 || !ok {
		t.Errorf("a PDF as the path: %d documents, warned %v", len(c.docs), ok)
	}
}
