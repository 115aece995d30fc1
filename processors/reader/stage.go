package reader

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the inference stage.
const StageName = "infer"

// ErrUnknownModel is returned (wrapped as permanent) for a request naming a
// model this process does not serve.
var ErrUnknownModel = errors.New("unknown model")

// Config configures the inference stage.
type Config struct {
	// Models maps model id → model under test. Required.
	Models map[string]provider.Model `yaml:"-"`
	// Cache holds the answers already received; nil: every request is
	// sent (tests).
	Cache *Cache `yaml:"-"`
	// JudgeMethod is the matcher (MethodExact, MethodCovered,
	// MethodTokenSeq). Empty: DefaultMethod.
	JudgeMethod string `yaml:"judge_method" help:"answer matcher: exact, covered or token_seq (default token_seq)"`
	// Embedder, when set, judges the answers the lexical judge did not
	// match (MethodEmbedding); nil: lexical only.
	Embedder provider.Embedder `yaml:"-"`
	// EmbeddingThreshold is the cosine similarity the embedding judge
	// needs. Zero: DefaultEmbeddingThreshold.
	EmbeddingThreshold float64 `yaml:"embedding_threshold" help:"cosine similarity at which the embedding judge accepts an answer (default 0.9; used when models.yaml has an embedder)"`
	// Generator is the LLM of models.yaml's generator:, used by the LLM
	// judge when LLMJudge is on.
	Generator provider.Generator `yaml:"-"`
	// LLMJudge asks the generator about the answers that neither the
	// lexical nor the embedding judge accepted (MethodLLM).
	LLMJudge bool `yaml:"llm_judge" help:"ask the generator LLM (models.yaml generator:) about answers the lexical and embedding judges did not accept"`
	// NoPrefixAffinity turns off sending requests that share their
	// contexts one after another (for comparison in benchmarks).
	NoPrefixAffinity bool `yaml:"no_prefix_affinity" help:"do not group requests that share contexts (they are grouped by default, for servers' prefix caches)"`
	// Now is the clock for evaluated_at and latency. Nil: time.Now.
	Now func() time.Time `yaml:"-"`
	// Freshness asks the questions of the listed rag-endpoint models again
	// until their service retrieves them (freshness.go).
	Freshness FreshnessConfig `yaml:"freshness"`
	// Budget stops asking the priced models once their answers cost it
	// (budget.go); nil: no budget.
	Budget *Budget `yaml:"-"`
}

// Stage is the "infer" stage: rs.eval.requests → rs.eval.results, keyed by
// question id. It asks the named model, judges the answer and emits the
// result with everything pairing needs (question ref, axis, kind, answer
// availability, manifest, closed-book flag). Each model is called through
// its own dispatcher (in-flight window, rate limits, circuit breaker), and
// an answer already received for the same request id is reused, never
// asked for again.
type Stage struct {
	models     atomic.Pointer[map[string]*dispatcher]
	affinity   bool
	method     string
	now        func() time.Time
	cache      *Cache
	embedder   provider.Embedder
	threshold  float64
	llm        provider.Generator // nil: no LLM judge
	flight     singleflight.Group
	cacheTopic string
	fresh      *Freshness // nil: no model tracked
	budget     *Budget    // nil: no budget
}

// NewStage validates cfg, applies defaults and returns the stage.
func NewStage(cfg Config) (*Stage, error) {
	var errs []error
	if len(cfg.Models) == 0 {
		errs = append(errs, errors.New("infer: models: none configured"))
	}
	for id, m := range cfg.Models {
		if m == nil || m.ID() != id {
			errs = append(errs, fmt.Errorf("infer: models.%s: nil or id mismatch", id))
		}
	}
	for id, m := range cfg.Models {
		if l, ok := provider.LimitsOf(m); ok {
			errs = append(errs, checkLimits("infer: models."+id, l)...)
		}
	}
	if cfg.LLMJudge && cfg.Generator == nil {
		errs = append(errs, errors.New("infer: llm_judge: needs a generator (generator: in models.yaml)"))
	}
	if cfg.EmbeddingThreshold < 0 || cfg.EmbeddingThreshold > 1 {
		errs = append(errs, fmt.Errorf("infer: embedding_threshold: %g is not in [0, 1]", cfg.EmbeddingThreshold))
	}
	if !ValidMethod(cfg.JudgeMethod) {
		errs = append(errs, fmt.Errorf("infer: judge_method: unknown %q", cfg.JudgeMethod))
	}
	errs = append(errs, cfg.Freshness.validate()...)
	for _, m := range cfg.Freshness.Models {
		if model, ok := cfg.Models[m]; !ok || !provider.Retrieves(model) {
			errs = append(errs, fmt.Errorf("infer: freshness.models: %q is not a model that retrieves its own contexts (a rag-endpoint)", m))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if cfg.JudgeMethod == "" {
		cfg.JudgeMethod = DefaultMethod
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.EmbeddingThreshold == 0 {
		cfg.EmbeddingThreshold = DefaultEmbeddingThreshold
	}
	s := &Stage{method: cfg.JudgeMethod, now: cfg.Now, cache: cfg.Cache, affinity: !cfg.NoPrefixAffinity,
		embedder: cfg.Embedder, threshold: cfg.EmbeddingThreshold, budget: cfg.Budget,
		cacheTopic: streams.ChangelogTopic(StageName)}
	if cfg.LLMJudge {
		s.llm = cfg.Generator
	}
	if len(cfg.Freshness.Models) > 0 {
		s.fresh = newFreshness(cfg.Freshness, cfg.Now)
	}
	s.SetModels(cfg.Models)
	return s, nil
}

// SetModels replaces the models the stage serves (models.yaml reloaded
// while running). A model whose entry did not change keeps its dispatcher,
// window and breaker; requests already in flight finish on the dispatcher
// they started with. A request naming a model no longer served gets a
// terminal error result, like any unknown model.
func (s *Stage) SetModels(models map[string]provider.Model) {
	old := map[string]*dispatcher{}
	if p := s.models.Load(); p != nil {
		old = *p
	}
	next := make(map[string]*dispatcher, len(models))
	for id, m := range models {
		if d, ok := old[id]; ok && sameModel(d.model, m) {
			next[id] = d
			continue
		}
		next[id] = newDispatcher(m, s.affinity, s.now)
	}
	s.models.Store(&next)
}

// sameModel reports whether b is a's configuration again: the same value,
// or the same description, decoding and limits (the remote clients
// describe their settings, never their credentials).
func sameModel(a, b provider.Model) bool {
	if a == b {
		return true
	}
	if provider.IsBaseline(a) && provider.IsBaseline(b) {
		return a.ID() == b.ID() // the built-ins have no settings
	}
	describe := func(m provider.Model) string {
		d, _ := provider.DecodingOf(m)
		l, _ := provider.LimitsOf(m)
		return fmt.Sprintf("%v|%s|%+v", m, d, l)
	}
	_, ok1 := a.(fmt.Stringer)
	_, ok2 := b.(fmt.Stringer)
	return ok1 && ok2 && describe(a) == describe(b)
}

// Outputs are the topics the stage writes: the results, and the changelog
// of answers that fills the Cache of the next start.
func Outputs() []string {
	return []string{streams.TopicEvalResults, streams.ChangelogTopic(StageName), streams.ChangelogTopic(FreshnessStage)}
}

// Freshness returns the tracker of the questions asked again, nil when no
// model is tracked (FreshnessConfig). It is the source that sends them.
func (s *Stage) Freshness() *Freshness { return s.fresh }

// Windows returns each model's current in-flight window (for metrics).
func (s *Stage) Windows() map[string]int {
	models := *s.models.Load()
	out := make(map[string]int, len(models))
	for id, d := range models {
		out[id] = d.gate.Limit()
	}
	return out
}

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// Process implements streams.Processor. A request that does not decode or
// names an unknown model is a permanent error; a model error is returned as
// is, so the runner retries it with backoff and dead-letters it when retries
// run out (docs/architecture.md, Delivery contract).
//
// Built-in models get the request's query and contexts, not the prompt:
// they are extractive and the prompt's instructions mean nothing to them.
func (s *Stage) Process(ctx context.Context, m streams.Message) ([]streams.Record, error) {
	var req schemas.EvalRequest
	if err := schemas.Decode(m.Value, &req); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode eval request: %w", err))
	}
	if req.NotMadeReason != "" {
		return s.errorResult(&req, ErrNotMade.Error()+": "+req.NotMadeReason)
	}
	d, ok := (*s.models.Load())[req.ModelID]
	if !ok {
		return nil, streams.Permanent(fmt.Errorf("%w %q in request %s", ErrUnknownModel, req.ModelID, req.RequestID))
	}
	a, fresh, err := s.answer(ctx, d, &req)
	if errors.Is(err, ErrBudgetExhausted) {
		return s.errorResult(&req, err.Error())
	}
	if err != nil {
		return nil, fmt.Errorf("model %s, request %s: %w", req.ModelID, req.RequestID, err)
	}
	v := Judge(a.Text, req.Accepted, s.method)
	expr := placeholderExpr(&req)
	if expr != nil {
		v.Correct = expr.Match(a.Text, judgeKeyword(s.method))
	}
	res := resultOf(&req)
	res.Answer = a.Text
	res.Refused, res.Correct, res.JudgeMethod = v.Refused, v.Correct, v.Method
	if s.embedder != nil && expr == nil && !v.Correct && !v.Refused && a.Text != "" {
		sim, ok, err := embeddingJudge(ctx, s.embedder, s.threshold, a.Text, req.Accepted)
		if err != nil {
			return nil, err // retried; the answer itself is cached
		}
		res.Similarity = sim
		if ok {
			res.Correct, res.JudgeMethod = true, MethodEmbedding
		}
	}
	if s.llm != nil && expr == nil && !res.Correct && !res.Refused && a.Text != "" {
		ok, err := llmJudge(ctx, s.llm, req.Query, a.Text, req.Accepted)
		if err != nil {
			return nil, err // retried; the answer itself is cached
		}
		if ok {
			res.Correct, res.JudgeMethod = true, MethodLLM
		}
	}
	res.LatencyMS = a.LatencyMS
	res.TokensIn, res.TokensOut = clampUint32(a.TokensIn), clampUint32(a.TokensOut)
	res.EvaluatedAt = s.now().UTC()
	var tracked []streams.Record // freshness changelog
	switch {
	case req.Retrieves:
		res.Retriever, res.RetrievedSources, res.RetrievedScores = schemas.RetrieverService, a.Sources, a.Scores
		judgeRetrieval(res, a.Contexts, req.Contexts, req.Accepted)
		if s.fresh.Tracks(req.ModelID) {
			if tracked, err = s.fresh.observe(&req, res, res.EvaluatedAt); err != nil {
				return nil, err
			}
		}
	case req.Axis == schemas.AxisRetrieval && !req.ClosedBook:
		// A built-in retriever's passages are the variant's contexts,
		// measured when the variant says what the ground truth is (no
		// retriever named otherwise, so no metrics without it).
		available := res.AnswerAvailable
		judgeRetrieval(res, req.Contexts, req.GroundTruth, req.Accepted)
		res.AnswerAvailable = available // the variant's, as for every reader
		res.RetrievedSources, res.RetrievedScores = req.RetrievedSources, req.RetrievedScores
		if len(req.GroundTruth) > 0 {
			res.Retriever = req.Kind
		}
	}
	// One result per (request, variant): identical prompts of two variants
	// share a request id, yet pairing needs a result for each variant.
	schemas.Stamp(res, ResultID(req.RequestID, req.QuestionID, req.VariantID), req.ID)
	b, err := schemas.Encode(res)
	if err != nil {
		return nil, fmt.Errorf("cannot encode result of request %s: %w", req.RequestID, err)
	}
	recs := []streams.Record{{Topic: streams.TopicEvalResults, Key: []byte(res.Key()), Value: b}}
	recs = append(recs, tracked...)
	if fresh != nil && s.cache != nil {
		// The answer goes to the changelog with its result, before the
		// offset is committed: a restart finds it in its cache.
		recs = append(recs, streams.Record{Topic: s.cacheTopic, Key: []byte(req.RequestID), Value: fresh})
	}
	return recs, nil
}

// answer returns the answer to req: from the cache if the prompt was
// answered before, else from the model (once for concurrent identical
// requests). fresh is the changelog value of an answer received by this
// call, nil otherwise.
func (s *Stage) answer(ctx context.Context, d *dispatcher, req *schemas.EvalRequest) (a cached, fresh []byte, err error) {
	q := provider.Query{Question: req.Query, Contexts: req.Contexts, Prompt: req.Prompt, System: req.System}
	if !d.remote {
		ans, latency, err := d.call(ctx, q)
		return cachedOf(ans, float64(latency.Microseconds())/1000), nil, err
	}
	if a, ok := s.cache.get(req.RequestID); ok {
		return a, nil, nil
	}
	type got struct {
		a     cached
		fresh []byte
	}
	led := false // this call made the request; followers share its answer
	v, err, _ := s.flight.Do(req.RequestID, func() (any, error) {
		led = true
		paid, err := s.budget.acquire(ctx, req.ModelID)
		if err != nil {
			return nil, err
		}
		ans, latency, err := d.call(ctx, q)
		paid(ans.TokensIn, ans.TokensOut) // zeros when the call failed
		if err != nil {
			return nil, err
		}
		a := cachedOf(ans, float64(latency.Microseconds())/1000)
		b, err := s.cache.put(req.RequestID, a)
		if err != nil {
			return nil, fmt.Errorf("cannot encode answer: %w", err)
		}
		return got{a, b}, nil
	})
	if err != nil {
		return cached{}, nil, err
	}
	g := v.(got)
	if !led {
		// Another request with the same prompt made the call and writes
		// the changelog record.
		return g.a, nil, nil
	}
	return g.a, g.fresh, nil
}

// resultOf is the result of req before its answer: everything pairing
// needs to place it in its (model, question) set.
func resultOf(req *schemas.EvalRequest) *schemas.EvalResult {
	return &schemas.EvalResult{
		QuestionRef:     req.QuestionRef,
		RequestID:       req.RequestID,
		ModelID:         req.ModelID,
		VariantID:       req.VariantID,
		ClosedBook:      req.ClosedBook,
		Axis:            req.Axis,
		Kind:            req.Kind,
		AnswerAvailable: req.AnswerAvailable,
		Manifest:        req.Manifest,
		Expected:        req.Expected,
		Retrieves:       req.Retrieves,
		FamilySample:    req.FamilySample,
	}
}

// ResultID is the event id of the result of a request for one variant.
func ResultID(requestID, questionID, variantID string) string {
	return schemas.ID("result", requestID, questionID, variantID)
}

func clampUint32(n int) uint32 {
	return uint32(min(max(n, 0), math.MaxUint32))
}
