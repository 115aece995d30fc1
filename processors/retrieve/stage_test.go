package retrieve

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// corpus is a small set of documents about one product: several chunks
// answer some questions, none answers others.
var corpus = []struct {
	doc   string
	texts []string
}{
	{"proxy.md", []string{
		"The proxy listens on port 8080 by default and forwards requests to the backend pool.",
		"Set PROXY_TIMEOUT to change how long the proxy waits for a backend, 30 seconds unless set.",
	}},
	{"cache.md", []string{
		"The cache keeps responses for 300 seconds; a purge request removes an entry at once.",
		"Cache entries are keyed by method and URL, so a HEAD request never serves a GET entry.",
	}},
	{"release.md", []string{
		"Version 2.4 of the proxy added HTTP/2 to the backend pool and dropped TLS 1.0.",
		"The 2.4 release was published on 12 March 2024 by the operations team.",
	}},
}

// chunkMsg is the rs.chunks message of one chunk.
func chunkMsg(t *testing.T, doc string, version uint32, ordinal int, body string, offset int64) streams.Message {
	t.Helper()
	c := &schemas.Chunk{ChunkID: schemas.ID(doc, body), DocID: doc, DocVersion: version, Ordinal: uint32(ordinal), Chunks: 1, Text: body}
	schemas.Stamp(c, c.ChunkID)
	b, err := schemas.Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	return streams.Message{Topic: streams.TopicChunks, Partition: streams.PartitionFor([]byte(doc), 2), Offset: offset, Key: []byte(doc), Value: b}
}

// deletion is the rs.chunks message of a deleted document version: the
// chunk stage carries it as one empty chunk.
func deletion(t *testing.T, doc string, version uint32) streams.Message {
	return chunkMsg(t, doc, version, 0, "", 0)
}

// original is the original variant of a question, with a manifest
// declaring the BM25 slot.
func original(t *testing.T, id, query, answer string, slots ...string) streams.Message {
	t.Helper()
	q := &schemas.Question{QuestionID: id, Question: query, Answer: answer, Hops: 1}
	v := &schemas.Variant{QuestionRef: q.Ref(), VariantID: schemas.VariantID(id, schemas.AxisOriginal, "original", query, nil),
		Axis: schemas.AxisOriginal, Kind: "original", Query: query, ExpectedAnswer: answer,
		Manifest: schemas.NewManifest(append([]string{"original/original"}, slots...)...)}
	v.SetSize = len(v.Manifest)
	v.ProducedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	schemas.Stamp(v, v.VariantID, id)
	b, err := schemas.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return streams.Message{Topic: streams.TopicVariants, Key: []byte(id), Value: b}
}

func feed(t *testing.T, ctx context.Context, s *Stage, msgs ...streams.Message) [][]byte {
	t.Helper()
	var out [][]byte
	for _, m := range msgs {
		recs, err := s.Process(streams.WithPartition(ctx, m.Partition), m)
		if err != nil {
			t.Fatalf("%s: %v", m.Topic, err)
		}
		for _, r := range recs {
			out = append(out, r.Value)
		}
	}
	return out
}

func corpusMsgs(t *testing.T, order []int) []streams.Message {
	var msgs []streams.Message
	for _, i := range order {
		d := corpus[i]
		for j, body := range d.texts {
			msgs = append(msgs, chunkMsg(t, d.doc, 1, j, body, int64(len(msgs))))
		}
	}
	return msgs
}

// Two stages fed the corpus in different orders write byte-identical
// retrieval variants; each variant has the original query, the top-3
// chunks as contexts and answer_available from them.
func TestRetrievalVariantsDeterministic(t *testing.T) {
	ctx := context.Background()
	slot := "retrieval/bm25_top3"
	questions := []streams.Message{
		original(t, "q-port", "Which port does the proxy listen on by default?", "8080", slot),
		original(t, "q-date", "When was the 2.4 release of the proxy published?", "12 March 2024", slot),
		original(t, "q-none", "Who maintains the cache service?", "Dana", slot),
		original(t, "q-nomatch", "Xylophone zebra?", "quagga", slot),
		original(t, "q-undeclared", "Which port does the proxy listen on?", "8080"), // no retrieval slot: nothing
	}
	var runs [][][]byte
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}} {
		s := NewStage(Config{}, nil)
		feed(t, ctx, s, corpusMsgs(t, order)...)
		runs = append(runs, feed(t, ctx, s, questions...))
	}
	if len(runs[0]) != 4 || len(runs[1]) != 4 {
		t.Fatalf("%d and %d variants, want 4 (one per question declaring the slot)", len(runs[0]), len(runs[1]))
	}
	for i := range runs[0] {
		if !bytes.Equal(runs[0][i], runs[1][i]) {
			t.Errorf("variant %d differs between runs:\n%s\n%s", i, runs[0][i], runs[1][i])
		}
	}
	var vs []schemas.Variant
	for _, b := range runs[0] {
		var v schemas.Variant
		if err := schemas.Decode(b, &v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	port := vs[0]
	if port.Axis != schemas.AxisRetrieval || port.Kind != "bm25_top3" || port.Query != "Which port does the proxy listen on by default?" {
		t.Errorf("port variant: %s/%s %q", port.Axis, port.Kind, port.Query)
	}
	if len(port.Contexts) != 3 || port.Contexts[0] != corpus[0].texts[0] || !port.AnswerAvailable {
		t.Errorf("port variant: contexts %q, answer_available %v; want the port chunk first and the answer available", port.Contexts, port.AnswerAvailable)
	}
	if !slices.Contains(port.Manifest, slot) || port.Lineage[0] == "" {
		t.Errorf("port variant: manifest %v, lineage %v", port.Manifest, port.Lineage)
	}
	if !vs[1].AnswerAvailable || vs[1].Contexts[0] != corpus[2].texts[1] {
		t.Errorf("date variant: %q, available %v", vs[1].Contexts, vs[1].AnswerAvailable)
	}
	if vs[2].AnswerAvailable || len(vs[2].Contexts) == 0 {
		t.Errorf("a question no chunk answers: contexts %q, available %v; want retrieved chunks without the answer", vs[2].Contexts, vs[2].AnswerAvailable)
	}
	if vs[3].NotMadeReason == "" || vs[3].Kind != "bm25_top3" {
		t.Errorf("a query sharing no term with the corpus: %+v, want a not-made marker", vs[3])
	}
}

// The index survives a restart through the changelog: a new stage restored
// from the state answers as the old one did, a deletion made before the
// restart holds, and nothing is tokenised again.
func TestRestartKeepsIndex(t *testing.T) {
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

	st := streams.NewState(k, StageName)
	if err := st.RestoreAll(ctx); err != nil {
		t.Fatal(err)
	}
	s1 := NewStage(Config{}, st)
	feed(t, ctx, s1, corpusMsgs(t, []int{0, 1, 2})...)
	// cache.md gets a second version, then release.md is deleted.
	feed(t, ctx, s1, chunkMsg(t, "cache.md", 2, 0, "The cache keeps responses for 600 seconds now.", 100),
		deletion(t, "release.md", 2))
	// A question answered once is a duplicate when delivered again, also
	// after the restart.
	q := original(t, "q-port", "Which port does the proxy listen on by default?", "8080", "retrieval/bm25_top3")
	if n := len(feed(t, ctx, s1, q)); n != 1 {
		t.Fatalf("%d retrieval variants for a question, want 1", n)
	}
	if n := len(feed(t, ctx, s1, q)); n != 0 {
		t.Errorf("a redelivered question gave %d variants, want none", n)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	queries := []string{"proxy port", "cache seconds", "release published", "backend pool HTTP/2", "HEAD request GET"}
	before := map[string][]Hit{}
	for _, q := range queries {
		before[q] = s1.idx.Search(q, 3)
	}
	if s1.Len() != 3 {
		t.Fatalf("%d active chunks before the restart, want 3 (proxy 2, cache v2 1, release deleted)", s1.Len())
	}

	st2 := streams.NewState(k, StageName)
	if err := st2.RestoreAll(ctx); err != nil {
		t.Fatal(err)
	}
	s2 := NewStage(Config{}, st2)
	n := tokenised.Load()
	if err := s2.Restored(ctx); err != nil {
		t.Fatal(err)
	}
	if d := tokenised.Load() - n; d != 0 {
		t.Errorf("the restart tokenised %d chunks again", d)
	}
	if s2.Len() != 3 {
		t.Fatalf("%d active chunks after the restart, want 3", s2.Len())
	}
	for _, q := range queries {
		after := s2.idx.Search(q, 3)
		if len(after) != len(before[q]) {
			t.Fatalf("%q: %d hits after the restart, %d before", q, len(after), len(before[q]))
		}
		for i := range after {
			if after[i].Chunk.ID != before[q][i].Chunk.ID || after[i].Score != before[q][i].Score {
				t.Errorf("%q hit %d: %s %.6f after, %s %.6f before", q, i, after[i].Chunk.ID, after[i].Score, before[q][i].Chunk.ID, before[q][i].Score)
			}
		}
	}
	if n := len(feed(t, ctx, s2, q)); n != 0 {
		t.Errorf("a question answered before the restart gave %d variants after it, want none", n)
	}
	// A stale chunk of the deleted document, replayed after the restart,
	// stays out.
	feed(t, ctx, s2, chunkMsg(t, "release.md", 1, 0, corpus[2].texts[0], 5))
	if s2.Len() != 3 {
		t.Errorf("a replayed chunk of a deleted document was indexed again")
	}
}

// top_k names configured retrievers and asks for at least one chunk; k
// defaults to 3 and names the kind.
func TestConfigTopK(t *testing.T) {
	c := Config{TopK: map[string]int{"bm25": 5}}
	if err := c.Check([]string{"bm25"}); err != nil {
		t.Error(err)
	}
	if c.K("bm25") != 5 || c.K("emb_e5") != DefaultK || KindName("bm25", c.K("bm25")) != "bm25_top5" {
		t.Errorf("k: bm25 %d, emb_e5 %d", c.K("bm25"), c.K("emb_e5"))
	}
	err := Config{TopK: map[string]int{"bm52": 3, "bm25": 0}}.Check([]string{"bm25"})
	if err == nil || !strings.Contains(err.Error(), "bm52: no such retriever") || !strings.Contains(err.Error(), "bm25: 0, want at least 1") {
		t.Errorf("bad top_k: %v", err)
	}
	s := NewStage(Config{TopK: map[string]int{"bm25": 5}}, nil)
	if got := s.Kinds(); len(got) != 1 || got[0] != "bm25_top5" {
		t.Errorf("kinds %v", got)
	}
}
