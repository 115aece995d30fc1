package triplet_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/streams"
)

func chunkMessage(t *testing.T, c *schemas.Chunk) streams.Message {
	t.Helper()
	schemas.Stamp(c, c.ChunkID)
	b, err := schemas.Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	return streams.Message{Topic: streams.TopicChunks, Key: []byte(c.DocID), Value: b}
}

func TestStage(t *testing.T) {
	s, err := triplet.NewStage(triplet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "triplets" {
		t.Fatalf("Name() = %q", s.Name())
	}
	pub := time.Date(2025, 9, 30, 0, 0, 0, 0, time.UTC)
	c := &schemas.Chunk{ChunkID: "c1", DocID: "d1", Domain: "finance", PublishedAt: pub,
		Text: "Acme Corp's revenue in Q3 2025 was $4.2 billion. Revenue was strong. Acme Corp opened 12 new stores in Q3 2025."}
	run := func() []schemas.Triplet {
		recs, err := s.Process(context.Background(), chunkMessage(t, c))
		if err != nil {
			t.Fatal(err)
		}
		var out []schemas.Triplet
		for _, r := range recs {
			var x schemas.Triplet
			if err := schemas.Decode(r.Value, &x); err != nil {
				t.Fatal(err)
			}
			if r.Topic != streams.TopicTriplets || string(r.Key) != "d1" {
				t.Fatalf("record topic %q key %q", r.Topic, r.Key)
			}
			out = append(out, x)
		}
		return out
	}
	all := run()
	if len(all) != 3 {
		t.Fatalf("got %d records, want 2 triplets and the chunk's End record", len(all))
	}
	if end := all[2]; !end.End || end.ChunkID != "c1" || end.DocID != "d1" || end.Head != "" {
		t.Errorf("last record %+v is not the End of chunk c1", end)
	}
	got := all[:2]
	for _, x := range got {
		if x.TripletID != schemas.ID(x.Head, x.Relation, x.Tail, "c1") || x.ID != x.TripletID {
			t.Errorf("id %q is not hash(head, relation, tail, chunk_id)", x.TripletID)
		}
		if x.Extractor != "rule" || x.ChunkID != "c1" || x.DocID != "d1" || x.ChunkText != c.Text ||
			x.Domain != "finance" || !x.PublishedAt.Equal(pub) || len(x.Lineage) != 1 || x.Lineage[0] != "c1" {
			t.Errorf("fields not carried: %+v", x)
		}
	}
	for i, x := range run()[:len(got)] {
		if x.TripletID != got[i].TripletID {
			t.Error("reprocessing changed an id")
		}
	}
}

// TestStageTitle: the stage reads a chunk with its document's title, so a
// chunk of "What’s New In Quill 3.3" with no heading of its own is read as
// release notes of Quill 3.3.
func TestStageTitle(t *testing.T) {
	s, err := triplet.NewStage(triplet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := &schemas.Chunk{ChunkID: "c1", DocID: "d1", Title: "What\u2019s New In Quill 3.3 \u2014 Quill documentation",
		Text: "The threading.Thread constructor now accepts a daemon keyword argument."}
	recs, err := s.Process(context.Background(), chunkMessage(t, c))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range recs {
		var x schemas.Triplet
		if err := schemas.Decode(r.Value, &x); err != nil {
			t.Fatal(err)
		}
		found = found || x.Head == "the threading.Thread constructor (Quill 3.3)" && x.Relation == "now accepts" && x.Tail == "a daemon keyword argument"
	}
	if !found {
		t.Errorf("no release fact of Quill 3.3 from a chunk of its What's New page: %d records", len(recs))
	}
}

func TestStageBadInput(t *testing.T) {
	s, _ := triplet.NewStage(triplet.Config{})
	v2, _ := json.Marshal(map[string]any{"schema_version": 9, "chunk_id": "c", "doc_id": "d"})
	noID, _ := json.Marshal(map[string]any{"schema_version": 1, "text": "Acme Corp opened 3 stores."})
	for name, v := range map[string][]byte{"not json": []byte("nope"), "unknown version": v2, "no ids": noID} {
		if _, err := s.Process(context.Background(), streams.Message{Value: v}); !streams.IsPermanent(err) {
			t.Errorf("%s: err %v, want permanent", name, err)
		}
	}
}

func TestVerify(t *testing.T) {
	f := func(chunkText, sentence, tail string, ok bool) {
		t.Helper()
		if err := triplet.Verify(chunkText, sentence, tail); (err == nil) != ok {
			t.Errorf("Verify(%q, %q, %q) = %v, want ok=%v", chunkText, sentence, tail, err, ok)
		}
	}
	f("A was 1. B was 2.", "B was 2.", "2", true)
	f("A was 1. B was 2.", "B was  2.", "2", false) // not verbatim: extra space
	f("A was 1. B was 2.", "B was 2.", "3", false)
	f("A was 1.", "", "", false)
}

// TestDemoCorpusInvariants runs the chunker and the extractor over several
// worlds and years of the demo feed: every triplet's sentence is verbatim in
// its chunk, its tail verbatim in the sentence, and the feed yields plenty of
// facts per period.
func TestDemoCorpusInvariants(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		for p := range 12 {
			n := 0
			for _, d := range demo.Generate(seed, p) {
				for _, piece := range chunk.Split(d.Text, chunk.DefaultMaxTokens) {
					for _, x := range triplet.Extract(piece.Text) {
						n++
						if piece.Text[x.Sentence.Start:x.Sentence.End] != x.Sentence.Text {
							t.Fatalf("sentence span wrong: %q", x.Sentence.Text)
						}
						if err := triplet.Verify(piece.Text, x.Sentence.Text, x.Tail); err != nil {
							t.Fatalf("seed %d period %d: %v", seed, p, err)
						}
						if !strings.Contains(x.Sentence.Text, x.Head) || x.Head == "" || x.Relation == "" {
							t.Fatalf("head %q not in sentence %q", x.Head, x.Sentence.Text)
						}
					}
				}
			}
			if n < 40 {
				t.Errorf("seed %d period %d: only %d triplets", seed, p, n)
			}
		}
	}
}
