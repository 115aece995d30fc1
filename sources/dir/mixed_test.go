package dir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/streams"
)

// goodFiles are what a real folder of notes holds: Markdown, plain text
// (one with tabs, a form feed and terminal colour codes, which are text)
// and HTML.
var goodFiles = map[string]string{
	"guides/onboarding.md": "# Onboarding at Northwind\n\nWelcome to the team. Your first week is about meeting people,\n" +
		"not shipping code.\n\n- Day 1: laptop, accounts and a walk around the Oslo office.\n" +
		"- Day 2: pair with your buddy on a small bug.\n\n```sh\nmake test\n```\n",
	"notes/release-2.3.markdown": "Release notes\n=============\n\n## 2.3.0 (2025-07-14)\n\n" +
		"The exporter now retries on HTTP 503 and honours `Retry-After`.\n" +
		"Thanks to Maria Lopez for the report.\n",
	"notes/meeting.txt": "Minutes of the budget meeting, 3 June 2025\r\n\r\n" +
		"Present: A. Okafor, M. Lopez, J. Berg.\r\nThe board approved a 4.2% increase for the research group.\r\n",
	"logs/deploy.txt": "deploy log\tbuild 8812\n\x1b[32mOK\x1b[0m  migrated 14 tables in 3.1s\n" +
		"\x1b[33mWARN\x1b[0m  index rebuild on orders took 41s, above the 30s budget\n\fpage two: rollout finished at 17:02 UTC\n",
	"site/about.html": `<!doctype html><html><head><title>About Globex</title></head><body>
<h1>About us</h1><p>Globex was founded in 1989 in Springfield and employs 4,500 people.</p>
<p>Our mission is <em>affordable</em> energy storage.</p></body></html>`,
	"site/pricing.htm": `<html><head><title>Pricing</title><style>td{padding:0}</style></head><body>
<table><caption>Plans</caption><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>$9</td></tr></table>
<p>All prices exclude VAT.</p></body></html>`,
}

// badFiles are files the source must skip, each with the reason it must
// give; angle.txt is under max_bytes but its escaped record is not.
var badFiles = map[string]struct {
	data   []byte
	reason error
}{
	"big/angle.txt":  {bytes.Repeat([]byte("<"), 3_800<<10), ErrRecordTooLarge},
	"big/ctrl.txt":   {bytes.Repeat([]byte("\x01"), 3_800<<10), ErrBinary},
	"big/five.md":    {bytes.Repeat([]byte("word "), 1<<20), ErrTooLarge},
	"bad/latin1.txt": {[]byte("Caf\xe9 cr\xe8me, 4 \x80 la tasse\n"), ErrInvalidUTF8},
}

func writeMixed(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range goodFiles {
		write(t, filepath.Join(root, name), []byte(text))
	}
	for name, b := range badFiles {
		write(t, filepath.Join(root, name), b.data)
	}
	return root
}

// logRecord is one line of slog's JSON output.
type logRecord map[string]any

func parseLogs(t *testing.T, buf *bytes.Buffer) []logRecord {
	t.Helper()
	var recs []logRecord
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var r logRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// skipWarnings returns the "file skipped" warnings by path.
func skipWarnings(t *testing.T, buf *bytes.Buffer) map[string]logRecord {
	t.Helper()
	out := map[string]logRecord{}
	for _, r := range parseLogs(t, buf) {
		if r["msg"] != "file skipped" {
			continue
		}
		p, _ := r["path"].(string)
		if _, dup := out[p]; dup {
			t.Errorf("%s warned twice", p)
		}
		out[p] = r
	}
	return out
}

// checkGood asserts that exactly the good files were emitted, once each.
func checkGood(t *testing.T, root string, c *collector) {
	t.Helper()
	if c.n != len(goodFiles) || len(c.docs) != len(goodFiles) {
		t.Errorf("%d records for %d documents, want %d", c.n, len(c.docs), len(goodFiles))
	}
	for name := range goodFiles {
		d, ok := c.docs[filepath.Join(root, name)]
		if !ok {
			t.Errorf("%s not emitted", name)
			continue
		}
		if strings.TrimSpace(d.Text) == "" {
			t.Errorf("%s emitted without text", name)
		}
	}
}

// TestMixedFolder is the reported case: a few bad files among good ones.
// Every good file is emitted and every bad one is named with its reason;
// before, the escaped "<" file failed the whole run.
func TestMixedFolder(t *testing.T) {
	root := writeMixed(t)
	var logs bytes.Buffer
	s, err := New(Config{Path: root}, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var c collector
	if err := s.Run(context.Background(), c.emit); err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkGood(t, root, &c)
	if got := c.docs[filepath.Join(root, "logs/deploy.txt")].Text; !strings.Contains(got, "\x1b[32mOK") {
		t.Errorf("deploy.txt text lost its colour codes: %q", got)
	}
	warned := skipWarnings(t, &logs)
	for name, b := range badFiles {
		w, ok := warned[filepath.Join(root, name)]
		if !ok {
			t.Errorf("no warning names %s:\n%s", name, logs.String())
			continue
		}
		if reason, _ := w["reason"].(string); !strings.Contains(reason, b.reason.Error()) {
			t.Errorf("%s skipped for %q, want %q", name, reason, b.reason)
		}
	}
	// The size warning gives both sizes: the file's and its record's.
	w := warned[filepath.Join(root, "big/angle.txt")]
	raw, _ := w["raw_bytes"].(float64)
	enc, _ := w["encoded_bytes"].(float64)
	if int(raw) != len(badFiles["big/angle.txt"].data) || enc < 6*raw || int(enc) <= maxRecordBytes {
		t.Errorf("angle.txt warning has raw_bytes %v encoded_bytes %v, want %d and over %d", w["raw_bytes"], w["encoded_bytes"], len(badFiles["big/angle.txt"].data), maxRecordBytes)
	}
	if st := s.Stats(); st.Emitted != int64(len(goodFiles)) || st.Skipped != int64(len(badFiles)) {
		t.Errorf("stats %+v, want %d emitted and %d skipped", st, len(goodFiles), len(badFiles))
	}
}

// refusingEmit stands for the runner behind sources.Versioned: it refuses,
// whole, any batch holding a record over limit, with an error wrapping
// streams.ErrTooLarge, and writes nothing of it.
func refusingEmit(c *collector, limit int, calls *int) func(context.Context, ...streams.Record) error {
	return func(ctx context.Context, recs ...streams.Record) error {
		*calls++
		for _, r := range recs {
			if n := sources.RecordBytes(r); n > limit {
				return fmt.Errorf("source dir: %w: a %d-byte record exceeds %d bytes", streams.ErrTooLarge, n, limit)
			}
		}
		return c.emit(ctx, recs...)
	}
}

// TestRecordRefusedByEmit covers a record that passes the source's own
// check but is refused by emit: the file is skipped and named, the rest of
// its batch is written, and a rescan neither re-emits nor re-warns.
func TestRecordRefusedByEmit(t *testing.T) {
	root := writeMixed(t)
	var logs bytes.Buffer
	s, err := New(Config{Path: root}, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	s.maxRecord = math.MaxInt // only emit knows the limit
	var c collector
	calls := 0
	emit := refusingEmit(&c, maxRecordBytes, &calls)
	if err := s.Run(context.Background(), emit); err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkGood(t, root, &c)
	// At most: the refused batch, then one call per record of it (the
	// oversized record, past sources.BatchBytes alone, may end a batch of
	// its own; a refused batch of one is not retried).
	if most := 1 + len(goodFiles) + 1; calls > most {
		t.Errorf("emit called %d times, want at most %d (the batch, then each record)", calls, most)
	}
	angle := filepath.Join(root, "big/angle.txt")
	w, ok := skipWarnings(t, &logs)[angle]
	if !ok {
		t.Fatalf("no warning names %s:\n%s", angle, logs.String())
	}
	if reason, _ := w["reason"].(string); !strings.Contains(reason, streams.ErrTooLarge.Error()) {
		t.Errorf("angle.txt skipped for %q, want the emit error", reason)
	}
	if raw, _ := w["raw_bytes"].(float64); int(raw) != len(badFiles["big/angle.txt"].data) {
		t.Errorf("angle.txt warning has raw_bytes %v", w["raw_bytes"])
	}
	if st := s.Stats(); st.Emitted != int64(len(goodFiles)) || st.Skipped != int64(len(badFiles)) {
		t.Errorf("stats %+v, want %d emitted and %d skipped", st, len(goodFiles), len(badFiles))
	}

	// Nothing changed on disk: a rescan emits and warns nothing.
	logs.Reset()
	calls = 0
	if err := s.Run(context.Background(), emit); err != nil {
		t.Fatalf("second Run: %v", err)
	}
	if calls != 0 || logs.Len() != 0 {
		t.Errorf("rescan of an unchanged folder: %d emit calls, logs:\n%s", calls, logs.String())
	}
}

// TestOtherEmitErrorsStillStop: only a too-large refusal is one file's
// problem; any other emit error ends the run, as the conformance suite
// requires.
func TestOtherEmitErrorsStillStop(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a.txt"), []byte("alpha"))
	write(t, filepath.Join(root, "b.txt"), []byte("beta"))
	s, err := New(Config{Path: root}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("broker down")
	n := 0
	err = s.Run(context.Background(), func(_ context.Context, recs ...streams.Record) error {
		n++
		if n == 1 {
			return fmt.Errorf("%w", streams.ErrTooLarge) // the batch
		}
		return boom // the first record on its own
	})
	if !errors.Is(err, boom) || n != 2 {
		t.Fatalf("Run returned %v after %d emits, want the second emit's error after 2", err, n)
	}
	if st := s.Stats(); st.Emitted != 0 || st.Skipped != 0 {
		t.Errorf("stats %+v after a failed emit, want nothing counted", st)
	}
}

// TestEncodedSizeLimit checks the record-size check from both sides with
// one file, far under max_bytes: emitted when its record fits, skipped with
// both sizes when it does not. The margin absorbs the timestamps, whose
// encoded length varies by a few bytes from run to run.
func TestEncodedSizeLimit(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "escaped.txt")
	raw := []byte(strings.Repeat("if a < b && c > d {}\n", 200))
	write(t, path, raw)
	run := func(limit int) (*collector, map[string]logRecord) {
		t.Helper()
		var logs bytes.Buffer
		s, err := New(Config{Path: root}, slog.New(slog.NewJSONHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		s.maxRecord = limit
		var c collector
		sized := func(ctx context.Context, recs ...streams.Record) error {
			for _, r := range recs {
				if n := sources.RecordBytes(r); n > limit {
					t.Errorf("emitted a %d-byte record with the limit at %d", n, limit)
				}
			}
			return c.emit(ctx, recs...)
		}
		if err := s.Run(context.Background(), sized); err != nil {
			t.Fatal(err)
		}
		return &c, skipWarnings(t, &logs)
	}

	var size int
	s, err := New(Config{Path: root}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background(), func(_ context.Context, recs ...streams.Record) error {
		size = sources.RecordBytes(recs[0])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if size < 2*len(raw) {
		t.Fatalf("record of %d bytes for %d bytes of text: escaping should at least double it", size, len(raw))
	}

	if c, warned := run(size + 64); c.n != 1 || len(warned) != 0 {
		t.Errorf("limit above the record: %d emitted, warnings %v", c.n, warned)
	}
	c, warned := run(size - 64)
	if c.n != 0 {
		t.Errorf("limit below the record: %d emitted", c.n)
	}
	w, ok := warned[path]
	if !ok {
		t.Fatalf("limit below the record: no warning for %s", path)
	}
	if w["reason"] != ErrRecordTooLarge.Error() || int(w["raw_bytes"].(float64)) != len(raw) || int(w["encoded_bytes"].(float64)) <= size-64 {
		t.Errorf("warning %v, want reason %q, raw_bytes %d, encoded_bytes near %d", w, ErrRecordTooLarge, len(raw), size)
	}
}

// limitProbe emits a record of limit and one of limit+1 bytes and keeps
// what emit answered.
type limitProbe struct {
	limit int
	errs  []error
}

func (p *limitProbe) Name() string { return "probe" }

func (p *limitProbe) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	for _, n := range []int{p.limit, p.limit + 1} {
		p.errs = append(p.errs, emit(ctx, streams.Record{Topic: streams.TopicDocuments, Value: make([]byte, n)}))
	}
	return nil
}

// TestRecordLimitMatchesRunner pins maxRecordBytes, a copy of the runner's
// unexported limit, to the runner: it refuses limit+1 bytes as too large
// and not limit bytes. The context is cancelled, so the record under the
// limit fails for that reason and no broker is needed.
func TestRecordLimitMatchesRunner(t *testing.T) {
	k, err := streams.NewKafka(streams.KafkaConfig{Brokers: []string{"127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &limitProbe{limit: maxRecordBytes}
	if err := streams.NewRunner(k, slog.New(slog.DiscardHandler), nil).RunSource(ctx, p, streams.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	if p.errs[0] == nil || errors.Is(p.errs[0], streams.ErrTooLarge) {
		t.Errorf("%d bytes: emit returned %v, want a produce error other than ErrTooLarge", p.limit, p.errs[0])
	}
	if !errors.Is(p.errs[1], streams.ErrTooLarge) {
		t.Errorf("%d bytes: emit returned %v, want ErrTooLarge", p.limit+1, p.errs[1])
	}
}
