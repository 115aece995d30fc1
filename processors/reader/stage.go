package reader

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

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
	// JudgeMethod is the matcher (MethodExact, MethodCovered,
	// MethodTokenSeq). Empty: DefaultMethod.
	JudgeMethod string `yaml:"judge_method" help:"answer matcher: exact, covered or token_seq (default token_seq)"`
	// Now is the clock for evaluated_at and latency. Nil: time.Now.
	Now func() time.Time `yaml:"-"`
}

// Stage is the "infer" stage: rs.eval.requests → rs.eval.results, keyed by
// question id. It asks the named model, judges the answer and emits the
// result with everything pairing needs (question ref, axis, kind, answer
// availability, expected set size, closed-book flag).
type Stage struct {
	models map[string]provider.Model
	method string
	now    func() time.Time
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
	if !ValidMethod(cfg.JudgeMethod) {
		errs = append(errs, fmt.Errorf("infer: judge_method: unknown %q", cfg.JudgeMethod))
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
	return &Stage{models: cfg.Models, method: cfg.JudgeMethod, now: cfg.Now}, nil
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
	model, ok := s.models[req.ModelID]
	if !ok {
		return nil, streams.Permanent(fmt.Errorf("%w %q in request %s", ErrUnknownModel, req.ModelID, req.RequestID))
	}
	start := s.now()
	ans, err := model.Answer(ctx, provider.Query{Question: req.Query, Contexts: req.Contexts, Prompt: req.Prompt})
	if err != nil {
		return nil, fmt.Errorf("model %s, request %s: %w", req.ModelID, req.RequestID, err)
	}
	end := s.now()
	v := Judge(ans.Text, req.Accepted, s.method)
	res := resultOf(&req)
	res.Answer = ans.Text
	res.Refused, res.Correct, res.JudgeMethod = v.Refused, v.Correct, v.Method
	res.LatencyMS = float64(end.Sub(start).Microseconds()) / 1000
	res.TokensIn, res.TokensOut = clampUint32(ans.TokensIn), clampUint32(ans.TokensOut)
	res.EvaluatedAt = end.UTC()
	// One result per (request, variant): identical prompts of two variants
	// share a request id, yet pairing needs a result for each variant.
	schemas.Stamp(res, ResultID(req.RequestID, req.QuestionID, req.VariantID), req.ID)
	b, err := schemas.Encode(res)
	if err != nil {
		return nil, fmt.Errorf("cannot encode result of request %s: %w", req.RequestID, err)
	}
	return []streams.Record{{Topic: streams.TopicEvalResults, Key: []byte(res.Key()), Value: b}}, nil
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
	}
}

// ResultID is the event id of the result of a request for one variant.
func ResultID(requestID, questionID, variantID string) string {
	return schemas.ID("result", requestID, questionID, variantID)
}

func clampUint32(n int) uint32 {
	return uint32(min(max(n, 0), math.MaxUint32))
}
