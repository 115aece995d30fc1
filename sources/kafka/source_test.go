package kafka

import (
	"context"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/sources/jsonl"
	"github.com/robustream/robustream/streams"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestKcatProducesDocuments: kcat, authenticated to the embedded broker as
// another system would be, writes a JSON record, a plain-text message, a
// tombstone and a malformed message; the source reads them as a document,
// a document, a deletion and a dead letter naming the offset, commits, and
// a second finite run reads nothing until kcat writes an edit.
func TestKcatProducesDocuments(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed (Debian package kcat)")
	}
	ctx := context.Background()
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
	const topic = "team.documents"
	if err := k.EnsureTopics(ctx, topic); err != nil {
		t.Fatal(err)
	}
	pass, err := streams.ReadBrokerPassword(b.PasswordFile())
	if err != nil {
		t.Fatal(err)
	}
	produce := func(lines ...string) {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		cmd := exec.CommandContext(cctx, kcat, "-b", b.Addr(), "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=SCRAM-SHA-256",
			"-X", "sasl.username="+streams.BrokerUser, "-X", "sasl.password="+pass, "-P", "-t", topic, "-K", "|", "-Z")
		cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kcat -P: %v\n%s", err, out)
		}
	}
	produce(
		`nw|{"id":"nw","title":"Northwind","text":"Northwind Bank opened 12 new branches.","published_at":"2026-04-28"}`,
		`gx|Globex Industries hired 450 engineers.`,
		`old|`,
		`bad|{"id":"bad","text":`,
	)
	run := func() (docs []schemas.DocumentVersion, dead []streams.Record) {
		t.Helper()
		s, err := New(Config{Topic: topic, Finite: true}, k, quiet)
		if err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		err = s.Run(rctx, func(_ context.Context, recs ...streams.Record) error {
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
		if err != nil || rctx.Err() != nil {
			t.Fatalf("finite run: %v %v", err, rctx.Err())
		}
		return docs, dead
	}
	docs, dead := run()
	byID := map[string]schemas.DocumentVersion{}
	for _, d := range docs {
		byID[d.DocID] = d
	}
	nw, gx, old := byID[jsonl.DocID(SourceName, "nw")], byID[jsonl.DocID(SourceName, "gx")], byID[jsonl.DocID(SourceName, "old")]
	if len(docs) != 3 || nw.Title != "Northwind" || nw.PublishedAt.IsZero() || gx.Text != "Globex Industries hired 450 engineers." ||
		!sources.IsDeletion(&old) || gx.Source != SourceName {
		t.Fatalf("documents: %+v", docs)
	}
	if len(dead) != 1 || string(dead[0].Key) != "bad" {
		t.Fatalf("dead letters: %+v", dead)
	}
	if tp, _ := streams.HeaderValue(dead[0].Headers, streams.HeaderDLQTopic); tp != topic {
		t.Errorf("dead letter names topic %q", tp)
	}
	if docs, dead := run(); len(docs)+len(dead) != 0 {
		t.Fatalf("second run re-read %d messages; the group's offsets were not committed", len(docs)+len(dead))
	}
	produce(`gx|Globex Industries hired 460 engineers.`)
	docs, _ = run()
	if len(docs) != 1 || docs[0].Text != "Globex Industries hired 460 engineers." {
		t.Fatalf("after an edit: %+v", docs)
	}
}

// TestMessageForms: the record id defaults to the key; an id that
// disagrees with the key, a keyless text message, a keyless tombstone,
// text that is not text (invalid UTF-8, NUL, control noise) and a
// published_at that is no publication date are refused.
func TestMessageForms(t *testing.T) {
	s, _ := New(Config{Topic: "t"}, nil, quiet)
	m := func(key, value string, null bool) *schemas.DocumentVersion {
		msg := kafkagoMessage(key, value, null)
		d, err := s.document(msg)
		if err != nil {
			return nil
		}
		return d
	}
	if d := m("a", `{"text":"Acme."}`, false); d == nil || d.DocID != jsonl.DocID(SourceName, "a") {
		t.Errorf("id from the key: %+v", d)
	}
	for _, c := range []struct{ key, value string }{{"a", `{"id":"b","text":"x"}`}, {"", "plain"}, {"", ""},
		// Not text: bytes that are not UTF-8, a NUL, control noise, in a
		// plain-text message or a record; and a date that is none.
		{"a", "caf\xe9 cr\xe8me"}, {"a", "Acme\x00"}, {"a", "\x01\x02\x03 ab"}, {"a", "{\"text\":\"caf\xe9\"}"},
		{"a", `{"text":"Acme\u0000"}`}, {"a", `{"text":"Acme.","published_at":"9999-01-01"}`},
		{"a", `{"text":"Acme.","published_at":"0001-01-01"}`}, {"a\xff", "Acme."}} {
		if d := m(c.key, c.value, c.value == ""); d != nil {
			t.Errorf("key %q value %q accepted as %+v", c.key, c.value, d)
		}
	}
}

// readTopic returns every record of topic, partition by partition.
func readTopic(t *testing.T, k *streams.Kafka, topic string) []kafkago.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ends, err := k.EndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var out []kafkago.Message
	for p, end := range ends[topic] {
		if end == 0 {
			continue
		}
		r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: k.Brokers(), Dialer: k.Dialer(), Topic: topic, Partition: p, MaxBytes: streams.MaxFetchBytes, MaxWait: 100 * time.Millisecond})
		for {
			m, err := r.ReadMessage(ctx)
			if err != nil {
				r.Close()
				t.Fatalf("read %s/%d: %v", topic, p, err)
			}
			out = append(out, m)
			if m.Offset+1 >= end {
				break
			}
		}
		r.Close()
	}
	return out
}

// TestOversizedMessageIsDeadLettered runs against the embedded broker,
// behind sources.Versioned and the runner, as `eval --once --source
// kafka:TOPIC` does. A 1.5 MB plain-text message of "<" is a 9 MB document
// record once escaped: it used to fail the source's whole batch, and,
// nothing committed, fail it again at every restart. Now it is
// dead-lettered with its offset, the messages around it are documents, the
// batch is committed, and a second run reads nothing.
func TestOversizedMessageIsDeadLettered(t *testing.T) {
	ctx := context.Background()
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
	const topic = "team.documents"
	if err := k.EnsureTopics(ctx, topic, streams.TopicDocuments, streams.TopicDLQ); err != nil {
		t.Fatal(err)
	}
	w := k.NewWriter()
	defer w.Close()
	if err := streams.Produce(ctx, w,
		streams.Record{Topic: topic, Key: []byte("nw"), Value: []byte("Northwind Bank opened 12 new branches.")},
		streams.Record{Topic: topic, Key: []byte("big"), Value: []byte(strings.Repeat("<", 1_500_000))},
		streams.Record{Topic: topic, Key: []byte("gx"), Value: []byte(`{"text":"Globex Industries hired 450 engineers."}`)},
		streams.Record{Topic: topic, Key: []byte("nul"), Value: []byte("Acme\x00")},
	); err != nil {
		t.Fatal(err)
	}
	run := func() *Source {
		t.Helper()
		src, err := New(Config{Topic: topic, Finite: true, Linger: 500 * time.Millisecond}, k, quiet)
		if err != nil {
			t.Fatal(err)
		}
		st := streams.NewState(k, "source.kafka")
		if err := st.RestoreAll(ctx); err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if err := streams.NewRunner(k, quiet, nil).RunSource(rctx, sources.NewVersioned(src, st, 1), streams.SourceOptions{}); err != nil || rctx.Err() != nil {
			t.Fatalf("RunSource: %v %v", err, rctx.Err())
		}
		return src
	}
	src := run()
	var ids []string
	for _, m := range readTopic(t, k, streams.TopicDocuments) {
		var d schemas.DocumentVersion
		if err := schemas.Decode(m.Value, &d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.Metadata["record_id"])
	}
	if strings.Join(ids, ",") != "nw,gx" {
		t.Errorf("documents %v, want nw,gx", ids)
	}
	dead := readTopic(t, k, streams.TopicDLQ)
	if len(dead) != 2 {
		t.Fatalf("%d dead letters, want big and nul", len(dead))
	}
	hv := func(m kafkago.Message, key string) string {
		for _, h := range m.Headers {
			if h.Key == key {
				return string(h.Value)
			}
		}
		return ""
	}
	byKey := map[string]kafkago.Message{}
	for _, m := range dead {
		byKey[string(m.Key)] = m
	}
	big, nul := byKey["big"], byKey["nul"]
	if hv(big, streams.HeaderDLQOffset) != "1" || hv(big, streams.HeaderDLQTopic) != topic ||
		!strings.Contains(hv(big, streams.HeaderDLQError), streams.ErrTooLarge.Error()) || len(big.Value) != sources.MaxDeadValue {
		t.Errorf("big's dead letter: offset %s topic %s error %q, %d value bytes", hv(big, streams.HeaderDLQOffset), hv(big, streams.HeaderDLQTopic),
			hv(big, streams.HeaderDLQError), len(big.Value))
	}
	if hv(nul, streams.HeaderDLQOffset) != "3" || !strings.Contains(hv(nul, streams.HeaderDLQError), "NUL byte") {
		t.Errorf("nul's dead letter: offset %s error %q", hv(nul, streams.HeaderDLQOffset), hv(nul, streams.HeaderDLQError))
	}
	if st := src.Stats(); st.Emitted != 2 || st.Bad != 2 {
		t.Errorf("stats %+v, want 2 emitted, 2 bad", st)
	}
	if st := run().Stats(); st.Emitted+st.Bad+st.Deleted != 0 {
		t.Errorf("a second run read again (%+v): the batch was not committed", st)
	}
}
