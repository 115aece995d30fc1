package sources_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/sources/dir"
	"github.com/robustream/robustream/sources/jsonl"
	"github.com/robustream/robustream/streams"
)

// TestDirSkipsBadFilesEndToEnd is the reported failure as `eval --once
// --source dir:FOLDER` runs it: the folder source behind Versioned and the
// runner, against the embedded broker. A 3.8 MiB file of "<" (a 23 MB
// record once escaped) and one of \x01 used to end the run with an unnamed
// "record too large"; now both are skipped by name and the good files land
// in Kafka.
func TestDirSkipsBadFilesEndToEnd(t *testing.T) {
	ctx := context.Background()
	folder := t.TempDir()
	good := map[string]string{
		"a.md":   "# Alpha\n\nAcme Corp's revenue in 2025 was $4.2 billion.\n",
		"b.html": "<html><head><title>Beta</title></head><body><p>Globex hired 450 engineers.</p></body></html>",
		"c.txt":  "Initech appointed Peter Gibbons as chief operating officer.\n",
	}
	bad := map[string][]byte{
		"angle.txt": bytes.Repeat([]byte("<"), 3_800<<10),
		"ctrl.txt":  bytes.Repeat([]byte("\x01"), 3_800<<10),
	}
	for name, text := range good {
		if err := os.WriteFile(filepath.Join(folder, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range bad {
		if err := os.WriteFile(filepath.Join(folder, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	b, err := streams.StartBroker(t.TempDir(), "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	k, err := streams.NewKafka(b.ClientConfig().WithPartitions(2))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if err := k.EnsureTopics(ctx, streams.TopicDocuments); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	src, err := dir.New(dir.Config{Path: folder}, log)
	if err != nil {
		t.Fatal(err)
	}
	st := streams.NewState(k, "source.dir")
	if err := st.RestoreAll(ctx); err != nil {
		t.Fatal(err)
	}
	v := sources.NewVersioned(src, st, k.Partitions())
	if err := streams.NewRunner(k, log, nil).RunSource(ctx, v, streams.SourceOptions{}); err != nil {
		t.Fatalf("RunSource: %v", err)
	}

	if v.Emitted.Load() != int64(len(good)) {
		t.Errorf("Versioned emitted %d documents, want %d", v.Emitted.Load(), len(good))
	}
	ends, err := k.EndOffsets(ctx, streams.TopicDocuments)
	if err != nil {
		t.Fatal(err)
	}
	var inKafka int64
	for _, end := range ends[streams.TopicDocuments] {
		inKafka += end
	}
	if inKafka != int64(len(good)) {
		t.Errorf("%d records in %s, want %d", inKafka, streams.TopicDocuments, len(good))
	}
	for _, name := range []string{"angle.txt", "ctrl.txt"} {
		if !strings.Contains(logs.String(), filepath.Join(folder, name)) {
			t.Errorf("no log line names %s:\n%s", name, logs.String())
		}
	}
	if s := src.Stats(); s.Skipped != 2 {
		t.Errorf("dir stats %+v, want 2 skipped", s)
	}
}

// TestJSONLDeadLettersOversizedEndToEnd is `eval --once --source
// jsonl:FILE` with one record whose document is too large for Kafka (1.5
// MB of "<" is 9 MB escaped), behind Versioned and the runner, against the
// embedded broker. The replay used to stop there, the records of its batch
// unwritten; now the record is dead-lettered and the others land.
func TestJSONLDeadLettersOversizedEndToEnd(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	lines := []string{
		`{"id":"a","text":"Acme Corp's revenue in 2025 was $4.2 billion.","published_at":"2026-01-01"}`,
		`{"id":"big","text":"` + strings.Repeat("<", 1_500_000) + `","published_at":"2026-01-02"}`,
		`{"id":"c","text":"Initech appointed Peter Gibbons as chief operating officer.","published_at":"2026-01-03"}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := streams.StartBroker(t.TempDir(), "", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	k, err := streams.NewKafka(b.ClientConfig().WithPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if err := k.EnsureTopics(ctx, streams.TopicDocuments, streams.TopicDLQ); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	src, err := jsonl.New(jsonl.Config{Path: path}, log)
	if err != nil {
		t.Fatal(err)
	}
	st := streams.NewState(k, "source.jsonl")
	if err := st.RestoreAll(ctx); err != nil {
		t.Fatal(err)
	}
	v := sources.NewVersioned(src, st, k.Partitions())
	if err := streams.NewRunner(k, log, nil).RunSource(ctx, v, streams.SourceOptions{}); err != nil {
		t.Fatalf("RunSource: %v", err)
	}
	ends, err := k.EndOffsets(ctx, streams.TopicDocuments, streams.TopicDLQ)
	if err != nil {
		t.Fatal(err)
	}
	if docs, dead := ends[streams.TopicDocuments][0], ends[streams.TopicDLQ][0]; docs != 2 || dead != 1 {
		t.Errorf("%d documents and %d dead letters in Kafka, want 2 and 1", docs, dead)
	}
	if s := src.Stats(); s.Emitted != 2 || s.Bad != 1 || v.Emitted.Load() != 2 {
		t.Errorf("jsonl stats %+v, versioned %d; want 2 emitted, 1 bad", s, v.Emitted.Load())
	}
}
