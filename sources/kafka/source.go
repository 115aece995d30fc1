package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/sources/jsonl"
	"github.com/robustream/robustream/streams"
)

// SourceName is the source's name and its documents' Source field.
const SourceName = "kafka"

// Config configures a kafka source.
type Config struct {
	// Topic is the topic to read; it must exist.
	Topic string
	// Group is the consumer group; "" means "robustream-source-<topic>".
	Group string
	// Finite reads up to the end offsets seen at the start, then returns.
	Finite bool
	// Linger is how long a batch waits for more messages before it is
	// written; 0 means 200 ms.
	Linger time.Duration
}

// Stats counts what the source did.
type Stats struct {
	Emitted, Deleted, Bad int64
}

// Source reads a topic. It implements streams.Source.
type Source struct {
	cfg     Config
	k       *streams.Kafka
	log     *slog.Logger
	emitted atomic.Int64
	deleted atomic.Int64
	bad     atomic.Int64
}

var _ streams.Source = (*Source)(nil)

// New checks cfg; k is the cluster the topic is on.
func New(cfg Config, k *streams.Kafka, log *slog.Logger) (*Source, error) {
	if cfg.Topic == "" {
		return nil, errors.New("kafka: a topic is required (kafka:TOPIC)")
	}
	if cfg.Group == "" {
		cfg.Group = "robustream-source-" + cfg.Topic
	}
	if cfg.Linger <= 0 {
		cfg.Linger = 200 * time.Millisecond
	}
	if log == nil {
		log = slog.Default()
	}
	return &Source{cfg: cfg, k: k, log: log.With("source", SourceName, "topic", cfg.Topic)}, nil
}

// Name implements streams.Source.
func (s *Source) Name() string { return SourceName }

// Stats returns the counters; safe while Run runs.
func (s *Source) Stats() Stats {
	return Stats{Emitted: s.emitted.Load(), Deleted: s.deleted.Load(), Bad: s.bad.Load()}
}

// maxBatch bounds the messages written per emit call.
const maxBatch = 64

// Run implements streams.Source. It returns nil when ctx is cancelled, or
// when Finite and every partition has been read to the end offset seen at
// the start; an emit error is returned, with nothing of its batch
// committed.
func (s *Source) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	ends, err := s.k.EndOffsets(ctx, s.cfg.Topic)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("kafka: topic %s: %w", s.cfg.Topic, err)
	}
	var todo map[int]int64 // partition → end offset still to reach (Finite)
	if s.cfg.Finite {
		committed, err := s.k.CommittedOffsets(ctx, s.cfg.Group, ends)
		if err != nil {
			return fmt.Errorf("kafka: %w", err)
		}
		todo = map[int]int64{}
		for p, end := range ends[s.cfg.Topic] {
			if c, ok := committed[s.cfg.Topic][p]; (!ok || c < end) && end > 0 {
				todo[p] = end
			}
		}
		if len(todo) == 0 {
			return nil
		}
	}
	r := kafkago.NewReader(kafkago.ReaderConfig{
		Brokers: s.k.Brokers(), Dialer: s.k.Dialer(), GroupID: s.cfg.Group, Topic: s.cfg.Topic,
		StartOffset: kafkago.FirstOffset, MinBytes: 1, MaxBytes: streams.MaxFetchBytes, MaxWait: 250 * time.Millisecond,
		CommitInterval: 0, // CommitMessages commits synchronously
	})
	defer r.Close()
	for {
		batch, err := s.fetch(ctx, r)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("kafka: read %s: %w", s.cfg.Topic, err)
		}
		if err := s.write(ctx, emit, batch); err != nil {
			return err
		}
		if err := r.CommitMessages(ctx, batch...); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("kafka: commit: %w", err)
		}
		if todo != nil {
			for _, m := range batch {
				if end, ok := todo[m.Partition]; ok && m.Offset+1 >= end {
					delete(todo, m.Partition)
				}
			}
			if len(todo) == 0 {
				return nil
			}
		}
	}
}

// fetch waits for one message, then takes what else arrives within Linger,
// up to maxBatch.
func (s *Source) fetch(ctx context.Context, r *kafkago.Reader) ([]kafkago.Message, error) {
	m, err := r.FetchMessage(ctx)
	if err != nil {
		return nil, err
	}
	batch := []kafkago.Message{m}
	lctx, cancel := context.WithTimeout(ctx, s.cfg.Linger)
	defer cancel()
	for len(batch) < maxBatch {
		m, err := r.FetchMessage(lctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			break // linger over
		}
		batch = append(batch, m)
	}
	return batch, nil
}

// outcome is what became of a message of a batch.
type outcome int

const (
	asDocument outcome = iota
	asDeletion
	asDeadLetter
	unwritten
)

// write converts and emits a batch: documents and deletions to
// rs.documents, bad messages to rs.dlq. A document whose record is too
// large for Kafka is dead-lettered in its place (with its offset, like a
// bad message), so that it neither stops the source nor, uncommitted,
// comes back at every restart.
func (s *Source) write(ctx context.Context, emit func(context.Context, ...streams.Record) error, batch []kafkago.Message) error {
	recs := make([]streams.Record, 0, len(batch))
	outcomes := make([]outcome, 0, len(batch))
	dead := func(m kafkago.Message, err error) streams.Record {
		s.log.Warn("message dead-lettered", "partition", m.Partition, "offset", m.Offset, "reason", err)
		msg := streams.Message{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Key: m.Key, Value: m.Value}
		return sources.DeadLetter(SourceName, msg, err)
	}
	for _, m := range batch {
		d, err := s.document(m)
		if err != nil {
			recs, outcomes = append(recs, dead(m, err)), append(outcomes, asDeadLetter)
			continue
		}
		b, err := schemas.Encode(d)
		if err != nil {
			return fmt.Errorf("kafka: %w", err)
		}
		o := asDocument
		if sources.IsDeletion(d) {
			o = asDeletion
		}
		recs, outcomes = append(recs, streams.Record{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b}), append(outcomes, o)
	}
	_, err := sources.EmitSkippingTooLarge(ctx, emit, recs, func(i int, err error) *streams.Record {
		m := batch[i]
		if outcomes[i] == asDeadLetter {
			// Not reached: sources.DeadLetter keeps a dead letter small.
			s.log.Error("dead letter too large to write; the message stays only in its topic",
				"partition", m.Partition, "offset", m.Offset, "err", err)
			outcomes[i] = unwritten
			return nil
		}
		outcomes[i] = asDeadLetter
		dl := dead(m, err)
		return &dl
	})
	if err != nil {
		return fmt.Errorf("kafka: emit: %w", err)
	}
	for _, o := range outcomes {
		switch o {
		case asDocument:
			s.emitted.Add(1)
		case asDeletion:
			s.deleted.Add(1)
		case asDeadLetter, unwritten:
			s.bad.Add(1)
		}
	}
	return nil
}

// document reads one message: a tombstone, a JSON record or plain text.
func (s *Source) document(m kafkago.Message) (*schemas.DocumentVersion, error) {
	key := string(m.Key)
	uri := "kafka:" + m.Topic + "/" + strconv.Itoa(m.Partition) + "/" + strconv.FormatInt(m.Offset, 10)
	if !utf8.ValidString(key) {
		return nil, errors.New("message key is not valid UTF-8")
	}
	var rec *jsonl.Record
	switch {
	case m.Value == nil:
		if key == "" {
			return nil, errors.New("a tombstone without a key names no document")
		}
		rec = &jsonl.Record{ID: key, Deleted: true}
	case firstByte(m.Value) == '{':
		var err error
		rec, err = jsonl.Parse(m.Value)
		if errors.Is(err, jsonl.ErrNoID) && key != "" {
			rec.ID, err = key, nil
		}
		if err != nil {
			return nil, err
		}
		if key != "" && rec.ID != key {
			return nil, fmt.Errorf("record id %q differs from the message key %q", rec.ID, key)
		}
	default:
		if key == "" {
			return nil, errors.New("a plain-text message needs its document id as key")
		}
		rec = &jsonl.Record{ID: key, Text: string(m.Value)}
	}
	return rec.Document(SourceName, uri)
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}
