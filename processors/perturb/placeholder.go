package perturb

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
)

// PRGB's placeholder variants (PRGB §"Dynamic placeholder substitution",
// Algorithm 1). Each variant swaps the answer's value, in every golden
// context and in the expected answer, for another value of the same type
// that the model cannot know from its parameters, and adds noise
// documents of three levels drawn from the knowledge graph around the
// question (schemas.PRGBFacts), resampled for each variant and shuffled
// with the golden contexts. A model that answers from the contexts gets
// every variant right; one that answers from memory gets them wrong.
//
// Defaults follow the paper's main experiments (§"Experimental setup"):
// 3 placeholder variants per data point, 4 weak + 4 moderate + 1 hard
// noise documents per variant.
const (
	DefaultPlaceholders = 3
	NoiseWeak           = 4
	NoiseModerate       = 4
	NoiseHard           = 1
)

// KindPlaceholder is the prefix of the placeholder kinds: placeholder_1 …
// placeholder_k, one manifest slot each.
const KindPlaceholder = "placeholder"

// Why a placeholder variant cannot be made (skip reasons).
var (
	ErrNoPlaceholder   = errors.New("no type-matched substitute for the answer's value")
	ErrValueNotWritten = errors.New("the answer's value is not written verbatim in a golden context")
	ErrValueRemains    = errors.New("the original value remains in a golden context after substitution")
)

// Noise shortfalls: the variant is made, with fewer noise documents than
// asked; counted by Shortfalls (not SkipReasons: nothing was skipped),
// never filled with made-up documents.
const (
	noteNoHard   = "noise: no hard distractor (the graph has no conflicting parent fact)"
	noteFewWeak  = "noise: fewer weak distractors than asked (graph too small)"
	noteFewMod   = "noise: fewer moderate distractors than asked (no sibling facts)"
	noteDropped  = "noise: distractor dropped, it holds an accepted or the original answer"
	noteNoFacts  = "noise: question carries no graph facts"
	prgbAttempts = 24
)

// PlaceholderKinds returns the k placeholder kinds of PRGB (k ≤ 0:
// DefaultPlaceholders), each declaring the prgb family.
func PlaceholderKinds(k int) []Kind {
	if k <= 0 {
		k = DefaultPlaceholders
	}
	out := make([]Kind, k)
	for i := range out {
		i := i
		out[i] = Kind{Axis: schemas.AxisPlaceholder, Name: fmt.Sprintf("%s_%d", KindPlaceholder, i+1),
			Families: []string{schemas.FamilyPRGB},
			Make: func(p *Perturber, in *Input) (Made, error) {
				return p.placeholder(in, i, k)
			}}
	}
	return out
}

// prgbNotes counts noise shortfalls per kind.
type prgbNotes struct {
	mu sync.Mutex
	n  map[string]map[string]int64
}

func (n *prgbNotes) add(kind, note string, c int64) {
	if n == nil || c == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.n == nil {
		n.n = map[string]map[string]int64{}
	}
	if n.n[kind] == nil {
		n.n[kind] = map[string]int64{}
	}
	n.n[kind][note] += c
}

func (n *prgbNotes) snapshot() map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	if n == nil {
		return out
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for k, m := range n.n {
		out[k] = map[string]int64{}
		for r, c := range m {
			out[k][r] = c
		}
	}
	return out
}

// Shortfalls returns, per placeholder kind, the noise documents it could
// not add and why (the graph had no conflicting parent fact, a candidate
// held an accepted answer and was dropped, …), since the stage started.
func (s *Stage) Shortfalls() map[string]map[string]int64 { return s.perturber.notes.snapshot() }

// placeholder makes variant i of k of in's question.
func (p *Perturber) placeholder(in *Input, i, k int) (Made, error) {
	q := in.Question
	name := fmt.Sprintf("%s_%d", KindPlaceholder, i+1)
	values := placeholderValues(q, in.seedKey(), in.Answers, k)
	if i >= len(values) {
		return Made{}, ErrNoPlaceholder
	}
	value := values[i]
	golden, err := substitute(q.GTChunks, q.Accepted(), value)
	if err != nil {
		return Made{}, err
	}
	// Expected answer: the substituted value as one keyword of PRGB's
	// expression syntax (text.ParseExpr), quoted when it holds an
	// operator; the original's aliases describe the old value and go.
	expected := text.QuoteKeyword(value)
	noise := p.noise(q, in.seedKey(), name, i, in.Answers, text.NewAnswers([]string{value}))
	docs := append(slices.Clone(golden), noise...)
	shuffle(docs, schemas.ID(in.seedKey(), name, "shuffle"))
	return Made{Query: q.Question, Contexts: docs, AnswerAvailable: true, Expected: expected}, nil
}

// noise draws variant i's noise documents: NoiseWeak, NoiseModerate and
// NoiseHard of q's graph facts, by a hash of the question, the variant
// and the fact, so each variant gets its own sample (PRGB resamples noise
// per placeholder). A fact holding the original answer or the variant's
// accepted answer is dropped and counted: noise must not answer the
// question, nor leak the value the placeholder hides.
func (p *Perturber) noise(q *schemas.Question, seedKey, kind string, i int, original, substituted *text.Answers) []string {
	f := q.PRGB
	if f == nil {
		p.notes.add(kind, noteNoFacts, 1)
		return nil
	}
	var out []string
	for _, lv := range []struct {
		name  string
		pool  []string
		n     int
		short string
	}{{"weak", f.Weak, NoiseWeak, noteFewWeak}, {"moderate", f.Moderate, NoiseModerate, noteFewMod}, {"hard", f.Hard, NoiseHard, noteNoHard}} {
		pool := slices.Clone(lv.pool)
		seed := schemas.ID(seedKey, kind, lv.name)
		slices.SortFunc(pool, func(a, b string) int { return strings.Compare(schemas.ID(seed, a), schemas.ID(seed, b)) })
		got := 0
		for _, doc := range pool {
			if got == lv.n {
				break
			}
			if original.TokenSeq(doc) || substituted.TokenSeq(doc) {
				p.notes.add(kind, noteDropped, 1)
				continue
			}
			out = append(out, doc)
			got++
		}
		p.notes.add(kind, lv.short, int64(lv.n-got))
	}
	return out
}

// shuffle permutes docs by the hash of seed and each document: a
// deterministic order that does not put the golden contexts first.
func shuffle(docs []string, seed string) {
	slices.SortStableFunc(docs, func(a, b string) int { return strings.Compare(schemas.ID(seed, a), schemas.ID(seed, b)) })
}

// substitute replaces every written occurrence of an accepted answer in
// the contexts by value and checks the result: no context still holds an
// accepted answer (under the judge's normalization), and one holds value.
func substitute(contexts, accepted []string, value string) ([]string, error) {
	forms := slices.Clone(accepted)
	// Longest first, so "$1.31 billion" is replaced before "1.31 billion".
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	out := make([]string, len(contexts))
	for i, c := range contexts {
		for _, f := range forms {
			c = replaceWord(c, strings.TrimSpace(f), value)
		}
		out[i] = c
	}
	old := text.NewAnswers(accepted)
	found := false
	for _, c := range out {
		if old.TokenSeq(c) {
			return nil, ErrValueRemains
		}
		found = found || text.TokenSeq(c, []string{value})
	}
	if !found {
		return nil, ErrValueNotWritten
	}
	return out, nil
}

// replaceWord replaces the case-insensitive occurrences of old in s that
// do not start or end inside a word.
func replaceWord(s, old, repl string) string {
	if old == "" {
		return s
	}
	lower, lo := strings.ToLower(s), strings.ToLower(old)
	if len(lower) != len(s) {
		// Case folding changed byte lengths (rare scripts): match exactly.
		lower, lo = s, old
	}
	var b strings.Builder
	last := 0
	for from := 0; ; {
		j := strings.Index(lower[from:], lo)
		if j < 0 {
			break
		}
		j += from
		end := j + len(lo)
		if wordAt(s, j, true) || wordAt(s, end, false) {
			from = j + 1
			continue
		}
		b.WriteString(s[last:j])
		b.WriteString(repl)
		last, from = end, end
	}
	b.WriteString(s[last:])
	return b.String()
}

// wordAt reports whether the boundary at byte i of s is inside a word: a
// letter or digit on both sides.
func wordAt(s string, i int, start bool) bool {
	if i <= 0 || i >= len(s) {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i:])
	isW := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	return isW(before) && isW(after)
}

// placeholderValues returns up to k distinct substitutes for q's answer,
// of its type: a date for a date, a figure with the same prefix, decimals
// and unit for a figure (money, percentages, counts), else another value
// of the answer's relation from the graph (schemas.PRGBFacts.Candidates).
// None equals an accepted answer after normalization, and none is already
// written in a golden context (the context would then state the new
// answer twice, for two facts).
func placeholderValues(q *schemas.Question, seedKey string, answers *text.Answers, k int) []string {
	var out []string
	ok := func(v string) bool {
		if v == "" || answers.TokenSeq(v) || text.NewAnswers([]string{v}).TokenSeq(q.Answer) {
			return false
		}
		for _, o := range out {
			if text.Normalize(o) == text.Normalize(v) {
				return false
			}
		}
		for _, c := range q.GTChunks {
			if text.TokenSeq(c, []string{v}) {
				return false
			}
		}
		return true
	}
	answer := strings.TrimSpace(q.Answer)
	gen := generator(answer)
	if gen == nil {
		if q.PRGB == nil {
			return nil
		}
		cands := slices.Clone(q.PRGB.Candidates)
		seed := schemas.ID(seedKey, "candidates")
		slices.SortFunc(cands, func(a, b string) int { return strings.Compare(schemas.ID(seed, a), schemas.ID(seed, b)) })
		for _, c := range cands {
			if len(out) < k && shapeOf(c) == shapeOf(answer) && ok(c) {
				out = append(out, c)
			}
		}
		return out
	}
	for i := 0; len(out) < k && i < k*prgbAttempts; i++ {
		if v := gen(schemas.ID(seedKey, KindPlaceholder, strconv.Itoa(i))); ok(v) {
			out = append(out, v)
		}
	}
	return out
}

// rnd draws a float in [0, 1) from a hex hash.
func rnd(seed string, salt int) float64 {
	h := schemas.ID(seed, strconv.Itoa(salt))
	v, _ := strconv.ParseUint(h[:12], 16, 64)
	return float64(v) / float64(uint64(1)<<48)
}

var (
	months     = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	monthDate  = regexp.MustCompile(`^(?i)(\d{1,2} )?(january|february|march|april|may|june|july|august|september|october|november|december)( \d{1,2},)? (\d{4})$`)
	quarterRe  = regexp.MustCompile(`^(Q)([1-4]) (\d{4})$`)
	yearRe     = regexp.MustCompile(`^(1[89]\d\d|20\d\d)$`)
	isoDate    = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	figureRe   = regexp.MustCompile(`^([^\d\s]*)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(.*)$`)
	hasDigitRe = regexp.MustCompile(`\d`)
)

// generator returns the generator of substitutes for a date or figure
// answer (nil for anything else: a name, from the graph). A generator maps
// a seed to a value of the answer's exact form.
func generator(answer string) func(seed string) string {
	if m := monthDate.FindStringSubmatch(answer); m != nil {
		year, _ := strconv.Atoi(m[4])
		mon := slices.IndexFunc(months, func(s string) bool { return strings.EqualFold(s, m[2]) })
		return func(seed string) string {
			// Another month within two years either side.
			shift := 1 + int(rnd(seed, 0)*23)
			if rnd(seed, 1) < 0.5 {
				shift = -shift
			}
			t := year*12 + mon + shift
			return m[1] + months[t%12] + m[3] + " " + strconv.Itoa(t/12)
		}
	}
	if m := quarterRe.FindStringSubmatch(answer); m != nil {
		qn, _ := strconv.Atoi(m[2])
		year, _ := strconv.Atoi(m[3])
		return func(seed string) string {
			t := year*4 + qn - 1 + 1 + int(rnd(seed, 0)*7)
			if rnd(seed, 1) < 0.5 {
				t = year*4 + qn - 1 - 1 - int(rnd(seed, 0)*7)
			}
			return fmt.Sprintf("Q%d %d", t%4+1, t/4)
		}
	}
	if yearRe.MatchString(answer) {
		year, _ := strconv.Atoi(answer)
		return func(seed string) string {
			d := 1 + int(rnd(seed, 0)*6)
			if rnd(seed, 1) < 0.5 {
				d = -d
			}
			return strconv.Itoa(year + d)
		}
	}
	if m := isoDate.FindStringSubmatch(answer); m != nil {
		year, _ := strconv.Atoi(m[1])
		return func(seed string) string {
			return fmt.Sprintf("%04d-%02d-%02d", year+int(rnd(seed, 0)*5)-2, 1+int(rnd(seed, 1)*12), 1+int(rnd(seed, 2)*28))
		}
	}
	m := figureRe.FindStringSubmatch(answer)
	if m == nil || hasDigitRe.MatchString(m[4]) {
		return nil // no figure, or several (a range, "3 of 4")
	}
	prefix, intPart, frac, unit := m[1], m[2], m[3], m[4]
	grouped := strings.Contains(intPart, ",")
	v, err := strconv.ParseFloat(strings.ReplaceAll(intPart, ",", "")+frac, 64)
	if err != nil {
		return nil
	}
	decimals := max(len(frac)-1, 0)
	percent := strings.HasPrefix(strings.TrimSpace(unit), "%") || strings.HasPrefix(strings.TrimSpace(strings.ToLower(unit)), "percent")
	return func(seed string) string {
		var n float64
		switch {
		case decimals == 0 && v < 20:
			// Small counts: another small count, never zero.
			n = float64(1 + int(rnd(seed, 0)*max(2*v, 9)))
		default:
			// 0.55–0.9 or 1.1–1.6 times the value: plausible, and far
			// enough not to round back to it.
			f := 0.55 + rnd(seed, 0)*0.35
			if rnd(seed, 1) < 0.5 {
				f = 1.1 + rnd(seed, 0)*0.5
			}
			n = v * f
		}
		if percent && v <= 100 && n >= 100 {
			n = v * (0.55 + rnd(seed, 2)*0.35)
		}
		p := math.Pow(10, float64(decimals))
		n = math.Round(n*p) / p
		return prefix + formatFigure(n, decimals, grouped) + unit
	}
}

// formatFigure writes n with decimals places, grouping thousands with
// commas when the original did.
func formatFigure(n float64, decimals int, grouped bool) string {
	s := strconv.FormatFloat(n, 'f', decimals, 64)
	if !grouped {
		return s
	}
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// prgbSkipReason labels the placeholder kinds' errors (skipReason).
func prgbSkipReason(err error) string {
	for _, known := range []error{ErrNoPlaceholder, ErrValueNotWritten, ErrValueRemains} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	return ""
}

// shapeOf is the coarse class of a value, which a substitute must share:
// a relation's values in the graph mix kinds ("appointed Mateo Haddad",
// "hired 314 technicians"), and a person's name swapped for a head count
// would make the golden context incoherent. "figure" when it holds a
// digit, "name" when every word is capitalized (short function words
// aside), else "phrase".
func shapeOf(v string) string {
	if hasDigitRe.MatchString(v) {
		return "figure"
	}
	for _, w := range strings.Fields(v) {
		switch strings.ToLower(w) {
		case "of", "the", "and", "for", "de", "van", "von", "&":
			continue
		}
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
			return "phrase"
		}
	}
	return "name"
}
