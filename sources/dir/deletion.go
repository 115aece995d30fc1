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

// settleGone ends a scan. Every file an earlier scan read, or an earlier
// process emitted (Config.Memory), that this scan confirmed gone gets its
// document's deletion (sources.Deletion), which retires its questions, and
// is then forgotten. A file counts as gone only if the directory that held
// it, or the nearest ancestor that is itself gone, was listed completely:
// an unreadable directory, an unreadable root or a cancelled scan delete
// nothing, and a file that is there but cannot be read is skipped with a
// warning, not deleted. sources.Versioned drops the deletion of a document
// it never emitted (a file that was always skipped).
//
// A scan that met no document file at all deletes nothing: an unmounted
// share, an emptied mount point or a folder restored from the wrong backup
// look like that, and retiring every question of the corpus on their
// account would be silent loss. It warns once (until document files are
// back) naming the folder and how many documents it keeps. A folder
// emptied on purpose retires its documents as soon as it holds any file of
// a document format again, even an empty one.
func (s *Source) settleGone(ctx context.Context, emit func(context.Context, ...streams.Record) error, present map[string]bool) error {
	var paths []string
	documents := 0 // of them, files whose documents were emitted
	for p, st := range s.seen {
		if !present[p] && s.gone(p, present) {
			paths = append(paths, p)
			if _, ok := s.files[p]; ok || st.hash != "" {
				documents++
			}
		}
	}
	if documents > 0 && s.docFiles == 0 {
		if !s.emptyWarned {
			s.log.Warn("folder has no document files: the documents read from it before are kept, not deleted",
				"path", s.root, "documents", documents,
				"hint", "if the folder was emptied on purpose, put any .md, .txt, .html or .pdf file in it (an empty one will do) and its documents are deleted at the next scan")
			s.emptyWarned = true
		}
		s.forgetWarnings(present)
		return nil
	}
	s.emptyWarned = false
	slices.Sort(paths)
	if err := s.emitDeletions(ctx, emit, paths); err != nil {
		return err
	}
	if err := s.forget(ctx, paths); err != nil {
		return err
	}
	for _, p := range paths {
		delete(s.seen, p)
	}
	s.forgetWarnings(present)
	return nil
}

// emitDeletions emits the deletions of the documents of paths, in one
// batch.
func (s *Source) emitDeletions(ctx context.Context, emit func(context.Context, ...streams.Record) error, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	recs := make([]streams.Record, 0, len(paths))
	for _, p := range paths {
		id, ok := s.files[p]
		if !ok {
			id = s.docID(p)
		}
		d := sources.Deletion(SourceName, id, (&url.URL{Scheme: "file", Path: p}).String())
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
