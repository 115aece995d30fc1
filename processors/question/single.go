package question

import (
	"slices"
	"strings"
	"unicode"

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
	head := t.Head
	if t.Kind == kindEntry {
		head = "" // a description, verb first by its nature: the question names the entry by it
	}
	scores, ok := Checks(text, head, answer, chunks)
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
	if t.Kind == kindEntry {
		q.Aliases = entryAliases(t.SourceSentence, answer)
	}
	schemas.Stamp(q, id, t.TripletID)
	return q, ""
}

// entryAliases returns the other names of a reference entry's term, as its
// term lines give them ("-f" for "--force").
// The term lines come first; the description, which opens with a capital,
// ends them ("treats the <string> given to -S as …" names no alias).
func entryAliases(sentence, answer string) []string {
	var out []string
	for _, l := range strings.Split(sentence, "\n") {
		for _, f := range strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == ',' || r == '`' || r == '*' }) {
			if r := []rune(f)[0]; unicode.IsUpper(r) {
				return out // the description
			}
			n, _, _ := strings.Cut(strings.TrimRight(f, ":;.—–"), "=")
			if strings.HasPrefix(n, "-") && len(n) > 1 && n != answer && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}
