package retrieve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// slowChunker is a chunk stage for the test: one chunk per document, after
// a pause, so that a question written with the documents reaches the
// retrieve stage long before the last chunk does.
type slowChunker struct{}

func (slowChunker) Name() string { return "chunk" }

func (slowChunker) Process(_ context.Context, m streams.Message) ([]streams.Record, error) {
	time.Sleep(40 * time.Millisecond)
	var d schemas.DocumentVersion
	if err := schemas.Decode(m.Value, &d); err != nil {
		return nil, streams.Permanent(err)
	}
	c := &schemas.Chunk{ChunkID: schemas.ID(d.DocID, d.Text), DocID: d.DocID, DocVersion: d.Version, Text: d.Text}
	schemas.Stamp(c, c.ChunkID)
	b, err := schemas.Encode(c)
	if err != nil {
		return nil, err
	}
	return []streams.Record{{Topic: streams.TopicChunks, Key: []byte(d.DocID), Value: b}}, nil
}

// A question written together with the documents, before any of them is
// chunked, is answered over the whole corpus: the stage waits for the
// chunk stage to commit the documents and for itself to read their
// chunks (Upstream). Its variant equals the one of a stage fed the whole
// corpus first.
func TestUpstreamWaitsForTheCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker and two stages")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
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
	if err := k.EnsureTopics(ctx, streams.TopicNames()...); err != nil {
		t.Fatal(err)
	}

	// Twenty documents; the one answering the question comes last.
	var texts []string
	for i := range 19 {
		texts = append(texts, fmt.Sprintf("Bulletin %d: the ferry to island %d leaves the harbour at %d:15 on weekdays.", i, i, 6+i%12))
	}
	texts = append(texts, "The harbour master confirmed that the night ferry to Lonevag leaves at 23:40 from pier 4.")
	var recs []streams.Record
	for i, text := range texts {
		d := &schemas.DocumentVersion{DocID: fmt.Sprintf("doc%02d", i), Version: 1, Text: text}
		schemas.Stamp(d, d.DocID)
		v, _ := schemas.Encode(d)
		recs = append(recs, streams.Record{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: v})
	}
	q := original(t, "q-night", "When does the night ferry to Lonevag leave the harbour?", "23:40", "retrieval/bm25_top3")
	recs = append(recs, streams.Record{Topic: streams.TopicVariants, Key: q.Key, Value: q.Value})
	w := k.NewWriter()
	defer w.Close()
	if err := streams.Produce(ctx, w, recs...); err != nil {
		t.Fatal(err)
	}

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r := streams.NewRunner(k, log, streams.NewMetrics(prometheus.NewRegistry()))
	state := streams.NewState(k, StageName)
	st := NewStage(Config{}, state)
	st.SetUpstream(&Upstream{Kafka: k, ChunkGroup: r.Group("chunk"), OwnGroup: r.Group(StageName), Logger: log})
	run, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- r.RunAll(run, []streams.Stage{
			{Name: "chunk", Inputs: []string{streams.TopicDocuments}, Outputs: []string{streams.TopicChunks}, Processor: slowChunker{}},
			{Name: StageName, Inputs: Inputs, Outputs: []string{streams.TopicVariants}, Processor: st, State: state, Singleton: true},
		})
	}()
	got := readRetrieval(t, ctx, k)
	stop()
	<-done

	ref := NewStage(Config{}, nil)
	for i, text := range texts {
		feed(t, ctx, ref, chunkMsg(t, fmt.Sprintf("doc%02d", i), 1, 0, text, int64(i)))
	}
	want := feed(t, ctx, ref, q)
	var wv schemas.Variant
	if err := schemas.Decode(want[0], &wv); err != nil {
		t.Fatal(err)
	}
	if got.VariantID != wv.VariantID || !slices.Equal(got.Contexts, wv.Contexts) {
		t.Errorf("answered over part of the corpus:\n got %q\nwant %q", got.Contexts, wv.Contexts)
	}
	if !got.AnswerAvailable || got.Contexts[0] != texts[19] {
		t.Errorf("the last document's chunk is not first: %q", got.Contexts)
	}
}

// readRetrieval reads rs.variants until a retrieval variant appears.
func readRetrieval(t *testing.T, ctx context.Context, k *streams.Kafka) schemas.Variant {
	t.Helper()
	for ctx.Err() == nil {
		for p := range k.Partitions() {
			rd := kafka.NewReader(kafka.ReaderConfig{Brokers: k.Brokers(), Dialer: k.Dialer(), Topic: streams.TopicVariants, Partition: p, MaxWait: 100 * time.Millisecond})
			rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			for {
				m, err := rd.ReadMessage(rctx)
				if err != nil {
					break
				}
				var v schemas.Variant
				if schemas.Decode(m.Value, &v) == nil && v.Axis == schemas.AxisRetrieval {
					cancel()
					rd.Close()
					return v
				}
			}
			cancel()
			rd.Close()
		}
	}
	t.Fatal("no retrieval variant was written")
	return schemas.Variant{}
}
