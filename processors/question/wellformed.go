package question

import (
	"strings"
	"unicode"
)

// Checks that a person would make of a question before asking it
// (docs/methods.md, Question synthesis and QA checks): it is about a named
// subject, not about an instruction or a clause fragment, and its answer is
// a whole phrase.
const (
	// CheckSubjectNamed: the subject is not an imperative ("Fix …",
	// "Make sure …", "To fix this …"), a pronoun or a bare function word,
	// which is what a rule extractor reads out of changelog bullets.
	CheckSubjectNamed = "subject_named"
	// CheckAnswerWhole: the answer does not start or end with a function
	// word ("in CI", "or attached", "sorted to"), the mark of a span cut
	// out of a clause rather than a noun phrase, number, date or amount.
	CheckAnswerWhole = "answer_whole"
)

// imperatives are the verbs that open changelog and release-note bullets.
// A subject starting with one is an instruction, not a name.
var imperatives = toSet(`add adjust allow apply avoid build bump change check clarify clean correct decode
define deprecate disable document drop enable encode ensure expose extend fix handle hide ignore implement
improve include install introduce keep let make mark merge move note optimize prefer prevent print refactor
reject remove rename reorder replace report require reset resolve restore return reuse revert rewrite run
see set show simplify skip sort speed split start stop support switch teach tell treat try turn update
upgrade use validate warn`)

// pronouns and function words never name what a question is about.
var unnamed = toSet(`it its this that these those they them he she we you i there here which who what
when where why how to for and or but if so then also both either neither each every all some any no not`)

// clauseWords open a subordinate clause: a subject holding one is a piece
// of a sentence, not a name.
var clauseWords = toSet(`when if because while although unless whether whenever`)

// dangling words cannot start or end a complete answer.
var dangling = toSet(`in on at for to by with from into onto of as or and but nor that which who whom
whose if when while because than so then via per about after before since until upon without within`)

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// wordsOf returns the lower-cased words of s (letters, digits, and the
// apostrophes and hyphens inside them).
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-'
	})
}

// SubjectNamed reports whether head can be the subject of a question.
func SubjectNamed(head string) bool {
	w := wordsOf(head)
	if len(w) == 0 || unnamed[w[0]] && len(w) < 3 || w[0] == "to" {
		return false
	}
	for _, x := range w[1:] {
		if clauseWords[x] {
			return false // "Fixes for tests when the source directory …"
		}
	}
	if imperatives[w[0]] || imperatives[strings.TrimSuffix(w[0], "s")] || imperatives[strings.TrimSuffix(w[0], "es")] {
		// "Make" is a verb at the head of a bullet; "Make Corp" would be
		// capitalized twice, as names are.
		f := strings.Fields(head)
		return len(f) > 1 && isCapitalized(f[1])
	}
	return !(len(w) == 1 && unnamed[w[0]])
}

// auxiliaries and the adverbs that sit before a verb cannot start an
// answer either: "been adjusted", "usually include" are the rest of a verb
// phrase ("has been adjusted", "should usually include"), not a thing.
var auxiliaries = toSet(`be been being is are was were am has have had do does did will would shall should
can could may might must usually often always never sometimes also still already typically generally`)

// AnswerWhole reports whether answer reads as a whole phrase.
func AnswerWhole(answer string) bool {
	w := wordsOf(answer)
	if len(w) == 0 {
		return false
	}
	return !dangling[w[0]] && !auxiliaries[w[0]] && !dangling[w[len(w)-1]] && balanced(answer)
}

// balanced reports whether every quote and bracket of s is closed: an
// answer cut inside a quotation ("a natural extension of \"git rev-list")
// is not a phrase.
func balanced(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
	}
	return depth == 0 && strings.Count(s, `"`)%2 == 0 && strings.Count(s, "“") == strings.Count(s, "”")
}

func isCapitalized(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r) || unicode.IsDigit(r)
	}
	return false
}
