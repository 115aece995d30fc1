package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// SourceName is the source's name and its documents' Source field.
const SourceName = "ingest"

// ErrClosed is what Submit returns once the source is closed or its Run
// has ended.
var ErrClosed = errors.New("ingest: source is not running")

// submission is one Submit call waiting for Run.
type submission struct {
	recs []streams.Record
	done chan error
}

// Source emits what handlers submit. It implements streams.Source; Run must
// be called once.
type Source struct {
	in     chan submission
	closed chan struct{}
	once   sync.Once
	ended  chan struct{} // closed when Run returns
}

var _ streams.Source = (*Source)(nil)

// New returns a source; documents submitted before Run wait for it.
func New() *Source {
	return &Source{in: make(chan submission), closed: make(chan struct{}), ended: make(chan struct{})}
}

// Name implements streams.Source.
func (s *Source) Name() string { return SourceName }

// Close makes Run return nil once no Submit is being served; later
// Submits fail with ErrClosed.
func (s *Source) Close() { s.once.Do(func() { close(s.closed) }) }

// Submit hands docs to Run and waits until they are written, ctx ends or
// the source stops. The documents are written in one emit call: all or
// none.
func (s *Source) Submit(ctx context.Context, docs ...*schemas.DocumentVersion) error {
	if len(docs) == 0 {
		return nil
	}
	recs := make([]streams.Record, 0, len(docs))
	for _, d := range docs {
		b, err := schemas.Encode(d)
		if err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		recs = append(recs, streams.Record{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b})
	}
	sub := submission{recs: recs, done: make(chan error, 1)}
	select {
	case s.in <- sub:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closed:
		return ErrClosed
	case <-s.ended:
		return ErrClosed
	}
	select {
	case err := <-sub.done:
		return err
	case <-ctx.Done():
		// Run still finishes the write; the caller only stops waiting.
		return ctx.Err()
	}
}

// Run implements streams.Source: it emits each submission as it comes and
// tells its Submit the outcome. A record too large (streams.ErrTooLarge)
// fails only its submission; any other emit error fails it and is
// returned. Run returns nil when ctx is cancelled or the source closed.
func (s *Source) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	defer close(s.ended)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.closed:
			return nil
		case sub := <-s.in:
			err := emit(ctx, sub.recs...)
			sub.done <- err
			if err != nil && !errors.Is(err, streams.ErrTooLarge) {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("ingest: emit: %w", err)
			}
		}
	}
}
