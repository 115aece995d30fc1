package chunk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

func docMessage(t *testing.T, d *schemas.DocumentVersion) streams.Message {
	t.Helper()
	schemas.Stamp(d, schemas.ID(d.DocID, d.Text))
	b, err := schemas.Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	return streams.Message{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b}
}

func chunksOf(t *testing.T, recs []streams.Record) []schemas.Chunk {
	t.Helper()
	var out []schemas.Chunk
	for _, r := range recs {
		var c schemas.Chunk
		if err := schemas.Decode(r.Value, &c); err != nil {
			t.Fatal(err)
		}
		if r.Topic != streams.TopicChunks || string(r.Key) != c.DocID {
			t.Fatalf("record topic %q key %q, want %q key %q", r.Topic, r.Key, streams.TopicChunks, c.DocID)
		}
		out = append(out, c)
	}
	return out
}

func TestStage(t *testing.T) {
	s, err := NewStage(Config{MaxTokens: 20})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "chunk" {
		t.Fatalf("Name() = %q", s.Name())
	}
	pub := time.Date(2025, 9, 30, 0, 0, 0, 0, time.UTC)
	d := &schemas.DocumentVersion{DocID: "d1", Version: 1, Title: "Acme", Domain: "finance", PublishedAt: pub,
		Text: "Acme Corp's revenue in Q3 2025 was $4.2 billion.\n\nAcme Corp opened 12 new stores in Q3 2025.\n\nAcme Corp appointed Maria Lopez as chief financial officer."}
	recs, err := s.Process(context.Background(), docMessage(t, d))
	if err != nil {
		t.Fatal(err)
	}
	first := chunksOf(t, recs)
	if len(first) < 2 {
		t.Fatalf("got %d chunks, want the 20-token budget to force at least 2", len(first))
	}
	for i, c := range first {
		if c.ChunkID != schemas.ID("d1", c.Text) || c.ID != c.ChunkID {
			t.Errorf("chunk %d: id %q is not the content hash", i, c.ChunkID)
		}
		if d.Text[c.SpanStart:c.SpanEnd] != c.Text {
			t.Errorf("chunk %d: span does not match text", i)
		}
		if c.Title != "Acme" || c.Domain != "finance" || !c.PublishedAt.Equal(pub) || c.DocVersion != 1 || int(c.Ordinal) != i {
			t.Errorf("chunk %d: metadata not carried: %+v", i, c)
		}
		if len(c.Lineage) != 1 || c.Lineage[0] != d.ID {
			t.Errorf("chunk %d: lineage %v, want [%s]", i, c.Lineage, d.ID)
		}
	}

	// Re-chunking the same document is a no-op: same ids. A new version
	// that changes one paragraph keeps the ids of the unchanged chunks.
	again, err := s.Process(context.Background(), docMessage(t, d))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range chunksOf(t, again) {
		if c.ChunkID != first[i].ChunkID {
			t.Errorf("re-chunk changed id of chunk %d", i)
		}
	}
	d2 := *d
	d2.Version = 2
	d2.Text = strings.Replace(d.Text, "12 new stores", "14 new stores", 1)
	recs2, err := s.Process(context.Background(), docMessage(t, &d2))
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	ids := map[string]bool{}
	for _, c := range first {
		ids[c.ChunkID] = true
	}
	for _, c := range chunksOf(t, recs2) {
		if ids[c.ChunkID] {
			kept++
		}
	}
	if kept != len(first)-1 {
		t.Errorf("new version kept %d chunk ids, want %d", kept, len(first)-1)
	}
}

func TestStageBadInput(t *testing.T) {
	s, err := NewStage(Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := func(name string, value []byte, wantPermanent bool, wantChunks int) {
		t.Helper()
		recs, err := s.Process(context.Background(), streams.Message{Value: value})
		if streams.IsPermanent(err) != wantPermanent {
			t.Errorf("%s: err %v, want permanent=%v", name, err, wantPermanent)
		}
		if len(recs) != wantChunks {
			t.Errorf("%s: %d records, want %d", name, len(recs), wantChunks)
		}
	}
	f("not json", []byte("{"), true, 0)
	f("binary", []byte{0, 1, 2}, true, 0)
	v2, _ := json.Marshal(map[string]any{"schema_version": 2, "doc_id": "d", "text": "x"})
	f("unknown version", v2, true, 0)
	noID, _ := json.Marshal(map[string]any{"schema_version": 1, "text": "x"})
	f("no doc_id", noID, true, 0)
	empty, _ := json.Marshal(map[string]any{"schema_version": 1, "doc_id": "d", "text": "  \n\n "})
	// A version without text (a deletion) is one empty chunk, which carries
	// the version to the knowledge graph so that its questions retire.
	f("empty text", empty, false, 1)
	recs, _ := s.Process(context.Background(), streams.Message{Value: empty})
	var c schemas.Chunk
	if len(recs) != 1 || schemas.Decode(recs[0].Value, &c) != nil || c.Text != "" || c.Chunks != 1 || c.DocID != "d" {
		t.Errorf("empty text: got %+v, want one empty chunk of doc d that is the version's only one", c)
	}

	if _, err := NewStage(Config{MaxTokens: -1}); err == nil {
		t.Error("NewStage accepted a negative budget")
	}
}

// TestStageCutsOversize checks that the stage keeps every chunk within its
// budget and tells cut chunks apart in the record.
func TestStageCutsOversize(t *testing.T) {
	s, err := NewStage(Config{MaxTokens: 64})
	if err != nil {
		t.Fatal(err)
	}
	var rows, sentences []string
	for i := range 100 {
		rows = append(rows, fmt.Sprintf("| s%d | %d |", i, i*37))
		sentences = append(sentences, fmt.Sprintf("Sentence %d has a few words.", i))
	}
	d := &schemas.DocumentVersion{DocID: "d1", Version: 1,
		Text: "Short intro.\n\n| store | revenue |\n|---|---|\n" + strings.Join(rows, "\n") + "\n\n" + strings.Join(sentences, " ")}
	recs, err := s.Process(context.Background(), docMessage(t, d))
	if err != nil {
		t.Fatal(err)
	}
	cuts := map[string]int{}
	if cs := chunksOf(t, recs); len(cs) == 0 || !strings.HasPrefix(cs[0].Text, "Short intro.\n\n| store | revenue |\n|---|---|\n| s0 |") {
		t.Errorf("the table's first part does not open with its introduction and header")
	}
	for i, r := range recs {
		var c schemas.Chunk
		if err := schemas.Decode(r.Value, &c); err != nil {
			t.Fatal(err)
		}
		cuts[c.Split]++
		if c.Tokens > 64 || int(c.Tokens) != CountTokens(c.Text) {
			t.Errorf("chunk %d: %d tokens, counted %d, budget 64", i, c.Tokens, CountTokens(c.Text))
		}
		if span := d.Text[c.SpanStart:c.SpanEnd]; !strings.HasSuffix(c.Text, span) {
			t.Errorf("chunk %d: text does not end with its span %q", i, span)
		}
		var raw map[string]any
		if err := json.Unmarshal(r.Value, &raw); err != nil {
			t.Fatal(err)
		}
		if _, ok := raw["split"]; ok != (c.Split != "") {
			t.Errorf("chunk %d: split %q, in the record: %v", i, c.Split, ok)
		}
	}
	// The introduction travels with the table's first rows (it used to be
	// a whole chunk of its own), so every chunk is a cut one.
	if cuts["row"] < 2 || cuts["sentence"] < 2 || len(cuts) != 2 {
		t.Errorf("chunks by cut %v, want several of rows and of sentences, none whole", cuts)
	}
}

// TestStageProfiles checks the per-source profiles: documents of a source
// with an override are windowed GRADE-style, the others packed RARE-style,
// and re-chunking either is a no-op.
func TestStageProfiles(t *testing.T) {
	b, err := os.ReadFile("testdata/golden/prose.md")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStage(Config{Sources: map[string]SourceConfig{
		"rss":    {Profile: ProfileGRADE},
		"narrow": {Profile: ProfileGRADE, MaxTokens: 200, MinTokens: 100, OverlapTokens: 40},
		"small":  {MaxTokens: 120}, // still rare
	}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(source string) []schemas.Chunk {
		t.Helper()
		d := &schemas.DocumentVersion{DocID: "d-" + source, Version: 1, Source: source, Text: string(b)}
		recs, err := s.Process(context.Background(), docMessage(t, d))
		if err != nil {
			t.Fatal(err)
		}
		cs := chunksOf(t, recs)
		again, err := s.Process(context.Background(), docMessage(t, d))
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range chunksOf(t, again) {
			if c.ChunkID != cs[i].ChunkID || c.ChunkID != schemas.ID(d.DocID, c.Text) {
				t.Errorf("%s: chunk %d: id not a stable content hash", source, i)
			}
		}
		return cs
	}
	windows := func(source string, min, max, overlap int) {
		t.Helper()
		cs := run(source)
		if len(cs) < 3 {
			t.Fatalf("%s: %d chunks", source, len(cs))
		}
		for i, c := range cs {
			if c.Split != SplitWindow || int(c.Tokens) > max || int(c.Tokens) < min {
				t.Errorf("%s: chunk %d: split %q, %d tokens, want windows of %d-%d", source, i, c.Split, c.Tokens, min, max)
			}
			if i > 0 {
				if o := CountTokens(string(b)[c.SpanStart:cs[i-1].SpanEnd]); o != overlap {
					t.Errorf("%s: chunks %d and %d share %d tokens, want %d", source, i-1, i, o, overlap)
				}
			}
		}
	}
	windows("rss", GradeMinTokens, GradeMaxTokens, GradeOverlapTokens)
	windows("narrow", 100, 200, 40)
	for _, source := range []string{"", "dir", "small"} {
		budget := DefaultMaxTokens
		if source == "small" {
			budget = 120
		}
		cs := run(source)
		for i, c := range cs {
			if c.Split != SplitNone || int(c.Tokens) > budget || i > 0 && c.SpanStart < cs[i-1].SpanEnd {
				t.Errorf("source %q: chunk %d: split %q, %d tokens, span from %d: not a whole-paragraph chunk within %d", source, i, c.Split, c.Tokens, c.SpanStart, budget)
			}
		}
	}
}

func TestStageConfigErrors(t *testing.T) {
	f := func(cfg Config, want string) {
		t.Helper()
		_, err := NewStage(cfg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewStage(%+v) = %v, want an error containing %q", cfg, err, want)
		}
	}
	f(Config{Profile: "fixed"}, `chunk: profile: unknown profile "fixed"`)
	f(Config{Sources: map[string]SourceConfig{"rss": {Profile: "GRADE "}}}, `chunk: sources.rss.profile: unknown profile "GRADE "`)
	f(Config{MaxTokens: -1}, "max_tokens must be >= 0")
	f(Config{Sources: map[string]SourceConfig{"rss": {Profile: ProfileGRADE, MinTokens: -5}}}, "sources.rss.min_tokens must be >= 0")
	f(Config{MinTokens: 100}, "min_tokens: only the grade profile takes it")
	f(Config{Sources: map[string]SourceConfig{"dir": {OverlapTokens: 10}}}, "sources.dir.overlap_tokens: only the grade profile")
	f(Config{Profile: ProfileGRADE, MinTokens: 300}, "min_tokens (300) must not exceed max_tokens (256)")
	f(Config{Profile: ProfileGRADE, OverlapTokens: 80}, "overlap_tokens (80) must be at most half of min_tokens (128)")

	// Overrides inherit the top level within a profile, and take the new
	// profile's defaults when they change it.
	s, err := NewStage(Config{Profile: ProfileGRADE, MaxTokens: 300, OverlapTokens: 40, Sources: map[string]SourceConfig{
		"same": {MinTokens: 150}, "rare": {Profile: ProfileRARE}, "grade": {Profile: ProfileGRADE},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for source, want := range map[string]params{
		"":      {ProfileGRADE, 300, 128, 40},
		"same":  {ProfileGRADE, 300, 150, 40},
		"grade": {ProfileGRADE, 300, 128, 40},
		"rare":  {ProfileRARE, DefaultMaxTokens, 0, 0},
	} {
		if got := s.paramsFor(source); got != want {
			t.Errorf("source %q: %+v, want %+v", source, got, want)
		}
	}
}
