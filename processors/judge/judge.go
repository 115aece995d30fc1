package judge

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Method names recorded in EvalResult.JudgeMethod.
const (
	// MethodExact: the normalized prediction equals a normalized accepted
	// answer.
	MethodExact = "exact"
	// MethodCovered: a normalized accepted answer is a substring of the
	// normalized prediction. Known weakness: "art" matches "party".
	MethodCovered = "covered"
	// MethodTokenSeq: the tokens of a normalized accepted answer occur as a
	// contiguous run of the prediction's tokens. The default.
	MethodTokenSeq = "token_seq"
)

// DefaultMethod is the matcher Judge uses when none is named. Token sequence
// keeps the recall of substring matching on multi-word answers without its
// false positives inside longer words (METHODS "Answer matching").
const DefaultMethod = MethodTokenSeq

// ValidMethod reports whether m names a matcher Judge understands; the empty
// string stands for DefaultMethod. Stages call it when validating config so a
// typo fails at start rather than silently falling back.
func ValidMethod(m string) bool {
	switch m {
	case "", MethodExact, MethodCovered, MethodTokenSeq:
		return true
	}
	return false
}

// Verdict is the judgement of one answer.
type Verdict struct {
	// Correct is true when the answer matches an accepted answer. It is
	// never true for a refusal.
	Correct bool
	// Refused is true when the model said it cannot answer.
	Refused bool
	// Method is the matcher that was applied (one of the Method constants).
	Method string
}

// Judge matches answer against the accepted answers with method (empty or
// unknown: DefaultMethod) and detects refusals. A refusal is never correct,
// even if an accepted answer happens to be, say, "unknown": RARE's judge f
// (Table 2) treats refusing and answering as different behaviours, and
// scoring a refusal as a hit would reward the model for not knowing.
func Judge(answer string, accepted []string, method string) Verdict {
	if !ValidMethod(method) || method == "" {
		method = DefaultMethod
	}
	v := Verdict{Method: method, Refused: IsRefusal(answer)}
	if v.Refused {
		return v
	}
	switch method {
	case MethodExact:
		v.Correct = Exact(answer, accepted)
	case MethodCovered:
		v.Correct = Covered(answer, accepted)
	default:
		v.Correct = TokenSeq(answer, accepted)
	}
	return v
}

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
	p := Normalize(prediction)
	for _, a := range accepted {
		// An empty answer is a substring of everything; skip it.
		if n := Normalize(a); n != "" && strings.Contains(p, n) {
			return true
		}
	}
	return false
}

// TokenSeq reports whether the tokens of a normalized accepted answer occur as
// a contiguous run of the normalized prediction's tokens (see Tokens).
func TokenSeq(prediction string, accepted []string) bool {
	p := Tokens(prediction)
	for _, a := range accepted {
		if t := Tokens(a); len(t) > 0 && ContainsRun(p, t) {
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
	return strings.FieldsFunc(norm.NFD.String(Normalize(s)), func(r rune) bool {
		return !isWordRune(r)
	})
}

// Normalize lowercases s, removes ASCII punctuation, removes the articles a,
// an and the as whole words and collapses whitespace (METHODS "Answer
// matching", the SQuAD normalization).
//
// The reference finds articles with a regexp \b, which in Go (RE2) is
// ASCII-only: it would see a boundary between "é" and "a" and strip the "a"
// of "déa". Boundaries are therefore checked by hand with Unicode classes.
func Normalize(s string) string {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if isASCIIPunct(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(removeArticles(s)), " ")
}

// isASCIIPunct matches the reference's punctuation set (Python's
// string.punctuation): every printable ASCII character that is neither a
// letter, a digit nor a space. Go classes some of them ($+<=>^`|~) as symbols,
// hence both tests.
func isASCIIPunct(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsPunct(r) || unicode.IsSymbol(r))
}

// removeArticles replaces every whole-word a, an or the by a space. Its input
// is already lowercase.
func removeArticles(s string) string {
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(rs); {
		if i == 0 || !isWordRune(rs[i-1]) {
			if n := articleAt(rs, i); n > 0 {
				b.WriteByte(' ')
				i += n
				continue
			}
		}
		b.WriteRune(rs[i])
		i++
	}
	return b.String()
}

// articleAt returns the length of the article starting at rs[i] when it ends
// at a word boundary, else 0. The caller has checked the left boundary.
func articleAt(rs []rune, i int) int {
	for _, art := range [...]string{"the", "an", "a"} {
		n := len(art) // articles are ASCII: bytes == runes
		if i+n > len(rs) || string(rs[i:i+n]) != art {
			continue
		}
		if i+n == len(rs) || !isWordRune(rs[i+n]) {
			return n
		}
	}
	return 0
}

// isWordRune is the Unicode counterpart of \w: letters, digits, combining
// marks (so a decomposed accent does not end a word) and the underscore.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}
