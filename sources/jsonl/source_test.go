package jsonl

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/streams"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func write(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "docs.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func collect(t *testing.T, s *Source) (docs []schemas.DocumentVersion, dead []streams.Record) {
	t.Helper()
	err := s.Run(context.Background(), func(_ context.Context, recs ...streams.Record) error {
		for _, r := range recs {
			if r.Topic == streams.TopicDLQ {
				dead = append(dead, r)
				continue
			}
			var d schemas.DocumentVersion
			if err := schemas.Decode(r.Value, &d); err != nil {
				t.Fatal(err)
			}
			docs = append(docs, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs, dead
}

// TestReplayOrderAndSpeed: records come out in published_at order whatever
// the file order, undated ones first; with a speed factor the pauses are
// the publication gaps divided by it.
func TestReplayOrderAndSpeed(t *testing.T) {
	p := write(t,
		`{"id":"c","text":"Initech hired 40 people.","published_at":"2026-03-01"}`,
		`{"id":"a","text":"Acme opened a plant in Oslo.","published_at":"2026-01-01T00:00:00Z","title":"Acme","domain":"finance","url":"https://example.org/a","metadata":{"desk":"north","rank":3,"draft":false}}`,
		`{"id":"u","text":"Undated note about Globex."}`,
		`{"id":"b","text":"Globex sold 12 ships.","published_at":"2026-01-02"}`,
	)
	s, err := New(Config{Path: p, Speed: 3600}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	var pauses []time.Duration
	s.sleep = func(_ context.Context, d time.Duration) error { pauses = append(pauses, d); return nil }
	docs, dead := collect(t, s)
	if len(dead) != 0 {
		t.Fatalf("%d dead letters", len(dead))
	}
	var order []string
	for _, d := range docs {
		order = append(order, d.Metadata["record_id"])
	}
	if strings.Join(order, ",") != "u,a,b,c" {
		t.Fatalf("order %v, want u,a,b,c", order)
	}
	// a→b is one day, b→c 58 days; at 3600× a day is 24 s.
	if len(pauses) != 2 || pauses[0] != 24*time.Second || pauses[1] != 58*24*time.Second {
		t.Errorf("pauses %v, want [24s 23m12s]", pauses)
	}
	a := docs[1]
	if a.Title != "Acme" || a.Domain != "finance" || a.URI != "https://example.org/a" || a.Metadata["desk"] != "north" ||
		a.Metadata["rank"] != "3" || a.Metadata["draft"] != "false" || !a.PublishedAt.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("record a became %+v", a)
	}
	if u := docs[0]; !u.PublishedAt.IsZero() || u.Domain != DefaultDomain || u.Metadata["published_at_from"] != "none" {
		t.Errorf("an undated record got published_at %v, domain %q", u.PublishedAt, u.Domain)
	}
}

// TestBadLinesAreDeadLettered: every kind of bad line is dead-lettered
// with its line number, and the good lines around it still arrive.
func TestBadLinesAreDeadLettered(t *testing.T) {
	long := `{"id":"long","text":"` + strings.Repeat("x", 300) + `"}`
	p := write(t,
		`{"id":"ok1","text":"Acme opened a plant."}`,
		`{"id":"broken","text":`,
		``,
		`{"id":"typo","text":"Globex.","publish_date":"2026-01-01"}`,
		`{"text":"no id"}`,
		`{"id":"empty","text":"   "}`,
		`{"id":"baddate","text":"Initech.","published_at":"last Tuesday"}`,
		`[1,2,3]`,
		long,
		`{"id":"nested","text":"x","metadata":{"a":{"b":1}}}`,
		`{"id":"ok2","text":"Initech hired 40 people."}`,
	)
	s, err := New(Config{Path: p, MaxLineBytes: 200}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	docs, dead := collect(t, s)
	if len(docs) != 2 || docs[0].Metadata["record_id"] != "ok1" || docs[1].Metadata["record_id"] != "ok2" {
		t.Fatalf("got %d documents, want ok1 and ok2", len(docs))
	}
	wantLines := []string{"2", "4", "5", "6", "7", "8", "9", "10"}
	if len(dead) != len(wantLines) {
		t.Fatalf("%d dead letters, want %d", len(dead), len(wantLines))
	}
	for i, r := range dead {
		off, _ := streams.HeaderValue(r.Headers, streams.HeaderDLQOffset)
		msg, _ := streams.HeaderValue(r.Headers, streams.HeaderDLQError)
		if off != wantLines[i] || !strings.HasPrefix(msg, "line "+wantLines[i]+":") {
			t.Errorf("dead letter %d: offset %s, error %q; want line %s", i, off, msg, wantLines[i])
		}
	}
	if msg, _ := streams.HeaderValue(dead[1].Headers, streams.HeaderDLQError); !strings.Contains(msg, "publish_date") {
		t.Errorf("unknown field not named: %q", msg)
	}
	if len(dead[6].Value) > sources.MaxDeadValue || !strings.HasPrefix(string(dead[6].Value), `{"id":"long"`) {
		t.Errorf("over-long line's dead letter holds %d bytes", len(dead[6].Value))
	}
	if st := s.Stats(); st.Bad != 8 || st.Emitted != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestDeletedRecord: {"id":…, "deleted":true} is the document's deletion.
func TestDeletedRecord(t *testing.T) {
	p := write(t, `{"id":"a","deleted":true}`, `{"id":"b","deleted":true,"text":"x"}`)
	s, err := New(Config{Path: p}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	docs, dead := collect(t, s)
	if len(docs) != 1 || !sources.IsDeletion(&docs[0]) || docs[0].DocID != DocID(SourceName, "a") {
		t.Fatalf("got %+v, want the deletion of a", docs)
	}
	if len(dead) != 1 {
		t.Errorf("a deleted record with text was not refused")
	}
}

func TestNewRefuses(t *testing.T) {
	for _, c := range []Config{{}, {Path: t.TempDir()}, {Path: "/nonexistent/x.jsonl"}, {Path: "x", Speed: -1}} {
		if _, err := New(c, quiet); err == nil {
			t.Errorf("New(%+v) accepted", c)
		}
	}
}

// deadReasons returns the dead letters' line numbers and errors, in order.
func deadReasons(dead []streams.Record) (lines, reasons []string) {
	for _, r := range dead {
		off, _ := streams.HeaderValue(r.Headers, streams.HeaderDLQOffset)
		msg, _ := streams.HeaderValue(r.Headers, streams.HeaderDLQError)
		lines, reasons = append(lines, off), append(reasons, msg)
	}
	return lines, reasons
}

// TestRecordsMustBeText: bytes that are not UTF-8 (which encoding/json
// would quietly turn into U+FFFD), NUL escapes and control-character noise
// in any text field are dead-lettered with the reason; clean records
// around them arrive.
func TestRecordsMustBeText(t *testing.T) {
	p := write(t,
		`{"id":"ok1","text":"Acme opened a plant."}`,
		"{\"id\":\"latin1\",\"text\":\"Caf\xe9 cr\xe8me\"}",
		`{"id":"nul","text":"Acme\u0000opened"}`,
		`{"id":"noise","text":"\u0001\u0002\u0003\u0004\u0005 ab"}`,
		`{"id":"title","title":"A\u0000","text":"Acme."}`,
		`{"id":"meta","text":"Acme.","metadata":{"desk":"\u0000"}}`,
		`{"id":"\u0007","text":"Acme."}`,
		`{"id":"ok2","text":"Tabs\tand\r\nline ends and a form feed \f are text, and so is \u001b[1mbold\u001b[0m."}`,
	)
	s, err := New(Config{Path: p}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	docs, dead := collect(t, s)
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.Metadata["record_id"])
	}
	if strings.Join(ids, ",") != "ok1,ok2" {
		t.Fatalf("documents %q, want ok1 and ok2", ids)
	}
	lines, reasons := deadReasons(dead)
	want := []struct{ line, says string }{
		{"2", "not valid UTF-8: invalid byte 0xe9"},
		{"3", "record text: binary data, not text: a NUL byte"},
		{"4", "record text: binary data, not text: 5 of 8 characters"},
		{"5", "record title: binary data"},
		{"6", `metadata "desk": binary data`},
		{"7", "record id: binary data"},
	}
	if len(dead) != len(want) {
		t.Fatalf("%d dead letters %v, want %d", len(dead), reasons, len(want))
	}
	for i, w := range want {
		if lines[i] != w.line || !strings.Contains(reasons[i], w.says) {
			t.Errorf("dead letter %d: line %s %q; want line %s saying %q", i, lines[i], reasons[i], w.line, w.says)
		}
	}
	if string(dead[0].Value) != "{\"id\":\"latin1\",\"text\":\"Caf\xe9 cr\xe8me\"}" {
		t.Errorf("the dead letter does not keep the line as it was: %q", dead[0].Value)
	}
}

// TestImplausibleDatesAreRefused: a published_at before 1900 or in the
// future is no publication date: the record is dead-lettered rather than
// anchored at year 1 or 9999.
func TestImplausibleDatesAreRefused(t *testing.T) {
	tomorrowPlus := time.Now().UTC().Add(sources.MaxDateSkew + time.Hour).Format(time.RFC3339)
	p := write(t,
		`{"id":"far","text":"Acme.","published_at":"9999-01-01"}`,
		`{"id":"zero","text":"Acme.","published_at":"0001-01-01T00:00:00Z"}`,
		`{"id":"old","text":"Acme.","published_at":"1899-12-31"}`,
		`{"id":"soon","text":"Acme.","published_at":"`+tomorrowPlus+`"}`,
		`{"id":"ok","text":"Acme.","published_at":"1900-01-01"}`,
	)
	s, err := New(Config{Path: p}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	docs, dead := collect(t, s)
	if len(docs) != 1 || docs[0].PublishedAt.Year() != 1900 {
		t.Fatalf("documents %+v, want only ok", docs)
	}
	_, reasons := deadReasons(dead)
	for i, says := range []string{"in the future", "before 1900", "before 1900", "in the future"} {
		if i >= len(reasons) || !strings.Contains(reasons[i], "no publication date: ") || !strings.Contains(reasons[i], says) {
			t.Errorf("dead letter %d of %v: want it to say %q", i, reasons, says)
		}
	}
}

// refuseOver is the runner's size check behind the source, with a small
// limit: a call holding a record over limit bytes is refused whole with
// streams.ErrTooLarge, nothing written.
func refuseOver(limit int, docs *[]schemas.DocumentVersion, dead *[]streams.Record, calls *[][]streams.Record) func(context.Context, ...streams.Record) error {
	return func(_ context.Context, recs ...streams.Record) error {
		if calls != nil {
			*calls = append(*calls, append([]streams.Record(nil), recs...)) // the source reuses its batch
		}
		for _, r := range recs {
			if n := sources.RecordBytes(r); n > limit && r.Topic == streams.TopicDocuments {
				return fmt.Errorf("%w: a %d-byte record", streams.ErrTooLarge, n)
			}
		}
		for _, r := range recs {
			if r.Topic == streams.TopicDLQ {
				*dead = append(*dead, r)
				continue
			}
			var d schemas.DocumentVersion
			if err := schemas.Decode(r.Value, &d); err != nil {
				return err
			}
			*docs = append(*docs, d)
		}
		return nil
	}
}

// TestOversizedRecordIsDeadLettered: a line that is a valid record but
// whose document is too large for one Kafka record (escaping makes "<" six
// bytes) used to end the replay with nothing written; now it is
// dead-lettered with its line and the reason, and every other record of
// its batch is written, in order.
func TestOversizedRecordIsDeadLettered(t *testing.T) {
	big := `{"id":"big","text":"` + strings.Repeat("<", 400) + `","published_at":"2026-01-02"}`
	p := write(t,
		`{"id":"a","text":"Acme opened a plant.","published_at":"2026-01-01"}`,
		big,
		`{"id":"c","text":"Initech hired 40 people.","published_at":"2026-01-03"}`,
	)
	s, err := New(Config{Path: p}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	var docs []schemas.DocumentVersion
	var dead []streams.Record
	if err := s.Run(context.Background(), refuseOver(1500, &docs, &dead, nil)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(docs) != 2 || docs[0].Metadata["record_id"] != "a" || docs[1].Metadata["record_id"] != "c" {
		t.Fatalf("documents %+v, want a and c", docs)
	}
	lines, reasons := deadReasons(dead)
	if len(dead) != 1 || lines[0] != "2" || !strings.Contains(reasons[0], "line 2: "+streams.ErrTooLarge.Error()) || string(dead[0].Value) != big {
		t.Fatalf("dead letters %v %v, want line 2 too large with the line as value", lines, reasons)
	}
	if st := s.Stats(); st.Emitted != 2 || st.Bad != 1 {
		t.Errorf("stats %+v, want 2 emitted, 1 bad", st)
	}
}

// TestReplayRereadsTheFile: the source keeps an index, not the records:
// a line rewritten between the index and its turn is read as it is then,
// and one that no longer parses is dead-lettered saying so.
func TestReplayRereadsTheFile(t *testing.T) {
	p := write(t,
		`{"id":"bad"`,
		`{"id":"a","text":"Acme opened a plant.","published_at":"2026-01-01"}`,
		`{"id":"b","text":"Globex sold 12 ships.","published_at":"2026-01-02"}`,
	)
	s, err := New(Config{Path: p}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	var docs []schemas.DocumentVersion
	var dead []streams.Record
	rewritten := false
	inner := refuseOver(1<<20, &docs, &dead, nil)
	err = s.Run(context.Background(), func(ctx context.Context, recs ...streams.Record) error {
		if !rewritten {
			// The first call holds the index's dead letter (line 1): the
			// records are indexed but not yet read for their turn. Same
			// length, so the offsets stay right.
			rewritten = true
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			raw = []byte(strings.NewReplacer("12 ships", "14 ships", `"id":"a","text"`, `"id":"a","texx"`).Replace(string(raw)))
			if err := os.WriteFile(p, raw, 0o644); err != nil {
				return err
			}
		}
		return inner(ctx, recs...)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || !strings.Contains(docs[0].Text, "14 ships") {
		t.Fatalf("documents %+v, want b as rewritten", docs)
	}
	lines, reasons := deadReasons(dead)
	if len(dead) != 2 || lines[1] != "2" || !strings.Contains(reasons[1], "changed since it was read") || !strings.Contains(reasons[1], "texx") {
		t.Errorf("dead letters %v %v, want line 1, then line 2 changed", lines, reasons)
	}
}

// TestBatchesAreBounded: documents are written in calls of at most
// sources.BatchRecords records and about sources.BatchBytes bytes, so a
// file of large records is never held whole.
func TestBatchesAreBounded(t *testing.T) {
	var lines []string
	text := strings.Repeat("Acme opened a plant in Oslo. ", 10_000) // ~290 KB
	for i := range 40 {
		lines = append(lines, fmt.Sprintf(`{"id":"big%d","text":"%s","published_at":"2026-01-%02d"}`, i, text, 1+i%28))
	}
	for i := range 150 {
		lines = append(lines, fmt.Sprintf(`{"id":"small%d","text":"Initech hired %d people."}`, i, i))
	}
	s, err := New(Config{Path: write(t, lines...)}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	var docs []schemas.DocumentVersion
	var dead []streams.Record
	var calls [][]streams.Record
	if err := s.Run(context.Background(), refuseOver(1<<30, &docs, &dead, &calls)); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 190 || len(dead) != 0 {
		t.Fatalf("%d documents, %d dead letters; want 190, 0", len(docs), len(dead))
	}
	for i, c := range calls {
		n := 0
		for _, r := range c[:len(c)-1] {
			n += sources.RecordBytes(r)
		}
		if len(c) > sources.BatchRecords || n >= sources.BatchBytes {
			t.Errorf("call %d: %d records, %d bytes before its last; want at most %d records, under %d bytes", i, len(c), n, sources.BatchRecords, sources.BatchBytes)
		}
	}
	// Undated first, then by date: the big ones come last, in date order.
	if docs[0].Metadata["record_id"] != "small0" || !docs[189].PublishedAt.Equal(time.Date(2026, 1, 28, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("order: first %s, last %v", docs[0].Metadata["record_id"], docs[189].PublishedAt)
	}
}
