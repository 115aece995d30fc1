package streams

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

func TestSingletonBalancerGivesEverythingToOneMember(t *testing.T) {
	members := []kafka.GroupMember{{ID: "m-b"}, {ID: "m-a"}, {ID: "m-c"}}
	var parts []kafka.Partition
	for _, topic := range []string{"x", "y"} {
		for p := range 4 {
			parts = append(parts, kafka.Partition{Topic: topic, ID: p})
		}
	}
	got := singletonBalancer{}.AssignGroups(members, parts)
	if len(got["m-a"]["x"]) != 4 || len(got["m-a"]["y"]) != 4 {
		t.Errorf("the member of smallest id got %v, want every partition", got["m-a"])
	}
	for _, m := range []string{"m-b", "m-c"} {
		if n := len(got[m]["x"]) + len(got[m]["y"]); n != 0 {
			t.Errorf("%s got %d partitions, want none", m, n)
		}
	}
}

// sumProcessor adds every input value to one global total: state that does
// not partition by key. It records which worker saw what, and rebuilds
// its total from the state when the runner says the state is restored.
type sumProcessor struct {
	st       *State
	worker   int
	mu       sync.Mutex
	total    int
	restored atomic.Int64
	seen     *[2]atomic.Int64
}

func (s *sumProcessor) Name() string { return "sum" }

func (s *sumProcessor) Restored(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total = 0
	s.st.Range(func(_ string, v []byte) bool {
		n, _ := strconv.Atoi(string(v))
		s.total += n
		return true
	})
	s.restored.Add(1)
	return nil
}

func (s *sumProcessor) Process(ctx context.Context, m Message) ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, _ := strconv.Atoi(string(m.Value))
	s.total += n
	s.seen[s.worker].Add(1)
	// The state is keyed by message key (partition-local); the total is
	// derived from all of it, which only a singleton can hold.
	old := 0
	if v, ok := s.st.Get(string(m.Key)); ok {
		old, _ = strconv.Atoi(string(v))
	}
	if err := s.st.Put(ctx, string(m.Key), []byte(strconv.Itoa(old+n))); err != nil {
		return nil, err
	}
	return []Record{{Topic: "totals", Key: []byte("t"), Value: []byte(strconv.Itoa(s.total))}}, nil
}

// Two processes run a Singleton stage: one consumes every partition while
// the other stands by; when the first stops, the second restores the whole
// state, rebuilds, and ends with the total an uninterrupted process has.
func TestSingletonStageHandsOverWholeState(t *testing.T) {
	b, k := newTestKafka(t, "")
	defer b.Close()
	const n = 400
	produceN(t, k, "nums", n/2, func(i int) string { return strconv.Itoa(i) })
	if err := k.EnsureTopics(context.Background(), "totals"); err != nil {
		t.Fatal(err)
	}
	var seen [2]atomic.Int64
	procs := [2]*sumProcessor{}
	start := func(w int) (context.CancelFunc, chan error) {
		st := NewState(k, "sum")
		procs[w] = &sumProcessor{st: st, worker: w, seen: &seen}
		r := NewRunner(k, quietLog(), nil)
		r.SessionTimeout = 6 * time.Second
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- r.Run(ctx, Stage{Name: "sum", Inputs: []string{"nums"}, Processor: procs[w], State: st,
				Singleton: true, BatchSize: 20})
		}()
		return cancel, done
	}
	stop0, done0 := start(0)
	deadline := time.Now().Add(30 * time.Second)
	for seen[0].Load() < n/2 {
		if time.Now().After(deadline) {
			t.Fatalf("worker 0 processed %d", seen[0].Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop1, done1 := start(1)
	defer func() {
		stop1()
		<-done1
	}()
	time.Sleep(2 * time.Second)
	if s := seen[1].Load(); s != 0 {
		t.Errorf("the standby processed %d messages while the owner ran", s)
	}
	stop0()
	if err := <-done0; err != nil {
		t.Fatalf("worker 0: %v", err)
	}
	produceN(t, k, "nums", n/2, func(i int) string { return strconv.Itoa(n/2 + i) })
	r := NewRunner(k, quietLog(), nil)
	drain(t, r, map[string][]string{"sum": {"nums"}})
	want := n * (n - 1) / 2
	procs[1].mu.Lock()
	total := procs[1].total
	procs[1].mu.Unlock()
	if total != want {
		t.Errorf("worker 1 ends with total %d, want %d (worker 0 processed %d, worker 1 %d)", total, want, seen[0].Load(), seen[1].Load())
	}
	if procs[1].restored.Load() == 0 {
		t.Error("worker 1 took over without Restored being called")
	}
	if s0, s1 := seen[0].Load(), seen[1].Load(); s0+s1 < n || s1 < n/2 {
		t.Errorf("processed %d + %d of %d", s0, s1, n)
	}
}
