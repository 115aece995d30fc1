package streams

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"
)

// TestCheckCommitted: offsets a group committed within the log pass; an
// offset beyond a partition's end (the broker lost records the group had
// consumed) is an error naming the group, topic and partition, never a
// silent skip.
func TestCheckCommitted(t *testing.T) {
	b, k := newTestKafka(t, "")
	defer b.Close()
	ctx := context.Background()
	produceN(t, k, "in", 12, func(i int) string { return "v" + strconv.Itoa(i) })
	r := NewRunner(k, quietLog(), nil)
	stages := map[string][]string{"s": {"in"}}
	if err := r.CheckCommitted(ctx, stages); err != nil {
		t.Fatalf("nothing committed yet: %v", err)
	}
	ends, err := k.EndOffsets(ctx, "in")
	if err != nil {
		t.Fatal(err)
	}
	commit := func(p int, off int64) {
		t.Helper()
		resp, err := k.Client().OffsetCommit(ctx, &kafka.OffsetCommitRequest{
			GroupID: r.Group("s"), GenerationID: -1,
			Topics: map[string][]kafka.OffsetCommit{"in": {{Partition: p, Offset: off}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range resp.Topics {
			for _, p := range ps {
				if p.Error != nil {
					t.Fatal(p.Error)
				}
			}
		}
	}
	commit(0, ends["in"][0]) // at the end: consumed everything
	if err := r.CheckCommitted(ctx, stages); err != nil {
		t.Fatalf("committed at the end of the log: %v", err)
	}
	commit(1, ends["in"][1]+40)
	err = r.CheckCommitted(ctx, stages)
	if !errors.Is(err, ErrOffsetsAhead) {
		t.Fatalf("committed beyond the end: %v, want ErrOffsetsAhead", err)
	}
	for _, want := range []string{r.Group("s"), "in/1", strconv.FormatInt(ends["in"][1]+40, 10)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}
