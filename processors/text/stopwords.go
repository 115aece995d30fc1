package text

import "strings"

// Breadth selects how much of the stopword list a caller treats as
// stopwords. The breadths are nested: every StopNarrow word is a
// StopFunction word, and every StopFunction word a StopBroad word.
//
// Callers differ in breadth on purpose, and each must keep its breadth
// because what it computes is recorded or compared over time: the
// retrieval difficulty of a question (StopNarrow) is compared across
// windows under one similarity name, the lexical reader's answers
// (StopFunction) are what the robustness metrics measure, and the words a
// query perturbation may change (StopBroad) fix the variant texts and so
// their ids.
type Breadth uint8

const (
	// StopNarrow: the words questions are glued from (question words,
	// forms of be and do, articles, the commonest prepositions and
	// conjunctions, it, its, this, that) and the "s" of a possessive
	// split at its apostrophe. Enough to keep two texts from looking alike
	// just because both are English questions.
	StopNarrow Breadth = iota + 1
	// StopFunction adds the other function words: pronouns, auxiliaries
	// and modals, further prepositions and conjunctions, negations.
	StopFunction
	// StopBroad adds frequent adverbs, quantifiers, indefinite pronouns
	// and contractions: every word whose change says little about a
	// model's robustness to content.
	StopBroad
)

// IsStopword reports whether w is a stopword at breadth b. The list is
// lowercase and the lookup exact: callers that want "What" to count as
// "what" lowercase it first, and the query perturbations deliberately do
// not (a capitalized first word may be perturbed, as in the reference).
func IsStopword(w string, b Breadth) bool {
	k, ok := stopwords[w]
	return ok && k <= b
}

// stopwords maps each word of the one stopword list to the narrowest
// breadth it belongs to.
var stopwords = func() map[string]Breadth {
	m := make(map[string]Breadth)
	for b, words := range map[Breadth]string{
		StopNarrow: `what who whom which how many much did does do is was were are be the a an of in on at to
			for and or by with as from its it s that this`,
		StopFunction: `but into over under about after before during between per than these those been being
			has have had will would can could should may might must shall whose when where why there
			their they them he she his her him we our you your i me my not no so if then also up out
			since until within through near`,
		StopBroad: `above across afterwards again against all almost alone along already although always am
			among amongst another any anyhow anyone anything anyway anywhere around became because
			become becomes becoming beforehand behind below beside besides beyond both cannot
			couldn't didn't doesn't doing don't done down each either else elsewhere enough even
			ever every everyone everything everywhere except few former formerly further hadn't
			hasn't haven't having hence here hereafter hereby herein hers herself himself however
			indeed isn't it's itself just last latter latterly least less meanwhile mine more
			moreover most mostly myself namely neither never nevertheless next nobody none noone nor
			nothing now nowhere off often once one only onto other others otherwise ours ourselves
			own perhaps please quite rather really same several shouldn't some somehow someone
			something sometime sometimes somewhere still such that's theirs themselves thence
			thereafter thereby therefore therein thereupon though throughout thru thus together too
			toward towards unless upon us very via wasn't well weren't whatever whence whenever
			whereafter whereas whereby wherein whereupon wherever whether while whither whoever
			whole without won't wouldn't yet yours yourself yourselves`,
	} {
		for _, w := range strings.Fields(words) {
			if _, dup := m[w]; dup {
				panic("text: stopword listed twice: " + w) // a slip in the lists above
			}
			m[w] = b
		}
	}
	return m
}()
