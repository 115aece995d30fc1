package triplet

import (
	"context"
	"errors"
	"fmt"
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

// Config configures the triplet stage. It has no settings yet: the rule
// extractor needs none, and the LLM extractor will bring its own.
type Config struct{}

// Stage is the "triplets" processor: one Chunk from rs.chunks in, its
// Triplets to rs.triplets out, keyed by doc_id.
type Stage struct{}

var _ streams.Processor = (*Stage)(nil)

// NewStage returns the rule-extractor stage.
func NewStage(Config) (*Stage, error) { return &Stage{}, nil }

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
func (s *Stage) Process(_ context.Context, m streams.Message) ([]streams.Record, error) {
	var c schemas.Chunk
	if err := schemas.Decode(m.Value, &c); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode chunk: %w", err))
	}
	if c.ChunkID == "" || c.DocID == "" {
		return nil, streams.Permanent(errors.New("chunk has no chunk_id or doc_id"))
	}
	var out []streams.Record
	seen := make(map[string]bool)
	for _, x := range Extract(c.Text) {
		if Verify(c.Text, x.Sentence.Text, x.Tail) != nil {
			// Cannot happen with spans cut from the chunk; the check stays
			// so that a future extractor cannot break the contract silently.
			continue
		}
		id := schemas.ID(x.Head, x.Relation, x.Tail, c.ChunkID)
		if seen[id] {
			continue
		}
		seen[id] = true
		t := &schemas.Triplet{
			TripletID:      id,
			Head:           x.Head,
			Relation:       x.Relation,
			Tail:           x.Tail,
			ChunkID:        c.ChunkID,
			DocID:          c.DocID,
			SourceSentence: x.Sentence.Text,
			Extractor:      ExtractorRule,
			ChunkText:      c.Text,
			Domain:         c.Domain,
			PublishedAt:    c.PublishedAt,
		}
		schemas.Stamp(t, id, c.ChunkID)
		b, err := schemas.Encode(t)
		if err != nil {
			return nil, fmt.Errorf("cannot encode triplet: %w", err)
		}
		out = append(out, streams.Record{Topic: streams.TopicTriplets, Key: []byte(c.DocID), Value: b})
	}
	return out, nil
}
