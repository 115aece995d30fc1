package question

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/jdkato/prose/v3/tag"
	"github.com/robustream/robustream/processors/text"
)

// Checks of what a question asks (docs/methods.md, Question synthesis and
// QA checks): a person asks about something they can name, for one thing
// they can state, in words a reader can check without guessing which
// release or which item of a list was meant.
const (
	// CheckAnswerSpecific: the answer is one definite thing. Not a generic
	// phrase ("external libraries", "many features", "a number of
	// improvements", "the following"), not relative to the time of writing
	// ("a current version of GnuPG"), not a list ("A, B and C": a model
	// naming them in another order would be judged wrong), and not one item
	// of a list in its passage ("thanks A, B, C and D" → "B": the others
	// answer the question as well).
	CheckAnswerSpecific = "answer_specific"
	// CheckQuestionSpecific: the question names its subject ("the package",
	// "this library" name nothing outside their document), is no longer
	// than a person writes (maxQuestionWords), and does not ask what holds
	// "now" or "currently" without the release or date that "now" refers
	// to, in the question or in the passage's sentence.
	CheckQuestionSpecific = "question_specific"
)

// maxQuestionWords is the longest question a person would write, in words
// as written ("'mv -T --backup=numbered A B/'" is four): a release note's
// bug described in full runs to about 25.
const maxQuestionWords = 30

// quantifiers open a phrase that counts no particular thing.
var quantifiers = toSet(`many several various numerous some few multiple more most additional
certain any all both each every lots plenty diverse assorted countless`)

// demonstratives point into the text instead of naming: "the following",
// "these", "such tools".
var demonstratives = toSet(`this these those that such following above below aforementioned said`)

// comparedToContext words say what a thing is like by what the text said
// before: "a similar syntax", "the same licence", "a particular offender".
var comparedToContext = toSet(`similar same particular corresponding respective aforementioned latter former
preceding previous analogous identical equivalent`)

// vagueWords answer nothing by themselves.
var vagueWords = toSet(`one ones it them something everything anything nothing stuff etc others`)

// collectives: "a number of", "a lot of", "a variety of", "a set of", "a
// special group of".
var collectiveRe = regexp.MustCompile(`^(?:a|an|the)\s+(?:[a-z-]+\s+)?(?:number|lot|lots|variety|range|couple|few|bunch|host|set|series|wealth|handful|plethora|multitude|collection|list|selection|group|family|subset|class)\s+of\b`)

// genericNouns and genericAdjectives make up the phrases that name a kind
// of thing any software has, not a thing of this one: "stable, public
// APIs", "external libraries", "new features".
var genericNouns = toSet(`framework frameworks toolkit toolkits platform project projects solution solutions
product products suite collection set feature features improvement improvements change changes fix fixes extension extensions
enhancement enhancements update updates library libraries tool tools utility utilities option options thing things
function functions functionality capability capabilities facility facilities module modules package packages
program programs application applications component components interface interfaces api apis service services
support bug bugs issue issues problem problems way ways means method methods item items part parts element
elements detail details information data example examples case cases kind kinds type types work task tasks
operation operations system systems format formats file files routine routines code software feature-set
functionalities addition additions modification modifications fixes bugfixes bugfix enhancements optimizations
patch patches patchset patchsets
optimisations optimization optimisation improvements tweaks resources documentation docs helper helpers
synonym synonyms alias aliases target targets`)

var genericAdjectives = toSet(`deprecated obsolete new old various different other additional extra external internal public private
stable useful important basic common standard simple general generic special specific several many numerous
more better improved enhanced existing certain main major minor small large full complete optional own
further significant substantial miscellaneous misc numerous nice good great powerful flexible high-quality
wide broad rich extensive comprehensive advanced related similar corresponding appropriate relevant
available freely free open-source portable lightweight fast efficient easy reliable robust popular well-known
widely-used mature modern versatile handy neat convenient excellent complex sophisticated tiny huge quick
slow clean elegant unique interesting fancy smart ordinary typical normal regular usual real actual proper
essential`)

// timeRelative words date a phrase by the time of writing.
var timeRelative = toSet(`current currently latest now recent recently today upcoming soon newest nowadays
presently forthcoming`)

// nowWords in a question or its sentence ask what holds at the time of
// writing: such a question needs the release or date it refers to.
var nowRe = regexp.MustCompile(`(?i)\b(?:now|currently|presently|nowadays|at present|at the moment|these days|no longer|any ?more|today|at this time|so far|to date|yet|(?:this|the (?:current|latest|next|upcoming|new)) (?:release|version))\b`)

// releaseNamedRe: a version number or a year names the time a question
// refers to.
var releaseNamedRe = regexp.MustCompile(`\d+\.\d+|\b(?:19|20)\d{2}\b`)

// AnswerSpecific reports whether an answer is one definite thing; passages
// are the texts it is read from (its ground-truth chunks), where it must
// not be one item of a list.
func AnswerSpecific(answer string, passages ...string) bool {
	if optionNameRe.MatchString(answer) {
		return true // "--tags" names one option, whatever its words
	}
	return !vagueAnswer(answer) && !listAnswer(answer) && !listItemIn(answer, passages)
}

// vagueAnswer: a generic phrase, a quantity of unnamed things, a pointer
// into the text, or a phrase dated by the time of writing.
func vagueAnswer(a string) bool {
	w := wordsOf(a)
	if len(w) == 0 {
		return true
	}
	for _, x := range w {
		if timeRelative[x] || comparedToContext[x] {
			return true
		}
	}
	if len(w) == 1 && vagueWords[w[0]] {
		return true
	}
	if collectiveRe.MatchString(strings.ToLower(strings.TrimSpace(a))) {
		return true
	}
	rest := w
	for len(rest) > 1 && (rest[0] == "a" || rest[0] == "an" || rest[0] == "the") {
		rest = rest[1:]
	}
	if len(rest) > 1 && len(rest) < len(w) && comparativeGenus(rest[0]) {
		return true // "a newer implementation": than what the text compared it with
	}
	if (w[0] == "a" || w[0] == "an") && len(rest) <= 3 && (genericNouns[rest[len(rest)-1]] || partNouns[rest[len(rest)-1]]) && strings.ToLower(a) == a {
		// "an interactive tool", "a text-based application": a genus and
		// its adjectives say what kind of thing, not what it is
		if ts := tagged(strings.Join(rest, " ")); len(ts) == len(rest) && allAdjectives(ts[:len(ts)-1]) {
			return true
		}
	}
	if (w[0] == "a" || w[0] == "an") && len(rest) == 2 && (rest[1] == "script" || rest[1] == "scripts") {
		return true // "a perl script", "a Python script": the language, not what it does
	}
	if quantifiers[rest[0]] || demonstratives[rest[0]] || demonstratives[w[0]] {
		return true
	}
	// Words only of a generic kind, and nothing named: no capital after
	// the first word, no number, no code.
	for _, f := range strings.Fields(a)[1:] {
		if isCapitalized(f) && !genericNouns[strings.ToLower(strings.Trim(f, ",.;:"))] {
			return false // a name; "APIs" is a kind of thing
		}
	}
	for _, f := range strings.Fields(a) {
		if codeToken(f) || strings.ContainsAny(f, "0123456789") {
			return false
		}
	}
	for _, x := range rest {
		if !genericNouns[x] && !genericAdjectives[x] && !dangling[x] && x != "a" && x != "an" && x != "the" {
			return false
		}
	}
	return true // "a fix for a problem", "stable, public APIs"
}

// listAnswer: the answer coordinates several things: "A, B and C", "A, B,
// C", or two nouns or names joined by "and" / "or" ("zlib and bzip2");
// coordinated adjectives ("a small and fast tool") and numbers ("between 5
// and 10") are one thing.
func listAnswer(a string) bool {
	s := outsideBrackets(a)
	if head, ok := relativeHead(s); ok {
		s = head // "a library which handles configuration and access": one library
	}
	if strings.Count(s, ", ") >= 2 || strings.Contains(s, ", ") && (strings.Contains(s, " and ") || strings.Contains(s, " or ")) {
		return !isDigitsish(s)
	}
	if oneTitle(s) {
		return false
	}
	ts := tagged(s)
	for i := 1; i+1 < len(ts); i++ {
		c := strings.ToLower(ts[i].Text)
		if c != "and" && c != "or" && c != "&" {
			continue
		}
		l, r := ts[i-1], ts[i+1]
		if isDigits(l.Text) && isDigits(r.Text) {
			continue
		}
		if l.Tag == "CD" && i+2 < len(ts) && ts[i+2].Tag == "CD" && (nounTag(r.Tag) || codeToken(r.Text)) {
			return true // "RFC 5321 and RFC 1870", "Python 2 and Python 3": two numbered things
		}
		if nounTag(l.Tag) || codeToken(l.Text) {
			if nounTag(r.Tag) || r.Tag == "DT" || r.Tag == "PRP$" || r.Tag == "CD" || codeToken(r.Text) || r.Tag == "JJ" && i+2 < len(ts) && nounTag(ts[i+2].Tag) {
				return true
			}
		}
	}
	return false
}

// relativeHead returns the noun phrase of a definition before its relative
// clause ("a program | which helps to configure compiler and linker
// flags"): what the clause coordinates describes the one thing named.
func relativeHead(s string) (string, bool) {
	f := strings.Fields(s)
	if len(f) < 4 || !strings.EqualFold(f[0], "a") && !strings.EqualFold(f[0], "an") {
		return "", false
	}
	for i := 2; i < len(f)-1; i++ {
		if w := strings.ToLower(f[i]); w == "which" || w == "that" || w == "who" {
			return strings.Join(f[:i], " "), true
		}
	}
	return "", false
}

// oneTitle: a title whose words are joined by "and" inside one name,
// opened by a possessive or an article that the second part does not
// repeat, every word after it capitalised: "Larry Wall's Practical
// Extracting and Report Language", "the Robot Exclusion and Sitemaps
// Standard" (but "the GPL and the LGPL" is two).
func oneTitle(s string) bool {
	f := strings.Fields(s)
	if len(f) < 4 {
		return false
	}
	start := 0
	switch {
	case strings.EqualFold(f[0], "the") || strings.EqualFold(f[0], "a") || strings.EqualFold(f[0], "an"):
		start = 1
	case strings.HasSuffix(f[0], "'s") || strings.HasSuffix(f[0], "’s"):
		start = 1
	case len(f) > 2 && (strings.HasSuffix(f[1], "'s") || strings.HasSuffix(f[1], "’s")):
		start = 2
	default:
		return false
	}
	for _, w := range f[start:] {
		lw := strings.ToLower(w)
		if lw == "and" || lw == "of" || lw == "for" || lw == "&" {
			continue
		}
		if lw == "the" || lw == "a" || lw == "an" || !isCapitalized(w) {
			return false
		}
	}
	return true
}

func nounTag(t string) bool { return strings.HasPrefix(t, "NN") }

func isDigitsish(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) }) < 0
}

// outsideBrackets drops what a phrase says in parentheses: "GNU Wget (a
// downloader, mirror and crawler)" lists nothing.
func outsideBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '(', '[':
			depth++
			continue
		case ')', ']':
			depth--
			continue
		}
		if depth == 0 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// listItemIn reports whether the answer stands in a list in any of the
// passages: followed by ", B … and C" or ", and B", or preceded by "A and"
// / "A, B, and", or by a comma with the list going on after it.
func listItemIn(answer string, passages []string) bool {
	a := strings.TrimSpace(answer)
	if a == "" {
		return false
	}
	for _, p := range passages {
		for from := 0; ; {
			i := strings.Index(p[from:], a)
			if i < 0 {
				break
			}
			i += from
			from = i + len(a)
			if inList(p[:i], p[i+len(a):]) {
				return true
			}
		}
	}
	return false
}

var (
	listAfterCommaRe = regexp.MustCompile(`^,\s*(?:(?:and|or)\s+)?([^\s,.;:]+)`)
	listAfterAndRe   = regexp.MustCompile(`^\s+(?:and|or|&)\s+(\S+)(?:\s+(\S+))?`)
	listBeforeRe     = regexp.MustCompile(`(?:,\s*(?:and|or)|\s(?:and|or|&))\s+$`)
	listBeforeComma  = regexp.MustCompile(`\S,\s+$`)
	andOrRe          = regexp.MustCompile(`\s(?:and|or)\s`)
)

// inList reads the text before and after one occurrence of an answer.
func inList(before, after string) bool {
	// The sentence the occurrence is in, as far as a list could reach.
	if k := strings.LastIndexAny(before, ".;:\n"); k >= 0 && k < len(before)-1 {
		before = before[k+1:]
	}
	if k := strings.IndexAny(after, ";:\n"); k >= 0 {
		after = after[:k]
	}
	if k := sentenceEnd(after); k >= 0 {
		after = after[:k]
	}
	continues := false
	if m := listAfterCommaRe.FindStringSubmatch(after); m != nil {
		rest := after[len(m[0]):]
		// ", B and C", ", B, C", ", and C": another item follows, and the
		// list ends with "and" or "or".
		conj := strings.TrimLeft(after[1:], " ")
		if strings.HasPrefix(conj, "and ") || strings.HasPrefix(conj, "or ") {
			// ", and C" ends a list, but ", and employs 2,870 people"
			// joins a clause: a verb after the conjunction.
			ts := tagged(conj)
			continues = len(ts) < 2 || !strings.HasPrefix(ts[1].Tag, "VB") && ts[1].Tag != "MD"
		} else if andOrRe.MatchString(rest) && !clauseOpener(m[1]) {
			continues = true
		}
	}
	if m := listAfterAndRe.FindStringSubmatch(after); m != nil && !continues {
		// "A and B": B a thing, not a verb ("and closed the plant").
		ts := tagged("the " + strings.Trim(m[1], ",.") + " " + m[2])
		if len(ts) > 1 && (nounTag(ts[1].Tag) || ts[1].Tag == "JJ" || ts[1].Tag == "CD" || isCapitalized(m[1]) || codeToken(m[1])) && !clauseOpener(m[1]) {
			continues = true
		}
	}
	if continues {
		return true
	}
	if listBeforeRe.MatchString(before) {
		// "A and B", "A, B, and C": the last item.
		head := strings.TrimSpace(listBeforeRe.ReplaceAllString(before, ""))
		fs := strings.Fields(head)
		if len(fs) > 0 {
			last := strings.Trim(fs[len(fs)-1], ",")
			ts := tagged("the " + last)
			if len(ts) > 1 && (nounTag(ts[1].Tag) || isCapitalized(last) || codeToken(last)) {
				return true
			}
		}
	}
	if m := listAfterCommaRe.FindStringSubmatch(after); m != nil && listBeforeComma.MatchString(before) &&
		andOrRe.MatchString(after) && !clauseOpener(m[1]) {
		return true // ", B, C and D" in the middle of a list
	}
	return false
}

// clauseOpener: a word after a comma that opens a clause or a comment, not
// another item.
func clauseOpener(w string) bool {
	w = strings.Trim(w, ",.;:")
	if isCapitalized(w) && !unnamed[strings.ToLower(w)] {
		return false // a name: "Per Holm"
	}
	w = strings.ToLower(w)
	return unnamed[w] || clauseWords[w] || dangling[w] || auxiliaries[w] || w == "up" || w == "down" || w == "which" ||
		w == "including" || w == "such" || w == "e.g." || w == "i.e." || w == "etc"
}

// sentenceEnd returns where a sentence ends in s (". " followed by a
// capital, or a final period), or -1.
func sentenceEnd(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && (s[i+1] == ' ' || s[i+1] == '\n') {
			return i
		}
	}
	if strings.HasSuffix(s, ".") {
		return len(s) - 1
	}
	return -1
}

// QuestionSpecific reports whether a question asks about a named subject
// (head; "" when the caller has none) in a person's length, and names the
// release or date a "now" of the question or of its passage's sentence
// holding the answer refers to.
func QuestionSpecific(question, head, answer string, passages ...string) bool {
	if len(strings.Fields(question)) > maxQuestionWords {
		return false
	}
	if head != "" && (genericSubject(head) && !termAsked(question, head) || bulletVerb(head, passages)) {
		return false
	}
	if releaseNamedRe.MatchString(question) {
		return true
	}
	if nowRe.MatchString(question) {
		return false
	}
	for _, p := range passages {
		if s := sentenceOf(p, answer); s != "" && nowRe.MatchString(s) {
			return false
		}
	}
	return true
}

// termAsked: a subject "a debug package", "an evil merge" asked as the
// term it is ("What is a debug package?"): the article of a definition
// says any one of them, not one the text pointed at.
func termAsked(question, head string) bool {
	f := strings.Fields(strings.ToLower(head))
	if len(f) < 2 || f[0] != "a" && f[0] != "an" {
		return false
	}
	q := anchorTail.ReplaceAllString(strings.TrimSpace(question), "")
	return definedTerm(tagged(q), 2)
}

// genericSubject: a subject a reader cannot identify outside its
// document: a pronoun, or a determiner ("the", "this", "its") before
// common nouns only, with no name, number or code among them ("the
// package", "this library", "the C source").
func genericSubject(head string) bool {
	f := strings.Fields(head)
	if len(f) == 0 {
		return true
	}
	if m := kindNamedRe.FindStringSubmatch(strings.ToLower(head[:1]) + head[1:]); m != nil && len(f) == 3 && !text.NotName(m[1]) {
		return false // "the maxdelay option": named in lower case
	}
	if len(f) == 3 && strings.EqualFold(f[0], "the") && text.Acronym(f[1]) && (genericNouns[strings.ToLower(f[2])] || partNouns[strings.ToLower(f[2])]) {
		return true // "the XML output", "the DMARC implementation": of which program?
	}
	if len(f) == 1 && unnamed[strings.ToLower(f[0])] {
		return true
	}
	if r := []rune(f[0])[0]; strings.HasPrefix(f[0], "//") || !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("`'\"“‘$~@-./(", r) {
		return true // "// Support dotted paths", "** Wget": comment or markup, not a name
	}
	if w := strings.ToLower(f[0]); len(f) > 1 && len(w) > 4 && strings.HasSuffix(w, "ly") {
		// "Occasionally Valgrind stack traces": an adverb the extractor
		// took into the subject.
		if ts := tagged(w + " " + strings.Join(f[1:], " ")); len(ts) > 0 && strings.HasPrefix(ts[0].Tag, "RB") {
			return true
		}
	}
	if w := strings.ToLower(f[0]); quantifiers[w] || timeRelative[w] || relativeAdjectives[w] {
		return true // "Later BSD releases", "Some programs", "Other formats"
	}
	if len(f) > 2 && determiners[strings.ToLower(f[0])] && (relativeAdjectives[strings.ToLower(f[1])] || demonstratives[strings.ToLower(f[1])] || pointing[strings.ToLower(f[1])]) {
		return true // "the related Python setuptools module", "the same option": which one?
	}
	switch strings.ToLower(f[0]) {
	case "the", "this", "these", "that", "those", "its", "their", "our", "your", "my", "his", "her", "each", "every", "such", "a", "an":
	default:
		return false
	}
	for _, w := range f[1:] {
		t := strings.Trim(w, ",.;:()'\"")
		if len([]rune(t)) > 1 && isCapitalized(t) || codeToken(t) || strings.ContainsAny(t, "0123456789`'\"") {
			return false
		}
	}
	return true
}

// bulletRe: a line opening with a list bullet.
var bulletRe = regexp.MustCompile(`(?m)^[ \t]*(?:[*+•◦‣-]|o )[ \t]+(\S+)[ \t]+(\S+)`)

// bulletVerb: a subject of one capitalised word that opens a bullet of its
// passage before a word in "-ed" ("  - Map deprecated RSA algo number …",
// "* Forbid unexpanded macros …") is the imperative a changelog bullet
// opens with, the "-ed" word an adjective of its object: bullets state
// what a release does in the present ("- Wget now supports …"). A name
// written as one ("GnuPG", "ESM", "Wget2") is left alone.
func bulletVerb(head string, passages []string) bool {
	h := strings.TrimSpace(head)
	if strings.ContainsAny(h, " \t") || !isCapitalized(h) || codeToken(h) {
		return false
	}
	for _, r := range h[1:] {
		if !unicode.IsLower(r) {
			return false
		}
	}
	for _, p := range passages {
		for _, m := range bulletRe.FindAllStringSubmatch(p, -1) {
			if m[1] == h && strings.HasSuffix(strings.ToLower(m[2]), "ed") {
				return true
			}
		}
	}
	return false
}

// determiners open a noun phrase; pointing adjectives after one refer to
// something named elsewhere in the text.
var determiners = toSet(`the this these that those its their our your`)

var pointing = toSet(`related same other corresponding respective relevant given aforementioned mentioned above said`)

// relativeAdjectives place a subject relative to the text or its time.
var relativeAdjectives = toSet(`later earlier newer older previous future former prior subsequent following next last`)

// sentenceOf returns the sentence of passage holding the answer's first
// occurrence, or "".
func sentenceOf(passage, answer string) string {
	i := strings.Index(passage, strings.TrimSpace(answer))
	if i < 0 || strings.TrimSpace(answer) == "" {
		return ""
	}
	start := 0
	for k := i - 1; k > 0; k-- {
		if passage[k] == '\n' && k > 0 && passage[k-1] == '\n' || (passage[k-1] == '.' || passage[k-1] == '?' || passage[k-1] == '!') && (passage[k] == ' ' || passage[k] == '\n') {
			start = k
			break
		}
	}
	end := len(passage)
	if k := sentenceEnd(passage[i:]); k >= 0 {
		end = i + k
	}
	if k := strings.Index(passage[i:], "\n\n"); k >= 0 && i+k < end {
		end = i + k
	}
	return passage[start:end]
}

// otherAnswerInChunk reports whether the chunk states the fact's subject
// and relation again with another object (docs/methods.md, Question
// synthesis and QA checks): "Lintwerk supports YAML. It also supports
// TOML." gives "What does Lintwerk support?" two answers, whether or not
// the extractor read the second sentence. The subject is the head as
// written, or a pronoun after the head was named; the relation is matched
// as written, with up to two adverbs or modals before it ("also", "now",
// "can"). A copula counts only before an article: "It is also a …".
func otherAnswerInChunk(head, relation, tail, chunk string) bool {
	head, relation, tail = strings.TrimSpace(head), strings.Join(strings.Fields(relation), " "), strings.TrimSpace(tail)
	if head == "" || relation == "" || chunk == "" {
		return false
	}
	if m := releaseRe.FindStringSubmatch(head); m != nil {
		head = m[1] // "cat (coreutils 9.1)": the program as the notes name it
	}
	rel := regexp.QuoteMeta(relation)
	rel = strings.ReplaceAll(rel, " ", `\s+(?:(?:also|now|still|only|further)\s+)?`) // "is also maintained by"
	if copulas[strings.ToLower(relation)] != "" {
		rel += `\s+(?:(?:also|still|now)\s+)?(?:a|an|the)`
	}
	re, err := regexp.Compile(`(?i)(?:^|[^\w])(` + regexp.QuoteMeta(head) + `|it|this|they)\s+(?:(?:also|now|still|only|additionally|further|then|can|could|will|may|must|should|does|do|did|not)\s+){0,2}` + rel + `(?:$|[^\w])`)
	if err != nil {
		return false
	}
	nt := Normalize(tail)
	copula := copulas[strings.ToLower(relation)] != ""
	prevNamed := false
	for _, s := range sentences(chunk) {
		named := strings.Contains(strings.ToLower(s), strings.ToLower(head))
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			if subj := s[m[2]:m[3]]; !strings.EqualFold(subj, head) {
				// A pronoun stands for the head only right after it is
				// named ("Lintwerk supports YAML. It also supports TOML.");
				// "It is a good idea to …" defines nothing.
				if copula || !prevNamed && !named {
					continue
				}
			}
			object := s[m[1]:]
			if k := strings.IndexAny(object, ";"); k >= 0 {
				object = object[:k]
			}
			if !strings.Contains(Normalize(object), nt) {
				return true // the subject and relation again, with another object
			}
		}
		prevNamed = named
	}
	return false
}

// sentences splits a chunk into sentences and lines: a period, question or
// exclamation mark before white space, or a blank line.
func sentences(chunk string) []string {
	var out []string
	start := 0
	for i := 0; i < len(chunk); i++ {
		end := false
		switch {
		case (chunk[i] == '.' || chunk[i] == '!' || chunk[i] == '?') && (i+1 == len(chunk) || chunk[i+1] == ' ' || chunk[i+1] == '\n'):
			end = true
		case chunk[i] == '\n' && i+1 < len(chunk) && chunk[i+1] == '\n':
			end = true
		}
		if end {
			if s := strings.TrimSpace(chunk[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(chunk[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// comparativeGenus: an adjective in the comparative opening a definition's
// genus ("a newer implementation", "a faster alternative") compares with
// something the sentence named before.
func comparativeGenus(w string) bool {
	switch w {
	case "newer", "older", "better", "worse", "faster", "slower", "simpler", "smaller", "larger", "bigger",
		"lighter", "cheaper", "safer", "earlier", "later":
		return true
	}
	return false
}

// partNouns name a part or a role of some program, which a subject must
// say: "the XML output", "an interactive tool".
var partNouns = toSet(`output input implementation server client backend frontend driver parser engine tool tools
script scripts`)

// allAdjectives: adjectives of manner only ("interactive", "text-based",
// "small"), which say how a thing is used, not what it is for ("a
// cryptographic library" says that).
func allAdjectives(ts []tag.Token) bool {
	for _, t := range ts {
		if !mannerAdjectives[strings.ToLower(t.Text)] && !strings.HasSuffix(t.Text, "-based") {
			return false
		}
	}
	return true
}

var mannerAdjectives = toSet(`interactive graphical command-line simple small little powerful lightweight fast flexible
portable general-purpose easy-to-use full-featured versatile popular useful handy tiny minimal generic
shell command line command-line`)
