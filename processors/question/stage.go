package question

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the question stage (robustream run --stages questions).
const StageName = "questions"

// GeneratorTemplate is the Generator value of questions from this package.
const GeneratorTemplate = "template"

// Config configures the question stage. The template generator has no
// settings; the LLM generator and checks will add theirs.
type Config struct{}

// Stage is the "questions" processor: one Triplet from rs.triplets in, at most
// one single-hop Question to rs.questions out, keyed by question_id. It
// counts the triplets it turns down, by reason (Rejected).
type Stage struct {
	rejected map[string]*atomic.Int64
}

var _ streams.Processor = (*Stage)(nil)

// RejectNoTemplate is the reason of a triplet no question template fits.
const RejectNoTemplate = "no_template"

// Reasons lists every reason a triplet can be turned down for: no template,
// or the name of the first rule check its question failed.
var Reasons = []string{RejectNoTemplate, CheckAnswerNonEmpty, CheckAnswerInChunk, CheckQuestionDiffers,
	CheckAnswerNotInQuestion, CheckSubjectNamed, CheckAnswerWhole}

// NewStage returns the template question stage.
func NewStage(Config) (*Stage, error) {
	s := &Stage{rejected: map[string]*atomic.Int64{}}
	for _, r := range Reasons {
		s.rejected[r] = new(atomic.Int64)
	}
	return s, nil
}

// Rejected returns, per reason, how many triplets yielded no question since
// the stage started (replays count again).
func (s *Stage) Rejected() map[string]int64 {
	out := make(map[string]int64, len(s.rejected))
	for r, c := range s.rejected {
		out[r] = c.Load()
	}
	return out
}

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// Process implements streams.Processor. A malformed triplet is permanent; a
// triplet no template fits, or whose question fails a rule check, yields no
// record. The id hashes (question, answer, chunk_id), so reprocessing is
// idempotent.
func (s *Stage) Process(_ context.Context, m streams.Message) ([]streams.Record, error) {
	var t schemas.Triplet
	if err := schemas.Decode(m.Value, &t); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode triplet: %w", err))
	}
	if t.TripletID == "" || t.ChunkID == "" {
		return nil, streams.Permanent(errors.New("triplet has no triplet_id or chunk_id"))
	}
	q, reason := Build(&t)
	if q == nil {
		if c := s.rejected[reason]; c != nil {
			c.Add(1)
		}
		return nil, nil
	}
	b, err := schemas.Encode(q)
	if err != nil {
		return nil, fmt.Errorf("cannot encode question: %w", err)
	}
	return []streams.Record{{Topic: streams.TopicQuestions, Key: []byte(q.QuestionID), Value: b}}, nil
}
