package sources

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/robustream/robustream/streams"
)

// limitEmit stands for the runner (or Versioned) behind a source: it
// refuses, whole and before writing any, a call holding a record over
// limit bytes, with an error wrapping streams.ErrTooLarge; it fails every
// call once fail is set. It keeps each call's keys.
type limitEmit struct {
	limit   int
	fail    error
	calls   [][]string
	written []streams.Record
}

func (e *limitEmit) emit(_ context.Context, recs ...streams.Record) error {
	var keys []string
	for _, r := range recs {
		keys = append(keys, string(r.Key))
	}
	e.calls = append(e.calls, keys)
	if e.fail != nil {
		return e.fail
	}
	for _, r := range recs {
		if n := RecordBytes(r); n > e.limit {
			return streams.Permanent(fmt.Errorf("%w: a %d-byte record", streams.ErrTooLarge, n))
		}
	}
	e.written = append(e.written, recs...)
	return nil
}

func rec(key string, size int) streams.Record {
	return streams.Record{Topic: streams.TopicDocuments, Key: []byte(key), Value: bytes.Repeat([]byte("x"), size)}
}

func keysOf(recs []streams.Record) string {
	var keys []string
	for _, r := range recs {
		keys = append(keys, string(r.Key))
	}
	return strings.Join(keys, ",")
}

// TestEmitSkippingTooLarge: a batch holding an oversized record is written
// one record at a time; the oversized one is replaced by what refused
// returns (or skipped on nil), and the records around it are written in
// order.
func TestEmitSkippingTooLarge(t *testing.T) {
	ctx := context.Background()
	e := &limitEmit{limit: 100}
	var refusedAt []int
	n, err := EmitSkippingTooLarge(ctx, e.emit, []streams.Record{rec("a", 10), rec("big", 500), rec("b", 10), rec("huge", 900)},
		func(i int, err error) *streams.Record {
			if !errors.Is(err, streams.ErrTooLarge) {
				t.Errorf("refused(%d) got %v", i, err)
			}
			refusedAt = append(refusedAt, i)
			if i == 1 {
				dl := rec("dead-big", 5)
				return &dl
			}
			return nil
		})
	if err != nil || n != 2 {
		t.Fatalf("written %d, err %v; want 2, nil", n, err)
	}
	if fmt.Sprint(refusedAt) != "[1 3]" || keysOf(e.written) != "a,dead-big,b" {
		t.Errorf("refused %v, written %s; want [1 3] and a,dead-big,b", refusedAt, keysOf(e.written))
	}

	// A batch that fits is one call.
	e = &limitEmit{limit: 100}
	if n, err := EmitSkippingTooLarge(ctx, e.emit, []streams.Record{rec("a", 10), rec("b", 10)}, nil); n != 2 || err != nil || len(e.calls) != 1 {
		t.Errorf("a batch that fits: %d written, %v, %d calls", n, err, len(e.calls))
	}
	// A refused batch of one is not sent twice.
	e = &limitEmit{limit: 100}
	n, err = EmitSkippingTooLarge(ctx, e.emit, []streams.Record{rec("big", 500)}, func(int, error) *streams.Record { return nil })
	if n != 0 || err != nil || len(e.calls) != 1 {
		t.Errorf("a refused batch of one: %d written, %v, calls %v", n, err, e.calls)
	}
	// Any other error is returned, whole batch or one by one.
	boom := errors.New("broker down")
	e = &limitEmit{limit: 100, fail: boom}
	if _, err := EmitSkippingTooLarge(ctx, e.emit, []streams.Record{rec("a", 10)}, nil); !errors.Is(err, boom) {
		t.Errorf("broker error: %v", err)
	}
	e = &limitEmit{limit: 100}
	calls := 0
	failing := func(ctx context.Context, recs ...streams.Record) error {
		if calls++; calls > 1 {
			return boom
		}
		return e.emit(ctx, recs...)
	}
	if _, err := EmitSkippingTooLarge(ctx, failing, []streams.Record{rec("a", 10), rec("big", 500)}, nil); !errors.Is(err, boom) {
		t.Errorf("broker error while writing one by one: %v", err)
	}
	// A replacement that cannot be written is an error, not a silent loss.
	e = &limitEmit{limit: 100}
	_, err = EmitSkippingTooLarge(ctx, e.emit, []streams.Record{rec("big", 500)}, func(int, error) *streams.Record {
		r := rec("still-big", 500)
		return &r
	})
	if !errors.Is(err, streams.ErrTooLarge) {
		t.Errorf("a replacement too large: %v", err)
	}
}

// TestDeadLetterFits: a source's dead letter of an input of any size fits
// one record, says how much it kept, and keeps a small input whole.
func TestDeadLetterFits(t *testing.T) {
	boom := errors.New("document too large")
	small := DeadLetter("jsonl", streams.Message{Topic: "jsonl:/x", Key: []byte("7"), Value: []byte(`{"id":"a"}`), Offset: 7}, boom)
	if string(small.Value) != `{"id":"a"}` || string(small.Key) != "7" || small.Topic != streams.TopicDLQ {
		t.Errorf("small input: %+v", small)
	}
	if msg, _ := streams.HeaderValue(small.Headers, streams.HeaderDLQError); msg != boom.Error() {
		t.Errorf("small input's error %q", msg)
	}
	if stage, _ := streams.HeaderValue(small.Headers, streams.HeaderDLQStage); stage != "source.jsonl" {
		t.Errorf("stage %q", stage)
	}
	big := DeadLetter("kafka", streams.Message{Topic: "t", Key: bytes.Repeat([]byte("k"), 5000), Value: bytes.Repeat([]byte("<"), streams.MaxBatchBytes)}, boom)
	if len(big.Value) != MaxDeadValue || len(big.Key) != maxDeadKey || RecordBytes(big) > maxRecordBytes {
		t.Errorf("big input: value %d key %d record %d bytes", len(big.Value), len(big.Key), RecordBytes(big))
	}
	msg, _ := streams.HeaderValue(big.Headers, streams.HeaderDLQError)
	if want := fmt.Sprintf("keeps the first %d of %d value bytes", MaxDeadValue, streams.MaxBatchBytes); !strings.Contains(msg, want) {
		t.Errorf("big input's error %q does not say %q", msg, want)
	}
}
