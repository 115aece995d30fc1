package question

import (
	"strings"

	"github.com/robustream/robustream/schemas"
)

// Build turns a triplet into its single-hop question (SingleFor, by the
// triplet's Kind), stamped and scored,
// or returns nil and why: RejectNoTemplate, or the first rule check (in
// Reasons order) the question failed. The answer is the triplet's tail with
// its white space collapsed: a line wrapped in the source is one line in a
// question's answer.
func Build(t *schemas.Triplet) (*schemas.Question, string) {
	text, ok := SingleFor(t.Kind, t.Head, t.Relation, t.Tail, t.SourceSentence, t.ChunkText, t.PublishedAt)
	if !ok {
		return nil, RejectNoTemplate
	}
	answer := strings.Join(strings.Fields(t.Tail), " ")
	if t.Kind != kindTable && otherAnswerInChunk(t.Head, t.Relation, t.Tail, t.ChunkText) {
		return nil, RejectAmbiguous // the chunk names another answer
	}
	chunks := []string{t.ChunkText}
	scores, ok := Checks(text, t.Head, answer, chunks)
	if !ok {
		for _, r := range Reasons[1:] {
			if scores[r] == 0 {
				return nil, r
			}
		}
	}
	id := schemas.ID(text, answer, t.ChunkID)
	q := &schemas.Question{
		QuestionID:  id,
		Question:    text,
		Answer:      answer,
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
	return q, ""
}
