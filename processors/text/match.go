package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The three lexical matchers (docs/methods.md, Answer matching and refusal
// detection): exact, covered (substring) and token sequence. The judge of the infer stage
// (processors/reader) picks one per run; the question checks and the
// answer-removed perturbation call them directly, so that all three agree on
// what "contains the answer" means.

// Exact reports whether the normalized prediction equals a normalized
// accepted answer (max over answers, as in SQuAD). Accepted answers that
// normalize to nothing are ignored, so that "The" cannot match an empty
// prediction.
func Exact(prediction string, accepted []string) bool {
	p := Normalize(prediction)
	for _, a := range accepted {
		if n := Normalize(a); n != "" && n == p {
			return true
		}
	}
	return false
}

// Covered reports whether a normalized accepted answer is a substring of the
// normalized prediction. It is the reference behaviour and keeps its known
// weakness ("art" is covered by "party"); prefer TokenSeq.
func Covered(prediction string, accepted []string) bool {
	return NewAnswers(accepted).Covered(prediction)
}

// TokenSeq reports whether the tokens of a normalized accepted answer occur as
// a contiguous run of the normalized prediction's tokens (see Tokens).
func TokenSeq(prediction string, accepted []string) bool {
	return NewAnswers(accepted).TokenSeq(prediction)
}

// Answers are accepted answers normalized once, for callers that match many
// texts against the same answers (every sentence of a context, every
// perturbation of a query): Covered and TokenSeq would normalize each answer
// again on every call.
type Answers struct {
	norm   []string   // Normalize of each answer that normalizes to something
	tokens [][]string // Tokens of each answer that has tokens
}

// NewAnswers prepares accepted for matching.
func NewAnswers(accepted []string) *Answers {
	a := &Answers{}
	for _, s := range accepted {
		n := Normalize(s)
		if n == "" {
			// An empty answer is a substring of everything and has no
			// tokens: it matches nothing.
			continue
		}
		a.norm = append(a.norm, n)
		if t := normalizedTokens(n); len(t) > 0 {
			a.tokens = append(a.tokens, t)
		}
	}
	return a
}

// Covered is the package's Covered with these answers.
func (a *Answers) Covered(prediction string) bool {
	if len(a.norm) == 0 {
		return false
	}
	return a.CoveredNormalized(Normalize(prediction))
}

// CoveredNormalized is Covered for a prediction already passed through
// Normalize, for callers that reuse the normalized text.
func (a *Answers) CoveredNormalized(p string) bool {
	for _, n := range a.norm {
		if strings.Contains(p, n) {
			return true
		}
	}
	return false
}

// TokenSeq is the package's TokenSeq with these answers.
func (a *Answers) TokenSeq(prediction string) bool {
	if len(a.tokens) == 0 {
		return false
	}
	p := Tokens(prediction)
	for _, t := range a.tokens {
		if ContainsRun(p, t) {
			return true
		}
	}
	return false
}

// ContainsRun reports whether needle occurs as a contiguous run of haystack.
// An empty needle is not contained, so an empty answer matches nothing.
func ContainsRun(haystack, needle []string) bool {
	if len(needle) == 0 {
		return false
	}
	for i := 0; i+len(needle) <= len(haystack); i++ {
		match := true
		for j, n := range needle {
			if haystack[i+j] != n {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// Tokens normalizes s, decomposes it to NFD and splits it into runs of
// letters, digits and combining marks. NFD makes a precomposed "é" and
// "e"+U+0301 compare equal; keeping the marks inside the token keeps "résumé"
// distinct from "resume". Non-ASCII punctuation, which Normalize leaves in
// place, separates tokens here.
func Tokens(s string) []string {
	return normalizedTokens(Normalize(s))
}

// normalizedTokens is Tokens of an already normalized string.
func normalizedTokens(n string) []string {
	return strings.FieldsFunc(norm.NFD.String(n), func(r rune) bool {
		return !isWordRune(r)
	})
}

// Normalize lowercases s, removes ASCII punctuation, removes the articles a,
// an and the as whole words and collapses whitespace (docs/methods.md,
// Answer matching and refusal detection: the SQuAD normalization).
//
// The reference finds articles with a regexp \b, which in Go (RE2) is
// ASCII-only: it would see a boundary between "é" and "a" and strip the "a"
// of "déa". Boundaries are therefore checked by hand with Unicode classes.
//
// It is the composition strings.ToLower, strings.Map dropping ASCII
// punctuation, article removal (an article becomes a space) and
// strings.Fields joined by single spaces, done in two passes over one buffer
// instead of five strings: judging and answer removal normalize every
// sentence they look at.
func Normalize(s string) string {
	var stack [256]byte
	b := stack[:]
	if len(s) > len(b) {
		b = make([]byte, len(s))
	}
	// Pass 1: lowercase and drop ASCII punctuation. ASCII bytes are
	// written by index (the output is never longer than the input); from
	// the first non-ASCII byte on, runes are appended, and ranging over s
	// turns an invalid byte into U+FFFD, as strings.ToLower does.
	j := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			b = b[:j]
			for _, r := range s[i:] {
				if r = unicode.ToLower(r); !isASCIIPunct(r) {
					b = utf8.AppendRune(b, r)
				}
			}
			j = len(b)
			break
		}
		if asciiPunct[c] {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[j] = c
		j++
	}
	b = b[:j]
	// Pass 2, in place (the write position never passes the read
	// position): an article at a word start becomes a space, and runs of
	// spaces become one separator between words.
	w := 0
	space := false    // a separator is due before the next non-space rune
	prevWord := false // the previous rune of pass 1's output is a word rune
	for i := 0; i < len(b); {
		c := b[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(b[i:])
			prevWord = slowIsWordRune(r)
			if unicode.IsSpace(r) {
				space = true
			} else {
				if space && w > 0 {
					b[w] = ' '
					w++
				}
				space = false
				w += copy(b[w:], b[i:i+n])
			}
			i += n
			continue
		}
		if !prevWord && (c == 't' || c == 'a') {
			if m := articleAt(b, i); m > 0 {
				space = true
				// The article's last letter is a word rune; the rune after
				// it is not, and cannot start another article anyway.
				prevWord = true
				i += m
				continue
			}
		}
		prevWord = asciiWord[c]
		i++
		if c == ' ' || '\t' <= c && c <= '\r' { // unicode.IsSpace for ASCII
			space = true
			continue
		}
		if space && w > 0 {
			b[w] = ' '
			w++
		}
		space = false
		b[w] = c
		w++
	}
	if string(b[:w]) == s {
		return s // already normalized: spare the copy
	}
	return string(b[:w])
}

// asciiPunct caches isASCIIPunct for bytes below utf8.RuneSelf.
var asciiPunct = func() (t [utf8.RuneSelf]bool) {
	for c := range rune(utf8.RuneSelf) {
		t[c] = isASCIIPunct(c)
	}
	return t
}()

// isASCIIPunct matches the reference's punctuation set (Python's
// string.punctuation): every printable ASCII character that is neither a
// letter, a digit nor a space. Go classes some of them ($+<=>^`|~) as symbols,
// hence both tests.
func isASCIIPunct(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsPunct(r) || unicode.IsSymbol(r))
}

// articleAt returns the length of the article "the", "an" or "a" starting at
// b[i] when it ends at a word boundary, else 0. The caller has checked the
// left boundary.
func articleAt(b []byte, i int) int {
	n := 0
	switch rest := b[i:]; {
	case len(rest) >= 3 && rest[0] == 't' && rest[1] == 'h' && rest[2] == 'e':
		n = 3
	case len(rest) >= 2 && rest[0] == 'a' && rest[1] == 'n':
		n = 2
	case rest[0] == 'a':
		// "a" followed by "n" was handled above: 'n' is a word rune, so
		// "a" alone cannot end at a boundary there.
		n = 1
	default:
		return 0
	}
	if i+n == len(b) {
		return n
	}
	r := rune(b[i+n])
	if r >= utf8.RuneSelf {
		r, _ = utf8.DecodeRune(b[i+n:])
	}
	if isWordRune(r) {
		return 0
	}
	return n
}

// isWordRune is the Unicode counterpart of \w: letters, digits, combining
// marks (so a decomposed accent does not end a word) and the underscore.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return slowIsWordRune(r)
}

func slowIsWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// asciiWord caches isWordRune for ASCII: every normalized character is
// classified, and the Unicode tables are slower than an index.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = slowIsWordRune(r)
	}
	return t
}()
