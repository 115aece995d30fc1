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
