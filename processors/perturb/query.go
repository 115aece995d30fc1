package perturb

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/text"
)

// Kind names: short snake_case, recorded as axis/kind on variants and every
// row after them (docs/architecture.md, Topics and events).
const (
	// KindOriginal is the unperturbed question with its ground-truth context.
	KindOriginal = "original"
	// KindChar changes one character of a word: neighbouring swap, deletion,
	// insertion or substitution, one chosen per word (TextAttack CharSwap).
	KindChar = "char"
	// KindQWERTY replaces one letter of a word by a keyboard neighbour.
	KindQWERTY = "qwerty"
	// KindWordNet replaces a word by a WordNet synonym.
	KindWordNet = "wordnet"
	// KindAnswerRemoved deletes the answer sentences from the context.
	KindAnswerRemoved = "answer_removed"
)

// QueryKinds are the rule-based query kinds, in the order the stage emits
// them.
var QueryKinds = []string{KindChar, KindQWERTY, KindWordNet}

// Errors a perturbation reports when it cannot be made. The stage counts them
// as skipped; none is a failure of the stage.
var (
	// ErrNoCandidate: no eligible word, or no change could be made.
	ErrNoCandidate = errors.New("no eligible word to perturb")
	// ErrAnswerLeak: the perturbed query would contain an accepted answer
	// the original did not, giving the answer away.
	ErrAnswerLeak = errors.New("perturbation leaks the answer into the query")
	// ErrUnknownKind: the kind is not a rule-based query kind.
	ErrUnknownKind = errors.New("unknown perturbation kind")
)

// NewRand returns the random source of one perturbation, seeded by (question
// id, kind) so that replaying a question yields the same variant
// (docs/methods.md, Query perturbations). PCG's output sequence is fixed by math/rand/v2.
func NewRand(questionID, kind string) *rand.Rand {
	// The seed hashes fmt.Sprintf("%d:%s|%s", len(questionID), questionID,
	// kind), built by hand: fmt and a streaming hash cost more than the
	// rest of a char perturbation.
	var buf [128]byte
	b := strconv.AppendInt(buf[:0], int64(len(questionID)), 10)
	b = append(b, ':')
	b = append(b, questionID...)
	b = append(b, '|')
	b = append(b, kind...)
	sum := sha256.Sum256(b)
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
}

// Perturber makes the rule-based query perturbations. The zero value works
// for char and qwerty; wordnet needs WordNet (nil: ErrUnavailable).
type Perturber struct {
	// WordNet is the synonym dictionary of the wordnet kind.
	WordNet *WordNet
	// similarity is the wordnet kind's embedding floor (synonym_floor.go);
	// nil: the rules alone.
	similarity *synonymFloor
	// notes counts PRGB's noise shortfalls (placeholder.go).
	notes *prgbNotes
}

// WordsToChange is the number of words a query perturbation changes:
// max(floor(0.1 × words), 1), TextAttack's pct_words_to_swap = 0.1.
func WordsToChange(words int) int { return max(words/10, 1) }

// Query perturbs query with kind, seeded by (questionID, kind). It changes up
// to WordsToChange words, never a stopword, never a word of an accepted
// answer, never the same word twice and, for wordnet, never a capitalized
// word after the first (a name), visiting the eligible words in a
// seeded random order as the reference augmenter does. It returns
// ErrNoCandidate when nothing could be changed, ErrAnswerLeak when the result
// would give the answer away, and an error wrapping ErrUnavailable when the
// kind's resources are missing.
func (p *Perturber) Query(kind, questionID, query string, accepted []string) (string, error) {
	return p.query(kind, questionID, newQueryWords(query, text.NewAnswers(accepted), accepted))
}

// queryWords is the part of Query that does not depend on the kind: the
// stage makes every kind of one question, and splitting the query, judging
// each word against the answers and checking the original for the answer
// once instead of per kind is most of Query's cost.
type queryWords struct {
	text    string
	words   []word
	skip    []bool // words[i] is a stopword or (part of) an accepted answer
	answers *text.Answers
	leaks   int8 // 0 unknown, 1 text holds no answer, 2 it does (see hasAnswer)
	// syn is the wordnet kind's analysis (synonym.go), made on first use.
	syn *synonymWords
}

func newQueryWords(query string, answers *text.Answers, accepted []string) *queryWords {
	q := &queryWords{text: query, words: splitWords(query), answers: answers}
	q.skip = make([]bool, len(q.words))
	answer := answerWords(accepted)
	anchor := len(query)
	if loc := timeAnchor.FindStringIndex(query); loc != nil {
		anchor = loc[0]
	}
	for i, w := range q.words {
		q.skip[i] = isStopword(w.text) || isAnswerWord(w.text, answer) || w.start >= anchor || hasDigit(w.text)
	}
	return q
}

// timeAnchor is the period a question template appends ("…, as reported in
// April 2026?", "… as of April 2026?"). It is not part of what the user
// asks but of what the question means: a typo that turns 2026 into 206, or
// a synonym of "reported", would ask about another period or break the
// phrase, not test robustness to a noisy query. Words with digits are kept
// for the same reason ("Q3 2025", "$4.2 billion", "v2.39").
var timeAnchor = regexp.MustCompile(`(?i)(?:,\s*as reported in|\bas of)\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}\s*\?\s*$`)

func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// hasAnswer reports whether the unperturbed query already holds an accepted
// answer. It is computed on first use: only a variant that holds one asks.
func (q *queryWords) hasAnswer() bool {
	if q.leaks == 0 {
		q.leaks = 1
		if q.answers.TokenSeq(q.text) {
			q.leaks = 2
		}
	}
	return q.leaks == 2
}

// query is Query with the kind-independent work done.
func (p *Perturber) query(kind, questionID string, q *queryWords) (string, error) {
	words := q.words
	var change func(i int, rng *rand.Rand) (string, bool)
	switch kind {
	case KindChar:
		change = func(i int, rng *rand.Rand) (string, bool) { return charChange(words[i].text, rng) }
	case KindQWERTY:
		change = func(i int, rng *rand.Rand) (string, bool) { return qwertyChange(words[i].text, rng) }
	case KindWordNet:
		if p.WordNet == nil {
			return "", fmt.Errorf("%w: no WordNet dictionary configured", ErrUnavailable)
		}
		if err := p.WordNet.Available(); err != nil {
			return "", err
		}
		change = func(i int, rng *rand.Rand) (string, bool) { return p.synonymChange(q, i, rng) }
	default:
		return "", fmt.Errorf("%w: %q", ErrUnknownKind, kind)
	}

	var eligible []int
	for i := range words {
		if q.skip[i] {
			continue
		}
		if kind == KindWordNet && !p.WordNet.synonymEligible(q.text, words, q.synonymWords(p.WordNet), i) {
			// Names, code, quoted titles, the question's subject, noun
			// compounds and collocations keep their words (synonym.go).
			continue
		}
		eligible = append(eligible, i)
	}
	rng := NewRand(questionID, kind)
	rng.Shuffle(len(eligible), func(i, j int) { eligible[i], eligible[j] = eligible[j], eligible[i] })

	n := WordsToChange(len(words))
	repl := make(map[int]string, n)
	for _, i := range eligible {
		if len(repl) == n {
			break
		}
		if r, ok := change(i, rng); ok && r != words[i].text {
			repl[i] = r
		}
	}
	if len(repl) == 0 {
		return "", ErrNoCandidate
	}
	out := replaceWords(q.text, words, repl)
	if q.answers.TokenSeq(out) && !q.hasAnswer() {
		return "", ErrAnswerLeak
	}
	return out, nil
}

// namesVersion reports whether word i is followed, after one space, by a
// word that starts with a digit: "make 4.3", "tar 1.34".
func namesVersion(text string, words []word, i int) bool {
	if i+1 >= len(words) || text[words[i].end:words[i+1].start] != " " {
		return false
	}
	r, _ := utf8.DecodeRuneInString(words[i+1].text)
	return unicode.IsDigit(r)
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

const asciiLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// charChange applies one of TextAttack's CharSwap operations to w, trying
// them in a seeded order until one changes the word (an outcome equal to the
// input is discarded, e.g. swapping the two l of "all").
func charChange(w string, rng *rand.Rand) (string, bool) {
	rs := []rune(w)
	letter := func() rune { return rune(asciiLetters[rng.IntN(len(asciiLetters))]) }
	for _, op := range rng.Perm(4) {
		var out []rune
		switch op {
		case 0: // neighbouring swap of w[i] and w[i+1]
			if len(rs) < 2 {
				continue
			}
			i := rng.IntN(len(rs) - 1)
			out = append([]rune(nil), rs...)
			out[i], out[i+1] = out[i+1], out[i]
		case 1: // deletion; never of a one-letter word, which would vanish
			if len(rs) < 2 {
				continue
			}
			i := rng.IntN(len(rs))
			out = append(append([]rune(nil), rs[:i]...), rs[i+1:]...)
		case 2: // insertion of a random ASCII letter before w[i]
			i := rng.IntN(len(rs))
			out = append(append(append([]rune(nil), rs[:i]...), letter()), rs[i:]...)
		case 3: // substitution by a random ASCII letter
			i := rng.IntN(len(rs))
			out = append([]rune(nil), rs...)
			out[i] = letter()
		}
		if s := string(out); s != w {
			return s, true
		}
	}
	return "", false
}

// qwertyNeighbours is the keyboard-neighbour map of docs/methods.md, Query
// perturbations (TextAttack's WordSwapQWERTY), lowercase.
var qwertyNeighbours = map[rune]string{
	'q': "was", 'w': "qeasd", 'e': "wsdfr", 'r': "edfgt", 't': "rfghy", 'y': "tghju",
	'u': "yhjki", 'i': "ujklo", 'o': "iklp", 'p': "ol",
	'a': "qwszx", 's': "qweadzx", 'd': "werfcxs", 'f': "ertgvcd", 'g': "rtyhbvd",
	'h': "tyugjbn", 'j': "yuikmnh", 'k': "uiolmj", 'l': "iopk",
	'z': "asx", 'x': "sdzc", 'c': "xdfv", 'v': "cfgb", 'b': "vghn", 'm': "njk",
}

// qwertyChange replaces one letter of w by a random keyboard neighbour,
// keeping uppercase letters uppercase. Digits, punctuation and letters off
// the map (including 'n', which the reference map lacks, and non-ASCII
// letters) are never chosen.
func qwertyChange(w string, rng *rand.Rand) (string, bool) {
	rs := []rune(w)
	var pos []int
	for i, r := range rs {
		if _, ok := qwertyNeighbours[unicode.ToLower(r)]; ok {
			pos = append(pos, i)
		}
	}
	if len(pos) == 0 {
		return "", false
	}
	i := pos[rng.IntN(len(pos))]
	nb := qwertyNeighbours[unicode.ToLower(rs[i])]
	r := rune(nb[rng.IntN(len(nb))])
	if unicode.IsUpper(rs[i]) {
		r = unicode.ToUpper(r)
	}
	rs[i] = r
	return string(rs), true
}
