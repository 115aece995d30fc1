package reader

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/encoding/json"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// Freshness of a production RAG (docs/methods.md, Freshness). A RAG service
// indexes new documents on its own schedule, so a question about a
// document robustream has just seen may miss only because the service has
// not indexed it yet. For the models it tracks, the infer stage therefore
// labels a result whose passages hold no ground-truth chunk not_indexed
// (kept out of pairing, hence of every robustness score, and out of the
// retrieval metrics) and asks the question again on a back-off schedule
// counted from the first ask (1m, 5m, 15m, 1h, 6h, 24h by default), until
// an answer retrieves a chunk (index state indexed: that result is scored,
// and the delay since the first ask is the service's time-to-knowledge) or
// the schedule runs out (gave_up: the last miss is scored). Questions
// waiting longer than stale_after raise a stale-index alert per model,
// resolved once none waits that long.
//
// The questions waiting are kept in memory and logged to the changelog
// topic of FreshnessStage (written with the stage's results, read back at
// start: Freshness.Load), so a restart loses none. Re-asks are new
// requests (their own request ids, so the answer cache does not answer
// them with the old miss), sent by Freshness.Run, a clock-driven source.

// FreshnessStage names the freshness source and its changelog.
const FreshnessStage = "freshness"

// FreshnessRule is the rule of the stale-index alerts.
const FreshnessRule = "stale_index"

// DefaultFreshnessSchedule is when a question is asked again, counted from
// its first ask.
var DefaultFreshnessSchedule = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// FreshnessConfig configures the tracking (stages.infer.freshness).
type FreshnessConfig struct {
	// Models are the ids of the rag-endpoint models tracked; none: off.
	Models []string `yaml:"models" help:"rag-endpoint model ids whose questions are asked again until the service retrieves them (freshness; none: off)"`
	// Schedule is when a question is asked again after its first ask.
	// Empty: DefaultFreshnessSchedule.
	Schedule []time.Duration `yaml:"schedule" help:"delays after the first ask at which a question not yet retrieved is asked again (default 1m, 5m, 15m, 1h, 6h, 24h)"`
	// MaxAsks caps the asks again per question. Zero: len(Schedule).
	MaxAsks int `yaml:"max_asks" help:"most times a question is asked again (default: the schedule's length)"`
	// StaleAfter is how long a question may wait before the model's
	// stale-index alert fires. Zero: 6h.
	StaleAfter time.Duration `yaml:"stale_after" help:"a question not retrieved this long after its first ask fires the model's stale-index alert (default 6h)"`
	// Interval is how often due questions are sent. Zero: 5s.
	Interval time.Duration `yaml:"interval" help:"how often questions due to be asked again are sent (default 5s)"`
}

func (c FreshnessConfig) validate() []error {
	var errs []error
	for i, d := range c.Schedule {
		if d <= 0 || (i > 0 && d <= c.Schedule[i-1]) {
			errs = append(errs, fmt.Errorf("infer: freshness.schedule: %s: delays must be positive and increasing", d))
			break
		}
	}
	if c.MaxAsks < 0 || c.StaleAfter < 0 || c.Interval < 0 {
		errs = append(errs, errors.New("infer: freshness: max_asks, stale_after and interval must not be negative"))
	}
	return errs
}

// Freshness tracks the questions of the tracked models that their service
// has not retrieved yet. It is safe for concurrent use.
type Freshness struct {
	models     map[string]bool
	schedule   []time.Duration
	maxAsks    int
	staleAfter time.Duration
	interval   time.Duration
	now        func() time.Time

	mu      sync.Mutex
	waiting map[string]*waitingQuestion
	firing  map[string]schemas.Alert // model → its firing stale-index alert
	// indexed holds, by model and question, when an ask of the question
	// first retrieved a ground-truth chunk: its document is indexed, and
	// a miss of another of its variants (a typo in the one rare word) is
	// the retriever's, not the index's. Kept for the schedule's span.
	indexed map[string]time.Time
}

// waitingQuestion is one (model, variant) not yet retrieved, as its
// changelog record holds it.
type waitingQuestion struct {
	// Request is the first request; asks again copy it.
	Request schemas.EvalRequest `json:"request"`
	// FirstAsked is when the first answer was judged, from which the
	// schedule and time-to-knowledge count.
	FirstAsked time.Time `json:"first_asked"`
	// Asked is how many times it was asked again; Sent says whether ask
	// number Asked was sent and is awaited.
	Asked int  `json:"asked"`
	Sent  bool `json:"sent"`
	// Recheck: another ask of the question retrieved a chunk, so this
	// variant is asked once more now, and its answer is judged against
	// an indexed document.
	Recheck bool `json:"recheck,omitempty"`
}

func newFreshness(c FreshnessConfig, now func() time.Time) *Freshness {
	f := &Freshness{models: map[string]bool{}, schedule: c.Schedule, maxAsks: c.MaxAsks, staleAfter: c.StaleAfter,
		interval: c.Interval, now: now, waiting: map[string]*waitingQuestion{}, firing: map[string]schemas.Alert{},
		indexed: map[string]time.Time{}}
	for _, m := range c.Models {
		f.models[m] = true
	}
	if len(f.schedule) == 0 {
		f.schedule = DefaultFreshnessSchedule
	}
	if f.maxAsks == 0 || f.maxAsks > len(f.schedule) {
		f.maxAsks = len(f.schedule)
	}
	if f.staleAfter == 0 {
		f.staleAfter = 6 * time.Hour
	}
	if f.interval == 0 {
		f.interval = 5 * time.Second
	}
	return f
}

// Tracks reports whether model's questions are tracked.
func (f *Freshness) Tracks(model string) bool { return f != nil && f.models[model] }

func waitingKey(model, variantID string) string { return model + "\x00" + variantID }

// askAgainID is the request id of ask number n of a request.
func askAgainID(requestID string, n int) string {
	return schemas.ID(requestID, FreshnessStage, fmt.Sprint(n))
}

// Load adds one changelog record (a waiting question; a tombstone is
// never handed over). A record that does not decode is skipped, with the
// question it held no longer asked again.
func (f *Freshness) Load(key string, value []byte) {
	var w waitingQuestion
	if len(value) == 0 || json.Unmarshal(value, &w) != nil || w.Request.ModelID == "" {
		return
	}
	// An ask sent before a restart may not have been written, or its
	// answer not judged: sent again under the same request id (an answer
	// already received comes from the answer cache).
	if w.Sent {
		w.Asked, w.Sent = w.Asked-1, false
	}
	f.mu.Lock()
	f.waiting[key] = &w
	f.mu.Unlock()
}

// Waiting returns how many questions of model wait to be retrieved.
func (f *Freshness) Waiting(model string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, w := range f.waiting {
		if w.Request.ModelID == model {
			n++
		}
	}
	return n
}

// observe labels res, the judged result of req by a tracked model, and
// returns the changelog record of the change it makes, if any.
func (f *Freshness) observe(req *schemas.EvalRequest, res *schemas.EvalResult, now time.Time) ([]streams.Record, error) {
	key := waitingKey(req.ModelID, req.VariantID)
	qkey := waitingKey(req.ModelID, "question\x00"+req.QuestionID)
	f.mu.Lock()
	defer f.mu.Unlock()
	w, ok := f.waiting[key]
	switch {
	case res.RetrievalHit:
		res.IndexState = schemas.IndexIndexed
		var recs []streams.Record
		if _, known := f.indexed[qkey]; !known {
			f.indexed[qkey] = now
			var err error
			if recs, err = f.recheckLocked(req.ModelID, req.QuestionID, key); err != nil {
				return nil, err
			}
		}
		if !ok {
			return recs, nil
		}
		delete(f.waiting, key)
		return append(recs, streams.Record{Topic: streams.ChangelogTopic(FreshnessStage), Key: []byte(key)}), nil
	case !f.indexed[qkey].IsZero():
		// Another ask of the question retrieved a chunk: the document is
		// indexed, and this miss is the retriever's (scored as such).
		res.IndexState = schemas.IndexIndexed
		if !ok {
			return nil, nil
		}
		delete(f.waiting, key)
		return []streams.Record{{Topic: streams.ChangelogTopic(FreshnessStage), Key: []byte(key)}}, nil
	case !ok:
		// A first miss: asked again from now on.
		w = &waitingQuestion{Request: *req, FirstAsked: now}
		f.waiting[key] = w
		res.IndexState = schemas.IndexNotIndexed
	case req.RequestID != askAgainID(w.Request.RequestID, w.Asked) || !w.Sent:
		// Another copy of an earlier ask: still not indexed, the
		// schedule unchanged.
		res.IndexState = schemas.IndexNotIndexed
		return nil, nil
	case w.Asked >= f.maxAsks:
		// The schedule ran out: this miss is the verdict.
		res.IndexState = schemas.IndexGaveUp
		delete(f.waiting, key)
		return []streams.Record{{Topic: streams.ChangelogTopic(FreshnessStage), Key: []byte(key)}}, nil
	default:
		res.IndexState = schemas.IndexNotIndexed
		w.Sent = false // the next ask is due at its time
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("cannot encode a waiting question: %w", err)
	}
	return []streams.Record{{Topic: streams.ChangelogTopic(FreshnessStage), Key: []byte(key), Value: b}}, nil
}

// recheckLocked marks the variants of model's question waiting, other than
// the one under key, to be asked once more at once, and returns their
// changelog records. f.mu is held.
func (f *Freshness) recheckLocked(model, questionID, key string) ([]streams.Record, error) {
	var recs []streams.Record
	for k, w := range f.waiting {
		if k == key || w.Request.ModelID != model || w.Request.QuestionID != questionID || w.Recheck {
			continue
		}
		w.Recheck = true
		if w.Sent {
			continue // its answer, still to come, is judged against the indexed document
		}
		b, err := json.Marshal(w)
		if err != nil {
			return nil, fmt.Errorf("cannot encode a waiting question: %w", err)
		}
		recs = append(recs, streams.Record{Topic: streams.ChangelogTopic(FreshnessStage), Key: []byte(k), Value: b})
	}
	return recs, nil
}

// due is when w's next ask is due: now for a recheck.
func (f *Freshness) due(w *waitingQuestion) time.Time {
	if w.Recheck {
		return time.Time{}
	}
	return w.FirstAsked.Add(f.schedule[min(w.Asked, len(f.schedule)-1)])
}

// Name implements streams.Source.
func (f *Freshness) Name() string { return FreshnessStage }

// Run implements streams.Source: every interval it sends the questions due
// to be asked again and updates the models' stale-index alerts, until ctx
// ends.
func (f *Freshness) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	t := time.NewTicker(f.interval)
	defer t.Stop()
	for {
		if err := f.Step(ctx, emit); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Step sends the asks due now, with the changelog records saying they
// were sent, and the stale-index alerts whose state changes. The asks are
// marked sent before they are written (their answers may come back at
// once); should the write fail, Run ends, and the next start sends them
// again (Load).
func (f *Freshness) Step(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	now := f.now()
	recs, err := f.dueAsks(now)
	if err != nil {
		return err
	}
	alerts, err := f.staleAlerts(now)
	if err != nil {
		return err
	}
	if len(recs)+len(alerts) == 0 {
		return nil
	}
	return emit(ctx, append(recs, alerts...)...)
}

// dueAsks marks the asks due at now sent and returns their requests.
func (f *Freshness) dueAsks(now time.Time) ([]streams.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var keys []string
	for k, w := range f.waiting {
		if !w.Sent && (w.Asked < f.maxAsks || w.Recheck) && !now.Before(f.due(w)) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var recs []streams.Record
	for _, k := range keys {
		w := f.waiting[k]
		w.Asked++
		w.Sent = true
		r := w.Request
		r.RequestID = askAgainID(w.Request.RequestID, w.Asked)
		schemas.Stamp(&r, schemas.ID("request", r.RequestID, r.QuestionID, r.VariantID), w.Request.ID)
		b, err := schemas.Encode(&r)
		if err != nil {
			return nil, fmt.Errorf("cannot encode an ask again: %w", err)
		}
		state, err := json.Marshal(w)
		if err != nil {
			return nil, fmt.Errorf("cannot encode a waiting question: %w", err)
		}
		recs = append(recs, streams.Record{Topic: streams.TopicEvalRequests, Key: []byte(r.Key()), Value: b},
			streams.Record{Topic: streams.ChangelogTopic(FreshnessStage), Key: []byte(k), Value: state})
	}
	return recs, nil
}

// staleAlerts updates each tracked model's stale-index alert: firing while
// questions have waited longer than stale_after, resolved once none has.
func (f *Freshness) staleAlerts(now time.Time) ([]streams.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// A question's indexed mark matters while its variants may still be
	// asked: for the schedule's span.
	for k, at := range f.indexed {
		if now.Sub(at) > f.schedule[len(f.schedule)-1] {
			delete(f.indexed, k)
		}
	}
	// Questions, not their variants: each of a question's variants waits
	// on its own, for one document.
	questions := map[string]map[string]bool{}
	oldest := map[string]time.Time{}
	for _, w := range f.waiting {
		m := w.Request.ModelID
		if now.Sub(w.FirstAsked) >= f.staleAfter {
			if questions[m] == nil {
				questions[m] = map[string]bool{}
			}
			questions[m][w.Request.QuestionID] = true
			if o, ok := oldest[m]; !ok || w.FirstAsked.Before(o) {
				oldest[m] = w.FirstAsked
			}
		}
	}
	models := make([]string, 0, len(f.models))
	for m := range f.models {
		models = append(models, m)
	}
	slices.Sort(models)
	var out []streams.Record
	for _, m := range models {
		series := strings.Join([]string{m, FreshnessStage, FreshnessRule, "retriever/" + schemas.RetrieverService, "*"}, "|")
		prev, firing := f.firing[m]
		var a schemas.Alert
		switch n := len(questions[m]); {
		case n > 0 && !firing:
			a = schemas.Alert{AlertID: schemas.ID(FreshnessRule, series, fmt.Sprint(now.Unix())), Rule: FreshnessRule, Series: series,
				State: "firing", Recent: float64(n), PValue: 1, FiredAt: now,
				Labels: map[string]string{"model_id": m, "family": FreshnessStage, "metric": FreshnessRule, "axis": "retriever", "kind": schemas.RetrieverService, "domain": "*"},
				Summary: fmt.Sprintf("%s has not indexed the documents of %d questions older than %s (first asked since %s): its retrieval finds no ground-truth chunk for them yet.",
					m, n, f.staleAfter, oldest[m].UTC().Format("2006-01-02 15:04"))}
			f.firing[m] = a
		case n == 0 && firing:
			a = prev
			a.State, a.ResolvedAt, a.Recent = "resolved", now, 0
			a.Summary = fmt.Sprintf("%s has indexed the documents it was missing: no question waits longer than %s.", m, f.staleAfter)
			delete(f.firing, m)
		default:
			continue
		}
		schemas.Stamp(&a, schemas.ID(a.AlertID, a.State))
		b, err := schemas.Encode(&a)
		if err != nil {
			return nil, fmt.Errorf("cannot encode a stale-index alert: %w", err)
		}
		out = append(out, streams.Record{Topic: streams.TopicAlerts, Key: []byte(series), Value: b})
	}
	return out, nil
}
