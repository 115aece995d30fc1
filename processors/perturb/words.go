package perturb

import (
	"strings"
	"unicode"

	"github.com/robustream/robustream/processors/text"
)

// word is one word of a text: its byte span and its text.
type word struct {
	start, end int
	text       string
}

// isWordChar reports whether r may appear in a word: a letter, a digit, a
// combining mark (so a decomposed accent stays inside its word), or one of
// the joiners '-_*@ that the reference allows inside words.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || isJoiner(r)
}

func isJoiner(r rune) bool { return strings.ContainsRune(`'-_*@`, r) }

// splitWords splits s as docs/methods.md, Query perturbations, specifies: on
// whitespace, then into runs of word characters, with the joiners '-_*@
// trimmed at both ends of each run. (The reference trims only the left end;
// trimming both keeps "Acme's'" from becoming a different word than "Acme's".)
// The spans let a replacement be written back in place, so punctuation and
// spacing survive.
func splitWords(s string) []word {
	var words []word
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		ws, we := start, end
		for ws < we && isJoiner(rune(s[ws])) {
			ws++
		}
		for we > ws && isJoiner(rune(s[we-1])) {
			we--
		}
		if ws < we {
			words = append(words, word{start: ws, end: we, text: s[ws:we]})
		}
		start = -1
	}
	for i, r := range s {
		if isWordChar(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return words
}

// replaceWords writes the replacements (by word index) back into s.
func replaceWords(s string, words []word, repl map[int]string) string {
	var b strings.Builder
	last := 0
	for i, w := range words {
		r, ok := repl[i]
		if !ok {
			continue
		}
		b.WriteString(s[last:w.start])
		b.WriteString(r)
		last = w.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// isStopword reports whether w is on the fixed English stopword list, at
// its broadest (text.StopBroad): changing function words rarely tests
// robustness to content and often makes a question ungrammatical in ways
// typos do not. The lookup is case-sensitive as in the reference, so a
// capitalized "What" at the start of a question may be perturbed while
// "what" may not.
// isStopword ignores case: "In" opening a question is the preposition too.
func isStopword(w string) bool { return text.IsStopword(strings.ToLower(w), text.StopBroad) }

// answerWords returns the forms under which a query word counts as part of
// an accepted answer: its raw lowercase words (as splitWords sees them) and
// its normalized tokens (as the judge sees them, text.Tokens), so that
// neither "4" of "$4.2" nor "corps" of "Corp's" can be touched.
func answerWords(accepted []string) map[string]bool {
	m := make(map[string]bool)
	for _, a := range accepted {
		for _, w := range splitWords(a) {
			m[strings.ToLower(w.text)] = true
		}
		for _, t := range text.Tokens(a) {
			m[t] = true
		}
	}
	return m
}

// isAnswerWord reports whether w is (part of) an accepted answer.
func isAnswerWord(w string, answer map[string]bool) bool {
	if answer[strings.ToLower(w)] {
		return true
	}
	for _, t := range text.Tokens(w) {
		if answer[t] {
			return true
		}
	}
	return false
}
