package question

import (
	"context"
	"errors"
	"fmt"

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
// one single-hop Question to rs.questions out, keyed by question_id.
type Stage struct{}

var _ streams.Processor = (*Stage)(nil)

// NewStage returns the template question stage.
func NewStage(Config) (*Stage, error) { return &Stage{}, nil }

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
	q, ok := Build(&t)
	if !ok {
		return nil, nil
	}
	b, err := schemas.Encode(q)
	if err != nil {
		return nil, fmt.Errorf("cannot encode question: %w", err)
	}
	return []streams.Record{{Topic: streams.TopicQuestions, Key: []byte(q.QuestionID), Value: b}}, nil
}

// Build turns a triplet into its single-hop question, stamped and scored, or
// reports false when no template fits or a rule check fails.
func Build(t *schemas.Triplet) (*schemas.Question, bool) {
	text, ok := Single(t.Head, t.Relation, t.Tail, t.SourceSentence, t.PublishedAt)
	if !ok {
		return nil, false
	}
	chunks := []string{t.ChunkText}
	scores, ok := Checks(text, t.Tail, chunks)
	if !ok {
		return nil, false
	}
	id := schemas.ID(text, t.Tail, t.ChunkID)
	q := &schemas.Question{
		QuestionID:  id,
		Question:    text,
		Answer:      t.Tail,
		Pattern:     schemas.PatternSingle,
		Hops:        1,
		TripletIDs:  []string{t.TripletID},
		GTChunkIDs:  []string{t.ChunkID},
		GTChunks:    chunks,
		QAScores:    scores,
		DR:          Difficulty(text, chunks),
		SimFunc:     SimLexicalCosine,
		Generator:   GeneratorTemplate,
		DocID:       t.DocID,
		Domain:      t.Domain,
		PublishedAt: t.PublishedAt,
	}
	schemas.Stamp(q, id, t.TripletID)
	return q, true
}
