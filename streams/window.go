package streams

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
)

// consumeWindow is consume for a stage with an in-flight window
// (Stage.InFlight): instead of batches that wait for their slowest message,
// up to InFlight messages of the partition are processed at once, and as
// soon as one finishes the next goes. Each message's records (or its dead
// letter and terminal records) are written as soon as it is done; the
// committed offset follows the oldest message still in flight, so that a
// crash redoes only unfinished work and the work finished after it, never
// skips any (at-least-once, as with batches; the effects are idempotent).
// One slow request of a model with a long tail of latencies therefore idles
// one slot, not the whole batch.
func (r *Runner) consumeWindow(ctx, gctx context.Context, gen *kafka.Generation, st *Stage, topic string, partition int, offset int64) (int64, error) {
	rd, err := r.partitionReader(topic, partition, offset, st.InFlight)
	if err != nil {
		return offset, err
	}
	defer rd.Close()

	// The work of the messages runs under a context that outlives the
	// generation and shutdown by ShutdownGrace, like a batch in flight.
	wctx, cancel := graceful(ctx, ShutdownGrace)
	defer cancel()
	w := &window{next: offset, commit: offset}
	slots := make(chan struct{}, st.InFlight)
	failed := make(chan error, 1)
	var wg sync.WaitGroup
	lastCommit := time.Now()
	commit := func() error {
		lastCommit = time.Now()
		to, ok := w.committable()
		if !ok {
			return nil
		}
		if err := gen.CommitOffsets(map[string]map[int]int64{topic: {partition: to}}); err != nil {
			// The generation may have ended under us: the next owner
			// redoes what was not committed, idempotently.
			return fmt.Errorf("cannot commit %s/%d@%d: %w", topic, partition, to, err)
		}
		w.committed(to)
		return nil
	}
	tick := time.NewTicker(commitEvery)
	defer tick.Stop()
	// Finished messages are written by one flusher, as many at a time as
	// have finished meanwhile: one produce call per message would cost a
	// broker round trip each and cap a fast stage far below its batches.
	out := make(chan doneMessage, st.InFlight)
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		r.flushWindow(wctx, st, w, out, slots, failed)
	}()

	var ferr error
	deadline := &fetchDeadline{parent: gctx}
	defer deadline.stop()
fetch:
	for {
		// A free slot first, so that no fetched message waits unstarted;
		// offsets keep being committed while every slot is busy.
		select {
		case slots <- struct{}{}:
		case ferr = <-failed:
			break fetch
		case <-gctx.Done():
			break fetch
		case <-tick.C:
			if ferr = commit(); ferr != nil {
				break fetch
			}
			continue
		}
		if time.Since(lastCommit) >= commitEvery {
			if ferr = commit(); ferr != nil {
				<-slots
				break
			}
		}
		m, err := rd.FetchMessage(deadline.get())
		if err != nil {
			<-slots
			if gctx.Err() != nil {
				break
			}
			if errors.Is(err, context.DeadlineExceeded) {
				continue // quiet partition: commit and wait again
			}
			ferr = err
			break
		}
		msg := fromKafka(m)
		w.started(msg.Offset)
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			recs, err := r.process(WithPartition(wctx, partition), st, []Message{msg})
			if err != nil {
				<-slots
				select {
				case failed <- err:
				default:
				}
				return
			}
			out <- doneMessage{offset: msg.Offset, recs: recs, start: start}
		}()
	}
	// Let what is in flight finish (within the grace), then commit what
	// is contiguous: the next owner starts there.
	wg.Wait()
	close(out)
	<-flushed
	if ferr == nil {
		select {
		case ferr = <-failed:
		default:
		}
	}
	if cerr := commit(); ferr == nil {
		ferr = cerr
	}
	return w.committedAt(), ferr
}

// fetchDeadline bounds fetches by one deadline per commit period, not one
// per message: a timer per message would cost more than the fetch of a
// buffered one.
type fetchDeadline struct {
	parent context.Context
	ctx    context.Context
	cancel context.CancelFunc
}

func (f *fetchDeadline) get() context.Context {
	if f.ctx == nil || f.ctx.Err() != nil {
		f.stop()
		f.ctx, f.cancel = context.WithTimeout(f.parent, commitEvery)
	}
	return f.ctx
}

func (f *fetchDeadline) stop() {
	if f.cancel != nil {
		f.cancel()
	}
}

// doneMessage is a message of a windowed stage whose records are ready.
type doneMessage struct {
	offset int64
	recs   []Record
	start  time.Time
}

// flushWindow writes the records of finished messages, gathering every
// message that finished while the previous write was under way, then marks
// them finished and frees their slots. A failed write is reported on
// failed; the messages are then redone from the last commit.
func (r *Runner) flushWindow(ctx context.Context, st *Stage, w *window, out <-chan doneMessage, slots <-chan struct{}, failed chan<- error) {
	var batch []doneMessage
	var recs []Record
	broken := false
	for first := range out {
		batch, recs = append(batch[:0], first), append(recs[:0], first.recs...)
	gather:
		for len(batch) < maxFlush {
			select {
			case d, ok := <-out:
				if !ok {
					break gather
				}
				batch = append(batch, d)
				recs = append(recs, d.recs...)
			default:
				break gather
			}
		}
		if !broken {
			if err := Produce(ctx, r.w, recs...); err != nil {
				broken = true // nothing more is marked finished: all is redone
				select {
				case failed <- err:
				default:
				}
			}
		}
		for _, d := range batch {
			if !broken {
				w.finished(d.offset)
				r.metrics.observe(st.Name, time.Since(d.start).Seconds())
			}
			<-slots
		}
		if !broken {
			r.metrics.add(mIn, st.Name, len(batch))
		}
	}
}

// maxFlush bounds the messages written by one produce call of a windowed
// stage.
const maxFlush = 1000

// commitEvery is how often a windowed stage commits its offsets.
const commitEvery = 100 * time.Millisecond

// window tracks the offsets of one partition in flight: the committable
// offset is that of the oldest unfinished message, or the one after the
// last fetched when none is.
type window struct {
	mu       sync.Mutex
	inFlight []int64 // started, in offset order
	done     map[int64]bool
	next     int64 // one past the last fetched
	commit   int64 // last committed
}

func (w *window) started(off int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inFlight = append(w.inFlight, off)
	w.next = off + 1
}

func (w *window) finished(off int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done == nil {
		w.done = map[int64]bool{}
	}
	w.done[off] = true
	for len(w.inFlight) > 0 && w.done[w.inFlight[0]] {
		delete(w.done, w.inFlight[0])
		w.inFlight = w.inFlight[1:]
	}
}

// committable returns the offset to commit, if it moved since the last
// commit.
func (w *window) committable() (int64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	to := w.next
	if len(w.inFlight) > 0 {
		to = w.inFlight[0]
	}
	return to, to > w.commit
}

func (w *window) committed(to int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.commit = max(w.commit, to)
}

func (w *window) committedAt() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.commit
}
