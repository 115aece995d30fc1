package perturb

import (
	"strings"
	"unicode"

	"github.com/robustream/robustream/processors/judge"
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

// splitWords splits s as METHODS "Query perturbations" specifies: on
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

// isStopword reports whether w is on the fixed English stopword list. The
// lookup is case-sensitive as in the reference, so a capitalized "What" at
// the start of a question may be perturbed while "what" may not.
func isStopword(w string) bool { return stopwords[w] }

// stopwords is our fixed list of English function words: articles,
// pronouns, auxiliaries, prepositions, conjunctions, question words and
// frequent adverbs. Changing them rarely tests robustness to content and
// often makes a question ungrammatical in ways typos do not.
var stopwords = func() map[string]bool {
	list := `a about above across after afterwards again against all almost alone along already also
although always am among amongst an and another any anyhow anyone anything anyway anywhere are
around as at be became because become becomes becoming been before beforehand behind being below
beside besides between beyond both but by can cannot could couldn't did didn't do does doesn't
doing don't done down during each either else elsewhere enough even ever every everyone
everything everywhere except few for former formerly from further had hadn't has hasn't have
haven't having he hence her here hereafter hereby herein hers herself him himself his how however
i if in indeed into is isn't it it's its itself just last latter latterly least less many may me
meanwhile might mine more moreover most mostly much must my myself namely neither never
nevertheless next no nobody none noone nor not nothing now nowhere of off often on once one only
onto or other others otherwise our ours ourselves out over own per perhaps please quite rather
really same several she should shouldn't since so some somehow someone something sometime
sometimes somewhere still such than that that's the their theirs them themselves then thence
there thereafter thereby therefore therein thereupon these they this those though through
throughout thru thus to together too toward towards under unless until up upon us very via was
wasn't we well were weren't what whatever when whence whenever where whereafter whereas whereby
wherein whereupon wherever whether which while whither who whoever whole whom whose why will with
within without won't would wouldn't yet you your yours yourself yourselves`
	m := make(map[string]bool)
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}()

// answerWords returns the forms under which a query word counts as part of
// an accepted answer: its raw lowercase words (as splitWords sees them) and
// its normalized tokens (as the judge sees them), so that neither "4" of
// "$4.2" nor "corps" of "Corp's" can be touched.
func answerWords(accepted []string) map[string]bool {
	m := make(map[string]bool)
	for _, a := range accepted {
		for _, w := range splitWords(a) {
			m[strings.ToLower(w.text)] = true
		}
		for _, t := range judge.Tokens(a) {
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
	for _, t := range judge.Tokens(w) {
		if answer[t] {
			return true
		}
	}
	return false
}
