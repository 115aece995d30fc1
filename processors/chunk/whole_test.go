package chunk

import (
	"context"
	"testing"

	"github.com/robustream/robustream/schemas"
)

// A document marked chunking: whole (a curated context) is one chunk of its
// exact text, whose id is ID(doc_id, text), however small the budget; an
// unmarked one with the same text is cut as usual.
func TestStageWholeChunk(t *testing.T) {
	s, err := NewStage(Config{MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	text := "Acme Corp's revenue in Q3 2025 was $4.2 billion.\n\nAcme Corp opened 12 new stores in Q3 2025.  "
	d := &schemas.DocumentVersion{DocID: "g1", Version: 1, Text: text, Metadata: map[string]string{schemas.MetaChunking: schemas.ChunkWhole}}
	recs, err := s.Process(context.Background(), docMessage(t, d))
	if err != nil {
		t.Fatal(err)
	}
	cs := chunksOf(t, recs)
	if len(cs) != 1 || cs[0].Text != text || cs[0].ChunkID != schemas.ID("g1", text) || cs[0].Chunks != 1 || cs[0].Tokens != uint32(CountTokens(text)) || cs[0].SpanEnd != uint32(len(text)) {
		t.Fatalf("whole chunk: %+v", cs)
	}
	d.Metadata = nil
	recs, err = s.Process(context.Background(), docMessage(t, d))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(chunksOf(t, recs)); n < 2 {
		t.Errorf("unmarked document: %d chunk(s), want the 10-token budget to cut it", n)
	}
	// A whole document with no text is still a deletion: one empty chunk.
	d.Text, d.Metadata = "", map[string]string{schemas.MetaChunking: schemas.ChunkWhole}
	recs, err = s.Process(context.Background(), docMessage(t, d))
	if err != nil {
		t.Fatal(err)
	}
	if cs := chunksOf(t, recs); len(cs) != 1 || cs[0].Text != "" {
		t.Errorf("empty whole document: %+v", cs)
	}
}
