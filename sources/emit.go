package sources

import (
	"context"
	"errors"
	"fmt"

	"github.com/robustream/robustream/streams"
)

// BatchRecords and BatchBytes bound what a source gathers for one emit
// call: enough to amortise the durable write, little enough that a source
// never holds more than a few MiB of documents (a feed of 5,000 items or a
// JSONL file of 4 MiB lines is written in slices, not all at once).
const (
	BatchRecords = 64
	BatchBytes   = 4 << 20
)

// RecordBytes is the size the runner checks against its limit: key, value
// and headers.
func RecordBytes(r streams.Record) int {
	n := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return n
}

// EmitSkippingTooLarge writes recs with one emit call. When that call is
// refused because a record is too large for Kafka (streams.ErrTooLarge:
// the runner and Versioned check every record before writing any, so
// nothing of the call was written), it writes them one at a time, so that
// one oversized document never stops the source or costs the others. For
// each record refused as too large it calls refused with its index and the
// error: the record refused returns is written in its place (a dead letter,
// see DeadLetter), nil skips it (the caller logs why). It returns how many
// of recs were written as they were; any other emit error ends it.
func EmitSkippingTooLarge(ctx context.Context, emit func(context.Context, ...streams.Record) error, recs []streams.Record,
	refused func(i int, err error) *streams.Record) (written int, err error) {
	if len(recs) == 0 {
		return 0, nil
	}
	err = emit(ctx, recs...)
	if err == nil {
		return len(recs), nil
	}
	if !errors.Is(err, streams.ErrTooLarge) {
		return 0, err
	}
	for i, r := range recs {
		if len(recs) > 1 { // a batch of one was just refused
			err = emit(ctx, r)
		}
		switch {
		case errors.Is(err, streams.ErrTooLarge):
			if alt := refused(i, err); alt != nil {
				if err := emit(ctx, *alt); err != nil {
					return written, fmt.Errorf("writing what replaces a record too large: %w", err)
				}
			}
		case err != nil:
			return written, err
		default:
			written++
		}
	}
	return written, nil
}

// MaxDeadValue and maxDeadKey bound what a source's dead letter keeps of
// its input, so that the dead letter itself always fits one Kafka record
// (the error header is bounded by streams.DeadLetter). The input stays
// where it was (the file and line, the topic, partition and offset the
// dead letter names).
const (
	MaxDeadValue = 1 << 20
	maxDeadKey   = 1 << 10
)

// DeadLetter is the rs.dlq record of an input that source could not turn
// into a document, with its key and value cut to MaxDeadValue and
// maxDeadKey; the error then says how much was kept.
func DeadLetter(source string, m streams.Message, err error) streams.Record {
	if len(m.Value) > MaxDeadValue || len(m.Key) > maxDeadKey {
		err = fmt.Errorf("%w (the dead letter keeps the first %d of %d value bytes and %d of %d key bytes)", err,
			min(len(m.Value), MaxDeadValue), len(m.Value), min(len(m.Key), maxDeadKey), len(m.Key))
		if len(m.Value) > MaxDeadValue {
			m.Value = m.Value[:MaxDeadValue]
		}
		if len(m.Key) > maxDeadKey {
			m.Key = m.Key[:maxDeadKey]
		}
	}
	return streams.DeadLetter("source."+source, m, err, 1)
}
