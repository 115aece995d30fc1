package streams

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/sourcegraph/conc/iter"
	"github.com/sourcegraph/conc/pool"
)

// Stage is one consumer of input topics: a Processor (one message → records)
// or a Sink (a batch → an external system). Several processes running the
// same stage form one consumer group and share its partitions.
type Stage struct {
	// Name is the stage name; the consumer group is GroupPrefix+Name.
	Name   string
	Inputs []string
	// Outputs are the topics the processor may write. A record for any
	// other topic is a bug in the processor: its input is dead-lettered
	// with the reason instead of feeding a stage that does not expect it.
	// Empty means unchecked (tests of the runner itself).
	Outputs []string
	// Exactly one of Processor and Sink is set.
	Processor Processor
	Sink      Sink
	// State, when set, is restored for every assigned partition before that
	// partition is consumed, and its changes are written with each batch.
	State *State
	// BatchSize bounds the messages handled per commit (default 2000).
	BatchSize int
	// Linger is how long to wait for more messages once one has arrived
	// (default 5ms).
	Linger time.Duration
	// Concurrency > 1 processes a batch's messages in parallel (stateless
	// stages with slow I/O only; outputs keep input order).
	Concurrency int
	// InFlight > 0 replaces batches by a continuous window of that many
	// messages per partition (stateless processors only): a slot frees,
	// the next message goes, and the committed offset follows the oldest
	// message still in flight. For stages whose calls have long-tailed
	// latencies (inference), where a batch would wait for its slowest.
	InFlight int
	Retry    RetryPolicy
	// Singleton gives every partition of the inputs to one member of the
	// consumer group, for state that does not partition by key (the
	// knowledge graph spans documents). That member restores the state of
	// every changelog partition before it consumes any input, then calls
	// the processor's Restored when it is a Restorer. Other processes stand
	// by and take over, restoring the same way, when the member leaves.
	Singleton bool

	// guard is Processor inside the runner's middleware (guarded), built
	// once when the stage starts.
	guard Processor
}

// Runner runs stages against one cluster.
type Runner struct {
	k           *Kafka
	w           *kafka.Writer
	log         *slog.Logger
	metrics     *Metrics
	groupPrefix string
	// SessionTimeout of the consumer groups: how long a dead process keeps
	// its partitions.
	SessionTimeout time.Duration
}

// ShutdownGrace is how long a batch in flight may take to finish and commit
// after shutdown began; past it, the batch is abandoned uncommitted and
// redone after the restart.
const ShutdownGrace = 10 * time.Second

// graceful returns a context that ends grace after parent does (or when the
// returned cancel is called), so that work under way can finish cleanly.
func graceful(parent context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	stop := context.AfterFunc(parent, func() {
		t := time.AfterFunc(grace, cancel)
		context.AfterFunc(ctx, func() { t.Stop() })
	})
	return ctx, func() {
		stop()
		cancel()
	}
}

// MaxFetchBytes bounds one fetch of a partition reader. It must be at least
// MaxBatchBytes, or a record batch that large could never be read.
const MaxFetchBytes = MaxBatchBytes

// GroupPrefix prefixes every consumer group robustream creates.
const GroupPrefix = "robustream."

// NewRunner returns a runner; metrics may be nil.
func NewRunner(k *Kafka, log *slog.Logger, metrics *Metrics) *Runner {
	return &Runner{k: k, w: k.NewWriter(), log: log, metrics: metrics, groupPrefix: GroupPrefix, SessionTimeout: 10 * time.Second}
}

// Group returns the consumer group of a stage.
func (r *Runner) Group(stage string) string { return r.groupPrefix + stage }

// Close flushes the runner's writer.
func (r *Runner) Close() error { return r.w.Close() }

// Writer returns the runner's synchronous writer (for sources).
func (r *Runner) Writer() *kafka.Writer { return r.w }

func (s *Stage) validate() error {
	if s.Name == "" || len(s.Inputs) == 0 {
		return errors.New("stage needs a name and input topics")
	}
	if (s.Processor == nil) == (s.Sink == nil) {
		return fmt.Errorf("stage %s: set exactly one of Processor and Sink", s.Name)
	}
	if s.BatchSize <= 0 {
		s.BatchSize = 2000
	}
	if s.Linger <= 0 {
		s.Linger = 5 * time.Millisecond
	}
	if s.Concurrency <= 0 {
		s.Concurrency = 1
	}
	if s.State != nil && s.Concurrency > 1 {
		return fmt.Errorf("stage %s: a stateful stage processes in order (concurrency 1)", s.Name)
	}
	if s.InFlight > 0 && (s.State != nil || s.Sink != nil) {
		return fmt.Errorf("stage %s: an in-flight window is for stateless processors only", s.Name)
	}
	s.Retry = s.Retry.withDefaults()
	return nil
}

// Run consumes the stage's inputs until ctx is cancelled. It joins the
// stage's consumer group and, for every generation, consumes each assigned
// partition in its own goroutine; on a rebalance the partitions' goroutines
// stop, uncommitted work is redone by the new owner (at-least-once), and the
// loop joins the next generation.
func (r *Runner) Run(ctx context.Context, st Stage) error {
	if err := st.validate(); err != nil {
		return err
	}
	if st.Processor != nil {
		st.guard = r.guarded(&st)
	}
	topics := append([]string(nil), st.Inputs...)
	if st.State != nil {
		topics = append(topics, st.State.Topic())
	}
	if err := r.k.EnsureTopics(ctx, append(topics, TopicDLQ)...); err != nil {
		return err
	}
	var balancers []kafka.GroupBalancer
	if st.Singleton {
		balancers = []kafka.GroupBalancer{singletonBalancer{}}
	}
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		GroupBalancers:    balancers,
		ID:                r.Group(st.Name),
		Brokers:           r.k.Brokers(),
		Dialer:            r.k.dialer,
		Topics:            st.Inputs,
		HeartbeatInterval: r.SessionTimeout / 5,
		SessionTimeout:    r.SessionTimeout,
		RebalanceTimeout:  r.SessionTimeout,
		JoinGroupBackoff:  time.Second,
		StartOffset:       kafka.FirstOffset,
		Timeout:           10 * time.Second,
		Logger:            kafkaLogger(r.log, slog.LevelDebug),
		ErrorLogger:       kafkaLogger(r.log, slog.LevelWarn),
	})
	if err != nil {
		return fmt.Errorf("stage %s: %w", st.Name, err)
	}
	defer cg.Close()
	log := r.log.With("stage", st.Name)
	for {
		gen, err := cg.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, kafka.ErrGroupClosed) {
				return nil
			}
			log.Warn("cannot join consumer group; retrying", "err", err)
			if sleep(ctx, time.Second) != nil {
				return nil
			}
			continue
		}
		if st.Singleton && st.State != nil {
			if err := r.restoreAll(ctx, &st, gen); err != nil {
				log.Error("cannot restore the singleton's state; rejoining", "err", err)
				sleep(ctx, time.Second)
				continue
			}
		}
		n := 0
		for topic, parts := range gen.Assignments {
			for _, a := range parts {
				n++
				topic, a := topic, a
				gen.Start(func(gctx context.Context) {
					// A failed batch (broker unreachable, say) is redone
					// from the last commit with state restored, for as long
					// as this generation owns the partition.
					next := a.Offset
					for ctx.Err() == nil && gctx.Err() == nil {
						var err error
						consume := r.consume
						if st.InFlight > 0 {
							consume = r.consumeWindow
						}
						next, err = consume(ctx, gctx, gen, &st, topic, a.ID, next)
						if err == nil || ctx.Err() != nil || gctx.Err() != nil {
							return
						}
						log.Error("partition consumer failed; restarting from the last commit", "topic", topic, "partition", a.ID, "err", err)
						sleep(gctx, time.Second)
					}
				})
			}
		}
		log.Debug("joined generation", "generation", gen.ID, "partitions", n)
	}
}

// consume reads one partition from offset for the life of a generation. It
// returns the offset to resume from: the last one committed.
func (r *Runner) consume(ctx, gctx context.Context, gen *kafka.Generation, st *Stage, topic string, partition int, offset int64) (int64, error) {
	// Work runs under ctx (shutdown) so that a batch in flight is finished
	// and committed when possible; gctx (generation) only stops fetching.
	if st.State != nil && !st.Singleton {
		if err := st.State.restore(ctx, partition); err != nil {
			return offset, err
		}
		defer st.State.drop(partition)
	}
	rd, err := r.partitionReader(topic, partition, offset, st.BatchSize)
	if err != nil {
		return offset, err
	}
	defer rd.Close()
	// Fetching stops when the generation ends or shutdown begins; a batch
	// already fetched is still handled under ctx's grace.
	fctx, stopFetch := context.WithCancel(gctx)
	defer stopFetch()
	defer context.AfterFunc(ctx, stopFetch)()
	if ps, ok := st.Sink.(PreparingSink); ok {
		err := overlapped(fctx, ps,
			func(fctx context.Context) []Message { return fetchBatch(fctx, rd, st, nil) },
			func(batch []Message, p Prepared) error {
				return r.handleAndCommit(ctx, gen, st, topic, partition, batch, p, &offset)
			})
		return offset, err
	}
	buf := make([]Message, 0, st.BatchSize)
	for {
		batch := fetchBatch(fctx, rd, st, buf)
		if batch == nil {
			return offset, nil // generation over or shutdown
		}
		if err := r.handleAndCommit(ctx, gen, st, topic, partition, batch, nil, &offset); err != nil {
			return offset, err
		}
	}
}

// fetchBatch waits for a message, then takes what else arrives within the
// stage's linger, up to its batch size, appending to buf[:0]. It returns
// nil when no message came before ctx ended (or the reader failed).
func fetchBatch(ctx context.Context, rd *kafka.Reader, st *Stage, buf []Message) []Message {
	m, err := rd.FetchMessage(ctx)
	if err != nil {
		return nil
	}
	if buf == nil {
		buf = make([]Message, 0, st.BatchSize)
	}
	batch := append(buf[:0], fromKafka(m))
	lctx, cancel := context.WithTimeout(ctx, st.Linger)
	defer cancel()
	for len(batch) < st.BatchSize {
		m, err := rd.FetchMessage(lctx)
		if err != nil {
			break
		}
		batch = append(batch, fromKafka(m))
	}
	return batch
}

// handleAndCommit handles a batch (p is its Prepared for a PreparingSink,
// else nil) under ctx's shutdown grace, then commits its offsets and moves
// *offset past it.
func (r *Runner) handleAndCommit(ctx context.Context, gen *kafka.Generation, st *Stage, topic string, partition int, batch []Message, p Prepared, offset *int64) error {
	start := time.Now()
	bctx, cancel := graceful(ctx, ShutdownGrace)
	err := r.handle(bctx, st, partition, batch, p)
	cancel()
	if err != nil {
		return err
	}
	last := batch[len(batch)-1]
	if err := gen.CommitOffsets(map[string]map[int]int64{topic: {partition: last.Offset + 1}}); err != nil {
		// The generation may have ended under us: the next owner redoes
		// the batch, and its effects are idempotent.
		return fmt.Errorf("cannot commit %s/%d@%d: %w", topic, partition, last.Offset+1, err)
	}
	*offset = last.Offset + 1
	r.metrics.add(mIn, st.Name, len(batch))
	r.metrics.observe(st.Name, time.Since(start).Seconds())
	return nil
}

// partitionReader reads one partition from offset. Its buffers are
// bounded: one fetch of at most MaxFetchBytes and a queue of at most 500
// messages (fewer when the stage takes fewer at a time), whatever the
// batch size: a process runs one reader per stage and partition.
func (r *Runner) partitionReader(topic string, partition int, offset int64, queue int) (*kafka.Reader, error) {
	rd := kafka.NewReader(kafka.ReaderConfig{
		Brokers: r.k.Brokers(), Dialer: r.k.dialer, Topic: topic, Partition: partition,
		MinBytes: 1, MaxBytes: MaxFetchBytes, MaxWait: 250 * time.Millisecond,
		QueueCapacity: min(queue, 500),
	})
	if err := rd.SetOffset(offset); err != nil {
		rd.Close()
		return nil, err
	}
	return rd, nil
}

// handle makes a batch's effects durable before the caller commits: records
// and dead letters first, then state changes. p is the batch prepared by a
// PreparingSink, or nil.
func (r *Runner) handle(ctx context.Context, st *Stage, partition int, batch []Message, p Prepared) error {
	var out []Record
	if st.Sink != nil {
		dead, err := r.sinkWrite(ctx, st, batch, p)
		if err != nil {
			return err
		}
		out = dead
	} else {
		recs, err := r.process(WithPartition(ctx, partition), st, batch)
		if err != nil {
			return err
		}
		out = recs
	}
	if err := Produce(ctx, r.w, out...); err != nil {
		return err
	}
	// State changes go after the outputs: should the process die between
	// the two writes, the batch is redone from the older state and yields
	// the same outputs (deterministic ids), never a state that claims work
	// whose outputs were lost.
	if st.State != nil {
		if err := Produce(ctx, r.w, st.State.drain(partition)...); err != nil {
			return err
		}
	}
	return nil
}

type processed struct {
	recs []Record
	dead *Record
	err  error
}

func (r *Runner) process(ctx context.Context, st *Stage, batch []Message) ([]Record, error) {
	p := st.guard
	if p == nil {
		p = r.guarded(st)
	}
	one := func(m *Message) processed {
		recs, err := p.Process(ctx, *m)
		attempts := Attempts(err)
		if err == nil {
			err = checkSizes(recs)
		}
		if err == nil {
			err = checkOutputs(st, recs)
		}
		if err == nil {
			return processed{recs: recs}
		}
		if ctx.Err() != nil {
			return processed{err: ctx.Err()}
		}
		r.log.Warn("dead-lettering message", "stage", st.Name, "topic", m.Topic, "partition", m.Partition, "offset", m.Offset, "attempts", attempts, "err", err)
		d := DeadLetter(st.Name, *m, err, attempts)
		return processed{dead: &d, recs: r.terminal(st, *m, err)}
	}
	var results []processed
	if st.Concurrency > 1 {
		results = iter.Mapper[Message, processed]{MaxGoroutines: st.Concurrency}.Map(batch, one)
	} else {
		results = make([]processed, len(batch))
		for i := range batch {
			results[i] = one(&batch[i])
		}
	}
	var out []Record
	nOut, nDead := 0, 0
	for _, p := range results {
		if p.err != nil {
			return nil, p.err
		}
		if p.dead != nil {
			out = append(out, *p.dead)
			nDead++
			// The terminal records of a dead-lettered input (see
			// Terminator) go out with its dead letter.
			out = append(out, p.recs...)
			nOut += len(p.recs)
			continue
		}
		out = append(out, p.recs...)
		nOut += len(p.recs)
	}
	r.metrics.add(mOut, st.Name, nOut)
	r.metrics.add(mDLQ, st.Name, nDead)
	return out, nil
}

// guarded wraps st's processor (and the middleware its options chose) in
// what every processor stage gets: retries with st's policy, error and
// retry counts, and panic capture, in that order from the outside. The
// runner dead-letters what comes out failed.
func (r *Runner) guarded(st *Stage) Processor {
	return Chain(st.Processor,
		Retry(st.Retry, func(error) { r.metrics.add(mRetries, st.Name, 1) }),
		CountErrors(func(error) { r.metrics.add(mErrs, st.Name, 1) }),
		Recover())
}

// sinkWrite writes a batch, retrying until it succeeds or ctx ends: a sink
// failure is an outage of the store, and dead-lettering valid data would
// lose it. Messages the sink rejects individually (BatchError) or a batch it
// rejects permanently are dead-lettered. When p is not nil (the sink is a
// PreparingSink), every attempt writes p, prepared from batch.
func (r *Runner) sinkWrite(ctx context.Context, st *Stage, batch []Message, p Prepared) ([]Record, error) {
	write := func() error { return st.Sink.Write(ctx, batch) }
	if p != nil {
		write = func() error { return st.Sink.(PreparingSink).WritePrepared(ctx, p) }
	}
	for attempt := 1; ; attempt++ {
		err := write()
		if err == nil {
			r.metrics.add(mOut, st.Name, len(batch))
			return nil, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.metrics.add(mErrs, st.Name, 1)
		var be *BatchError
		if errors.As(err, &be) {
			var dead []Record
			for i, e := range be.Errs {
				dead = append(dead, DeadLetter(st.Name, batch[i], e, attempt))
			}
			r.metrics.add(mDLQ, st.Name, len(dead))
			r.metrics.add(mOut, st.Name, len(batch)-len(dead))
			r.log.Warn("sink rejected messages; dead-lettered", "stage", st.Name, "count", len(dead), "err", err)
			return dead, nil
		}
		if IsPermanent(err) {
			dead := make([]Record, len(batch))
			for i := range batch {
				dead[i] = DeadLetter(st.Name, batch[i], err, attempt)
			}
			r.metrics.add(mDLQ, st.Name, len(dead))
			r.log.Error("sink rejected a batch; dead-lettered", "stage", st.Name, "count", len(dead), "err", err)
			return dead, nil
		}
		d := st.Retry.Backoff(attempt, err)
		r.log.Warn("sink write failed; retrying", "stage", st.Name, "attempt", attempt, "in", d, "err", err)
		r.metrics.add(mRetries, st.Name, 1)
		if err := sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

// ErrTooLarge marks a record that cannot be written: larger than one
// produce batch may be. Retrying cannot help, and writing it would fail the
// whole batch again and again, so its input is dead-lettered instead.
var ErrTooLarge = errors.New("record too large for Kafka")

// maxRecordBytes leaves room for the batch and record headers.
const maxRecordBytes = MaxBatchBytes - 64<<10

func checkSizes(recs []Record) error {
	for _, r := range recs {
		n := len(r.Key) + len(r.Value)
		for _, h := range r.Headers {
			n += len(h.Key) + len(h.Value)
		}
		if n > maxRecordBytes {
			return Permanent(fmt.Errorf("%w: a %d-byte record for %s exceeds %d bytes", ErrTooLarge, n, r.Topic, maxRecordBytes))
		}
	}
	return nil
}

// Terminator is implemented by a processor that has something to say
// downstream about an input it gives up on: the infer stage emits an error
// result for a request whose model never answered, so that its pairing set
// still closes, with that cell marked, instead of waiting for ever.
type Terminator interface {
	// Terminal returns the records to write for m, which is being
	// dead-lettered because of err. It must not fail: an input it cannot
	// make sense of gets no records (the dead letter carries it).
	Terminal(m Message, err error) []Record
}

// terminal asks st's processor for the terminal records of a dead-lettered
// message, keeping only records that could be written.
func (r *Runner) terminal(st *Stage, m Message, err error) []Record {
	t, ok := st.Processor.(Terminator)
	if !ok {
		return nil
	}
	recs := t.Terminal(m, err)
	if cerr := errors.Join(checkSizes(recs), checkOutputs(st, recs)); cerr != nil {
		r.log.Error("terminal records dropped", "stage", st.Name, "offset", m.Offset, "err", cerr)
		return nil
	}
	return recs
}

// ErrUndeclaredOutput marks a record for a topic its stage did not declare.
var ErrUndeclaredOutput = errors.New("record for an undeclared topic")

func checkOutputs(st *Stage, recs []Record) error {
	if len(st.Outputs) == 0 {
		return nil
	}
	for _, r := range recs {
		if !slices.Contains(st.Outputs, r.Topic) {
			return Permanent(fmt.Errorf("%w: stage %s wrote to %s (declared: %s)", ErrUndeclaredOutput, st.Name, r.Topic, strings.Join(st.Outputs, ", ")))
		}
	}
	return nil
}

// RunAll runs stages concurrently until ctx ends or one fails.
func (r *Runner) RunAll(ctx context.Context, stages []Stage) error {
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
	for _, st := range stages {
		p.Go(func(ctx context.Context) error {
			if err := r.Run(ctx, st); err != nil {
				return fmt.Errorf("stage %s: %w", st.Name, err)
			}
			return nil
		})
	}
	return p.Wait()
}

// kafkaLogger adapts slog to kafka-go's printf-style logger.
func kafkaLogger(log *slog.Logger, level slog.Level) kafka.Logger {
	return kafka.LoggerFunc(func(format string, args ...any) {
		log.Log(context.Background(), level, fmt.Sprintf(format, args...), "component", "kafka-go")
	})
}

// Restorer is implemented by the processor of a Singleton stage that
// derives in-memory structures from its State: Restored is called once the
// state of every partition is restored, before any input is consumed.
type Restorer interface {
	Restored(ctx context.Context) error
}

// restoreAll restores every changelog partition of a singleton stage when
// this member was given its inputs (and forgets the state when it was
// not), then lets the processor rebuild.
func (r *Runner) restoreAll(ctx context.Context, st *Stage, gen *kafka.Generation) error {
	owned := false
	for _, parts := range gen.Assignments {
		owned = owned || len(parts) > 0
	}
	for p := range r.k.Partitions() {
		if !owned {
			st.State.drop(p)
			continue
		}
		if err := st.State.restore(ctx, p); err != nil {
			return err
		}
	}
	if rs, ok := st.Processor.(Restorer); ok && owned {
		return rs.Restored(ctx)
	}
	return nil
}

// singletonBalancer assigns every partition to the member of smallest id,
// so that one process owns a Singleton stage.
type singletonBalancer struct{}

func (singletonBalancer) ProtocolName() string { return "robustream-singleton" }

func (singletonBalancer) UserData() ([]byte, error) { return nil, nil }

func (singletonBalancer) AssignGroups(members []kafka.GroupMember, partitions []kafka.Partition) kafka.GroupMemberAssignments {
	out := kafka.GroupMemberAssignments{}
	if len(members) == 0 {
		return out
	}
	owner := members[0].ID
	for _, m := range members {
		out[m.ID] = map[string][]int{}
		owner = min(owner, m.ID)
	}
	for _, p := range partitions {
		out[owner][p.Topic] = append(out[owner][p.Topic], p.ID)
	}
	return out
}
