package question

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/jdkato/prose/v3/tag"
	"github.com/jdkato/prose/v3/tokenize"
	"github.com/robustream/robustream/processors/text"
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
upgrade use validate warn convert create delete generate load parse pass read write respect honor honour detect`)

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
		if x == "where" {
			break // "the bug where 'cp A B' fails when …": a relative clause describes
		}
		if clauseWords[x] {
			return false // "Fixes for tests when the source directory …"
		}
	}
	if imperatives[w[0]] || imperatives[strings.TrimSuffix(w[0], "s")] || imperatives[strings.TrimSuffix(w[0], "es")] {
		// "Make" is a verb at the head of a bullet; "Make Corp" would be
		// capitalized twice, as names are.
		f := strings.Fields(head)
		return len(f) > 1 && (isCapitalized(f[1]) && !codeToken(f[1]) || isOption(f[1]))
	}
	if len(w) == 1 && abstractNoun(w[0]) {
		// "Decompression requires …": one capitalized word at the head of
		// a sentence that is an abstract noun names nothing.
		return false
	}
	return !(len(w) == 1 && unnamed[w[0]])
}

// abstractNoun reports whether a lower-cased word ends like an abstract
// noun (decompression, development, robustness, availability, running).
func abstractNoun(w string) bool {
	if len(w) < 7 || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return false
	}
	for _, suf := range []string{"tion", "sion", "ment", "ness", "ity", "ance", "ence", "ing"} {
		if strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// auxiliaries and the adverbs that sit before a verb cannot start an
// answer either: "been adjusted", "usually include" are the rest of a verb
// phrase ("has been adjusted", "should usually include"), not a thing.
var auxiliaries = toSet(`be been being is are was were am has have had do does did will would shall should
can could may might must usually often always never sometimes also still already typically generally`)

// optionNameRe is a command-line option's name: "-t", "--name-only".
var optionNameRe = regexp.MustCompile(`^--?[A-Za-z0-9][\w-]*$`)

// AnswerWhole reports whether answer reads as a whole phrase.
func AnswerWhole(answer string) bool {
	w := wordsOf(answer)
	if len(w) == 0 {
		return false
	}
	if isDate(strings.TrimSpace(answer)) || optionNameRe.MatchString(answer) {
		return true // "May 9, 2000": a month, not the modal; "--merges": an option
	}
	return !dangling[w[0]] && !auxiliaries[w[0]] && !dangling[w[len(w)-1]] && w[len(w)-1] != "etc" && balanced(answer)
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

// CheckQuestionForm: the question is one wh-, how- or which- question
// ("What …?", "How many …?", "By how much …?", `In "Key figures", what …?`),
// without a doubled word ("take up up"). It is scored by WellFormed; the
// template generator writes no other shape, so Checks does not repeat it.
const CheckQuestionForm = "question_form"

// whWords open the questions the generators write.
var whWords = toSet(`what who whom whose which where when how why`)

// The tokenizer and part-of-speech tagger of prose, model embedded
// (docs/methods.md, Triplet extraction), loaded once.
var (
	qTokenizer = tokenize.New()
	qTagger    = sync.OnceValue(func() *tag.Tagger {
		t, err := tag.New()
		if err != nil {
			panic("question: cannot load the part-of-speech model: " + err.Error())
		}
		return t
	})
)

func tagged(s string) []tag.Token {
	ts := qTokenizer.Tokenize(s)
	qTagger().TagTokens(ts)
	return ts
}

// WellFormed scores a question and its answer on the checks a person would
// make before asking it, for any generator (single-hop templates, multi-hop
// patterns, an LLM): CheckQuestionForm, CheckSubjectNamed (the question is
// about something named: a proper noun or a number outside its time
// anchor, and no pronoun or instruction where its subject stands),
// CheckAnswerWhole (the answer is a noun phrase, number, date or amount:
// it does not start with a preposition, conjunction, relative word, adverb
// or finite verb, does not end with a function word, and closes its quotes
// and brackets) and CheckAnswerNotInQuestion. Scores are 1 (pass) or 0; the
// second result is the first check failed, in that order, or "".
func WellFormed(question, answer string) (map[string]float64, string) {
	s := map[string]float64{
		CheckQuestionForm:        score(questionForm(question)),
		CheckSubjectNamed:        score(questionNamed(question)),
		CheckAnswerWhole:         score(AnswerWhole(answer) && answerPhrase(answer)),
		CheckAnswerNotInQuestion: score(!ContainsAnswer(question, answer)),
		CheckAnswerSpecific:      score(AnswerSpecific(answer)),
		CheckQuestionSpecific:    score(QuestionSpecific(question, "", answer)),
	}
	for _, c := range []string{CheckQuestionForm, CheckSubjectNamed, CheckAnswerWhole, CheckAnswerNotInQuestion, CheckAnswerSpecific, CheckQuestionSpecific} {
		if s[c] == 0 {
			return s, c
		}
	}
	return s, ""
}

func score(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

// questionForm: a wh-word opens the question (after "By", "In which", or a
// quoted source `In "…",`), it ends in one question mark, and no word is
// doubled.
func questionForm(q string) bool {
	q = strings.TrimSpace(q)
	if !strings.HasSuffix(q, "?") || strings.Count(q, "?") != 1 {
		return false
	}
	w := wordsOf(q)
	if len(w) < 3 || len(w) > 50 {
		return false
	}
	// A doubled word ("take up up") as written: "ASN1_TYPE Type" and
	// `"a..a" vs "a.+"` double nothing.
	asWritten := strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' && r != '_' && r != '.'
	})
	for i := 1; i < len(asWritten); i++ {
		if asWritten[i] == asWritten[i-1] && !isDigits(asWritten[i]) {
			return false
		}
	}
	if whWords[w[0]] {
		return true
	}
	// "By how much …", "In which year …", `In "Key figures", what …`.
	for _, x := range w[1:min(len(w), 16)] {
		if whWords[x] {
			return w[0] == "by" || w[0] == "in" || w[0] == "according" || w[0] == "for" || w[0] == "on"
		}
	}
	return false
}

func isDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != ',' && r != '.' {
			return false
		}
	}
	return s != ""
}

// anchorTail strips the time anchor of a question: "as of March 2026",
// ", as reported in April 2026".
var anchorTail = regexp.MustCompile(`(?:,?\s+as (?:of|reported in)\s+[A-Z][a-z]+ \d{4})?\?$`)

// questionNamed: after the wh-word and its auxiliary, the question names
// something: a capitalized word that is not its first, or a number, outside
// the time anchor; and the subject is not a pronoun or an instruction
// ("What does Fix performance issue …", "What did To fix this create …").
func questionNamed(q string) bool {
	q = anchorTail.ReplaceAllString(strings.TrimSpace(q), "")
	ts := tagged(q)
	// Skip the wh-word and an auxiliary to find where the subject starts.
	i := 0
	for i < len(ts) && (whWords[strings.ToLower(ts[i].Text)] || strings.ToLower(ts[i].Text) == "by" || strings.ToLower(ts[i].Text) == "much" || strings.ToLower(ts[i].Text) == "many") {
		i++
	}
	for i < len(ts) && auxiliaries[strings.ToLower(ts[i].Text)] {
		i++
	}
	if i == 1 && i+1 < len(ts) && (ts[i].Tag == "VBZ" || ts[i].Tag == "VBD" || ts[i].Tag == "VBP") {
		i++ // "What implements the TCL interface?": the verb of a subject question, then what it is asked of
	}
	if i < len(ts) {
		first := strings.ToLower(ts[i].Text)
		if unnamed[first] || first == "to" || ts[i].Tag == "PRP" {
			return false
		}
		if definedTerm(ts, i) {
			return true // "What is a debug package?": a term the documents define
		}
		if imperatives[first] || imperatives[strings.TrimSuffix(first, "s")] || imperatives[strings.TrimSuffix(first, "es")] {
			if i+1 >= len(ts) || !isCapitalized(ts[i+1].Text) && !isOption(ts[i+1].Text) {
				return false
			}
		}
	}
	for k, t := range ts {
		if k == 0 {
			continue
		}
		if isCapitalized(t.Text) && !months[strings.ToLower(t.Text)] && strings.ToLower(t.Text) != "i" {
			return true
		}
	}
	if m := kindNamedRe.FindStringSubmatch(q); m != nil && !text.NotName(m[1]) {
		return true // "What does the iburst option enable?"
	}
	// Software is named in lower case: a command line, an option or an
	// identifier ("sort --debug", "copy_file_range", 'cp A B'), or a program
	// called by name ("the cksum command").
	if programRe.MatchString(q) {
		return true
	}
	for _, f := range strings.Fields(q)[1:] {
		if codeToken(f) {
			return true
		}
	}
	return false
}

// definedTerm: "What is a debug package?", the question a term's
// definition answers: "What is", then "a" or "an" and two to four nouns,
// adjectives or participles (no pronoun or function word), up to the
// question mark; or "What are" and two to four such words, the last a
// plural ("What are debug packages?").
func definedTerm(ts []tag.Token, i int) bool {
	if i != 2 || !strings.EqualFold(ts[0].Text, "what") {
		return false
	}
	plural := strings.EqualFold(ts[1].Text, "are")
	if !plural && !strings.EqualFold(ts[1].Text, "is") {
		return false
	}
	words := ts[i:]
	if a := strings.ToLower(ts[i].Text); !plural && a != "a" && a != "an" {
		return false
	} else if !plural {
		words = ts[i+1:]
	}
	if len(words) > 0 && words[len(words)-1].Text == "?" {
		words = words[:len(words)-1]
	}
	if len(words) < 2 || len(words) > 4 || plural && !strings.HasSuffix(strings.ToLower(words[len(words)-1].Text), "s") {
		return false // "What are debug packages?": two to four words, the last a plural
	}
	for _, w := range words {
		if unnamed[strings.ToLower(w.Text)] || dangling[strings.ToLower(w.Text)] || !strings.HasPrefix(w.Tag, "NN") && !strings.HasPrefix(w.Tag, "JJ") && w.Tag != "VBG" && w.Tag != "VBN" {
			return false
		}
	}
	return true
}

// programRe: "the cksum command", "the 'r' command".
var programRe = regexp.MustCompile(`\bthe (?:'?[a-z][\w-]*'? (?:command|program|utility|option)|[a-z][\w-]*(?:, [a-z][\w-]*)*,? and [a-z][\w-]* commands)\b`)

// isOption: a command-line option, "-R", "--debug".
func isOption(s string) bool {
	s = strings.Trim(s, `"'`+"`")
	return len(s) > 1 && s[0] == '-' && (unicode.IsLetter(rune(s[len(s)-1])) || unicode.IsDigit(rune(s[len(s)-1])))
}

// codeToken: a word as code writes it: an option, an identifier with an
// underscore, an assignment, a path, a quoted command, or letters and
// digits run together ("trace2", "PCRE2").
func codeToken(f string) bool {
	f = strings.TrimRight(f, ",.;:?")
	if isOption(f) || strings.HasPrefix(f, "'") && len(f) > 2 || strings.HasPrefix(f, "`") {
		return true
	}
	hasLetter := strings.IndexFunc(f, unicode.IsLetter) >= 0
	if len(f) > 2 && len(f) <= 9 && f[0] == '.' && strings.IndexFunc(f[1:], func(r rune) bool { return !unicode.IsLower(r) && !unicode.IsDigit(r) }) < 0 {
		return true // a file extension: "the .fc file"
	}
	return hasLetter && (strings.ContainsAny(f, "_=/%+@") || strings.IndexFunc(f, unicode.IsDigit) >= 0)
}

// versionRe: a program and its version.
var versionRe = regexp.MustCompile(`^[a-z][\w]*[ -]v?\d+(?:\.\d+)+$`)

var months = toSet(`january february march april may june july august september october november december`)

// answerPhrase reads the answer's tags: it opens with no preposition,
// conjunction, "to", relative word, adverb, modal or finite verb, and ends
// with no preposition, conjunction, determiner or possessive pronoun.
func answerPhrase(a string) bool {
	if isDate(strings.TrimSpace(a)) || optionNameRe.MatchString(a) {
		return true // "May 9, 2000", "March 2021", "--name-only"
	}
	if versionRe.MatchString(strings.TrimSpace(a)) {
		return true // "sed 4.2", "coreutils-9.0": a program's release, whatever the tagger makes of its name
	}
	if t := strings.TrimSpace(a); !strings.Contains(t, " ") && kindOf(t, "") == answerPath {
		return true // "/var/lib/quill": a path, whatever the tagger makes of it
	}
	ts := tagged(strings.TrimSpace(a))
	if len(ts) == 0 {
		return false
	}
	first, last := ts[0], ts[len(ts)-1]
	if isCapitalized(first.Text) {
		// A name or a title: its capital makes the tagger call any first
		// word a proper noun, so the word itself is checked.
		w := strings.ToLower(first.Text)
		if dangling[w] || auxiliaries[w] || unnamed[w] && len(ts) > 1 {
			return false
		}
	} else {
		switch first.Tag {
		case "IN", "CC", "TO", "WDT", "WP", "WRB", "MD", "VBZ", "VBP", "VBD", "RB", "RBR", "EX", "PRP":
			if !(first.Tag == "IN" && isDigits(first.Text)) {
				return false
			}
		}
	}
	if !isCapitalized(first.Text) {
		// A finite verb the tagger reads as a plural noun when it opens
		// the text ("supplies robots to …"): tagged after a subject, it
		// shows. After "It" the tagger calls almost any unknown word a
		// verb ("It grep", "It iseek=N"), so its reading counts only when
		// the word has a finite verb's ending, and a past form only when
		// an object follows it ("acquired Beta Inc."), not a noun it
		// modifies ("abbreviated algorithm names").
		if ctx := tagged("It " + strings.TrimSpace(a)); len(ctx) > 1 {
			w := strings.ToLower(ctx[1].Text)
			next := ""
			if len(ts) > 1 {
				next = ts[1].Tag
			}
			object := next == "" || next == "DT" || next == "PRP$" || next == "PRP" || next == "NNP" || next == "CD"
			switch ctx[1].Tag {
			case "MD":
				return false
			case "VBZ":
				if strings.HasSuffix(w, "s") {
					return false
				}
			case "VBD":
				if strings.HasSuffix(w, "ed") && len(w) > 4 && object {
					return false
				}
			case "VBP":
				if object && next != "CD" {
					return false
				}
			}
		}
	}
	if len(ts) > 1 {
		switch last.Tag {
		case "IN", "CC", "TO", "DT", "PRP$", "WDT", "MD":
			return false
		}
	}
	return true
}

// kindNamedRe: a thing named in lower case before its kind ("the iburst
// option", "the makestep directive"; processors/triplet kindNamed), the
// kinds those of text.NamedKinds.
var kindNamedRe = regexp.MustCompile(`\bthe ([a-z][a-z0-9_.-]+) (?:` + strings.Join(text.NamedKinds, "|") + `)\b`)
