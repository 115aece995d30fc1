package reader

import (
	"strings"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/text"
)

// RefusalText is the refusal our prompts ask for and the built-in readers
// give (RARE Table 2: "returning 'no such info'"). It is the built-in
// readers' own constant, so that what they say and what the judge is shown
// to recognise cannot drift apart.
const RefusalText = provider.RefusalText

// IsRefusal reports whether answer says the model cannot answer
// (docs/methods.md, Answer matching and refusal detection): RARE's judge
// (Table 2) wants a model to say so, "no such info", when neither it nor the
// context knows the answer, and models say it in many ways.
//
// An answer is a refusal when it has no words (empty, or only punctuation
// and symbols), or when its main clause refuses: the first clause that is
// neither preamble ("Sorry", "Based on the provided context") nor an aside
// ("which discuss …", "although the passages mention …") is a whole
// refusal ("Unknown", "N/A", "NO-RES") or contains a refusal phrase ("I
// can’t answer", "the context doesn’t mention", "not mentioned in the
// context", "there is no information on"). A refusal phrase in a later clause does not count:
// "Revenue was $4.2 billion; the context does not mention the margin"
// answers. A refusal followed by a guess ("I cannot answer that, but it is
// probably Oslo") is a refusal.
//
// Clauses are read on text.Tokens, so case, typographic apostrophes
// ("can’t"), punctuation and articles do not matter and a phrase must occur
// as whole words: "Unknown Mortal Orchestra" and "No. 5 Bank" answer.
func IsRefusal(answer string) bool {
	if text.Normalize(answer) == "" {
		// Nothing the judge could match ("th!e" is an article once its
		// punctuation goes) says nothing.
		return true
	}
	for rest := answer; rest != ""; {
		var clause string
		clause, rest = nextClause(rest)
		var parts [8][]string
		for _, p := range splitContrast(text.Tokens(clause), parts[:0]) {
			switch readClause(p) {
			case clauseRefusal:
				return true
			case clauseContent:
				return false
			}
		}
	}
	// No words at all (empty, punctuation, symbols) says nothing; nothing
	// but preamble is a refusal only if it is one as a whole ("Sorry.").
	toks := text.Tokens(answer)
	return len(toks) == 0 || isWholeRefusal(toks)
}

// isWholeRefusal reports whether toks, joined by spaces, are one of
// wholeRefusals. The join is built on the stack: every clause that reaches
// it is looked up.
func isWholeRefusal(toks []string) bool {
	if len(toks) > maxWholeRefusal {
		return false
	}
	var buf [64]byte
	b := buf[:0]
	for i, t := range toks {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, t...)
	}
	return wholeRefusals[string(b)]
}

// clauseKind is what a clause does for the answer.
type clauseKind int

const (
	clauseSkipped clauseKind = iota // empty, preamble or aside: read on
	clauseRefusal                   // the main clause, and it refuses
	clauseContent                   // the main clause, and it answers
)

// readClause classifies one clause's tokens. A part introduced by a
// subordinating word keeps it as its first token (splitContrast).
func readClause(toks []string) clauseKind {
	if len(toks) == 0 {
		return clauseSkipped
	}
	if subordinators[toks[0]] {
		// "Although the passages discuss Acme, they do not mention the
		// CFO": a concession about the context sets up the main clause.
		// Any other subordinate clause ("Although revenue was $4.2
		// billion") is content.
		if containsAny(toks, contextNouns) {
			return clauseSkipped
		}
		return clauseContent
	}
	if relativeWords[toks[0]] { // "…, which discuss Acme's revenue, …"
		return clauseSkipped
	}
	if allIn(toks, preamble) {
		return clauseSkipped
	}
	if isWholeRefusal(toks) {
		return clauseRefusal
	}
	if hasRefusalPhrase(toks) {
		return clauseRefusal
	}
	return clauseContent
}

// nextClause returns the first clause of s and the text after the
// punctuation that ends it: a sentence end, a semicolon, colon or comma, a
// bracket, an ellipsis, an em dash, a line break, a table bar, or a hyphen
// or en dash with a space before it. It reads the raw answer because
// normalization removes this punctuation; a point or comma between digits
// ("4.2", "1,400") is part of a number, not a break.
func nextClause(s string) (clause, rest string) {
	for i, r := range s {
		switch r {
		case '.', ',':
			if i > 0 && i+1 < len(s) && isDigit(s[i-1]) && isDigit(s[i+1]) {
				continue
			}
		case '!', '?', ';', ':', '(', ')', '[', ']', '{', '}', '|', '\n', '\r',
			'…', '—', '―', '•', '。', '！', '？', '；', '：', '，', '、', '（', '）':
		case '-', '–':
			if i == 0 || s[i-1] != ' ' && s[i-1] != '\t' {
				continue
			}
		default:
			continue
		}
		return s[:i], s[i+utf8.RuneLen(r):]
	}
	return s, ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// splitContrast cuts a clause's tokens at contrasting and subordinating
// words ("I cannot answer but it is probably Oslo", "Revenue was $4.2
// billion although the margin is not mentioned"), appending the parts to
// dst. A part after a subordinating word starts with it, so readClause can
// tell a concession from a main clause.
func splitContrast(toks []string, dst [][]string) [][]string {
	start := 0
	for i, t := range toks {
		switch joiners[t] {
		case joinContrast:
			dst = append(dst, toks[start:i])
			start = i + 1
		case joinSubordinate:
			dst = append(dst, toks[start:i])
			start = i
		}
	}
	return append(dst, toks[start:])
}

func allIn(toks []string, set map[string]bool) bool {
	for _, t := range toks {
		if !set[t] {
			return false
		}
	}
	return true
}

func containsAny(toks []string, set map[string]bool) bool {
	for _, t := range toks {
		if set[t] {
			return true
		}
	}
	return false
}

// words makes a set of the space-separated words of each argument.
func words(lists ...string) map[string]bool {
	m := make(map[string]bool)
	for _, l := range lists {
		for _, w := range strings.Fields(l) {
			m[w] = true
		}
	}
	return m
}

// The vocabularies below are written in text.Tokens' output form: lowercase,
// no apostrophes ("can’t" is "cant", "I'm" is "im"), no articles.
var (
	// contextNouns name what the model was given. A sentence about them
	// that says they lack something is a refusal.
	contextNouns = words("context contexts passage passages document documents text texts source sources",
		"excerpt excerpts snippet snippets information provided given above retrieved itself")

	// preamble words may precede a refusal in clauses of their own
	// ("Sorry", "Unfortunately", "Based on the provided context",
	// "According to the passages", "Answer:") or in the same clause before
	// an active refusal ("Based on the context I cannot determine …").
	preamble = words("sorry unfortunately regrettably however but so well ok okay hmm apologies honestly afraid",
		"i im we am are is here note please thanks answer response reply final short question",
		"based on according to from in given provided available after having reviewing reviewed reading read",
		"checking checked searching searched looking at carefully using your you only my me knowledge",
		"this that it its regarding as for of with above following retrieved",
		"context contexts passage passages document documents text texts source sources",
		"excerpt excerpts snippet snippets material information info")

	// subjects may precede an active refusal ("I cannot determine", "We
	// were unable to answer", "It is not possible to say"): a third party
	// doing the same ("Regulators were unable to determine the cause") is
	// an answer.
	subjects = words("there theres therefore thus hence currently simply really still also just was were model assistant")

	subordinators = words("although though whereas while whilst")
	relativeWords = words("which who whom whose")

	// joiners are the words splitContrast cuts at, in one map because
	// it looks up every token of a clause.
	joiners = func() map[string]int {
		m := map[string]int{"but": joinContrast, "however": joinContrast, "yet": joinContrast, "except": joinContrast}
		for w := range subordinators {
			m[w] = joinSubordinate
		}
		return m
	}()
)

// What a word in joiners does.
const (
	joinContrast    = 1 + iota // ends a clause and is dropped ("but")
	joinSubordinate            // opens a clause and stays in it ("although")
)

// wholeRefusals are refusals only as a whole clause, keyed by their tokens
// joined by spaces: "Unknown." refuses, "Unknown Mortal Orchestra" answers;
// "Not applicable" refuses, "Not applicable fees rose to $3" answers.
var wholeRefusals = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range []string{
		"unknown", "not known", "unknowable", "unanswerable", "no idea", "no clue", "none found", "nothing found",
		"nores", "no res", "no result", "no results", "no answer", "no answer found", "answer not found",
		"na", "n a", "not available", "unavailable", "not applicable", "information not available",
		"no info", "no information", "no data", "no such info", "no such information",
		"not found", "not stated", "not specified", "not mentioned", "not provided", "not given", "not disclosed",
		"not in context", "not determinable", "undetermined", "indeterminate", "cannot be determined",
		"insufficient information", "insufficient info", "insufficient context", "insufficient data",
		"not enough information", "not enough info", "not enough context",
		"cannot answer", "cannot say", "cant say", "cannot tell", "cant tell", "cant answer",
		"dont know", "do not know", "i dont know", "idk", "not sure", "unsure", "sorry",
	} {
		m[w] = true
	}
	return m
}()

// maxWholeRefusal is the number of words of the longest whole refusal: a
// longer clause is not one, and need not be joined to be looked up.
var maxWholeRefusal = func() int {
	n := 0
	for w := range wholeRefusals {
		n = max(n, len(strings.Fields(w)))
	}
	return n
}()

// hasRefusalPhrase reports whether a refusal phrase occurs in the clause.
// A guarded phrase (an active "cannot determine") counts only when every
// word before it is preamble or a subject.
func hasRefusalPhrase(toks []string) bool {
	for i, t := range toks {
		for _, p := range phrasesByFirst[t] {
			if p.matchAt(toks, i) && (!p.guarded || guardHolds(toks[:i])) {
				return true
			}
		}
	}
	return false
}

func guardHolds(before []string) bool {
	for _, t := range before {
		if !preamble[t] && !subjects[t] {
			return false
		}
	}
	return true
}

// A phrase is a refusal pattern: a sequence of slots, each a list of
// alternative word runs. An empty alternative makes its slot optional and
// the alternative "$" matches only at the end of the clause.
type phrase struct {
	slots   [][][]string
	guarded bool // counts only after preamble and subjects (guardHolds)
}

// matchAt reports whether the phrase occurs at toks[i].
func (p phrase) matchAt(toks []string, i int) bool {
	return matchSlots(p.slots, toks, i)
}

func matchSlots(slots [][][]string, toks []string, i int) bool {
	if len(slots) == 0 {
		return true
	}
	for _, alt := range slots[0] {
		if len(alt) == 1 && alt[0] == "$" {
			if i == len(toks) {
				return true
			}
			continue
		}
		if i+len(alt) > len(toks) {
			continue
		}
		ok := true
		for j, w := range alt {
			if toks[i+j] != w {
				ok = false
				break
			}
		}
		if ok && matchSlots(slots[1:], toks, i+len(alt)) {
			return true
		}
	}
	return false
}

// compilePhrase reads a phrase written as slots separated by " + ", each a
// list of alternatives separated by "|".
func compilePhrase(src string, guarded bool) phrase {
	p := phrase{guarded: guarded}
	for _, slot := range strings.Split(src, " + ") {
		var alts [][]string
		for _, alt := range strings.Split(slot, "|") {
			alts = append(alts, strings.Fields(alt))
		}
		p.slots = append(p.slots, alts)
	}
	return p
}

// Word lists the phrases share.
const (
	// strongContext: subjects that can only mean what the model was given.
	strongContext = "context|contexts|passage|passages|document|documents|text|texts|source|sources|" +
		"excerpt|excerpts|snippet|snippets|information|provided|given|above|retrieved|itself"
	// weakContext: subjects that refuse only with a verb of saying ("it
	// does not say"); with other verbs they describe the world ("it does
	// not include fees").
	weakContext = "it|this|that|they|report|article|material|data"
	negatedDo   = "does not|doesnt|do not|dont|did not|didnt|does not seem to|doesnt seem to|do not seem to|" +
		"dont seem to|does not appear to|doesnt appear to|do not appear to|dont appear to|fails to|fail to|failed to|never"
	sayVerbs = "mention|say|state|specify|indicate|disclose|reveal|tell|answer|name|identify|detail|describe|" +
		"explain|discuss|address|clarify|cite|reference|note|list|report|touch on|refer to"
	holdVerbs  = "contain|include|provide|give|have|offer|cover|show|support|define"
	notBe      = "not|isnt|arent|wasnt|werent|never|nowhere"
	infoNouns  = "information|info|data|details|detail|mention|indication|reference|record|records|evidence|answer|answers|results|result"
	infoAdj    = "|relevant|specific|such|further|additional|clear|explicit|direct|available|sufficient|definitive|concrete|precise|exact|useful|pertinent|any"
	infoAfter  = "$|about|on|regarding|in|is|was|are|were|available|provided|given|that|to|concerning|for|of|related|relating|pertaining|from|found|can|could|exists|exist|here|there|whatsoever|at|specified|stated|mentioned|as|with|within|has|have"
	inContext  = "in|within|from|by|" // before a context noun; may be left out
	firstNeg   = "cannot|cant|can not|could not|couldnt|am unable to|are unable to|was unable to|were unable to|am not able to|are not able to|was not able to|were not able to|do not|dont|did not|didnt|have not|havent|unable to"
	firstVerbs = "know|see|find|answer|determine|say|tell|identify|locate|confirm|infer|access|recall|verify|specify|ascertain|deduce|be sure|be certain"
)

// refusalPhrases, by family. Each is checked anywhere in the main clause.
var refusalPhrases = []phrase{
	// The model cannot or does not know: "I can’t answer", "I don't
	// know", "I'm not sure", "I have no idea".
	compilePhrase("i|we + "+firstNeg+" + "+firstVerbs, false),
	compilePhrase("im|i am|we are + unable to|not able to|not sure|not certain|uncertain|unsure|not aware", false),
	compilePhrase("i|we + have no|had no|have not got + information|info|idea|clue|data|knowledge|way|answer|access|context|details|record|records", false),
	// "I don't have that information", not "We don't have branches".
	compilePhrase("i|we + do not have|dont have|did not have|didnt have|lack + enough|any|that|this|access|sufficient|relevant|specific|such|information|info|data|details|knowledge|context", false),
	// Passive inability, whatever the subject: "The CFO cannot be
	// determined", "This question cannot be answered".
	compilePhrase("cannot|cant|can not|could not|couldnt + be + answered|determined|inferred|ascertained|deduced|found|identified|confirmed|verified|established|known|said|derived|located|extracted|specified|stated|told", false),
	// Active inability, only without a third-party subject: "Unable to
	// determine from the context", "It is not possible to say".
	compilePhrase("cannot|cant|can not|unable to|not able to + answer|determine|infer|ascertain|deduce|tell from|say from|tell based|say based|say with certainty|tell with certainty|find answer|find information|find any|find relevant|find that|find this|find specific|locate answer|locate information|provide answer|provide information|provide specific|provide that|provide this|provide any|provide such|give answer|give that|give this|help with that|help with this", true),
	compilePhrase("not possible to|impossible to|no way to|not possible for me to|hard to|difficult to + answer|determine|say|tell|know|infer|identify|confirm|ascertain|find|provide|specify", true),
	// The context is silent: "The context doesn’t mention it", "The
	// provided passages do not say", "None of the passages mention …".
	compilePhrase(strongContext+" + "+negatedDo+" + "+sayVerbs+"|"+holdVerbs, false),
	compilePhrase(weakContext+" + "+negatedDo+" + "+sayVerbs, false),
	compilePhrase(strongContext+" + makes no mention|make no mention|is silent|are silent|was silent|were silent|says nothing|say nothing|mentions nothing|mention nothing|lacks|lack|is insufficient|are insufficient|is inadequate|are inadequate", false),
	compilePhrase(strongContext+" + has no|have no|contains no|contain no|provides no|provide no|gives no|give no|offers no|offer no|includes no|include no + "+infoNouns+"|"+strings.TrimPrefix(infoAdj, "|"), false),
	compilePhrase("neither|none of|no|not one of + passage|passages|context|contexts|document|documents|source|sources|text|texts|excerpt|excerpts|snippet|snippets + mentions|mention|says|say|states|state|specifies|specify|contains|contain|includes|include|provides|provide|gives|give|indicates|indicate|discusses|discuss|addresses|address|answers|answer|names|name|identifies|identify|discloses|disclose|reveals|reveal|lists|list", false),
	compilePhrase("nothing in|nothing within + "+strongContext, false),
	// Not mentioned, not stated: "Not mentioned in the context", "The
	// CFO's name isn't stated". Words that also describe the world ("not
	// provided", "not available") count only with a context noun after
	// them: "Loans were not provided to startups" answers.
	compilePhrase(notBe+" + mentioned|stated|specified|disclosed|determinable|answerable|known|named|identified|indicated|inferable|deducible", false),
	compilePhrase(notBe+" + provided|given|available|found|included|listed|present|contained|shown|reported|covered|detailed|discussed|addressed|explained|described|in|within|part of + "+inContext+" + "+strongContext+"|"+weakContext, false),
	compilePhrase("unavailable|undisclosed|unmentioned|unspecified|unstated|absent|missing + in|from|within|by + "+strongContext, false),
	compilePhrase("unclear|not clear + from|based on|given|in + "+strongContext, false),
	compilePhrase("is|are|was|were|remains|remain|remained + unknown|undisclosed|unspecified|unstated|unmentioned|undetermined|indeterminate", false),
	compilePhrase("answer|answers + is|are|was|were|isnt|arent|wasnt|werent + unavailable|missing|absent|unknown|not provided|not given|not available|not found|not included|not present|not contained|not known|not clear|not there|not here|not in|not within|not explicitly", false),
	compilePhrase("answer|answers + isnt|arent|wasnt|werent + provided|given|available|found|included|present|contained|known|clear|there|here|in|within|explicitly", false),
	// No information: "There is no information on this", "No relevant
	// information found". The word after it must fit a statement about
	// information, so "No Information Left Behind" answers.
	compilePhrase("no + "+infoAdj+" + "+infoNouns+" + "+infoAfter, false),
	compilePhrase("no such + info|information|data|details|record|records|answer", false),
	compilePhrase("not enough|isnt enough|arent enough|wasnt enough|no enough|insufficient|inadequate|lack of|lacking|without enough|without sufficient|not sufficient|too little + "+infoAdj+" + information|info|context|data|details|detail|evidence + "+infoAfter, false),
	compilePhrase("nores|unanswerable|unknowable", false),
}

// phrasesByFirst indexes refusalPhrases by the words that can start them,
// so a clause is scanned once rather than once per phrase.
var phrasesByFirst = func() map[string][]phrase {
	m := make(map[string][]phrase)
	for _, p := range refusalPhrases {
		seen := map[string]bool{}
		for _, alt := range p.slots[0] {
			if len(alt) == 0 {
				panic("reader: a refusal phrase must start with a word")
			}
			if seen[alt[0]] {
				continue // "not possible to|not possible for me to"
			}
			seen[alt[0]] = true
			m[alt[0]] = append(m[alt[0]], p)
		}
	}
	return m
}()
