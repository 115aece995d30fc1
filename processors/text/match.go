package text

import (
	"strings"

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
// letters, digits and combining marks, keeping a number whole with its sign,
// decimal point and separators ("-4.2", "3/4", "2025-10-01"): Normalize
// keeps those characters only inside numbers, and splitting "4.2" into "4"
// and "2" would let "4 2" match it. NFD makes a precomposed "é" and
// "e"+U+0301 compare equal; keeping the marks inside the token keeps "résumé"
// distinct from "resume". Non-ASCII punctuation, which Normalize leaves in
// place, separates tokens here.
func Tokens(s string) []string {
	return normalizedTokens(Normalize(s))
}

// normalizedTokens is Tokens of an already normalized string.
func normalizedTokens(n string) []string {
	return strings.FieldsFunc(norm.NFD.String(n), func(r rune) bool {
		return !isTokenRune(r)
	})
}

// isTokenRune reports whether r belongs to a token of normalized text: a
// word rune, or one of the characters Normalize keeps only inside numbers.
func isTokenRune(r rune) bool {
	switch r {
	case '.', ',', '-', '/', ':':
		return true
	}
	return isWordRune(r)
}
