package pair

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"

	"github.com/segmentio/encoding/json"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the pairing stage.
const StageName = "pair"

// Store is the keyed state the stage needs. The engine's changelog-backed
// store (streams.Store) has exactly these methods, so it satisfies this
// interface; tests use a map.
type Store interface {
	// Get returns the value under key and whether there was one.
	Get(key string) ([]byte, bool)
	// Put stores value under key durably.
	Put(ctx context.Context, key string, value []byte) error
	// Delete removes key durably.
	Delete(ctx context.Context, key string) error
}

// Stage is the "pair" stage: rs.eval.results → rs.outcomes, keyed by
// question id, with one Set per (model, question) in the Store.
type Stage struct {
	store    Store
	families []Family
	// unscorable counts, per (family, reason), the sets a family that
	// needs the closed-book verdict could not score; its keys are fixed
	// when the stage is built.
	unscorable map[UnscorableKey]*atomic.Int64
	// locks serialize the read-modify-write of a state key should the
	// runner process partitions concurrently; a set lives in one partition,
	// so striping by key costs no parallelism in practice.
	locks [64]sync.Mutex
}

// NewStage returns the pairing stage over store, computing the given metric
// families when a set completes (none given: RARE). Invalid families (a
// wiring mistake in the registry, not input) panic.
func NewStage(store Store, families ...Family) *Stage {
	if len(families) == 0 {
		families = []Family{RARE}
	}
	if err := checkFamilies(families); err != nil {
		panic(err)
	}
	s := &Stage{store: store, families: families, unscorable: map[UnscorableKey]*atomic.Int64{}}
	for _, f := range families {
		if f.NeedsKnown {
			for _, reason := range Reasons {
				s.unscorable[UnscorableKey{f.Name, reason}] = new(atomic.Int64)
			}
		}
	}
	return s
}

// UnscorableKey names one count of Stage.Unscorable.
type UnscorableKey struct {
	Family string
	// Reason is ReasonClosedBookFailed or ReasonClosedBookMissing.
	Reason string
}

// Unscorable returns, per family that needs the closed-book verdict and per
// reason, how many completed (model, question) sets it emitted nothing for
// since the stage started; every such key is present, 0 included. A set
// completed again after a crash (its outcomes written, its done marker
// not) is counted again.
func (s *Stage) Unscorable() map[UnscorableKey]int64 {
	out := make(map[UnscorableKey]int64, len(s.unscorable))
	for k, c := range s.unscorable {
		out[k] = c.Load()
	}
	return out
}

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// StateKey is the state key of a (model, question) set.
func StateKey(modelID, questionID string) string { return modelID + "|" + questionID }

// Process implements streams.Processor. It adds the result to its set;
// a result for a variant already in the set is ignored (a redelivery). When
// the set is complete it returns the outcomes of every metric family (none
// from a family that needs the closed-book verdict when the set cannot give
// it: that set is counted in Unscorable) and leaves a done marker.
// A payload that is not a valid result is a permanent error, as is state
// that does not decode; a store error is returned for retry.
func (s *Stage) Process(ctx context.Context, m streams.Message) ([]streams.Record, error) {
	var r schemas.EvalResult
	if err := schemas.Decode(m.Value, &r); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode eval result: %w", err))
	}
	if r.ModelID == "" || r.QuestionID == "" || r.VariantID == "" || r.Expected < 1 {
		return nil, streams.Permanent(fmt.Errorf("eval result %q: missing model, question or variant id, or expected %d", r.RequestID, r.Expected))
	}
	if r.IndexState == schemas.IndexNotIndexed {
		// Asked before the service had indexed the question's document
		// (docs/methods.md, Freshness): stored, never scored; the
		// question's later answer fills its place in the set.
		return nil, nil
	}
	key := StateKey(r.ModelID, r.QuestionID)
	mu := &s.locks[stripe(key)]
	mu.Lock()
	defer mu.Unlock()

	var set Set
	if b, ok := s.store.Get(key); ok {
		if err := json.Unmarshal(b, &set); err != nil {
			return nil, streams.Permanent(fmt.Errorf("corrupt pairing state %q: %w", key, err))
		}
	}
	if _, dup := set.Results[r.VariantID]; dup || set.Emitted {
		// A redelivery, or a late copy of a result whose set is already
		// paired: the outcomes exist, nothing more to do.
		return nil, nil
	}
	if !set.Add(r) {
		b, err := json.Marshal(&set)
		if err != nil {
			return nil, fmt.Errorf("cannot encode pairing state %q: %w", key, err)
		}
		if err := s.store.Put(ctx, key, b); err != nil {
			return nil, fmt.Errorf("cannot save pairing state %q: %w", key, err)
		}
		return nil, nil
	}
	set.Emitted = true
	_, unscorable := set.Known()
	var outcomes []schemas.Outcome
	for _, f := range s.families {
		if f.NeedsKnown && unscorable != "" {
			s.unscorable[UnscorableKey{f.Name, unscorable}].Add(1)
			continue
		}
		outcomes = append(outcomes, f.Outcomes(set.For(f))...)
	}
	recs := make([]streams.Record, 0, len(outcomes))
	for i := range outcomes {
		b, err := schemas.Encode(&outcomes[i])
		if err != nil {
			return nil, fmt.Errorf("cannot encode outcome %s: %w", outcomes[i].OutcomeID, err)
		}
		recs = append(recs, streams.Record{Topic: streams.TopicOutcomes, Key: []byte(outcomes[i].Key()), Value: b})
	}
	// Keep a small done marker instead of deleting the set: a result
	// replayed after a crash (its offset not yet committed) must not open a
	// new set that would never complete. The runner writes this change only
	// after the outcomes are durable, so a crash in between redoes the set.
	done, err := json.Marshal(&Set{Expected: set.Expected, Emitted: true})
	if err != nil {
		return nil, err
	}
	if err := s.store.Put(ctx, key, done); err != nil {
		return nil, fmt.Errorf("cannot save pairing state %q: %w", key, err)
	}
	return recs, nil
}

// Open reports whether a stored state value is a set still waiting for
// results (not yet paired).
func Open(value []byte) bool {
	var set Set
	return json.Unmarshal(value, &set) == nil && !set.Emitted
}

func stripe(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % 64)
}
