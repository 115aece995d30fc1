package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// TestPoisonMessagesGoToDLQ is the poison-message acceptance check: a running
// engine (all stages) gets invalid JSON and a document of an unknown schema
// version on rs.documents, then a valid document on the same partition. Each
// poison message lands in rs.dlq with its original key and bytes, the stage
// and the reason; the chunk stage keeps going and the valid document flows
// through the whole pipeline.
func TestPoisonMessagesGoToDLQ(t *testing.T) {
	start := time.Now()
	tb := startBroker(t)
	k := testKafka(t, tb)
	ctx := context.Background()
	if err := k.EnsureTopics(ctx, allTopics()...); err != nil {
		t.Fatal(err)
	}
	eng, engOut := startRobustream(t, append([]string{"run", "--source", "none", "--data-dir", t.TempDir(), "--http", ""}, tb.args()...)...)
	logs := func() string { return "engine:\n" + tail(engOut.String(), 4000) }

	good := testDocument(t, "acme-results", "# Acme results\n\nAcme Corp's revenue in Q3 2025 was $4.2 billion. Acme Corp acquired Brightline Labs in August 2025.\n\n"+
		"Northwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 12 new branches in 2025.\n")
	goodBytes, err := schemas.Encode(good)
	if err != nil {
		t.Fatal(err)
	}
	// The poison goes to the partition the valid document is keyed to, ahead
	// of it: the valid document's chunks then prove that the stage got past
	// the poison rather than merely working on other partitions.
	part := streams.PartitionFor([]byte(good.DocID), k.Partitions())

	future := testDocument(t, "from-the-future", "Initech's operating margin in 2025 was 18 percent.")
	future.SchemaVersion = 99 // written by a newer build
	futureBytes, err := schemas.Encode(future)
	if err != nil {
		t.Fatal(err)
	}
	poison := []struct {
		key, value, reason string
	}{
		{"poison-invalid-json", `{"schema_version":1,"doc_id":"broken","text":"Acme Corp's revenue in Q3 2025 was`, schemas.ErrInvalid.Error()},
		{future.DocID, string(futureBytes), schemas.ErrUnknownVersion.Error() + ": got 99"},
	}
	for _, p := range poison {
		produceRaw(t, k, tb, streams.TopicDocuments, part, p.key, []byte(p.value))
	}
	w := k.NewWriter()
	defer w.Close()
	if err := streams.Produce(ctx, w, streams.Record{Topic: streams.TopicDocuments, Key: []byte(good.DocID), Value: goodBytes}); err != nil {
		t.Fatal(err)
	}
	// The three are in that order on one partition.
	var order []string
	for _, m := range readTopic(t, k, streams.TopicDocuments) {
		if m.Partition != part {
			t.Fatalf("document %q on partition %d, want %d", m.Key, m.Partition, part)
		}
		order = append(order, string(m.Key))
	}
	if want := []string{poison[0].key, poison[1].key, good.DocID}; fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("rs.documents holds %v, want %v", order, want)
	}

	// Both poison messages are dead-lettered by the chunk stage.
	var chunkDead map[string]kafka.Message
	waitFor(t, 60*time.Second, "the chunk stage's dead letters", func() (bool, string) {
		chunkDead = map[string]kafka.Message{}
		var stages []string
		for _, m := range readTopic(t, k, streams.TopicDLQ) {
			st := header(m, streams.HeaderDLQStage)
			stages = append(stages, st+"/"+string(m.Key))
			if st == chunk.StageName {
				chunkDead[string(m.Key)] = m
			}
		}
		return len(chunkDead) == len(poison), fmt.Sprintf("dead letters %v", stages)
	}, logs)
	for i, p := range poison {
		m, ok := chunkDead[p.key]
		if !ok {
			t.Fatalf("no dead letter for %s among %v", p.key, chunkDead)
		}
		if string(m.Value) != p.value {
			t.Errorf("dead letter %s carries %q, want the original bytes %q", p.key, m.Value, p.value)
		}
		errText := header(m, streams.HeaderDLQError)
		if !strings.Contains(errText, p.reason) {
			t.Errorf("dead letter %s: error %q does not give the reason %q", p.key, errText, p.reason)
		}
		for h, want := range map[string]string{
			streams.HeaderDLQTopic:     streams.TopicDocuments,
			streams.HeaderDLQPartition: strconv.Itoa(part),
			streams.HeaderDLQOffset:    strconv.Itoa(i),
			// Malformed input is permanent: retrying cannot fix it.
			streams.HeaderDLQAttempts: "1",
		} {
			if got := header(m, h); got != want {
				t.Errorf("dead letter %s: header %s = %q, want %q", p.key, h, got, want)
			}
		}
		t.Logf("dead letter %s: stage %s, error %q", p.key, header(m, streams.HeaderDLQStage), errText)
	}

	// The valid document behind them is chunked, and makes it all the way to
	// outcomes (it is the only document this broker has seen).
	waitFor(t, 60*time.Second, "chunks of the valid document", func() (bool, string) {
		n := 0
		for _, m := range readTopic(t, k, streams.TopicChunks) {
			var c schemas.Chunk
			if err := schemas.Decode(m.Value, &c); err == nil && c.DocID == good.DocID {
				n++
			}
		}
		return n > 0, fmt.Sprintf("%d chunks", n)
	}, logs)
	t.Logf("%.1fs: the valid document was chunked after the poison", time.Since(start).Seconds())
	waitFor(t, 90*time.Second, "outcomes of the valid document", func() (bool, string) {
		ends, err := k.EndOffsets(ctx, streams.TopicOutcomes)
		if err != nil {
			return false, err.Error()
		}
		var n int64
		for _, e := range ends[streams.TopicOutcomes] {
			n += e
		}
		return n > 0, fmt.Sprintf("%d outcomes", n)
	}, logs)
	t.Logf("%.1fs: outcomes produced from the valid document", time.Since(start).Seconds())

	// Once the documents sink has also been through the three, nothing but
	// the two poison messages has been dead-lettered by any stage (the sink
	// rejects them too: that is its own, correct, dead letter).
	waitFor(t, 60*time.Second, "the documents sink to consume rs.documents", func() (bool, string) {
		lag, err := groupLag(ctx, k, streams.GroupPrefix+"sink.documents", streams.TopicDocuments)
		if err != nil {
			return false, err.Error()
		}
		return sumLag(lag) == 0, fmt.Sprintf("lag %v", lag)
	}, logs)
	for _, m := range readTopic(t, k, streams.TopicDLQ) {
		if key := string(m.Key); key != poison[0].key && key != poison[1].key {
			t.Errorf("unexpected dead letter from %s: key %q, error %q", header(m, streams.HeaderDLQStage), m.Key, header(m, streams.HeaderDLQError))
		} else if st := header(m, streams.HeaderDLQStage); st != chunk.StageName {
			t.Logf("also dead-lettered by %s: %s", st, key)
		}
	}

	// The engine survived all of it and stops cleanly.
	if err := eng.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if st := waitExit(t, eng, 30*time.Second, engOut); !st.Success() {
		t.Fatalf("engine: %v\n%s", st, logs())
	}
}

// testDocument builds a stamped, valid document version.
func testDocument(t *testing.T, name, text string) *schemas.DocumentVersion {
	t.Helper()
	now := time.Now().UTC()
	d := &schemas.DocumentVersion{
		DocID:       schemas.ID("dlq-test", name),
		Version:     1,
		Source:      "dlq-test",
		URI:         "test://" + name,
		Title:       name,
		Domain:      "business",
		PublishedAt: now.Add(-time.Hour),
		FetchedAt:   now,
		ContentHash: schemas.ID(text),
		MIME:        "text/markdown",
		Text:        text,
	}
	schemas.Stamp(d, schemas.ID(d.DocID, d.ContentHash))
	return d
}

// kcatAuth are the kcat flags that reach the test broker as the engine's
// SASL user.
func kcatAuth(t *testing.T, tb testBroker) []string {
	t.Helper()
	pass, err := streams.ReadBrokerPassword(tb.passFile)
	if err != nil {
		t.Fatal(err)
	}
	return []string{"-b", tb.addr, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=" + streams.BrokerMechanism,
		"-X", "sasl.username=" + streams.BrokerUser, "-X", "sasl.password=" + pass}
}

// produceRaw writes value under key to one partition with kcat, a Kafka
// client independent of the engine's; without kcat it falls back to the Go
// writer, pinning the partition with streams.PartitionHeader.
func produceRaw(t *testing.T, k *streams.Kafka, tb testBroker, topic string, partition int, key string, value []byte) {
	t.Helper()
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Logf("kcat is not installed (Debian package kcat): producing %s with the Go client instead", key)
		rec := streams.Record{Topic: topic, Key: []byte(key), Value: value,
			Headers: []streams.Header{{Key: streams.PartitionHeader, Value: []byte(strconv.Itoa(partition))}}}
		w := k.NewWriter()
		defer w.Close()
		if err := streams.Produce(context.Background(), w, rec); err != nil {
			t.Fatal(err)
		}
		return
	}
	// A file argument is sent as one message, byte for byte.
	f := filepath.Join(t.TempDir(), "message")
	if err := os.WriteFile(f, value, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append(kcatAuth(t, tb), "-P", "-t", topic, "-p", strconv.Itoa(partition), "-k", key, f)
	out, err := exec.CommandContext(ctx, kcat, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("kcat: %v\n%s", err, out)
	}
	t.Logf("produced %s to %s/%d with kcat", key, topic, partition)
}

func header(m kafka.Message, key string) string {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}
