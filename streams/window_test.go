package streams

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// TestWindowKeepsSlotsBusy: in a windowed stage a slow message holds one
// slot, not the partition: the messages after it are processed and written
// while it runs, yet the committed offset never passes it, so a crash at
// that moment would redo it. Every message ends as exactly one output or
// dead letter, and the group's offsets reach the end of the log.
func TestWindowKeepsSlotsBusy(t *testing.T) {
	b, k := newTestKafka(t, "")
	defer b.Close()
	const n = 400
	// One key: every message in one partition, behind the slow one.
	if err := k.EnsureTopics(context.Background(), "in", "out"); err != nil {
		t.Fatal(err)
	}
	recs := make([]Record, n)
	for i := range recs {
		v := "v" + strconv.Itoa(i)
		if i%100 == 50 {
			v = "poison"
		}
		recs[i] = Record{Topic: "in", Key: []byte("k"), Value: []byte(v)}
	}
	w := k.NewWriter()
	if err := Produce(context.Background(), w, recs...); err != nil {
		t.Fatal(err)
	}
	w.Close()

	release := make(chan struct{})
	var done, running, peak atomic.Int64
	p := funcProcessor{name: "slow", fn: func(ctx context.Context, m Message) ([]Record, error) {
		cur := running.Add(1)
		defer running.Add(-1)
		for {
			old := peak.Load()
			if cur <= old || peak.CompareAndSwap(old, cur) {
				break
			}
		}
		switch string(m.Value) {
		case "v0":
			select { // the first message waits until the rest are done
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case "poison":
			return nil, Permanent(errors.New("not a value"))
		default:
			time.Sleep(time.Millisecond)
		}
		done.Add(1)
		return []Record{{Topic: "out", Key: m.Key, Value: m.Value}}, nil
	}}
	r := NewRunner(k, quietLog(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- r.Run(ctx, Stage{Name: "slow", Inputs: []string{"in"}, Outputs: []string{"out"}, Processor: p, InFlight: 16})
	}()

	deadline := time.Now().Add(30 * time.Second)
	for done.Load() < n-1-4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := done.Load(); got != n-1-4 {
		t.Fatalf("%d messages done while the first was in flight, want %d: the slow one blocked the others", got, n-1-4)
	}
	time.Sleep(3 * commitEvery)
	committed := committedOffset(t, k, r, "slow", "in")
	if committed != 0 {
		t.Errorf("committed offset %d while offset 0 is in flight, want 0", committed)
	}
	close(release)
	drain(t, r, map[string][]string{"slow": {"in"}})
	if got := committedOffset(t, k, r, "slow", "in"); got != n {
		t.Errorf("committed offset %d after draining, want %d", got, n)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if got := len(readAll(t, k, "out")); got != n-4 {
		t.Errorf("%d outputs, want %d", got, n-4)
	}
	if got := len(readAll(t, k, TopicDLQ)); got != 4 {
		t.Errorf("%d dead letters, want 4", got)
	}
	if pk := peak.Load(); pk > 16 || pk < 2 {
		t.Errorf("peak concurrency %d, want 2..16 (the window)", pk)
	}
}

// committedOffset returns the group's committed offset of the partition
// that holds the records of key "k".
func committedOffset(t *testing.T, k *Kafka, r *Runner, stage, topic string) int64 {
	t.Helper()
	p := PartitionFor([]byte("k"), k.Partitions())
	got, err := k.CommittedOffsets(context.Background(), r.Group(stage), map[string]map[int]int64{topic: {p: 0}})
	if err != nil {
		t.Fatal(err)
	}
	return got[topic][p]
}

func TestWindowOffsets(t *testing.T) {
	w := &window{next: 10, commit: 10}
	if _, ok := w.committable(); ok {
		t.Error("nothing fetched, yet committable")
	}
	for _, off := range []int64{10, 11, 12} {
		w.started(off)
	}
	f := func(finish int64, want int64) {
		t.Helper()
		w.finished(finish)
		if to, _ := w.committable(); to != want {
			t.Errorf("after %d finished: committable %d, want %d", finish, to, want)
		}
	}
	f(11, 10)
	f(12, 10)
	f(10, 13)
}
