package question

import (
	"maps"
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/robustream/robustream/processors/text"
)

// Normalize is the answer-matching normalization (text.Normalize), the one
// the judge applies, so that a question is checked exactly as its answers
// are judged.
func Normalize(s string) string { return text.Normalize(s) }

// AnswerInText is the "answer occurs in the ground-truth chunk" check
// (docs/methods.md, Question synthesis and QA checks): the normalized answer
// is a substring of the normalized passage.
func AnswerInText(answer, passage string) bool {
	a := Normalize(answer)
	return a != "" && strings.Contains(Normalize(passage), a)
}

// ContainsAnswer reports whether question gives the answer away: the
// answer's normalized words occur as a contiguous run of the question's. A
// plain substring test would reject "How many … in Q1 2012?" for the answer
// "12" (the covered match's known weakness; docs/methods.md, Answer matching
// and refusal detection).
func ContainsAnswer(question, answer string) bool {
	return text.ContainsRun(strings.Fields(Normalize(question)), strings.Fields(Normalize(answer)))
}

// SimLexicalCosine names the similarity Difficulty uses, recorded in
// Question.SimFunc so that D_r values from different functions are never
// mixed.
const SimLexicalCosine = "lexical_cosine"

// contentWords returns the set of lower-cased letter/digit runs of s, less
// stopwords: they carry no topic, and leaving them in would make every
// question look alike to every chunk. The list is the narrowest
// (text.StopNarrow), the words questions are glued from: D_r is compared
// across windows under the one name SimLexicalCosine, so the words it
// ignores must not change under that name.
func contentWords(s string) map[string]bool {
	set := make(map[string]bool)
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !text.IsStopword(w, text.StopNarrow) {
			set[w] = true
		}
	}
	return set
}

// LexicalSimilarity is the cosine of the binary content-word vectors of a and
// b: |A∩B| / sqrt(|A|·|B|), in [0, 1]. It stands in for the embedding
// similarity of GRADE §3.3 when no embedding model is configured.
func LexicalSimilarity(a, b string) float64 {
	x, y := contentWords(a), contentWords(b)
	if len(x) == 0 || len(y) == 0 {
		return 0
	}
	n := 0
	for w := range x {
		if y[w] {
			n++
		}
	}
	return float64(n) / math.Sqrt(float64(len(x))*float64(len(y)))
}

// Difficulty is the retrieval difficulty of GRADE eq. 1: D_r(q) = 1 − min
// over the supporting chunks of sim(q, chunk). With no chunks it is 1.
func Difficulty(question string, chunks []string) float64 {
	key := memoKey(append([]string{question}, chunks...)...)
	if d, ok := difficultyMemo.get(key); ok {
		return d
	}
	d := difficulty(question, chunks)
	difficultyMemo.put(key, d)
	return d
}

var difficultyMemo = newMemo[float64](1 << 15)

func difficulty(question string, chunks []string) float64 {
	minSim := 1.0
	if len(chunks) == 0 {
		minSim = 0
	}
	for _, c := range chunks {
		minSim = math.Min(minSim, LexicalSimilarity(question, c))
	}
	return 1 - minSim
}

// Rule check names, the keys of Question.QAScores (docs/methods.md, Question
// synthesis and QA checks).
const (
	CheckAnswerNonEmpty      = "answer_nonempty"
	CheckAnswerInChunk       = "answer_in_chunk"
	CheckQuestionDiffers     = "question_differs"
	CheckAnswerNotInQuestion = "answer_not_in_question"
)

// Checks runs the rule checks of a single-hop question about head against
// its ground-truth chunks and returns each score (1 pass, 0 fail) and
// whether all passed. The answer must occur in every ground-truth chunk it
// cites.
func Checks(question, head, answer string, chunks []string) (map[string]float64, bool) {
	key := memoKey(append([]string{question, head, answer}, chunks...)...)
	if r, ok := checksMemo.get(key); ok {
		return maps.Clone(r.scores), r.ok
	}
	scores, ok := checks(question, head, answer, chunks)
	checksMemo.put(key, checked{maps.Clone(scores), ok})
	return scores, ok
}

type checked struct {
	scores map[string]float64
	ok     bool
}

// checksMemo remembers the checks of recent questions: the knowledge graph
// re-evaluates an instance whenever an entity it touches changes, and the
// checks (which tag the question) are a pure function of their inputs.
var checksMemo = newMemo[checked](1 << 15)

func checks(question, head, answer string, chunks []string) (map[string]float64, bool) {
	inChunks := len(chunks) > 0
	for _, c := range chunks {
		inChunks = inChunks && AnswerInText(answer, c)
	}
	s := map[string]float64{
		CheckAnswerNonEmpty:      score(Normalize(answer) != ""),
		CheckAnswerInChunk:       score(inChunks),
		CheckQuestionDiffers:     score(Normalize(question) != Normalize(answer)),
		CheckAnswerNotInQuestion: score(!ContainsAnswer(question, answer)),
		CheckSubjectNamed:        score((SubjectNamed(head) || commandTableRe.MatchString(question)) && questionNamed(question) || entryQuestionRe.MatchString(question) || itemQuestionRe.MatchString(question)),
		CheckAnswerWhole:         score(AnswerWhole(answer) && answerPhrase(answer)),
		CheckAnswerSpecific:      score(AnswerSpecific(answer, chunks...)),
		CheckQuestionSpecific:    score(QuestionSpecific(question, head, answer, chunks...)),
	}
	for _, v := range s {
		if v == 0 {
			return s, false
		}
	}
	return s, true
}

// commandTableRe: a command-table question ('In "List of systemctl
// snippets", which command shows the job environment?'), whose subject is
// the task of a row, an instruction by nature, named by its table.
var commandTableRe = regexp.MustCompile(`^In "[^"]+", which command `)

// entryQuestionRe: a reference entry's question ("Which option of git-add
// allows adding otherwise ignored files?"), whose subject is the entry its
// description picks out, named by what it does.
// itemQuestionRe is the question of a NEWS item, which names its program
// ("In which release of OpenSP was support for http redirection added?"):
// what was added need not be a name.
var itemQuestionRe = regexp.MustCompile(`^In which release of \S+ (?:was|were) `)

var entryQuestionRe = regexp.MustCompile(`^Which (?:option|function|command|directive|variable|setting|statement|parameter|property|hook|macro|target)(?: of \S+)? [a-z]`)
