package dir

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/streams"
)

// emitDeletions emits, for every file an earlier scan read that this scan
// confirmed gone, its document's deletion (sources.Deletion), which
// retires its questions. A file counts as gone only if the directory that
// held it, or the nearest ancestor that is itself gone, was listed
// completely: an unreadable directory, an unreadable root or a cancelled
// scan delete nothing. sources.Versioned drops the deletion of a document
// it never emitted (a file that was always skipped).
func (s *Source) emitDeletions(ctx context.Context, emit func(context.Context, ...streams.Record) error, present map[string]bool) error {
	var paths []string
	for p := range s.seen {
		if !present[p] && s.gone(p, present) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(paths)
	recs := make([]streams.Record, 0, len(paths))
	for _, p := range paths {
		d := sources.Deletion(SourceName, s.docID(p), (&url.URL{Scheme: "file", Path: p}).String())
		d.Domain = s.cfg.Domain
		d.Metadata["path"] = p
		b, err := schemas.Encode(d)
		if err != nil {
			return fmt.Errorf("dir: %w", err)
		}
		recs = append(recs, streams.Record{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b})
		s.log.Info("file removed: its document is deleted", "path", p)
	}
	if err := emit(ctx, recs...); err != nil {
		if errors.Is(err, streams.ErrTooLarge) {
			return fmt.Errorf("dir: emit deletions: %w", err) // cannot happen: a deletion has no text
		}
		return fmt.Errorf("dir: emit: %w", err)
	}
	s.deleted.Add(int64(len(recs)))
	return nil
}

// gone reports whether the scan confirmed that path no longer exists: the
// nearest ancestor the scan met (or path's own directory) was listed in
// full, and the name below it on the way to path was not in the listing.
func (s *Source) gone(path string, present map[string]bool) bool {
	for p := path; p != s.root; {
		parent := filepath.Dir(p)
		if parent == p {
			return false // not under the root
		}
		if present[parent] || parent == s.root {
			return !present[p] && s.listed[parent]
		}
		p = parent
	}
	return false
}
