package question

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// verbForm says how a relation verb is asked about.
type verbForm struct {
	lemma    string // base form with particle: "rise to", "acquire"
	past     bool   // "did" rather than "does"
	copula   bool   // "What was X?" rather than "What did X …?"
	be       string // for copulas: is, are, was, were
	appoints bool   // takes a person as object: "Whom did X appoint?"
	plural   bool   // a plural present ("provide"): "What do X and Y provide?"
}

// copulas maps copula relations to the form of "to be" that asks for them;
// "remained 4%" is asked as "What was …?".
var copulas = map[string]string{"is": "is", "are": "are", "was": "was", "were": "were",
	"remains": "is", "remain": "are", "remained": "was"}

// levels are relations that state where a quantity stands, asked like
// copulas.
var levels = map[string]string{"stood at": "was", "stands at": "is", "came in at": "was",
	"settled at": "was", "remained at": "was", "remains at": "is"}

// irregular past and participle forms of the verbs reports use.
var irregular = map[string]string{"rose": "rise", "fell": "fall", "grew": "grow", "stood": "stand",
	"came": "come", "shrank": "shrink", "bought": "buy", "sold": "sell", "won": "win", "built": "build",
	"paid": "pay", "made": "make", "ran": "run", "had": "have", "cut": "cut", "hit": "hit",
	"kept": "keep", "became": "become", "set": "set", "led": "lead", "spent": "spend", "took": "take",
	"gave": "give", "got": "get", "held": "hold", "brought": "bring", "began": "begin", "drove": "drive",
	"totalled": "total", "named": "name", "declined": "decline", "teamed": "team", "hired": "hire",
	"edged": "edge", "combined": "combine", "opened": "open", "lowered": "lower", "delivered": "deliver",
	"entered": "enter", "partnered": "partner", "widened": "widen", "went": "go",
	"joined": "join", "visited": "visit", "ordered": "order", "awarded": "award", "founded": "found",
	"co-founded": "co-found", "signed": "sign", "supplied": "supply", "left": "leave", "met": "meet",
	"chose": "choose", "saw": "see", "wrote": "write", "grown": "grow", "risen": "rise", "fallen": "fall",
	"chaired": "chair", "earned": "earn", "fitted": "fit", "moved": "move", "placed": "place",
	"recorded": "record", "handled": "handle", "launched": "launch"}

// personObject lemmas take people as objects: a single capitalised name
// after them is a person's ("thanks Rubenstein").
var personObject = map[string]bool{"thank": true, "credit": true, "acknowledge": true, "contact": true,
	"hire": true, "appoint": true, "elect": true, "promote": true, "congratulate": true, "mentor": true}

// appointing lemmas take a person as object.
var appointing = map[string]bool{"appoint": true, "hire": true, "name": true, "elect": true, "promote": true}

// parseRelation reads a relation such as "was", "rose to", "acquired" or
// "produces". It reports false for relations it cannot conjugate, so that no
// ungrammatical question is produced.
func parseRelation(rel string) (verbForm, bool) {
	f := strings.Fields(strings.ToLower(rel))
	if len(f) == 0 {
		return verbForm{}, false
	}
	if be, ok := copulas[f[0]]; ok && len(f) == 1 {
		return verbForm{copula: true, be: be, past: be == "was" || be == "were"}, true
	}
	if be, ok := levels[rel]; ok {
		// "stood at 4.25%" states a level: "What was the policy rate …?"
		// reads better than "What did the policy rate stand at …?".
		return verbForm{copula: true, be: be, past: be == "was"}, true
	}
	// The words after the verb keep their case: "uses for 64-bit Windows".
	verb, particle := f[0], strings.Join(strings.Fields(rel)[1:], " ")
	var lemma string
	var past bool
	switch {
	case irregular[verb] != "":
		lemma, past = irregular[verb], true
	case strings.HasSuffix(verb, "ed") && len(verb) > 4:
		lemma, past = regularPast(verb), true
	case verb == "has":
		lemma = "have"
	case strings.HasSuffix(verb, "s") && len(verb) > 3 && !strings.HasSuffix(verb, "ss"):
		lemma = thirdPerson(verb)
	default:
		return verbForm{}, false
	}
	if particle != "" {
		lemma += " " + particle
	}
	return verbForm{lemma: lemma, past: past, appoints: appointing[lemma]}, true
}

// regularPast undoes "-ed": doubled consonants lose one ("shipped" → "ship"),
// "-ied" becomes "-y", and a silent e is restored after endings that need it
// in English spelling ("produced" → "produce", "allocated" → "allocate").
// Verbs the rules get wrong are listed in irregular.
func regularPast(v string) string {
	s := v[:len(v)-2]
	if strings.HasSuffix(v, "ied") {
		return v[:len(v)-3] + "y"
	}
	n := len(s)
	if n >= 4 && s[n-1] == s[n-2] && strings.IndexByte("bdgmnpt", s[n-1]) >= 0 {
		return s[:n-1] // "shipped" → "ship"; "added" → "add"
	}
	if n >= 6 && strings.HasSuffix(s, "ell") || n >= 7 && strings.HasSuffix(s, "oll") {
		return s[:n-1] // "cancelled", "labelled", "controlled"; not "spelled", "scrolled", "installed"
	}
	if n >= 4 && s[n-1] == 'd' && strings.IndexByte("iuoa", s[n-2]) >= 0 && strings.IndexByte("aeiou", s[n-3]) < 0 {
		return s + "e" // "provided", "included", "decoded", "traded"; not "avoided", "loaded"
	}
	if n >= 3 && s[n-1] == 'l' && strings.IndexByte("bdgkptz", s[n-2]) >= 0 {
		return s + "e" // "handled" → "handle", "settled" → "settle"
	}
	switch {
	case strings.HasSuffix(s, "c"), strings.HasSuffix(s, "v"), strings.HasSuffix(s, "z"), strings.HasSuffix(s, "u"),
		strings.HasSuffix(s, "g") && !strings.HasSuffix(s, "ng"),
		// "changed", "arranged", "challenged", "plunged"; not "banged", "belonged"
		(strings.HasSuffix(s, "ang") || strings.HasSuffix(s, "eng") || strings.HasSuffix(s, "ung")) && !bareNg[s],
		strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss"),
		strings.HasSuffix(s, "at"), strings.HasSuffix(s, "ut"), strings.HasSuffix(s, "ot"), strings.HasSuffix(s, "let"),
		strings.HasSuffix(s, "ir"), strings.HasSuffix(s, "ur"), strings.HasSuffix(s, "bin"),
		strings.HasSuffix(s, "ar") && !strings.HasSuffix(s, "ear"): // "shared", "declared", "compared"; not "cleared"
		return s + "e"
	}
	for _, suf := range []string{"stor", "scor", "gnor", "plor"} {
		if strings.HasSuffix(s, suf) {
			return s + "e" // "stored", "ignored", "explored"; not "colored", "sponsored", "mirrored"
		}
	}
	return s
}

// bareNg are verbs in -ng whose past keeps no silent e.
var bareNg = toSet(`bang hang clang twang pang gang whang`)

// thirdPerson undoes the present "-s": "launches" → "launch", "produces" →
// "produce", "carries" → "carry".
func thirdPerson(v string) string {
	switch {
	case v == "does":
		return "do"
	case strings.HasSuffix(v, "ies"):
		return v[:len(v)-3] + "y"
	case strings.HasSuffix(v, "ches"), strings.HasSuffix(v, "shes"), strings.HasSuffix(v, "sses"),
		strings.HasSuffix(v, "xes"), strings.HasSuffix(v, "zzes"), strings.HasSuffix(v, "oes"):
		return v[:len(v)-2]
	}
	return v[:len(v)-1]
}

// Single writes the single-hop question whose answer is tail, for the triplet
// (head, relation, tail) read from sentence (RARE §4.3 single-hop pattern,
// §4.4 "specific, time/entity-anchored" questions):
//   - copula: "What was {head}?", "Who is {head}?" for a person;
//   - appointing verb with a person: "Whom did {head} appoint as {role}?";
//   - a counted object: "How many {noun} did {head} open?";
//   - otherwise "What did {head} {lemma}?" / "What does {head} {lemma}?".
//
// A time expression of the sentence ("in Q3 2025") is added when the head
// has no year of its own, so the question has one answer across periods; a
// question with no time expression is anchored to the publication date asOf
// instead ("as of September 2025", ", as reported in September 2025"), unless
// asOf is zero. It reports false when
// the relation cannot be conjugated or the question would contain the
// answer.
func Single(head, relation, tail, sentence string, asOf time.Time) (string, bool) {
	head, tail = strings.TrimSpace(head), strings.TrimSpace(tail)
	if head == "" || tail == "" {
		return "", false
	}
	f, ok := parseRelation(relation)
	if !ok {
		if f, ok = pluralRelation(relation); !ok || !pluralHead(head) {
			return "", false
		}
	}
	subject := questionCase(head)
	aux := "does"
	switch {
	case f.past:
		aux = "did"
	case f.plural:
		aux = "do"
	}
	kind := kindOf(tail, sentence)
	var q string
	switch {
	case f.copula:
		wh := "What"
		if kind == answerPerson {
			wh = "Who"
		}
		q = wh + " " + f.be + " " + subject
	case f.appoints && kind == answerPerson:
		q = "Whom " + aux + " " + subject + " " + f.lemma + role(sentence, tail)
	case kind == answerPerson || personObject[f.lemma] && kind == answerThing && agentNamed(tail) && !strings.Contains(tail, " "):
		// "Who did the project thank?": a person is asked with "who";
		// "thanks Rubenstein" names one by a single name.
		q = "Who " + aux + " " + subject + " " + f.lemma
	case kind == answerCount && countedUnit(tail) != "" && (!strings.Contains(f.lemma, " ") || strings.HasSuffix(f.lemma, " with")):
		// "How many testing frameworks does Python come with?"; never
		// "How many … did revenue rise to?"
		q = "How many " + countedUnit(tail) + " " + aux + " " + subject + " " + f.lemma
	case f.lemma == "have" && kind != answerCount:
		// "What does RAID0 have?" asks for anything it has
		return "", false
	default:
		q = whFor(kind, tail) + " " + aux + " " + subject + " " + f.lemma
	}
	if a := anchor(head, tail, sentence); a != "" {
		q += " " + a
	} else if !asOf.IsZero() && !yearRe.MatchString(q) {
		// "How many wind farms does Helios Energy operate?" has a new answer
		// every quarter; the report date pins it.
		if f.past {
			q += ", as reported in " + asOf.Format("January 2006")
		} else {
			q += " as of " + asOf.Format("January 2006")
		}
	}
	q += "?"
	if ContainsAnswer(q, tail) {
		return "", false
	}
	return q, true
}

// pluralHead: a subject that takes a plural verb: coordinated names ("cp
// and mv"), or a noun phrase ending in a plural noun ("IBM Z platforms").
func pluralHead(head string) bool {
	h := strings.ToLower(strings.TrimSpace(head))
	w := strings.Fields(h)
	if len(w) == 0 || imperatives[w[0]] {
		return false // "Make PICTURES match …": an instruction
	}
	if strings.Contains(h, " and ") || strings.Contains(h, ", ") {
		return true
	}
	return pluralNounPhrase(head)
}

// pluralNounPhrase: a plural noun phrase that names something ("IBM Z
// platforms", "the Unicode data tables"), not a kind of thing opening a
// sentence ("Opaque formats").
func pluralNounPhrase(head string) bool {
	orig := strings.Fields(head)
	w := strings.Fields(strings.ToLower(head))
	if len(w) == 0 || imperatives[w[0]] {
		return false
	}
	named := false
	for _, x := range orig[1:] {
		if len([]rune(x)) > 1 && isCapitalized(x) || codeToken(x) {
			named = true
		}
	}
	last := w[len(w)-1]
	return named && len(last) > 3 && strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") &&
		!strings.HasSuffix(last, "us") && !strings.HasSuffix(last, "is") && !strings.ContainsAny(last, "0123456789_")
}

// pluralRelation reads a relation in the plural present ("provide",
// "depend on", "have"), which asks with "do": "What do `foo` and `bar`
// provide?". The verb is one the part-of-speech tagger reads as a present
// verb after "They".
func pluralRelation(rel string) (verbForm, bool) {
	f := strings.Fields(strings.ToLower(rel))
	if len(f) == 0 || len(f) > 2 || copulas[f[0]] != "" || auxiliaries[f[0]] && f[0] != "have" || dangling[f[0]] {
		return verbForm{}, false
	}
	if len(f) == 2 && !dangling[f[1]] {
		return verbForm{}, false // a particle or preposition follows, nothing else
	}
	ts := tagged("They " + f[0] + " it")
	if len(ts) != 3 || ts[1].Tag != "VBP" {
		return verbForm{}, false
	}
	return verbForm{lemma: strings.Join(f, " "), plural: true}, true
}

// lowerable words open a head with a common noun or an article, which loses
// its sentence-initial capital inside a question.
var lowerable = map[string]bool{"the": true, "a": true, "an": true, "inflation": true, "revenue": true,
	"revenues": true, "sales": true, "unemployment": true, "growth": true, "exports": true, "imports": true,
	"output": true, "production": true, "profit": true, "income": true, "shares": true, "spending": true,
	"prices": true, "wages": true, "demand": true, "investment": true, "employment": true, "total": true,
	"net": true, "gross": true, "operating": true, "quarterly": true, "annual": true, "consumer": true,
	"core": true, "average": true, "seasonally": true}

func questionCase(head string) string {
	if programName(head) {
		return "`" + head + "`" // a name written as code: bc, tmux, libxcrypt
	}
	first := head
	if i := strings.IndexFunc(head, unicode.IsSpace); i >= 0 {
		first = head[:i]
	}
	if lowerable[strings.ToLower(first)] && (first != strings.ToUpper(first) || first == "A" && first != head) {
		r, n := utf8.DecodeRuneInString(head)
		return string(unicode.ToLower(r)) + head[n:]
	}
	return head
}

// orgWords end names of organisations, not people.
var orgWords = map[string]bool{"corp": true, "inc": true, "ltd": true, "llc": true, "plc": true, "co": true,
	"bank": true, "group": true, "holdings": true, "company": true, "partners": true, "capital": true,
	"foods": true, "energy": true, "motors": true, "labs": true, "fund": true, "trust": true,
	"ministry": true, "agency": true, "office": true, "program": true, "initiative": true,
	"university": true, "institute": true, "council": true, "markets": true, "services": true,
	"logistics": true, "pharmaceuticals": true, "union": true, "board": true, "authority": true}

// looksLikePerson accepts two or three capitalised alphabetic words that do
// not end like an organisation: "Maria Lopez", "Jean-Luc Moreau".
func looksLikePerson(s string) bool {
	ws := strings.Fields(s)
	if len(ws) < 2 || len(ws) > 3 || orgWords[strings.ToLower(strings.Trim(ws[len(ws)-1], "."))] {
		return false
	}
	for _, w := range ws {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) {
			return false
		}
		for _, c := range w {
			if !unicode.IsLetter(c) && c != '-' && c != '\'' && c != '.' {
				return false
			}
		}
	}
	return true
}

var countRe = regexp.MustCompile(`^(?:\d{1,3}(?:,\d{3})+|\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+((?:[A-Za-z0-9][A-Za-z0-9-]*\s+){0,3}[a-z][a-z-]*)$`)

// boundRe: a bound before a count ("up to 64 connections") still counts
// the same things.
var boundRe = regexp.MustCompile(`^(?i:up to|at least|at most|more than|fewer than|less than|over|about|around|nearly|almost|approximately|roughly)\s+`)

// notCounted are words after a number that make it an amount, not a count.
var notCounted = map[string]bool{"percent": true, "per": true, "million": true, "billion": true,
	"thousand": true, "trillion": true, "basis": true, "points": true, "times": true, "years": true,
	"months": true, "days": true, "of": true}

// countNoun returns the counted noun phrase of "12 new stores" ("new
// stores"), or "" when the tail is not a count of things.
func countNoun(tail string) string {
	m := countRe.FindStringSubmatch(boundRe.ReplaceAllString(strings.TrimSpace(tail), ""))
	if m == nil {
		return ""
	}
	for _, w := range strings.Fields(m[1]) {
		if notCounted[w] {
			return ""
		}
	}
	return m[1]
}

// role returns " as {role}" when the sentence names the position the person
// was appointed to, right after the name.
func role(sentence, tail string) string {
	i := strings.Index(sentence, tail)
	if i < 0 {
		return ""
	}
	rest := strings.Fields(sentence[i+len(tail):])
	if len(rest) < 2 || rest[0] != "as" {
		return ""
	}
	var words []string
	for _, w := range rest[1:] {
		clean := strings.TrimRight(w, ",.;:")
		r, _ := utf8.DecodeRuneInString(clean)
		if clean == "" || !unicode.IsLower(r) || roleStops[clean] || len(words) == 6 {
			break
		}
		words = append(words, clean)
		if clean != w {
			break // punctuation ended the phrase
		}
	}
	if len(words) == 0 {
		return ""
	}
	return " as " + strings.Join(words, " ")
}

var roleStops = map[string]bool{"in": true, "on": true, "at": true, "from": true, "effective": true,
	"after": true, "with": true, "replacing": true, "and": true, "following": true, "during": true}

var (
	anchorRe = regexp.MustCompile(`(?i)\b(?:in|during|at the end of|by the end of|as of|for|on)\s+(?:the\s+(?:first|second|third|fourth)\s+quarter\s+of\s+\d{4}|Q[1-4]\s+\d{4}|(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}|(?:fiscal\s+)?(?:19|20)\d{2})\b`)
	yearRe   = regexp.MustCompile(`\b(?:19|20)\d{2}\b`)
)

// anchor returns the sentence's first time expression outside the tail, as
// it should appear inside a question, or "" when the head is already dated.
func anchor(head, tail, sentence string) string {
	if yearRe.MatchString(head) {
		return ""
	}
	ti := strings.Index(sentence, tail)
	for _, m := range anchorRe.FindAllStringIndex(sentence, -1) {
		if ti >= 0 && m[0] < ti+len(tail) && ti < m[1] {
			continue
		}
		if ti >= 0 && m[0] > ti && strings.ContainsAny(sentence[ti+len(tail):m[0]], ",;") {
			break // "…, an increase on the 91,200 TEU recorded in 2024": another clause's time
		}
		if ti >= 0 && m[1] <= ti && inserted(sentence, m[0], m[1], ti) {
			continue // "Acme Corp, founded in 1998, acquired …": the founding's time
		}
		a := sentence[m[0]:m[1]]
		r, n := utf8.DecodeRuneInString(a)
		return string(unicode.ToLower(r)) + a[n:]
	}
	return ""
}

// inserted reports whether the span [i, j) of a sentence sits in a clause
// set off by commas, parentheses or dashes that closes before position
// ti: an apposition or a relative clause ("Acme Corp, founded in 1998,
// acquired …", "Quill (released in 2019) supports …"), whose time is not
// the fact's.
func inserted(sentence string, i, j, ti int) bool {
	open := strings.LastIndexAny(sentence[:i], ",(—–")
	if open < 0 || strings.TrimSpace(sentence[:open]) == "" {
		return false // "In Q3 2025, Helios Energy appointed …" opens the sentence
	}
	closeAt := strings.IndexAny(sentence[j:], ",)—–")
	if closeAt < 0 {
		return false
	}
	return j+closeAt < ti
}

// programName: a head of one lower-case word that is not a common noun the
// extractor resolves ("revenue"): the extractor reads such a word opening a
// sentence as the name of a program ("bc is …", "tmux depends on …"). A
// question writes it as code ("What is `bc`?"), as documentation writes
// the names of programs and libraries, so that a reader sees a name without
// the question guessing what kind of thing it names; one already written as
// code ("libxml2") shows it is a name by itself.
func programName(head string) bool {
	if head == "" || strings.ContainsAny(head, " '") || lowerable[head] || codeToken(head) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(head)
	return unicode.IsLower(r)
}
