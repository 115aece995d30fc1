package chunk

import (
	"context"
	"errors"
	"fmt"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the chunking stage (robustream run --stages chunk).
const StageName = "chunk"

// Config configures the chunking stage.
type Config struct {
	// MaxTokens is the token budget of a piece; 0 means DefaultMaxTokens (the
	// RARE profile, RARE §4.1). It is a hard cap: a paragraph or table over
	// it is cut (see Split), and the chunk records the cut in Split.
	MaxTokens int `yaml:"max_tokens" help:"token cap of a chunk (0: 600, the RARE profile)"`
}

// Stage is the "chunk" processor: one DocumentVersion from rs.documents in,
// its Chunks to rs.chunks out, keyed by doc_id so a document's chunks stay in
// one partition.
type Stage struct {
	cfg Config
}

var _ streams.Processor = (*Stage)(nil)

// NewStage applies defaults, validates cfg and loads the tokenizer, so that a
// broken vocabulary fails at start rather than on the first message.
func NewStage(cfg Config) (*Stage, error) {
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("chunk: max_tokens must be >= 0, got %d", cfg.MaxTokens)
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if _, err := vocabulary(); err != nil {
		return nil, fmt.Errorf("chunk: %w", err)
	}
	return &Stage{cfg: cfg}, nil
}

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// Process implements streams.Processor. Malformed JSON, an unknown schema
// version or a document without doc_id is permanent (dead-lettered); empty
// text yields no chunks. The chunk id hashes (doc_id, text) only, not the
// version, so a new version re-emits the ids of its unchanged pieces and
// downstream work for them deduplicates (docs/methods.md, Chunking).
func (s *Stage) Process(_ context.Context, m streams.Message) ([]streams.Record, error) {
	var d schemas.DocumentVersion
	if err := schemas.Decode(m.Value, &d); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode document: %w", err))
	}
	if d.DocID == "" {
		return nil, streams.Permanent(errors.New("document has no doc_id"))
	}
	parent := d.ID
	if parent == "" {
		parent = d.DocID
	}
	var out []streams.Record
	seen := make(map[string]bool)
	for i, p := range Split(d.Text, s.cfg.MaxTokens) {
		id := schemas.ID(d.DocID, p.Text)
		if seen[id] {
			// A repeated paragraph (a boilerplate footer) would get the same
			// id; one copy is enough evidence.
			continue
		}
		seen[id] = true
		c := &schemas.Chunk{
			ChunkID:     id,
			DocID:       d.DocID,
			DocVersion:  d.Version,
			Ordinal:     uint32(i),
			Text:        p.Text,
			Tokens:      uint32(p.Tokens),
			Kind:        p.Kind,
			Split:       p.Split,
			SpanStart:   uint32(p.Start),
			SpanEnd:     uint32(p.End),
			Title:       d.Title,
			Domain:      d.Domain,
			PublishedAt: d.PublishedAt,
		}
		schemas.Stamp(c, id, parent)
		b, err := schemas.Encode(c)
		if err != nil {
			return nil, fmt.Errorf("cannot encode chunk: %w", err)
		}
		out = append(out, streams.Record{Topic: streams.TopicChunks, Key: []byte(d.DocID), Value: b})
	}
	return out, nil
}
