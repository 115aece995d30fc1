package triplet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the triplet stage (robustream run --stages triplets).
const StageName = "triplets"

// ExtractorRule is the Extractor value of triplets from this package.
const ExtractorRule = "rule"

// ErrNotVerbatim is returned by Verify for a triplet whose evidence is not
// copied word for word.
var ErrNotVerbatim = errors.New("triplet evidence is not verbatim")

// Config configures the triplet stage.
type Config struct {
	// Extractor is ExtractorRule (the default), ExtractorLLM or
	// ExtractorBoth. The LLM needs the generator of models.yaml
	// (SetGenerator); without it the stage runs the rule extractor and
	// says so (Degraded).
	Extractor string `yaml:"extractor" help:"rule (default, offline), llm (the generator LLM of models.yaml) or both"`
	// Window is how many consecutive chunks of a document the LLM sees
	// per call: the chunk whose facts it extracts and up to Window-1
	// before it, as context. Zero: DefaultWindow.
	Window int `yaml:"window" help:"chunks per LLM extraction call: the chunk and up to window-1 before it, for context (default 2, at most 8)"`
	// Logger receives the warning of a missing generator. Nil:
	// slog.Default().
	Logger *slog.Logger `yaml:"-"`
}

// Stage is the "triplets" processor: one Chunk from rs.chunks in, its
// Triplets to rs.triplets out, keyed by doc_id.
type Stage struct {
	llm llmStage
}

var _ streams.Processor = (*Stage)(nil)

// NewStage validates cfg and returns the stage.
func NewStage(cfg Config) (*Stage, error) {
	s := &Stage{}
	if err := s.initLLM(cfg); err != nil {
		return nil, err
	}
	return s, nil
}

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// Verify enforces the evidence contract of RARE §4.2 ("source sentence …
// COPY WORD BY WORD") that answer checking downstream relies on: the source
// sentence occurs in the chunk and the tail in the sentence.
func Verify(chunkText, sentence, tail string) error {
	switch {
	case sentence == "" || !strings.Contains(chunkText, sentence):
		return fmt.Errorf("%w: source sentence %q not in chunk", ErrNotVerbatim, sentence)
	case tail == "" || !strings.Contains(sentence, tail):
		return fmt.Errorf("%w: tail %q not in source sentence", ErrNotVerbatim, tail)
	}
	return nil
}

// Process implements streams.Processor. A malformed chunk is permanent; a
// chunk without facts yields no records. Ids hash (head, relation, tail,
// chunk_id), so reprocessing yields the same triplets.
func (s *Stage) Process(ctx context.Context, m streams.Message) ([]streams.Record, error) {
	var c schemas.Chunk
	if err := schemas.Decode(m.Value, &c); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode chunk: %w", err))
	}
	if c.ChunkID == "" || c.DocID == "" {
		return nil, streams.Permanent(errors.New("chunk has no chunk_id or doc_id"))
	}
	var out []streams.Record
	if strings.TrimSpace(c.Text) != "" {
		// An empty chunk is a document version without text (a deletion):
		// it states nothing, only its End record goes on.
		var err error
		if out, err = s.records(ctx, &c); err != nil {
			return nil, err
		}
	}
	end, err := endRecord(&c)
	if err != nil {
		return nil, err
	}
	return append(out, end), nil
}

// endRecord is the End record that closes a chunk, after its triplets in
// the same partition: the knowledge graph applies a document version once
// every chunk of it is closed.
func endRecord(c *schemas.Chunk) (streams.Record, error) {
	end := &schemas.Triplet{End: true, ChunkID: c.ChunkID, DocID: c.DocID, DocVersion: c.DocVersion, Chunks: c.Chunks,
		Domain: c.Domain, PublishedAt: c.PublishedAt}
	schemas.Stamp(end, schemas.ID("end", c.ChunkID, fmt.Sprint(c.DocVersion)), c.ChunkID)
	b, err := schemas.Encode(end)
	if err != nil {
		return streams.Record{}, fmt.Errorf("cannot encode chunk end: %w", err)
	}
	return streams.Record{Topic: streams.TopicTriplets, Key: []byte(c.DocID), Value: b}, nil
}

// Terminal implements streams.Terminator: a chunk dead-lettered (an
// unusable LLM reply, a refused request, retries used up) still gets its
// End record, so that the rest of its document is not held back waiting
// for it.
func (s *Stage) Terminal(m streams.Message, _ error) []streams.Record {
	var c schemas.Chunk
	if schemas.Decode(m.Value, &c) != nil || c.ChunkID == "" || c.DocID == "" {
		return nil
	}
	end, err := endRecord(&c)
	if err != nil {
		return nil
	}
	return []streams.Record{end}
}

// tripletRecord builds the record of a fact read from chunk c, or ok
// false when seen already holds its id (hash of head, relation, tail and
// chunk id, so reprocessing yields the same triplets).
func tripletRecord(c *schemas.Chunk, seen map[string]bool, head, relation, tail, kind, sentence, extractor string) (streams.Record, bool, error) {
	id := schemas.ID(head, relation, tail, c.ChunkID)
	if seen[id] {
		return streams.Record{}, false, nil
	}
	seen[id] = true
	t := &schemas.Triplet{
		TripletID: id, Head: head, Relation: relation, Tail: tail, Kind: kind,
		ChunkID: c.ChunkID, DocID: c.DocID, DocVersion: c.DocVersion, SourceSentence: sentence,
		Extractor: extractor, ChunkText: c.Text, Domain: c.Domain, PublishedAt: c.PublishedAt,
	}
	schemas.Stamp(t, id, c.ChunkID)
	b, err := schemas.Encode(t)
	if err != nil {
		return streams.Record{}, false, fmt.Errorf("cannot encode triplet: %w", err)
	}
	return streams.Record{Topic: streams.TopicTriplets, Key: []byte(c.DocID), Value: b}, true, nil
}

// records returns the triplet records of a chunk.
func (s *Stage) records(ctx context.Context, c *schemas.Chunk) ([]streams.Record, error) {
	seen := make(map[string]bool)
	out, rule, err := s.llmRecords(ctx, c, seen)
	if err != nil || !rule {
		return out, err
	}
	for _, x := range ExtractTitled(c.Text, c.Title) {
		if Verify(c.Text, x.Sentence.Text, x.Tail) != nil {
			// Cannot happen with spans cut from the chunk; the check stays
			// so that a future extractor cannot break the contract silently.
			continue
		}
		r, ok, err := tripletRecord(c, seen, x.Head, x.Relation, x.Tail, x.Kind, x.Sentence.Text, ExtractorRule)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}
