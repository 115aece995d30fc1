package clickhouse

import (
	"context"
	"testing"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// TestReconcileRollups simulates a process killed between the outcomes part
// and the rollup parts of one insert: the rollup rows are missing while the
// outcomes are stored, and a retry of the batch is (rightly) filtered out.
// Reconciling must restore sum(n) = count() without touching good buckets.
func TestReconcileRollups(t *testing.T) {
	e := sharedChDB(t)
	resetDatabase(t, e)
	ctx := context.Background()
	s := newSink(t, e, streams.TopicOutcomes)
	events := []schemas.Event{outcome("o1", "m", "query", 1), outcome("o2", "m", "document", 0), outcome("o3", "m2", "query", 1)}
	if err := s.Write(ctx, batchOf(t, streams.TopicOutcomes, 0, events...)); err != nil {
		t.Fatal(err)
	}
	rolled(t, e, 3)
	if n, err := ReconcileRollups(ctx, e, nil); err != nil || n != 0 {
		t.Fatalf("consistent rollups: rebuilt %d, err %v", n, err)
	}
	// The crash: the hourly rollup lost its rows.
	if err := e.Exec(ctx, "ALTER TABLE robustream.robustness_1h DELETE WHERE 1 SETTINGS mutations_sync = 2"); err != nil {
		t.Fatal(err)
	}
	if got := scalar(t, e, "SELECT count() FROM robustream.robustness_1h"); got != "0" {
		t.Fatalf("simulated loss left %s rows", got)
	}
	// The redelivered batch adds nothing: its outcomes are stored.
	if err := s.Write(ctx, batchOf(t, streams.TopicOutcomes, 10, events...)); err != nil {
		t.Fatal(err)
	}
	n, err := ReconcileRollups(ctx, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("rebuilt %d buckets, want 1", n)
	}
	rolled(t, e, 3)
	if got := scalar(t, e, "SELECT sum(value_sum) FROM robustream.robustness_1h WHERE model_id = 'm'"); got != "1" {
		t.Errorf("rebuilt value_sum for m = %s, want 1", got)
	}
	// Idempotent.
	if n, err := ReconcileRollups(ctx, e, nil); err != nil || n != 0 {
		t.Fatalf("second reconcile: rebuilt %d, err %v", n, err)
	}
}
