package sources_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/sources/dir"
	"github.com/robustream/robustream/sources/feed"
	"github.com/robustream/robustream/sources/ingest"
	"github.com/robustream/robustream/sources/jsonl"
	kafkasrc "github.com/robustream/robustream/sources/kafka"
	"github.com/robustream/robustream/streams"
)

// sourceCase builds a finite and an unbounded instance of a source.
type sourceCase struct {
	name      string
	finite    func(t *testing.T) streams.Source
	unbounded func(t *testing.T) streams.Source
	// edit, when set, changes the text of exactly one document of what
	// finite reads (the "versions" subtest, which runs last).
	edit func(t *testing.T)
}

// TestSourceConformance is the contract every source must meet (STYLE:
// one conformance suite for all sources): every record is a valid
// DocumentVersion on rs.documents keyed by its doc_id, with the SHA-256 of
// its text as content hash, a deterministic id and a non-empty text; a
// finite run returns nil; an unbounded run returns nil soon after its
// context is cancelled; an error from emit is returned, not swallowed.
// Through sources.Versioned, a second run over unchanged content (a new
// source, the version state restored: a restart) emits nothing, and after
// one document is edited exactly one new version.
func TestSourceConformance(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	broker, err := streams.StartBroker(t.TempDir(), "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	kafka, err := streams.NewKafka(broker.ClientConfig().WithPartitions(2))
	if err != nil {
		t.Fatal(err)
	}
	defer kafka.Close()
	jsonlFile := filepath.Join(t.TempDir(), "docs.jsonl")
	jsonlLines := []string{
		`{"id":"r1","title":"Alpha","text":"Acme Corp's revenue in 2025 was $4.2 billion.","published_at":"2026-01-05"}`,
		`{"id":"r2","text":"Globex hired 450 engineers.","published_at":"2026-02-05","domain":"finance"}`,
		`{"id":"r3","text":"Initech appointed Peter Gibbons as chief operating officer."}`,
	}
	if err := os.WriteFile(jsonlFile, []byte(strings.Join(jsonlLines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := t.TempDir()
	for name, text := range map[string]string{
		"a.md":   "# Alpha\n\nAcme Corp's revenue in 2025 was $4.2 billion.\n",
		"b.html": "<html><head><title>Beta</title></head><body><p>Globex hired 450 engineers.</p></body></html>",
		"c.txt":  "Initech appointed Peter Gibbons as chief operating officer.\n",
	} {
		if err := os.WriteFile(filepath.Join(folder, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []sourceCase{
		{
			name: "demo",
			finite: func(t *testing.T) streams.Source {
				s, err := demo.New(demo.Config{Seed: 3, Periods: 2})
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			unbounded: func(t *testing.T) streams.Source {
				s, err := demo.New(demo.Config{Seed: 3, Interval: time.Hour})
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
		},
		{
			name: "dir",
			finite: func(t *testing.T) streams.Source {
				s, err := dir.New(dir.Config{Path: folder}, quiet)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			unbounded: func(t *testing.T) streams.Source {
				s, err := dir.New(dir.Config{Path: folder, Watch: true, PollInterval: 50 * time.Millisecond}, quiet)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			edit: func(t *testing.T) {
				if err := os.WriteFile(filepath.Join(folder, "c.txt"), []byte("Initech appointed Bill Lumbergh.\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "jsonl",
			finite: func(t *testing.T) streams.Source {
				s, err := jsonl.New(jsonl.Config{Path: jsonlFile}, quiet)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			unbounded: func(t *testing.T) streams.Source {
				// A month between the two dated records, at a speed that
				// makes it years: the replay waits until cancelled.
				s, err := jsonl.New(jsonl.Config{Path: jsonlFile, Speed: 1e-3}, quiet)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			edit: func(t *testing.T) {
				lines := slices.Clone(jsonlLines)
				lines[1] = `{"id":"r2","text":"Globex hired 460 engineers.","published_at":"2026-02-05","domain":"finance"}`
				if err := os.WriteFile(jsonlFile, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	// ingest: what handlers submit; finite once closed after the submits.
	ingestTexts := map[string]string{"r1": "Acme Corp's revenue in 2025 was $4.2 billion.", "r2": "Globex hired 450 engineers."}
	ingestSource := func(t *testing.T, close bool) streams.Source {
		s := ingest.New()
		go func() {
			var docs []*schemas.DocumentVersion
			for _, id := range slices.Sorted(maps.Keys(ingestTexts)) {
				d, err := (&jsonl.Record{ID: id, Text: ingestTexts[id]}).Document(ingest.SourceName, "ingest:"+id)
				if err != nil {
					panic(err)
				}
				docs = append(docs, d)
			}
			s.Submit(context.Background(), docs...) // its error is Run's too
			if close {
				s.Close()
			}
		}()
		return s
	}
	cases = append(cases, sourceCase{
		name:      "ingest",
		finite:    func(t *testing.T) streams.Source { return ingestSource(t, true) },
		unbounded: func(t *testing.T) streams.Source { return ingestSource(t, false) },
		edit:      func(t *testing.T) { ingestTexts["r2"] = "Globex hired 460 engineers." },
	})
	// kafka: a topic another system writes; every build reads it as a new
	// consumer group, so that each run reads it all.
	const kafkaTopic = "conformance.documents"
	if err := kafka.EnsureTopics(context.Background(), kafkaTopic); err != nil {
		t.Fatal(err)
	}
	writer := kafka.NewWriter()
	defer writer.Close()
	produce := func(t *testing.T, key, value string) {
		if err := streams.Produce(context.Background(), writer, streams.Record{Topic: kafkaTopic, Key: []byte(key), Value: []byte(value)}); err != nil {
			t.Fatal(err)
		}
	}
	produce(t, "r1", `{"id":"r1","title":"Alpha","text":"Acme Corp's revenue in 2025 was $4.2 billion."}`)
	produce(t, "r2", "Globex hired 450 engineers.")
	groups := 0
	kafkaSource := func(t *testing.T, finite bool) streams.Source {
		groups++
		s, err := kafkasrc.New(kafkasrc.Config{Topic: kafkaTopic, Group: fmt.Sprintf("conformance-%d", groups), Finite: finite}, kafka, quiet)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases = append(cases, sourceCase{
		name:      "kafka",
		finite:    func(t *testing.T) streams.Source { return kafkaSource(t, true) },
		unbounded: func(t *testing.T) streams.Source { return kafkaSource(t, false) },
		edit:      func(t *testing.T) { produce(t, "r2", "Globex hired 460 engineers.") },
	})
	// rss and atom: a real HTTP server serving a feed of each format.
	var feedMu sync.Mutex
	feedBodies := map[string]string{
		"/rss.xml": `<rss version="2.0"><channel><title>News</title>` +
			`<item><guid>n1</guid><title>Acme</title><pubDate>Tue, 28 Apr 2026 09:00:00 +0000</pubDate><description>Acme Corp's revenue in 2025 was $4.2 billion.</description></item>` +
			`<item><guid>n2</guid><title>Globex</title><description>Globex hired 450 engineers.</description></item></channel></rss>`,
		"/atom.xml": `<feed xmlns="http://www.w3.org/2005/Atom"><title>News</title><id>urn:news</id>` +
			`<entry><id>urn:n1</id><title>Acme</title><published>2026-04-28T09:00:00Z</published><content type="html">&lt;p&gt;Acme Corp's revenue in 2025 was $4.2 billion.&lt;/p&gt;</content></entry>` +
			`<entry><id>urn:n2</id><title>Globex</title><content>Globex hired 450 engineers.</content></entry></feed>`,
	}
	feedServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		feedMu.Lock()
		defer feedMu.Unlock()
		io.WriteString(w, feedBodies[r.URL.Path])
	}))
	defer feedServer.Close()
	for _, kind := range []string{"rss", "atom"} {
		build := func(t *testing.T, finite bool) streams.Source {
			s, err := feed.New(feed.Config{Kind: kind, URL: feedServer.URL + "/" + kind + ".xml", Finite: finite, PollInterval: time.Hour}, quiet)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		cases = append(cases, sourceCase{
			name:      kind,
			finite:    func(t *testing.T) streams.Source { return build(t, true) },
			unbounded: func(t *testing.T) streams.Source { return build(t, false) },
			edit: func(t *testing.T) {
				feedMu.Lock()
				defer feedMu.Unlock()
				feedBodies["/"+kind+".xml"] = strings.Replace(feedBodies["/"+kind+".xml"], "450 engineers", "460 engineers", 1)
			},
		})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Run("records", func(t *testing.T) {
				var recs []streams.Record
				err := c.finite(t).Run(context.Background(), func(_ context.Context, rs ...streams.Record) error {
					recs = append(recs, rs...)
					return nil
				})
				if err != nil {
					t.Fatalf("finite run: %v", err)
				}
				if len(recs) == 0 {
					t.Fatal("no records")
				}
				ids := map[string]bool{}
				for i, r := range recs {
					var d schemas.DocumentVersion
					if err := schemas.Decode(r.Value, &d); err != nil {
						t.Fatalf("record %d: %v", i, err)
					}
					sum := sha256.Sum256([]byte(d.Text))
					switch {
					case r.Topic != streams.TopicDocuments:
						t.Errorf("record %d on topic %q", i, r.Topic)
					case string(r.Key) != d.DocID || d.DocID == "":
						t.Errorf("record %d keyed %q, doc_id %q", i, r.Key, d.DocID)
					case d.ContentHash != hex.EncodeToString(sum[:]):
						t.Errorf("record %d: content hash is not the SHA-256 of its text", i)
					case d.Text == "" || d.ID == "" || d.Source != c.name:
						t.Errorf("record %d: empty text or id, or source %q", i, d.Source)
					}
					if ids[d.ID] {
						t.Errorf("record %d: id %s repeated", i, d.ID)
					}
					ids[d.ID] = true
				}
			})
			t.Run("emit error is returned", func(t *testing.T) {
				boom := errors.New("broker down")
				err := c.finite(t).Run(context.Background(), func(context.Context, ...streams.Record) error { return boom })
				if !errors.Is(err, boom) {
					t.Fatalf("Run returned %v, want the emit error", err)
				}
			})
			t.Run("cancel stops an unbounded run", func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				first := make(chan struct{}, 1)
				go func() {
					done <- c.unbounded(t).Run(ctx, func(context.Context, ...streams.Record) error {
						select {
						case first <- struct{}{}:
						default:
						}
						return nil
					})
				}()
				select {
				case <-first:
				case <-time.After(10 * time.Second):
					t.Fatal("no records from the unbounded source")
				}
				cancel()
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("cancelled run returned %v, want nil", err)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("unbounded source ignored cancellation")
				}
			})
			t.Run("versions", func(t *testing.T) {
				ctx := context.Background()
				run := func() (versions []uint32) {
					st := streams.NewState(kafka, "source.conformance."+c.name)
					if err := st.RestoreAll(ctx); err != nil {
						t.Fatal(err)
					}
					v := sources.NewVersioned(c.finite(t), st, kafka.Partitions())
					err := v.Run(ctx, func(_ context.Context, rs ...streams.Record) error {
						for _, r := range rs {
							var d schemas.DocumentVersion
							if err := schemas.Decode(r.Value, &d); err != nil {
								t.Fatal(err)
							}
							versions = append(versions, d.Version)
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					return versions
				}
				first := run()
				if len(first) == 0 || slices.ContainsFunc(first, func(v uint32) bool { return v != 1 }) {
					t.Fatalf("first run: versions %v, want all 1", first)
				}
				if again := run(); len(again) != 0 {
					t.Fatalf("unchanged content emitted %d versions again", len(again))
				}
				if c.edit == nil {
					return
				}
				c.edit(t)
				if edited := run(); len(edited) != 1 || edited[0] != 2 {
					t.Fatalf("one edited document: versions %v, want [2]", edited)
				}
			})
		})
	}
}
