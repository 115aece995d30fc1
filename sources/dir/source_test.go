package dir

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// collector is an emit function that records what it was given.
type collector struct {
	mu   sync.Mutex
	docs map[string]schemas.DocumentVersion // by path
	n    int
}

func (c *collector) emit(_ context.Context, recs ...streams.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range recs {
		var d schemas.DocumentVersion
		if err := schemas.Decode(r.Value, &d); err != nil {
			return err
		}
		if r.Topic != streams.TopicDocuments || string(r.Key) != d.DocID {
			return errors.New("wrong topic or key")
		}
		if c.docs == nil {
			c.docs = map[string]schemas.DocumentVersion{}
		}
		c.docs[d.Metadata["path"]] = d
		c.n++
	}
	return nil
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

const page = `<!doctype html><html><head><title>Valdoria  indicators</title>
<style>body{color:red}</style><script>alert("x")</script></head>
<body><h1>Valdoria</h1><p>Inflation in Valdoria was 3.4%
in Q2 2025.</p><p>Unemployment <b>fell</b> to 5.1%.<br>Exports rose.</p>
<div hidden>secret</div><p style="display: none">also secret</p>
<ul><li>one</li><li>two</li></ul>
<table><caption>Table 1: Rates</caption><tr><th>Rate</th><th>Value</th></tr><tr><td>Policy</td><td>4.25%</td></tr></table>
<noscript>enable js</noscript></body></html>`

func TestRunOnce(t *testing.T) {
	root := t.TempDir()
	mtime := time.Date(2025, 6, 30, 12, 0, 0, 0, time.UTC)
	files := map[string][]byte{
		"a/report.md":      []byte("Preamble line\n\n# Acme results\n\nAcme Corp opened 12 new stores.\n"),
		"b/notes.txt":      []byte("Plain notes.\r\nSecond line.\r\n"),
		"b/page.html":      []byte(page),
		"bad/binary.md":    {0x89, 'P', 'N', 'G', 0, 0, 1},
		"bad/latin1.txt":   []byte("caf\xe9"),
		"bad/empty.md":     {},
		"bad/blank.txt":    []byte(" \n\t\n"),
		"bad/script.html":  []byte("<script>only()</script>"),
		"bad/huge.txt":     bytes.Repeat([]byte("x"), 2048),
		"ignored.png":      {0x89, 'P', 'N', 'G'},
		".git/config.md":   []byte("# hidden"),
		"bom/with-bom.txt": []byte("\xef\xbb\xbfHello."),
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		write(t, p, data)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	s, err := New(Config{Path: root, Domain: "economy", MaxBytes: 1024}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var c collector
	if err := s.Run(context.Background(), c.emit); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ title, mime, text string }{
		"a/report.md":      {"Acme results", "text/markdown", "Preamble line\n\n# Acme results\n\nAcme Corp opened 12 new stores.\n"},
		"b/notes.txt":      {"notes", "text/plain", "Plain notes.\nSecond line.\n"},
		"bom/with-bom.txt": {"with-bom", "text/plain", "Hello."},
		"b/page.html": {"Valdoria indicators", "text/html", "# Valdoria\n\nInflation in Valdoria was 3.4% in Q2 2025.\n\n" +
			"Unemployment fell to 5.1%.\nExports rose.\n\n- one\n\n- two\n\n" +
			"Table 1: Rates\n\n| Rate | Value |\n|---|---|\n| Policy | 4.25% |"},
	}
	if len(c.docs) != len(want) {
		var got []string
		for p := range c.docs {
			got = append(got, p)
		}
		t.Fatalf("emitted %v, want %d documents", got, len(want))
	}
	for name, w := range want {
		abs := filepath.Join(root, name)
		d, ok := c.docs[abs]
		if !ok {
			t.Errorf("%s not emitted", name)
			continue
		}
		if d.Title != w.title || d.MIME != w.mime || d.Text != w.text {
			t.Errorf("%s: title %q mime %q text %q\nwant title %q mime %q text %q", name, d.Title, d.MIME, d.Text, w.title, w.mime, w.text)
		}
		if d.DocID != schemas.ID("dir", name) || d.URI != "file://"+abs || d.Source != "dir" || d.Domain != "economy" || d.Version != 1 {
			t.Errorf("%s: identity fields %+v", name, d)
		}
		// None of them gives a date: the modification time is provenance,
		// not a publication date.
		if !d.PublishedAt.IsZero() || d.Metadata[MetaFileMtime] != mtime.UTC().Format(time.RFC3339) ||
			d.FetchedAt.IsZero() || d.ID != schemas.ID(d.DocID, d.ContentHash) {
			t.Errorf("%s: published %v file_mtime %q fetched %v id %q", name, d.PublishedAt, d.Metadata[MetaFileMtime], d.FetchedAt, d.ID)
		}
	}
	// binary, latin1, empty, blank, script-only, huge.
	if st := s.Stats(); st.Skipped != 6 || st.Emitted != 4 {
		t.Errorf("stats %+v, want 4 emitted, 6 skipped", st)
	}
	for _, reason := range []string{ErrBinary.Error(), ErrInvalidUTF8.Error(), ErrEmpty.Error(), ErrTooLarge.Error()} {
		if !strings.Contains(logs.String(), reason) {
			t.Errorf("no warning logged for %q:\n%s", reason, logs.String())
		}
	}
}

func TestWatch(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a.md")
	write(t, a, []byte("# A\n\nfirst"))
	s, err := New(Config{Path: root, Watch: true, PollInterval: 10 * time.Millisecond}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var c collector
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, c.emit) }()
	waitFor := func(n int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for c.count() < n {
			if time.Now().After(deadline) {
				t.Fatalf("waited for %d emits, have %d", n, c.count())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor(1)
	// Same content with a new mtime: not emitted again. New content: emitted.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(a, later, later); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "b.txt"), []byte("second file"))
	waitFor(2)
	write(t, a, []byte("# A\n\nchanged"))
	waitFor(3)
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run returned %v after cancel", err)
	}
	if c.count() != 3 {
		t.Errorf("%d emits, want 3 (a, b, a changed)", c.count())
	}
	if got := c.docs[a].Text; got != "# A\n\nchanged" {
		t.Errorf("last text of a.md %q", got)
	}
}

func TestNew(t *testing.T) {
	if _, err := New(Config{Path: filepath.Join(t.TempDir(), "missing")}, nil); err == nil {
		t.Error("New accepted a missing path")
	}
	if _, err := New(Config{}, nil); err == nil {
		t.Error("New accepted an empty path")
	}
	s, err := New(Config{Path: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.cfg.PollInterval != DefaultPollInterval || s.cfg.Domain != "general" || s.cfg.MaxBytes != DefaultMaxBytes || s.Name() != "dir" {
		t.Errorf("defaults not applied: %+v", s.cfg)
	}
}

func TestEmitErrorIsReturned(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a.txt"), []byte("x"))
	s, err := New(Config{Path: root}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("broker down")
	err = s.Run(context.Background(), func(context.Context, ...streams.Record) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Run returned %v, want the emit error", err)
	}
}

// TestIdentityIsRelative: the same files under two roots (and a root given
// as a relative path) get the same document ids and event ids, and a
// single-file root is named by the file's own name.
func TestIdentityIsRelative(t *testing.T) {
	files := map[string]string{"a.md": "# A\n\nAlpha text.", "sub/b.txt": "Beta text.\n", "sub/deeper/c.html": "<p>Gamma.</p>"}
	ids := func(root string) map[string]string {
		t.Helper()
		for name, text := range files {
			write(t, filepath.Join(root, name), []byte(text))
		}
		s, err := New(Config{Path: root}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var c collector
		if err := s.Run(context.Background(), c.emit); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for abs, d := range c.docs {
			rel, _ := filepath.Rel(root, abs)
			out[filepath.ToSlash(rel)] = d.DocID + "/" + d.ID
		}
		return out
	}
	one, two := ids(filepath.Join(t.TempDir(), "x")), ids(filepath.Join(t.TempDir(), "elsewhere", "y"))
	if len(one) != len(files) || !maps.Equal(one, two) {
		t.Fatalf("ids differ between two copies:\n%v\n%v", one, two)
	}
	if one["sub/b.txt"] != schemas.ID("dir", "sub/b.txt")+"/"+schemas.ID(schemas.ID("dir", "sub/b.txt"), sha256Hex("Beta text.\n")) {
		t.Errorf("sub/b.txt: id %s is not the relative path's", one["sub/b.txt"])
	}
	// A relative root names the same documents.
	parent := t.TempDir()
	write(t, filepath.Join(parent, "rel", "a.md"), []byte(files["a.md"]))
	t.Chdir(parent)
	s, err := New(Config{Path: "rel"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var c collector
	if err := s.Run(context.Background(), c.emit); err != nil {
		t.Fatal(err)
	}
	for _, d := range c.docs {
		if d.DocID != schemas.ID("dir", "a.md") {
			t.Errorf("relative root: doc id %s, want the id of a.md", d.DocID)
		}
	}
	// A root that is one file: the file's name.
	single := filepath.Join(t.TempDir(), "only.txt")
	write(t, single, []byte("Only text."))
	s, err = New(Config{Path: single}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c = collector{}
	if err := s.Run(context.Background(), c.emit); err != nil {
		t.Fatal(err)
	}
	if d, ok := c.docs[single]; !ok || d.DocID != schemas.ID("dir", "only.txt") {
		t.Errorf("single-file root: %+v", c.docs)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestDocumentationNames: plain-text documentation named by convention
// (README, NEWS.Debian) is read as text; a compressed copy, a Makefile and
// a name that merely starts like one are not.
func TestDocumentationNames(t *testing.T) {
	root := t.TempDir()
	for name, data := range map[string]string{
		"README":          "Quill is a text editor.\n",
		"NEWS.Debian":     "Quill 2.0 drops the old parser.\n",
		"NEWS.md":         "# Quill news\n\nQuill 2.0 is out.\n",
		"README.gz":       "\x1f\x8b\x08\x00",
		"Makefile":        "all:\n\tcc quill.c\n",
		"READMEFIRST":     "not a conventional name\n",
		"docs/CHANGELOG":  "2.0: new parser\n",
		"docs/TODO.later": "write the manual\n",
	} {
		write(t, filepath.Join(root, name), []byte(data))
	}
	s, err := New(Config{Path: root, MaxBytes: 1024}, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var c collector
	if err := s.Run(context.Background(), c.emit); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"README": "text/plain", "NEWS.Debian": "text/plain", "NEWS.md": "text/markdown",
		"docs/CHANGELOG": "text/plain", "docs/TODO.later": "text/plain"}
	if len(c.docs) != len(want) {
		t.Errorf("emitted %d documents, want %d: %v", len(c.docs), len(want), slices.Collect(maps.Keys(c.docs)))
	}
	for name, mime := range want {
		if d, ok := c.docs[filepath.Join(root, name)]; !ok || d.MIME != mime {
			t.Errorf("%s: emitted %v, MIME %q; want %q", name, ok, d.MIME, mime)
		}
	}
	if st := s.Stats(); st.Skipped != 0 {
		t.Errorf("stats %+v: nothing here is a broken document", st)
	}
}
