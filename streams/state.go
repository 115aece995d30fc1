package streams

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/segmentio/kafka-go"
)

func isChangelog(topic string) bool { return strings.HasPrefix(topic, changelogPrefix) }

// ChangelogTopic is the changelog topic of a stage's state.
func ChangelogTopic(stage string) string { return changelogPrefix + stage }

type partitionKey struct{}

// WithPartition tells a State which input partition the current message came
// from; the runner sets it before calling Process.
func WithPartition(ctx context.Context, p int) context.Context {
	return context.WithValue(ctx, partitionKey{}, p)
}

func partitionFrom(ctx context.Context) (int, bool) {
	p, ok := ctx.Value(partitionKey{}).(int)
	return p, ok
}

// State is a keyed state store whose every change is logged to a compacted
// Kafka topic. Changelog partition p holds the state of input partition p, so
// the process that owns an input partition restores exactly its share before
// it consumes, and a partition handed to another process carries its state.
//
// The contract (as in Kafka Streams): a state key must belong to one input
// partition, so derive it from the message key (pairing keys by model and
// question, and questions are the message key).
//
// Puts and deletes are buffered and written by the runner in the same produce
// call as the batch's output records, before the input offsets are committed:
// state, outputs and progress become durable together or are redone together.
type State struct {
	topic string
	k     *Kafka

	mu      sync.Mutex
	data    map[string][]byte
	owner   map[string]int // key → partition, to drop a revoked partition's keys
	pending map[int][]Record
	// pendingAt indexes pending records by key, so that a key changed
	// several times in one batch is written once, with its last value (what
	// compaction would keep anyway).
	pendingAt map[int]map[string]int
}

// NewState returns the state of a stage; the runner restores it.
func NewState(k *Kafka, stage string) *State {
	return &State{
		topic:   ChangelogTopic(stage),
		k:       k,
		data:    map[string][]byte{},
		owner:   map[string]int{},
		pending: map[int][]Record{},

		pendingAt: map[int]map[string]int{},
	}
}

// Topic is the changelog topic.
func (s *State) Topic() string { return s.topic }

// Get returns the value of key.
func (s *State) Get(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.data[key]
	return v, ok
}

// Len returns the number of keys held.
func (s *State) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.data)
}

// Range calls fn for every key until fn returns false.
func (s *State) Range(fn func(key string, value []byte) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.data {
		if !fn(k, v) {
			return
		}
	}
}

// Put sets key to value. ctx must come from the runner (it names the input
// partition the change belongs to).
func (s *State) Put(ctx context.Context, key string, value []byte) error {
	return s.change(ctx, key, value)
}

// Delete removes key (a tombstone in the changelog).
func (s *State) Delete(ctx context.Context, key string) error {
	return s.change(ctx, key, nil)
}

func (s *State) change(ctx context.Context, key string, value []byte) error {
	p, ok := partitionFrom(ctx)
	if !ok {
		return fmt.Errorf("state %s: change of %q outside a stage (no partition in context)", s.topic, key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if value == nil {
		delete(s.data, key)
		delete(s.owner, key)
	} else {
		s.data[key] = value
		s.owner[key] = p
	}
	if i, ok := s.pendingAt[p][key]; ok {
		s.pending[p][i].Value = value
		return nil
	}
	if s.pendingAt[p] == nil {
		s.pendingAt[p] = map[string]int{}
	}
	s.pendingAt[p][key] = len(s.pending[p])
	s.pending[p] = append(s.pending[p], Record{
		Topic:   s.topic,
		Key:     []byte(key),
		Value:   value,
		Headers: []Header{{Key: PartitionHeader, Value: []byte(strconv.Itoa(p))}},
	})
	return nil
}

// drain returns and forgets the unwritten changes of partition p.
func (s *State) drain(p int) []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := s.pending[p]
	delete(s.pending, p)
	delete(s.pendingAt, p)
	return recs
}

// drop forgets partition p (revoked): its keys now belong to another process.
func (s *State) drop(p int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, o := range s.owner {
		if o == p {
			delete(s.data, k)
			delete(s.owner, k)
		}
	}
	delete(s.pending, p)
	delete(s.pendingAt, p)
}

// restore replays changelog partition p into memory.
func (s *State) restore(ctx context.Context, p int) error {
	s.drop(p)
	ends, err := s.k.EndOffsets(ctx, s.topic)
	if err != nil {
		return err
	}
	end := ends[s.topic][p]
	if end <= 0 {
		return nil
	}
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: s.k.Brokers(), Dialer: s.k.dialer, Topic: s.topic, Partition: p,
		MinBytes: 1, MaxBytes: 16 << 20, MaxWait: 200 * 1e6,
	})
	defer r.Close()
	if err := r.SetOffset(kafka.FirstOffset); err != nil {
		return err
	}
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			return fmt.Errorf("cannot restore %s/%d: %w", s.topic, p, err)
		}
		s.mu.Lock()
		if m.Value == nil {
			delete(s.data, string(m.Key))
			delete(s.owner, string(m.Key))
		} else {
			s.data[string(m.Key)] = m.Value
			s.owner[string(m.Key)] = p
		}
		s.mu.Unlock()
		if m.Offset >= end-1 {
			return nil
		}
	}
}

// RestoreAll replays every changelog partition (for state used outside a
// stage, such as a source's document versions).
func (s *State) RestoreAll(ctx context.Context) error {
	if err := s.k.EnsureTopics(ctx, s.topic); err != nil {
		return err
	}
	for p := 0; p < s.k.Partitions(); p++ {
		if err := s.restore(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes every pending change (for state used outside a stage).
func (s *State) Flush(ctx context.Context) error {
	var recs []Record
	for p := 0; p < s.k.Partitions(); p++ {
		recs = append(recs, s.drain(p)...)
	}
	return Produce(ctx, s.k.sharedWriter(), recs...)
}
