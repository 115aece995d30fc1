package streams

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// stepBatch is what stepSink.Prepare returns: the batch and what happened
// to it.
type stepBatch struct {
	msgs     []Message
	attempts int
	released int
	written  bool
}

func (b *stepBatch) first() int64 { return b.msgs[0].Offset }
func (b *stepBatch) last() int64  { return b.msgs[len(b.msgs)-1].Offset }

// Release is guarded by the sink's lock through prepSinkMu.
func (b *stepBatch) Release() {
	prepSinkMu.Lock()
	b.released++
	prepSinkMu.Unlock()
}

// prepSinkMu guards every stepSink and stepBatch of a test (one lock keeps
// the bookkeeping simple; nothing here is hot).
var prepSinkMu sync.Mutex

// stepSink is a PreparingSink that records what the runner asks of it.
// write decides each attempt's outcome and may block; it runs without the
// lock held.
type stepSink struct {
	prepared map[int][]*stepBatch // per partition, in Prepare order
	problems []string             // contract violations seen by the sink
	// committed returns the group's committed offset of a partition (0
	// when none), read at the start of every write; nil skips the check.
	committed func(partition int) int64
	write     func(ctx context.Context, b *stepBatch) error
}

func (s *stepSink) Name() string { return "step" }
func (s *stepSink) Close() error { return nil }

func (s *stepSink) Write(ctx context.Context, batch []Message) error {
	p := s.Prepare(batch)
	defer p.Release()
	return s.WritePrepared(ctx, p)
}

func (s *stepSink) Prepare(batch []Message) Prepared {
	b := &stepBatch{msgs: slices.Clone(batch)}
	prepSinkMu.Lock()
	s.prepared[batch[0].Partition] = append(s.prepared[batch[0].Partition], b)
	prepSinkMu.Unlock()
	return b
}

func (s *stepSink) WritePrepared(ctx context.Context, p Prepared) error {
	b := p.(*stepBatch)
	part := b.msgs[0].Partition
	// Everything before this batch must be committed, and nothing of it or
	// after it: a write sees the earlier batches durable and committed.
	c := int64(-1)
	if s.committed != nil {
		c = s.committed(part)
	}
	prepSinkMu.Lock()
	b.attempts++
	if b.released > 0 {
		s.problems = append(s.problems, fmt.Sprintf("partition %d: batch @%d written after its release", part, b.first()))
	}
	if s.committed != nil && c != b.first() {
		s.problems = append(s.problems, fmt.Sprintf("partition %d: batch @%d written with offset %d committed", part, b.first(), c))
	}
	for _, o := range s.prepared[part] {
		if o.first() < b.first() && !o.written {
			s.problems = append(s.problems, fmt.Sprintf("partition %d: batch @%d written before batch @%d", part, b.first(), o.first()))
		}
	}
	prepSinkMu.Unlock()
	err := s.write(ctx, b)
	if err == nil || errors.As(err, new(*BatchError)) {
		prepSinkMu.Lock()
		b.written = true
		prepSinkMu.Unlock()
	}
	return err
}

// preparedAfter reports whether a batch after b of its partition was
// prepared.
func (s *stepSink) preparedAfter(b *stepBatch) bool {
	prepSinkMu.Lock()
	defer prepSinkMu.Unlock()
	for _, o := range s.prepared[b.msgs[0].Partition] {
		if o.first() > b.last() {
			return true
		}
	}
	return false
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// overlapSetup produces n messages to topic (every partition holding more
// than a few batches of size 5) and returns the end offsets.
func overlapSetup(t *testing.T, k *Kafka, topic string, n int, value func(i int) string) map[int]int64 {
	t.Helper()
	produceN(t, k, topic, n, value)
	ends, err := k.EndOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	for p, end := range ends[topic] {
		if end < 20 {
			t.Fatalf("partition %d holds %d messages: the test needs several batches on each", p, end)
		}
	}
	return ends[topic]
}

func committedFunc(t *testing.T, k *Kafka, group, topic string, ends map[int]int64) func(int) int64 {
	return func(p int) int64 {
		c, err := k.CommittedOffsets(context.Background(), group, map[string]map[int]int64{topic: ends})
		if err != nil {
			t.Error(err)
			return -2
		}
		return max(c[topic][p], 0)
	}
}

// TestOverlappedSink: the runner prepares batch N+1 while batch N is being
// written, writes batches in order, each only once the previous one is
// committed, retries a failed write with the same Prepared, dead-letters
// what a BatchError names, and releases every Prepared once.
func TestOverlappedSink(t *testing.T) {
	b, k := newTestKafka(t, "")
	defer b.Close()
	const topic = "ov.in"
	ends := overlapSetup(t, k, topic, 200, func(i int) string {
		if i%23 == 5 {
			return "bad" + strconv.Itoa(i)
		}
		return "v" + strconv.Itoa(i)
	})
	r := NewRunner(k, quietLog(), nil)
	var (
		mu      sync.Mutex
		nth     = map[int]int{}  // writes started per partition
		overlap = map[int]bool{} // partitions whose first write saw the next batch prepared
	)
	s := &stepSink{prepared: map[int][]*stepBatch{}, committed: committedFunc(t, k, r.Group("ov"), topic, ends)}
	s.write = func(ctx context.Context, b *stepBatch) error {
		part := b.msgs[0].Partition
		mu.Lock()
		nth[part]++
		n := nth[part]
		mu.Unlock()
		switch {
		case n == 1:
			// The first write waits until the next batch is prepared:
			// that can only happen while this write is under way.
			deadline := time.Now().Add(10 * time.Second)
			for !s.preparedAfter(b) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			mu.Lock()
			overlap[part] = s.preparedAfter(b)
			mu.Unlock()
		case n == 2 || n == 3:
			return errors.New("store unavailable") // the second batch fails twice
		}
		bad := map[int]error{}
		for i, m := range b.msgs {
			if strings.HasPrefix(string(m.Value), "bad") {
				bad[i] = Permanent(errors.New("rejected " + string(m.Value)))
			}
		}
		if len(bad) > 0 {
			return &BatchError{Errs: bad}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.Run(ctx, Stage{Name: "ov", Inputs: []string{topic}, Sink: s, BatchSize: 5, Retry: RetryPolicy{Base: time.Millisecond}})
	}()
	drain(t, r, map[string][]string{"ov": {topic}})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	prepSinkMu.Lock()
	defer prepSinkMu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	for _, p := range s.problems {
		t.Error(p)
	}
	for p, end := range ends {
		if !overlap[p] {
			t.Errorf("partition %d: the next batch was not prepared while the first was being written", p)
		}
		var offs []int64
		for i, b := range s.prepared[p] {
			if b.released != 1 {
				t.Errorf("partition %d: batch @%d released %d times", p, b.first(), b.released)
			}
			if i == 1 && b.attempts != 3 {
				t.Errorf("partition %d: the failing batch was attempted %d times, want 3", p, b.attempts)
			}
			if b.written {
				for _, m := range b.msgs {
					offs = append(offs, m.Offset)
				}
			}
		}
		want := make([]int64, end)
		for i := range want {
			want[i] = int64(i)
		}
		if !slices.Equal(offs, want) {
			t.Errorf("partition %d: written offsets %v, want 0..%d once each in order", p, offs, end-1)
		}
	}
	var dead []string
	for _, m := range readAll(t, k, TopicDLQ) {
		dead = append(dead, string(m.Value))
	}
	var want []string
	for i := 0; i < 200; i++ {
		if i%23 == 5 {
			want = append(want, "bad"+strconv.Itoa(i))
		}
	}
	slices.Sort(dead)
	slices.Sort(want)
	if !slices.Equal(dead, want) {
		t.Errorf("dead letters %v, want %v", dead, want)
	}
}

// TestOverlappedSinkShutdownAndCrash: a shutdown while batch N is being
// written finishes and commits N and drops the prepared N+1; a store that
// fails until the process stops leaves N uncommitted and N+1 unwritten; a
// restart writes the rest, every message once.
func TestOverlappedSinkShutdownAndCrash(t *testing.T) {
	b, k := newTestKafka(t, "")
	defer b.Close()
	const topic = "ovs.in"
	ends := overlapSetup(t, k, topic, 200, func(i int) string { return "v" + strconv.Itoa(i) })
	group := GroupPrefix + "ovs"
	committed := committedFunc(t, k, group, topic, ends)
	written := map[int][]int64{} // every offset written, across runs
	record := func(b *stepBatch) {
		prepSinkMu.Lock()
		defer prepSinkMu.Unlock()
		for _, m := range b.msgs {
			written[m.Partition] = append(written[m.Partition], m.Offset)
		}
	}
	run := func(s *stepSink, started func() bool, afterCancel func()) {
		t.Helper()
		r := NewRunner(k, quietLog(), nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- r.Run(ctx, Stage{Name: "ovs", Inputs: []string{topic}, Sink: s, BatchSize: 5, Retry: RetryPolicy{Base: time.Millisecond}})
		}()
		if started == nil {
			drain(t, r, map[string][]string{"ovs": {topic}})
		} else {
			waitFor(t, "every partition's write in flight with the next batch prepared", started)
		}
		cancel()
		if afterCancel != nil {
			afterCancel()
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(3 * ShutdownGrace):
			t.Fatal("the runner did not stop")
		}
		prepSinkMu.Lock()
		defer prepSinkMu.Unlock()
		for _, p := range s.problems {
			t.Error(p)
		}
		for p, bs := range s.prepared {
			for _, b := range bs {
				if b.released != 1 {
					t.Errorf("partition %d: batch @%d released %d times", p, b.first(), b.released)
				}
			}
		}
	}
	// inFlight reports whether every partition has a write blocked in
	// stuck with a later batch prepared.
	inFlight := func(s *stepSink, stuck map[int]*stepBatch, mu *sync.Mutex) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			if len(stuck) < len(ends) {
				return false
			}
			for _, b := range stuck {
				if !s.preparedAfter(b) {
					return false
				}
			}
			return true
		}
	}

	// 1. Shutdown while the second batch of each partition is written.
	var mu sync.Mutex
	stuck := map[int]*stepBatch{}
	shutdown := make(chan struct{})
	s1 := &stepSink{prepared: map[int][]*stepBatch{}, committed: committed}
	s1.write = func(_ context.Context, b *stepBatch) error {
		if b.first() > 0 {
			mu.Lock()
			if stuck[b.msgs[0].Partition] == nil {
				stuck[b.msgs[0].Partition] = b
			}
			mu.Unlock()
			<-shutdown // ignores ctx on purpose: work under way
		}
		record(b)
		return nil
	}
	run(s1, inFlight(s1, stuck, &mu), func() { close(shutdown) })
	afterShutdown := map[int]int64{}
	for p := range ends {
		afterShutdown[p] = committed(p)
		b := stuck[p]
		if afterShutdown[p] != b.last()+1 {
			t.Errorf("partition %d: committed %d after shutdown, want %d (the batch in flight, finished)", p, afterShutdown[p], b.last()+1)
		}
		for _, o := range s1.prepared[p] {
			if o.first() > b.last() && o.attempts > 0 {
				t.Errorf("partition %d: batch @%d, prepared during the shutdown, was written", p, o.first())
			}
		}
	}

	// 2. The store fails until the process stops: nothing more is committed
	// and the batch after the failing one is never written.
	stuck = map[int]*stepBatch{}
	s2 := &stepSink{prepared: map[int][]*stepBatch{}, committed: committed}
	s2.write = func(_ context.Context, b *stepBatch) error {
		mu.Lock()
		if stuck[b.msgs[0].Partition] == nil {
			stuck[b.msgs[0].Partition] = b
		}
		mu.Unlock()
		return errors.New("store down")
	}
	run(s2, inFlight(s2, stuck, &mu), nil)
	for p := range ends {
		if c := committed(p); c != afterShutdown[p] {
			t.Errorf("partition %d: committed %d while the store was down, want %d", p, c, afterShutdown[p])
		}
		for _, o := range s2.prepared[p] {
			if o.first() != afterShutdown[p] && o.attempts > 0 {
				t.Errorf("partition %d: batch @%d written after a batch that failed", p, o.first())
			}
		}
	}

	// 3. A restart with the store back writes the rest.
	s3 := &stepSink{prepared: map[int][]*stepBatch{}, committed: committed}
	s3.write = func(_ context.Context, b *stepBatch) error {
		record(b)
		return nil
	}
	run(s3, nil, nil)
	for p, end := range ends {
		offs := written[p]
		want := make([]int64, end)
		for i := range want {
			want[i] = int64(i)
		}
		if !slices.Equal(offs, want) {
			t.Errorf("partition %d: written offsets %v, want 0..%d once each in order", p, offs, end-1)
		}
	}
}

// TestWriteBatches: the helper the benchmark uses writes every batch once,
// in order, preparing the next while one is written.
func TestWriteBatches(t *testing.T) {
	var order []int64
	overlap := false
	s := &stepSink{prepared: map[int][]*stepBatch{}}
	s.write = func(_ context.Context, b *stepBatch) error {
		if b.first() == 0 {
			deadline := time.Now().Add(10 * time.Second)
			for !s.preparedAfter(b) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			overlap = s.preparedAfter(b)
		}
		prepSinkMu.Lock()
		order = append(order, b.first())
		prepSinkMu.Unlock()
		return nil
	}
	var batches [][]Message
	for i := int64(0); i < 4; i++ {
		batches = append(batches, []Message{{Offset: 2 * i}, {Offset: 2*i + 1}}, nil)
	}
	if err := WriteBatches(context.Background(), s, batches); err != nil {
		t.Fatal(err)
	}
	if !overlap {
		t.Error("the second batch was not prepared while the first was being written")
	}
	if !slices.Equal(order, []int64{0, 2, 4, 6}) {
		t.Errorf("batches written at %v, want 0, 2, 4, 6", order)
	}
	for _, b := range s.prepared[0] {
		if b.released != 1 {
			t.Errorf("batch @%d released %d times", b.first(), b.released)
		}
	}
}
