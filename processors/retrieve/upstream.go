package retrieve

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/robustream/robustream/streams"
)

// Upstream makes the stage answer a question over the corpus written so
// far rather than over whatever part of it the stage happens to have read:
// questions reach rs.variants three stages after their chunks, but the
// stage reads chunks and variants on separate partitions, in no fixed
// order. Before a question is answered, Wait takes the end offsets of
// rs.documents, waits until the chunk stage has committed them (so every
// chunk of those documents is on rs.chunks), then takes the end offsets of
// rs.chunks and waits until this stage has handled them. When a finite source has written everything before the first
// question arrives (eval --once), every question therefore sees the whole
// corpus and two runs retrieve the same chunks. A continuous source is
// waited for only up to the snapshot, never for documents that arrive
// meanwhile.
type Upstream struct {
	Kafka *streams.Kafka
	// ChunkGroup is the chunk stage's consumer group, OwnGroup this stage's
	// (streams.Runner.Group).
	ChunkGroup, OwnGroup string
	// MaxWait bounds one wait (a chunk stage that does not run anywhere);
	// past it the question is answered over what is indexed, with a
	// warning. 0: 5 minutes.
	MaxWait time.Duration
	Logger  *slog.Logger

	passed atomic.Int64 // unix nanos of the last wait that passed
	// late is set when a wait ran out: the next waits only look once
	// (an upstream that is down would otherwise cost every question
	// MaxWait), until one passes.
	late atomic.Bool
}

// poll is how often Wait looks at the offsets.
const poll = 50 * time.Millisecond

// fresh is how long a passed wait vouches for the next questions: within
// one batch of variants the offsets are not read again per question.
const fresh = 200 * time.Millisecond

// Wait returns once the corpus written when it was called is indexed, ctx
// ends (its error), or MaxWait passes (nil, with a warning; until a later
// wait passes, waits then look once and do not wait).
func (u *Upstream) Wait(ctx context.Context, s *Stage) error {
	if time.Since(time.Unix(0, u.passed.Load())) < fresh {
		return nil
	}
	maxWait := u.MaxWait
	if maxWait <= 0 {
		maxWait = 5 * time.Minute
	}
	if u.late.Load() {
		maxWait = 0
	}
	deadline := time.Now().Add(maxWait)
	docs, err := u.Kafka.EndOffsets(ctx, streams.TopicDocuments)
	if err != nil {
		return err
	}
	ok, err := u.until(ctx, deadline, func() (bool, error) {
		c, err := u.Kafka.CommittedOffsets(ctx, u.ChunkGroup, docs)
		if err != nil {
			return false, err
		}
		return reached(c, nil, docs), nil
	})
	if err != nil || !ok {
		return err
	}
	chunks, err := u.Kafka.EndOffsets(ctx, streams.TopicChunks)
	if err != nil {
		return err
	}
	ok, err = u.until(ctx, deadline, func() (bool, error) {
		c, err := u.Kafka.CommittedOffsets(ctx, u.OwnGroup, chunks)
		if err != nil {
			return false, err
		}
		mine := map[string]map[int]int64{streams.TopicChunks: s.handledUpTo(streams.TopicChunks)}
		return reached(c, mine, chunks), nil
	})
	if err != nil || !ok {
		return err
	}
	u.late.Store(false)
	u.passed.Store(time.Now().UnixNano())
	return nil
}

// until polls done until it holds (true), ctx ends (its error) or
// deadline passes (false, with a warning the first time in a row).
func (u *Upstream) until(ctx context.Context, deadline time.Time, done func() (bool, error)) (bool, error) {
	for {
		ok, err := done()
		if err != nil || ok {
			return ok, err
		}
		if time.Now().After(deadline) {
			if !u.late.Swap(true) {
				log := u.Logger
				if log == nil {
					log = slog.Default()
				}
				log.Warn("retrieve: the corpus is not indexed in time; answering over what is until it catches up", "stage", StageName, "waited", u.MaxWait)
			}
			return false, nil
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, ctx.Err()
		case <-t.C:
		}
	}
}

// reached reports whether, on every partition of want, the committed
// offset or the handled one (whichever is further) is at least want's.
func reached(committed, handled, want map[string]map[int]int64) bool {
	for t, ps := range want {
		for p, end := range ps {
			got := max(committed[t][p], handled[t][p])
			if got < end {
				return false
			}
		}
	}
	return true
}
