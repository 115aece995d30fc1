package question

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
)

// llmQA is the LLM side of question synthesis: the writer that phrases a
// pattern instance (RARE §4.4, pattern-specific prompts) and the scorer of
// the QA checks (reasonableness, clarity, correctness, kept above 3).
type llmQA struct {
	writer *LLMWriter // nil: template questions
	scorer *LLMScorer // nil: rule checks only
	// attempts and backoff bound the retries of a call the provider
	// refused for now (429, 5xx, timeout); the wait honours Retry-After.
	attempts int
	backoff  time.Duration
	timeout  time.Duration
}

// Rejection reasons of the LLM side.
const (
	RejectLLMWriter = "llm_writer" // no usable question from the writer: the template's is kept
	RejectLLMScore  = "llm_score"  // a QA score of 3 or less
	RejectLLMScorer = "llm_scorer" // no usable scores: the question is kept, marked unscored
)

// call runs fn, retrying transient provider errors.
func (l *llmQA) call(fn func(ctx context.Context) error) error {
	var err error
	for i := range l.attempts {
		ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
		err = fn(ctx)
		cancel()
		if err == nil || errors.Is(err, provider.ErrRejected) || errors.Is(err, ErrLLMOutput) || errors.Is(err, ErrQuestionRejected) {
			return err
		}
		wait := l.backoff << i
		var ra interface{ RetryAfter() time.Duration }
		if errors.As(err, &ra) && ra.RetryAfter() > 0 {
			wait = ra.RetryAfter()
		}
		time.Sleep(min(wait, 10*time.Second))
	}
	return err
}

// rewrite asks the writer for the question of an instance whose template
// question is q, and the scorer for its QA scores. It returns the question
// to ask (the writer's, or the template's when the writer gave nothing
// usable) or nil and the reason it is rejected.
func (k *Knowledge) rewrite(in *Instance, q *schemas.Question, named string) (*schemas.Question, string) {
	l := k.llm
	if l == nil {
		return q, ""
	}
	if l.writer != nil {
		facts := make([]Fact, len(in.Edges))
		for i, e := range in.Edges {
			facts[i] = Fact{Head: e.Head, Relation: e.Relation, Tail: e.Tail, Sentence: e.Sentence, ChunkID: e.ChunkID}
		}
		period := ""
		if !q.PublishedAt.IsZero() {
			period = q.PublishedAt.Format("January 2006")
		}
		var text string
		err := l.call(func(ctx context.Context) error {
			var err error
			text, err = l.writer.Write(ctx, in.Pattern, facts, q.Answer, q.Pivot, period)
			return err
		})
		if err == nil {
			if scores, ok := Checks(text, named, q.Answer, q.GTChunks[len(q.GTChunks)-1:]); ok {
				w := *q
				w.Question, w.Generator, w.QAScores = text, GeneratorLLM, scores
				w.DR = Difficulty(text, q.GTChunks)
				q = &w
			} else {
				err = errors.New("the written question fails the rule checks")
			}
		}
		if err != nil {
			k.Rejected[RejectLLMWriter]++
			if q.Question == "" {
				k.logLLM("question writer gave no usable question; none is asked", err)
				return q, ""
			}
			k.logLLM("question writer gave no usable question; the template's is asked", err)
		}
	}
	if l.scorer != nil {
		var scores map[string]float64
		err := l.call(func(ctx context.Context) error {
			var err error
			scores, err = l.scorer.Score(ctx, q.Question, q.Answer, q.GTChunks)
			return err
		})
		if err != nil {
			k.Rejected[RejectLLMScorer]++
			k.logLLM("QA scorer gave no usable scores; the question is kept unscored", err)
			return q, ""
		}
		s := *q
		s.QAScores = make(map[string]float64, len(q.QAScores)+len(scores))
		for name, v := range q.QAScores {
			s.QAScores[name] = v
		}
		for name, v := range scores {
			s.QAScores[name] = v
		}
		if !LLMKeep(scores) {
			return nil, RejectLLMScore
		}
		q = &s
	}
	return q, ""
}

func (k *Knowledge) logLLM(msg string, err error) {
	if k.log != nil {
		k.log.Warn(msg, "err", strings.TrimSpace(err.Error()))
	}
}
