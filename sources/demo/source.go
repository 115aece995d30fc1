package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// SourceName is the demo feed's name and the Source field of its documents.
const SourceName = "demo"

// Config configures the demo feed.
type Config struct {
	// Seed selects the fictional world; the same seed gives the same reports.
	Seed int64
	// Periods is the number of quarters to emit, from period 0 (2024 Q1);
	// 0 means unbounded: the feed runs until its context is cancelled.
	Periods int
	// Interval is the pause between periods of an unbounded feed, so that a
	// live demo shows facts changing over time; 0 means no pause. A finite
	// feed never pauses.
	Interval time.Duration
}

// Source is the demo feed. It implements streams.Source.
type Source struct {
	cfg Config
}

var _ streams.Source = (*Source)(nil)

// New validates cfg and returns the feed.
func New(cfg Config) (*Source, error) {
	if cfg.Periods < 0 {
		return nil, fmt.Errorf("demo: periods must be >= 0, got %d", cfg.Periods)
	}
	if cfg.Interval < 0 {
		return nil, fmt.Errorf("demo: interval must be >= 0, got %s", cfg.Interval)
	}
	return &Source{cfg: cfg}, nil
}

// Name implements streams.Source.
func (s *Source) Name() string { return SourceName }

// Run implements streams.Source: it emits each period's documents to
// rs.documents (key doc_id), one emit call per period. A finite feed returns
// nil after its last period; an unbounded one returns nil when ctx is
// cancelled, which is how it normally ends. Errors from emit are returned.
func (s *Source) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	w := newWorld(s.cfg.Seed)
	for p := 0; s.cfg.Periods == 0 || p < s.cfg.Periods; p++ {
		if ctx.Err() != nil {
			if s.cfg.Periods == 0 {
				return nil
			}
			return ctx.Err()
		}
		w.step()
		docs := documents(w.render(), p)
		recs := make([]streams.Record, 0, len(docs))
		now := time.Now().UTC()
		for i := range docs {
			d := &docs[i]
			d.FetchedAt = now
			schemas.Stamp(d, d.ID)
			b, err := schemas.Encode(d)
			if err != nil {
				return fmt.Errorf("demo: cannot encode document: %w", err)
			}
			recs = append(recs, streams.Record{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b})
		}
		if err := emit(ctx, recs...); err != nil {
			return fmt.Errorf("demo: emit period %d: %w", p, err)
		}
		if s.cfg.Periods == 0 && s.cfg.Interval > 0 {
			t := time.NewTimer(s.cfg.Interval)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
	}
	return nil
}

// Generate returns the documents of one period of the world seeded by seed,
// exactly as Run emits them but without FetchedAt and ProducedAt (the only
// wall-clock fields). It replays the world from period 0, so it costs
// O(period).
func Generate(seed int64, period int) []schemas.DocumentVersion {
	if period < 0 {
		return nil
	}
	w := newWorld(seed)
	var rs []report
	for range period + 1 {
		w.step()
		rs = w.render() // every period renders: rendering draws and mutates state
	}
	return documents(rs, period)
}

// documents turns rendered reports into DocumentVersions. The event id
// hashes (doc_id, content hash): the same text is the same event.
func documents(rs []report, period int) []schemas.DocumentVersion {
	out := make([]schemas.DocumentVersion, 0, len(rs))
	for _, r := range rs {
		sum := sha256.Sum256([]byte(r.text))
		d := schemas.DocumentVersion{
			DocID:       schemas.ID(SourceName, r.uri),
			Version:     1, // the engine assigns versions (docs/architecture.md, Stages)
			Source:      SourceName,
			URI:         r.uri,
			Title:       r.title,
			Domain:      r.domain,
			PublishedAt: PeriodEnd(period),
			ContentHash: hex.EncodeToString(sum[:]),
			MIME:        "text/markdown",
			Text:        r.text,
		}
		d.SchemaVersion = schemas.Version
		d.ID = schemas.ID(d.DocID, d.ContentHash)
		out = append(out, d)
	}
	return out
}
