package chunk

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the chunking stage (robustream run --stages chunk).
const StageName = "chunk"

// Chunking profiles (Config.Profile).
const (
	// ProfileRARE packs whole paragraphs, and tables with their caption,
	// introduction and notes, up to a budget of about 600 tokens (Split).
	ProfileRARE = "rare"
	// ProfileGRADE cuts 128-256-token windows, consecutive ones sharing 50
	// tokens (SplitWindows).
	ProfileGRADE = "grade"
)

// Config configures the chunking stage (stages.chunk). Profile and the
// sizes apply to every document, except those whose DocumentVersion.Source
// has an entry in Sources.
type Config struct {
	// Profile is ProfileRARE (the default, also for "") or ProfileGRADE.
	Profile string `yaml:"profile" help:"chunking profile: rare (whole paragraphs and tables, ~600 tokens) or grade (128-256-token windows overlapping by 50 tokens)"`
	// MaxTokens is the token budget of a piece; 0 means the profile's
	// default: DefaultMaxTokens for rare, GradeMaxTokens for grade. It is a
	// hard cap: a paragraph or table over it is cut (see Split), and the
	// chunk records the cut in Split.
	MaxTokens int `yaml:"max_tokens" help:"token cap of a chunk (0: the profile's, 600 for rare, 256 for grade)"`
	// MinTokens is the smallest window of the grade profile (0: 128).
	MinTokens int `yaml:"min_tokens" help:"grade profile: fewest tokens of a window but the last (0: 128)"`
	// OverlapTokens is how many tokens consecutive windows of the grade
	// profile share (0: 50).
	OverlapTokens int `yaml:"overlap_tokens" help:"grade profile: tokens consecutive windows share (0: 50)"`
	// Sources overrides the settings above for the documents of one source,
	// keyed by DocumentVersion.Source.
	Sources map[string]SourceConfig `yaml:"sources" help:"per-source overrides keyed by the document's source, e.g. {rss: {profile: grade}}"`
}

// SourceConfig is an entry of Config.Sources. A field left zero keeps the
// top-level value, unless the entry changes the profile: then the sizes it
// leaves zero take the new profile's defaults, since a RARE budget means
// nothing as a GRADE window and the other way round.
type SourceConfig struct {
	Profile       string `yaml:"profile"`
	MaxTokens     int    `yaml:"max_tokens"`
	MinTokens     int    `yaml:"min_tokens"`
	OverlapTokens int    `yaml:"overlap_tokens"`
}

// params is a resolved profile: its name and its sizes, defaults applied.
type params struct {
	profile           string
	max, min, overlap int
}

// split cuts text according to the profile.
func (p params) split(text string) []Piece {
	if p.profile == ProfileGRADE {
		return SplitWindows(text, p.min, p.max, p.overlap)
	}
	return Split(text, p.max)
}

// resolve applies defaults to a profile's settings and validates them;
// path prefixes the keys in errors ("" at the top level).
func resolve(sc SourceConfig, path string) (params, error) {
	p := params{profile: sc.Profile, max: sc.MaxTokens, min: sc.MinTokens, overlap: sc.OverlapTokens}
	key := func(k string) string { return path + k }
	if p.profile == "" {
		p.profile = ProfileRARE
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"max_tokens", p.max}, {"min_tokens", p.min}, {"overlap_tokens", p.overlap}} {
		if f.v < 0 {
			return p, fmt.Errorf("%s must be >= 0, got %d", key(f.name), f.v)
		}
	}
	switch p.profile {
	case ProfileRARE:
		if p.min != 0 {
			return p, fmt.Errorf("%s: only the grade profile takes it (profile is rare)", key("min_tokens"))
		}
		if p.overlap != 0 {
			return p, fmt.Errorf("%s: only the grade profile takes it (profile is rare)", key("overlap_tokens"))
		}
		if p.max == 0 {
			p.max = DefaultMaxTokens
		}
	case ProfileGRADE:
		if p.max == 0 {
			p.max = GradeMaxTokens
		}
		if p.min == 0 {
			p.min = min(GradeMinTokens, p.max)
		}
		if p.overlap == 0 {
			p.overlap = GradeOverlapTokens
		}
		if p.min > p.max {
			return p, fmt.Errorf("%s (%d) must not exceed max_tokens (%d)", key("min_tokens"), p.min, p.max)
		}
		if 2*p.overlap > p.min {
			return p, fmt.Errorf("%s (%d) must be at most half of min_tokens (%d)", key("overlap_tokens"), p.overlap, p.min)
		}
	default:
		return p, fmt.Errorf("%s: unknown profile %q (want %q or %q)", key("profile"), p.profile, ProfileRARE, ProfileGRADE)
	}
	return p, nil
}

// Stage is the "chunk" processor: one DocumentVersion from rs.documents in,
// its Chunks to rs.chunks out, keyed by doc_id so a document's chunks stay in
// one partition.
type Stage struct {
	cfg     Config
	base    params
	sources map[string]params
}

var _ streams.Processor = (*Stage)(nil)

// NewStage applies defaults, validates cfg and loads the tokenizer, so that a
// broken vocabulary fails at start rather than on the first message. An
// error names the offending key, relative to stages.chunk
// ("sources.rss.profile: unknown profile …").
func NewStage(cfg Config) (*Stage, error) {
	top := SourceConfig{Profile: cfg.Profile, MaxTokens: cfg.MaxTokens, MinTokens: cfg.MinTokens, OverlapTokens: cfg.OverlapTokens}
	base, err := resolve(top, "")
	if err != nil {
		return nil, fmt.Errorf("chunk: %w", err)
	}
	s := &Stage{cfg: cfg, base: base, sources: make(map[string]params, len(cfg.Sources))}
	// Sorted, so that the first error reported does not depend on map order.
	for _, name := range slices.Sorted(maps.Keys(cfg.Sources)) {
		sc := cfg.Sources[name]
		eff := top
		if sc.Profile != "" && sc.Profile != base.profile {
			eff = SourceConfig{Profile: sc.Profile}
		}
		if sc.MaxTokens != 0 {
			eff.MaxTokens = sc.MaxTokens
		}
		if sc.MinTokens != 0 {
			eff.MinTokens = sc.MinTokens
		}
		if sc.OverlapTokens != 0 {
			eff.OverlapTokens = sc.OverlapTokens
		}
		p, err := resolve(eff, "sources."+name+".")
		if err != nil {
			return nil, fmt.Errorf("chunk: %w", err)
		}
		s.sources[name] = p
	}
	if _, err := vocabulary(); err != nil {
		return nil, fmt.Errorf("chunk: %w", err)
	}
	return s, nil
}

// paramsFor returns the profile documents of source use.
func (s *Stage) paramsFor(source string) params {
	if p, ok := s.sources[source]; ok {
		return p
	}
	return s.base
}

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// Process implements streams.Processor. Malformed JSON, an unknown schema
// version or a document without doc_id is permanent (dead-lettered). The
// chunk id hashes (doc_id, text) only, not the version, so a new version re-emits the ids of its unchanged pieces and
// downstream work for them deduplicates (docs/methods.md, Chunking). A
// document without text yields one empty chunk, which retires what its
// earlier versions stated.
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
	var pieces []Piece
	if d.Metadata[schemas.MetaChunking] == schemas.ChunkWhole && strings.TrimSpace(d.Text) != "" {
		// A curated context (sources/goldens): one chunk, its text as
		// given, so that its id is the one the curated question names.
		pieces = []Piece{{Text: d.Text, End: len(d.Text), Tokens: CountTokens(d.Text), Kind: "text"}}
	} else {
		pieces = s.paramsFor(d.Source).split(d.Text)
	}
	if len(pieces) == 0 {
		// No text: a deleted document (sources.Deletion) or one emptied by
		// an edit. One empty chunk carries the version on, so that the
		// knowledge graph applies it as stating nothing and the document's
		// questions retire (docs/methods.md, Chunking).
		pieces = []Piece{{Kind: "text"}}
	}
	unique := 0
	for _, p := range pieces {
		if id := schemas.ID(d.DocID, p.Text); !seen[id] {
			seen[id] = true
			unique++
		}
	}
	clear(seen)
	for i, p := range pieces {
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
			Chunks:      uint32(unique),
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
