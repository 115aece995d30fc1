package sources

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/robustream/robustream/streams"
)

// sizedSource emits one record per size, each exactly that many bytes, and
// keeps what emit answered.
type sizedSource struct {
	sizes []int
	errs  []error
}

func (s *sizedSource) Name() string { return "sized" }

func (s *sizedSource) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	for _, n := range s.sizes {
		key := []byte("k")
		s.errs = append(s.errs, emit(ctx, streams.Record{Topic: streams.TopicDocuments, Key: key, Value: bytes.Repeat([]byte("x"), n-len(key))}))
	}
	return nil
}

// checkRunnerLimit asserts that the runner refuses a record of limit+1
// bytes as too large and does not refuse one of limit bytes. The context is
// cancelled, so the record under the limit fails to produce for that reason
// and no broker is needed: the size check comes first.
func checkRunnerLimit(t *testing.T, limit int) {
	t.Helper()
	k, err := streams.NewKafka(streams.KafkaConfig{Brokers: []string{"127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	r := streams.NewRunner(k, slog.New(slog.DiscardHandler), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := &sizedSource{sizes: []int{limit, limit + 1}}
	if err := r.RunSource(ctx, src, streams.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	if errors.Is(src.errs[0], streams.ErrTooLarge) || src.errs[0] == nil {
		t.Errorf("a %d-byte record: emit returned %v, want a produce error that is not ErrTooLarge", limit, src.errs[0])
	}
	if !errors.Is(src.errs[1], streams.ErrTooLarge) {
		t.Errorf("a %d-byte record: emit returned %v, want ErrTooLarge", limit+1, src.errs[1])
	}
}

// TestRecordLimitMatchesRunner pins maxRecordBytes, a copy of the runner's
// unexported limit, to the runner's behaviour.
func TestRecordLimitMatchesRunner(t *testing.T) {
	checkRunnerLimit(t, maxRecordBytes)
}

// TestVersionedRefusesOversizedDocument: a document whose final record is
// over the limit fails the emit call with ErrTooLarge, naming the document,
// before anything reaches emit or the version state.
func TestVersionedRefusesOversizedDocument(t *testing.T) {
	k, err := streams.NewKafka(streams.KafkaConfig{Brokers: []string{"127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	st := streams.NewState(k, "source.fixed")
	// 1.5 MB of "<" is 9 MB once escaped.
	v := NewVersioned(fixedSource{[]string{strings.Repeat("<", 1_500_000)}}, st, 1)
	emitted := 0
	err = v.Run(context.Background(), func(context.Context, ...streams.Record) error {
		emitted++
		return nil
	})
	if !errors.Is(err, streams.ErrTooLarge) || !strings.Contains(err.Error(), "doc-1") {
		t.Fatalf("Run returned %v, want ErrTooLarge naming doc-1", err)
	}
	if emitted != 0 || v.Emitted.Load() != 0 || st.Len() != 0 {
		t.Errorf("%d emit calls, %d counted, %d state keys after a refused document", emitted, v.Emitted.Load(), st.Len())
	}
}
