package streams

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Header is a Kafka record header.
type Header struct {
	Key   string
	Value []byte
}

// Message is a record read from Kafka.
type Message struct {
	Topic     string
	Partition int
	Offset    int64
	Key       []byte
	Value     []byte
	Headers   []Header
	Time      time.Time
}

// Record is a record to be written to Kafka.
type Record struct {
	Topic   string
	Key     []byte
	Value   []byte
	Headers []Header
}

// Source emits records into Kafka.
//
// Lifecycle: Run is called once. It emits records through emit, which blocks
// while downstream is saturated (backpressure) and returns only after the
// record is durable in Kafka. A finite source (a directory, a JSONL file)
// returns nil when exhausted; an unbounded one (a watched folder, the demo
// feed) returns when ctx is cancelled. An error from emit must be returned.
type Source interface {
	Name() string
	Run(ctx context.Context, emit func(context.Context, ...Record) error) error
}

// Processor maps one message to zero or more records.
//
// Lifecycle: the runner calls Process for each message of its input topics,
// in offset order per partition, and commits the offset only after every
// returned record is durable. Process must therefore be idempotent: after a
// crash a message is processed again and must yield the same records (ids are
// content hashes, so downstream deduplicates). An error wrapped with
// Permanent is dead-lettered at once; any other error is retried with backoff
// and dead-lettered when retries run out.
type Processor interface {
	Name() string
	Process(ctx context.Context, m Message) ([]Record, error)
}

// Sink writes batches of messages to an external system.
//
// Lifecycle: Write is called with a batch read from one input topic; when it
// returns nil the batch is durable and the runner commits its offsets. Write
// must be idempotent for a retried batch (the same messages, the same
// offsets). Close flushes and releases resources.
type Sink interface {
	Name() string
	Write(ctx context.Context, batch []Message) error
	Close() error
}

// PreparingSink is a Sink whose write splits into a CPU-only part, Prepare
// (decoding the messages, building the rows), and the write to the store,
// WritePrepared. The runner prepares batch N+1 while batch N is being
// written, so the store's write time and the sink's CPU time overlap
// instead of adding up (see overlapped).
//
// Prepare must have no side effects and must not depend on what earlier
// batches wrote: it runs while the previous batch is still being written.
// Whatever needs the store's current contents belongs in WritePrepared,
// which is called only after every earlier batch is durable and committed.
// WritePrepared follows Write's contract (nil means durable; BatchError
// indexes are positions in the prepared batch; Permanent; anything else is
// retried by calling WritePrepared again with the same Prepared). The
// caller releases a Prepared once it is done with it, written or not.
// Write(batch) must equal WritePrepared(Prepare(batch)).
type PreparingSink interface {
	Sink
	Prepare(batch []Message) Prepared
	WritePrepared(ctx context.Context, p Prepared) error
}

// Prepared is a batch made ready by PreparingSink.Prepare. Release frees
// what it holds; it is called once, after the last WritePrepared.
type Prepared interface {
	Release()
}

// ErrPermanent marks errors that retrying cannot fix (malformed input, an
// unknown schema version). Use Permanent to wrap.
var ErrPermanent = errors.New("permanent")

type permanentError struct{ err error }

func (p permanentError) Error() string { return p.err.Error() }
func (p permanentError) Unwrap() []error {
	return []error{p.err, ErrPermanent}
}

// Permanent wraps err so that the runner dead-letters without retrying.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err is permanent.
func IsPermanent(err error) bool { return errors.Is(err, ErrPermanent) }

// BatchError reports the messages of a batch that a sink could not write;
// the runner dead-letters exactly those and commits the rest.
type BatchError struct {
	// Errs maps the index of a failed message in the batch to its error.
	Errs map[int]error
}

func (b *BatchError) Error() string {
	for i, err := range b.Errs {
		return fmt.Sprintf("%d message(s) failed, e.g. #%d: %v", len(b.Errs), i, err)
	}
	return "batch error"
}

// Store is a keyed state store. Implementations log every change so that the
// state survives restarts (see State).
type Store interface {
	Get(key string) ([]byte, bool)
	Put(ctx context.Context, key string, value []byte) error
	Delete(ctx context.Context, key string) error
}
