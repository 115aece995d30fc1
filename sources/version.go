package sources

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// Versioned wraps a source so that a document whose content is unchanged
// (same content hash) is not emitted again, and a changed one gets the next
// version number (docs/architecture.md, Stages). A deletion (Deletion) is a
// version like any other; one of a document never emitted is dropped. The last (version, hash) of
// every document lives in a changelogged state, so this holds across
// restarts.
type Versioned struct {
	src        streams.Source
	state      *streams.State
	partitions int

	// Unchanged counts documents dropped because their content was seen.
	Unchanged atomic.Int64
	// Emitted counts document versions written, deletions included.
	Emitted atomic.Int64
	// Deleted counts the deletions among them (MetaDeleted).
	Deleted atomic.Int64
}

// NewVersioned wraps src; state must be restored (RestoreAll) before Run.
func NewVersioned(src streams.Source, state *streams.State, partitions int) *Versioned {
	return &Versioned{src: src, state: state, partitions: partitions}
}

// Name implements streams.Source.
func (v *Versioned) Name() string { return v.src.Name() }

// Run implements streams.Source. The document is written before its new
// version is recorded: a crash in between re-emits the same version, which
// downstream ids make idempotent; the other order could lose it. A document
// whose record would exceed the runner's size limit fails the call, before
// anything is written, with an error wrapping streams.ErrTooLarge.
func (v *Versioned) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	return v.src.Run(ctx, func(ctx context.Context, recs ...streams.Record) error {
		var keep []streams.Record
		var seen []*schemas.DocumentVersion
		for _, r := range recs {
			if r.Topic != streams.TopicDocuments {
				keep = append(keep, r)
				continue
			}
			var d schemas.DocumentVersion
			if err := schemas.Decode(r.Value, &d); err != nil {
				return fmt.Errorf("source %s emitted an invalid document: %w", v.src.Name(), err)
			}
			prevVersion, prevHash := v.last(d.DocID)
			if prevHash == d.ContentHash {
				v.Unchanged.Add(1)
				continue
			}
			if IsDeletion(&d) && prevHash == "" {
				// Nothing of this document was emitted: nothing to retire.
				v.Unchanged.Add(1)
				continue
			}
			d.Version = prevVersion + 1
			schemas.Stamp(&d, schemas.ID(d.DocID, strconv.FormatUint(uint64(d.Version), 10), d.ContentHash), d.Lineage...)
			b, err := schemas.Encode(&d)
			if err != nil {
				return err
			}
			r.Value = b
			// This is the record the runner will produce, so its size is
			// final here: refuse it now, naming the document, rather than
			// let the runner refuse the batch with only a byte count. The
			// error wraps streams.ErrTooLarge, as the runner's does, so a
			// source handles both alike (sources/dir skips the file).
			if n := RecordBytes(r); n > maxRecordBytes {
				return fmt.Errorf("%w: document %s (%s) is a %d-byte record, over the %d-byte limit",
					streams.ErrTooLarge, d.DocID, d.URI, n, maxRecordBytes)
			}
			keep = append(keep, r)
			seen = append(seen, &d)
		}
		if len(keep) == 0 {
			return nil
		}
		if err := emit(ctx, keep...); err != nil {
			return err
		}
		for _, d := range seen {
			pctx := streams.WithPartition(ctx, streams.PartitionFor([]byte(d.DocID), v.partitions))
			val := strconv.FormatUint(uint64(d.Version), 10) + "|" + d.ContentHash
			if err := v.state.Put(pctx, d.DocID, []byte(val)); err != nil {
				return err
			}
		}
		v.Emitted.Add(int64(len(seen)))
		for _, d := range seen {
			if IsDeletion(d) {
				v.Deleted.Add(1)
			}
		}
		return v.state.Flush(ctx)
	})
}

// maxRecordBytes is the largest record the runner produces (streams'
// unexported maxRecordBytes; TestRecordLimitMatchesRunner pins the two).
const maxRecordBytes = streams.MaxBatchBytes - 64<<10

func (v *Versioned) last(docID string) (uint32, string) {
	b, ok := v.state.Get(docID)
	if !ok {
		return 0, ""
	}
	ver, hash, _ := strings.Cut(string(b), "|")
	n, _ := strconv.ParseUint(ver, 10, 32)
	return uint32(n), hash
}
