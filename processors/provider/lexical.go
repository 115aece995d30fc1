package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/text"
)

// DefaultThreshold is the share of the question's content words a sentence
// must match before the lexical reader answers from it.
const DefaultThreshold = 0.5

// LexicalOptions configures a lexical reader.
type LexicalOptions struct {
	// Threshold in (0, 1] is the minimum overlap score of the best sentence;
	// below it the reader refuses. Zero means DefaultThreshold.
	Threshold float64
}

// Lexical is the built-in extractive reader, a baseline, not an LLM. It
// scores every context sentence by the share of the question's content words
// it contains (exact stem: full credit; a shared prefix of most of the word:
// half credit, so a typo in the middle of a word hurts a little and one at
// its start hurts fully), refuses with RefusalText when the best score
// is under the threshold or there is no context (closed book: it knows
// nothing), and otherwise answers with the span of the best sentence that the
// question does not already contain.
type Lexical struct {
	id        string
	threshold float64

	mu    sync.Mutex
	cache map[string][][]token // context → tokenized sentences
}

// NewLexical returns a lexical reader with the given id, applying defaults
// and validating opts.
func NewLexical(id string, opts LexicalOptions) (*Lexical, error) {
	if id == "" {
		return nil, errors.New("lexical reader: empty id")
	}
	if opts.Threshold == 0 {
		opts.Threshold = DefaultThreshold
	}
	if opts.Threshold < 0 || opts.Threshold > 1 {
		return nil, fmt.Errorf("lexical reader %s: threshold %v not in (0, 1]", id, opts.Threshold)
	}
	return &Lexical{id: id, threshold: opts.Threshold}, nil
}

// ID implements Model.
func (l *Lexical) ID() string { return l.id }

// Baseline reports true: the lexical reader is a baseline, not an LLM.
func (l *Lexical) Baseline() bool { return true }

// Threshold returns the reader's overlap threshold.
func (l *Lexical) Threshold() float64 { return l.threshold }

// Answer implements Model. It is deterministic and never fails except on a
// cancelled context.
func (l *Lexical) Answer(ctx context.Context, q Query) (Answer, error) {
	query, contexts := q.Question, q.Contexts
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	in := len(strings.Fields(query))
	for _, c := range contexts {
		in += len(strings.Fields(c))
	}
	text := l.answer(query, contexts)
	return Answer{Text: text, TokensIn: in, TokensOut: len(strings.Fields(text))}, nil
}

func (l *Lexical) answer(query string, contexts []string) string {
	q := newQuestionTerms(query)
	if len(q.content) == 0 {
		return RefusalText
	}
	var best []token
	bestScore := -1.0
	for _, c := range contexts {
		for _, toks := range l.tokenized(c) {
			if sc := q.score(toks); sc > bestScore {
				best, bestScore = toks, sc
			}
		}
	}
	if best == nil || bestScore < l.threshold {
		return RefusalText
	}
	if span := q.span(best); span != "" {
		return span
	}
	return RefusalText
}

// maxCachedContexts bounds the tokenized-context cache. The fan-out asks
// every model every variant of a question, so the same context comes back
// several times in a row; a small cache catches that.
const maxCachedContexts = 2048

// tokenized returns the tokenized sentences of a context, cached. The
// slices are shared and must not be modified.
func (l *Lexical) tokenized(c string) [][]token {
	l.mu.Lock()
	if toks, ok := l.cache[c]; ok {
		l.mu.Unlock()
		return toks
	}
	l.mu.Unlock()
	var toks [][]token
	// Every line on its own (text.EveryLine): chunk lines are table rows
	// and list items as often as wrapped prose, and candidates need not be
	// exact sentences.
	for _, s := range text.Sentences(c, text.SentenceOptions{Layout: text.EveryLine}) {
		toks = append(toks, tokenize(s.Text))
	}
	l.mu.Lock()
	if len(l.cache) >= maxCachedContexts {
		clear(l.cache) // crude but bounded; a miss costs one tokenization
	}
	if l.cache == nil {
		l.cache = map[string][][]token{}
	}
	l.cache[c] = toks
	l.mu.Unlock()
	return toks
}

// token is a word of a sentence with its surface text, its matching key and
// whether a clause break (comma, semicolon, colon, bracket, dash) follows.
type token struct {
	text  string // surface form, kept for the answer
	key   string // lowercase, possessive and edge punctuation removed
	stem  string // key with common inflections stripped, for matching
	brk   bool
	punct bool // no letter or digit at all
}

// tokenize splits a sentence on whitespace, keeping inner punctuation
// ("$4.2", "Corp's", "e-mail"), leading currency and number signs and a
// trailing percent, and dropping other punctuation at the edges.
func tokenize(s string) []token {
	var out []token
	for _, f := range strings.Fields(s) {
		core := strings.TrimLeftFunc(f, func(r rune) bool { return !isAlnum(r) && !isCurrency(r) })
		if lead := f[:len(f)-len(core)]; lead != "" && strings.ContainsAny(lead[len(lead)-1:], "+-") && core != "" && unicode.IsDigit([]rune(core)[0]) {
			core = f[len(lead)-1:] // keep the sign of "-0.2%"
		}
		trimmed := strings.TrimRightFunc(core, func(r rune) bool { return !isAlnum(r) && r != '%' })
		tail := core[len(trimmed):]
		if strings.ContainsAny(f[:len(f)-len(core)], "([") && len(out) > 0 {
			out[len(out)-1].brk = true // an opening bracket ends the clause before it
		}
		t := token{text: trimmed, brk: strings.ContainsAny(tail, ",;:()[]—–")}
		if trimmed == "" {
			t.punct, t.brk = true, true
			out = append(out, t)
			continue
		}
		t.key = keyOf(trimmed)
		t.stem = stem(t.key)
		out = append(out, t)
	}
	return out
}

func isAlnum(r rune) bool    { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func isCurrency(r rune) bool { return unicode.Is(unicode.Sc, r) }

// keyOf lowercases w, drops a possessive 's and the punctuation at its edges
// ("Corp's" → "corp", "$4.2" → "4.2").
func keyOf(w string) string {
	k := strings.ToLower(w)
	for _, p := range []string{"'s", "’s"} {
		k = strings.TrimSuffix(k, p)
	}
	return strings.TrimFunc(k, func(r rune) bool { return !isAlnum(r) })
}

// stem strips the commonest English inflections so that "appointed" meets
// "appoint" and "revenues" meets "revenue". It is deliberately crude: a
// baseline should not be smarter than word overlap.
func stem(k string) string {
	for _, suf := range []string{"ies", "ing", "ed", "es", "s"} {
		if strings.HasSuffix(k, suf) && utf8.RuneCountInString(k)-len(suf) >= 3 && !strings.HasSuffix(k, "ss") {
			k = strings.TrimSuffix(k, suf)
			if suf == "ies" {
				k += "y"
			}
			break
		}
	}
	if utf8.RuneCountInString(k) > 3 {
		k = strings.TrimSuffix(k, "e")
	}
	return k
}

// questionTerms is what the reader keeps of a question.
type questionTerms struct {
	content []string        // stems of the content words, deduplicated
	keys    map[string]bool // keys of every question word, stopwords included
	// asksAdjunct: the question asks for a time or a place ("when",
	// "where", "in which city", "what year").
	asksAdjunct bool
	// counted holds the keys of the noun phrase of "how many … did": the
	// unit an answer count carries.
	counted map[string]bool
}

func newQuestionTerms(query string) questionTerms {
	q := questionTerms{keys: map[string]bool{}, counted: map[string]bool{}}
	seen := map[string]bool{}
	toks := tokenize(query)
	for i := 1; i < len(toks); i++ {
		if toks[i-1].key != "how" || toks[i].key != "many" {
			continue
		}
		for _, t := range toks[i+1:] {
			if t.punct || auxiliaries[t.key] || t.key == "did" || t.key == "do" || t.key == "does" {
				break
			}
			q.counted[t.key] = true
		}
	}
	for i, t := range toks {
		if t.punct {
			continue
		}
		if t.key == "when" || t.key == "where" || i == 0 && adjunctPreps[t.key] || adjunctNouns[t.key] && i > 0 && (toks[i-1].key == "what" || toks[i-1].key == "which") {
			q.asksAdjunct = true
		}
		q.keys[t.key] = true
		if isStopword(t.key) || seen[t.stem] {
			continue
		}
		seen[t.stem] = true
		q.content = append(q.content, t.stem)
	}
	return q
}

// adjunctNouns after "what"/"which" ask for a time or a place.
var adjunctNouns = map[string]bool{
	"year": true, "date": true, "day": true, "month": true, "quarter": true, "time": true,
	"city": true, "country": true, "place": true, "location": true, "state": true, "region": true,
}

// match is the credit a sentence word earns for a question stem: 1 for the
// same stem, 0.5 when they share a prefix of at least four letters covering
// three quarters of the shorter one (a typo late in the word), else 0.
func match(qstem, sstem string) float64 {
	if qstem == sstem {
		return 1
	}
	// Common prefix in runes, without converting either string (this runs
	// for every question word × sentence word).
	p, i, j := 0, 0, 0
	for i < len(qstem) && j < len(sstem) {
		a, wa := utf8.DecodeRuneInString(qstem[i:])
		b, wb := utf8.DecodeRuneInString(sstem[j:])
		if a != b {
			break
		}
		p, i, j = p+1, i+wa, j+wb
	}
	if p < 4 {
		return 0
	}
	n := min(utf8.RuneCountInString(qstem), utf8.RuneCountInString(sstem))
	if 4*p >= 3*n {
		return 0.5
	}
	return 0
}

// score is the mean best credit of the question's content words in toks.
func (q questionTerms) score(toks []token) float64 {
	total := 0.0
	for _, c := range q.content {
		best := 0.0
		for _, t := range toks {
			if !t.punct {
				best = max(best, match(c, t.stem))
			}
		}
		total += best
	}
	return total / float64(len(q.content))
}

// inQuestion reports whether a sentence word restates the question.
func (q questionTerms) inQuestion(t token) bool {
	if q.keys[t.key] {
		return true
	}
	for _, c := range q.content {
		if match(c, t.stem) > 0 {
			return true
		}
	}
	return false
}

// run is a candidate answer: tokens [from, to) of a sentence.
type run struct {
	from, to int
	adjunct  bool // introduced by a preposition of time or place ("in March")
}

// span returns the answer in toks. Candidates are the runs of words the
// question does not contain, split at clause breaks and before prepositions
// of time and place, with stopwords trimmed at both ends. The best candidate
// is, in this order of weight: entity-like (a digit or a capitalized word:
// the answers of generated questions are names, amounts and dates); of the
// kind the question asks for (a time or place adjunct for "when"/"where",
// otherwise not an adjunct); after the sentence's verb, since questions ask
// for the object or complement of that verb ("appointed Maria Lopez", "was
// $4.2 billion"); then the earliest. The verb is the question's own verb
// in past form if the sentence has it, else the first auxiliary or copula.
func (q questionTerms) span(toks []token) string {
	in := make([]bool, len(toks))
	verb, aux := -1, -1
	ownVerb := false
	for i, t := range toks {
		in[i] = t.punct || q.inQuestion(t)
		switch {
		case t.punct:
		case verb < 0 && in[i] && strings.HasSuffix(t.key, "ed"):
			verb, ownVerb = i, true // the question's verb, inflected: "appoint" → "appointed"
		case aux < 0 && auxiliaries[t.key]:
			aux = i
		}
	}
	if verb < 0 {
		verb = aux
	}

	var runs []run
	for i := 0; i < len(toks); {
		if in[i] {
			i++
			continue
		}
		j := i + 1
		for j < len(toks) && !in[j] && !toks[j-1].brk && !adjunctPreps[toks[j].key] {
			j++
		}
		r := run{from: i, to: j, adjunct: adjunctPreps[toks[i].key]}
		if i > 0 && !in[i-1] && adjunctPreps[toks[i-1].key] {
			r.adjunct = true
		}
		for r.from < r.to && isStopword(toks[r.from].key) {
			r.from++
		}
		for r.to > r.from && isStopword(toks[r.to-1].key) {
			r.to--
		}
		if r.from < r.to {
			runs = append(runs, r)
		}
		i = j
	}

	best, bestScore := -1, -1
	for k, r := range runs {
		sc := 0
		if entityLike(toks[r.from:r.to]) {
			sc += 4
			// "fell to 3.9%": the words before the first name or number
			// are a predicate the question did not use, not the answer.
			// Right after the question's own verb they are its object
			// ("reported revenue of $1.1 billion") and stay.
			if !(ownVerb && r.from == verb+1) {
				for !entityLike(toks[r.from : r.from+1]) {
					r.from++
				}
				runs[k] = r
			}
		}
		if r.adjunct == q.asksAdjunct {
			sc += 2
		}
		if verb >= 0 && r.from > verb {
			sc++
		}
		if sc > bestScore {
			best, bestScore = k, sc
		}
	}
	if best < 0 {
		return ""
	}
	r := runs[best]
	// "How many people …?" is answered "12,285 people", not "12,285": the
	// counted noun follows the number even though the question names it.
	for r.to < len(toks) && q.counted[toks[r.to].key] && !toks[r.to-1].brk {
		r.to++
	}
	words := make([]string, 0, r.to-r.from)
	for _, t := range toks[r.from:r.to] {
		words = append(words, t.text)
	}
	return strings.Join(words, " ")
}

// entityLike reports whether a run holds a digit or a capitalized word.
func entityLike(toks []token) bool {
	for _, t := range toks {
		r, _ := utf8.DecodeRuneInString(t.text)
		if unicode.IsUpper(r) || strings.IndexFunc(t.text, unicode.IsDigit) >= 0 {
			return true
		}
	}
	return false
}

// adjunctPreps introduce time and place adjuncts; a run starts at each.
var adjunctPreps = map[string]bool{
	"in": true, "on": true, "at": true, "for": true, "during": true, "since": true, "until": true,
	"from": true, "by": true, "after": true, "before": true, "within": true, "through": true, "near": true,
}

// auxiliaries are verbs that introduce the answer in the sentences questions
// are made from ("revenue … was $4.2 billion").
var auxiliaries = map[string]bool{
	"is": true, "was": true, "are": true, "were": true, "be": true, "been": true,
	"has": true, "had": true, "have": true, "will": true, "became": true, "becomes": true,
	"remains": true, "remained": true, "totaled": true, "totalled": true, "reached": true,
}

// isStopword reports whether a word key is a function word, which the reader
// ignores when scoring and trims off answers. The breadth is the function
// words with the question words: they never occur in the answer sentence.
// A broader one would also drop words such as "one", "last" or "more" that
// answers are made of.
func isStopword(key string) bool { return text.IsStopword(key, text.StopFunction) }
