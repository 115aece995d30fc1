package question

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/text"
)

// Kind values of schemas.Triplet.Kind (set by processors/triplet).
const (
	kindVerb      = "verb"
	kindCopula    = "copula"
	kindAttribute = "attribute"
	kindTable     = "table"
	kindRelease   = "release"
	kindEntry     = "entry"
)

// SingleFor writes the single-hop question whose answer is tail for a
// triplet of the given kind (schemas.Triplet.Kind):
//   - "" and "verb": Single, and for its special shapes: "When did {head}
//     {verb} {object}?" for a date, "By how much did {head} {verb}?" for a
//     change, "Who acquired {head}?" for a passive with its agent, "When was
//     {head} founded?", "How much did {head} {verb}?" for an amount;
//   - "copula": "What is {head}?" / "Who is {head}?", "How much is {head}
//     worth?", else Single;
//   - "attribute": "Who is the {role} of {head}?", "Where is {head}
//     based?", "What was {head}'s {attribute}?";
//   - "table": "What was the {column} of {row}?", or, for a column headed
//     by a period, "In {caption}, what was the {row} in {period}?".
//
// chunk is the ground-truth chunk (for a table's caption). Time anchors are
// those of Single: a time expression of the sentence, else the publication
// month asOf, never the run date. It reports false when no template fits or
// the question would contain its answer.
func SingleFor(kind, head, relation, tail, sentence, chunk string, asOf time.Time) (string, bool) {
	head, tail, relation = strings.TrimSpace(head), strings.TrimSpace(tail), strings.TrimSpace(relation)
	if head == "" || tail == "" || relation == "" {
		return "", false
	}
	var q string
	var ok bool
	switch kind {
	case kindAttribute:
		q, ok = attributeQuestion(head, relation, tail, sentence, asOf)
	case kindTable:
		q, ok = tableQuestion(head, relation, tail, sentence, chunk, asOf)
	case kindCopula:
		q, ok = copulaQuestion(head, relation, tail, sentence, asOf)
	case kindRelease:
		q, ok = releaseQuestion(head, relation, tail, sentence)
	case kindEntry:
		q, ok = entryQuestion(head, relation)
		ok = ok && !nameInflected(q, tail)
	default:
		q, ok = verbQuestion(head, relation, tail, sentence, asOf)
	}
	if !ok || ContainsAnswer(q, tail) {
		return "", false
	}
	// A phrase taken from a wrapped line keeps its line break: a question
	// is one line.
	return strings.Join(strings.Fields(q), " "), true
}

// timeAnchor is the anchor Single adds: the sentence's own time
// expression, else the publication month.
func timeAnchor(head, tail, sentence string, asOf time.Time, past bool) string {
	if a := anchor(head, tail, sentence); a != "" {
		return " " + a
	}
	if asOf.IsZero() || yearRe.MatchString(head) {
		return ""
	}
	if past {
		return ", as reported in " + asOf.Format("January 2006")
	}
	return " as of " + asOf.Format("January 2006")
}

var (
	dateRe   = regexp.MustCompile(`^(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October|November|December)(?:\s+\d{1,2},)?(?:\s+\d{4})?$|^(?:19|20)\d{2}$|^Q[1-4]\s+\d{4}$|^the\s+(?:first|second|third|fourth)\s+quarter\s+of\s+\d{4}$`)
	amountRe = regexp.MustCompile(`^(?:[A-Z]{3}\s+|[$€£¥])\s?\d[\d,.]*(?:\s+(?:million|billion|trillion|thousand|bn|m))?$`)
)

// isDate: "14 March 2026", "March 2026", "2014", "Q1 2026".
func isDate(s string) bool { return dateRe.MatchString(s) }

// isAmount: "NOK 412 million", "$4.2 billion", "EUR 48,000".
func isAmount(s string) bool { return amountRe.MatchString(s) }

func verbQuestion(head, relation, tail, sentence string, asOf time.Time) (string, bool) {
	f := strings.Fields(strings.ToLower(relation))
	subject := questionCase(head)
	last := f[len(f)-1]
	if len(f) == 4 && f[0] == "can" && f[1] == "be" {
		// "The Exim book can be found at https://…": where to get it
		return "Where can " + subject + " be " + f[2] + "?", true
	}
	if f[0] == "must" {
		// A requirement: "Where must public Python 3 modules be
		// installed?", "What must the quill2 package depend on?"
		switch {
		case len(f) == 4 && f[1] == "be" && kindOf(tail, sentence) == answerPath:
			return "Where must " + subject + " be " + f[2] + "?", true
		case len(f) == 4 && f[1] == "be":
			return "What must " + subject + " be " + f[2] + " " + f[3] + "?", true
		case len(f) == 3:
			return "What must " + subject + " " + f[1] + " " + f[2] + "?", true
		}
		return "", false
	}
	// Passive: "was acquired by", "was founded in", "is maintained by",
	// "is installed in", "was introduced in".
	if (len(f) == 3 || len(f) == 4 && particles[f[2]]) && (f[0] == "was" || f[0] == "were" || f[0] == "is" || f[0] == "are") {
		be, participle := f[0], strings.Join(f[1:len(f)-1], " ") // "set up", a phrasal verb
		if hw := strings.Fields(head); pluralNounPhrase(head) && !isCapitalized(hw[len(hw)-1]) {
			// "The Unicode data tables have been updated to …" asks
			// "What were the Unicode data tables updated to?" ("GNU
			// Emacs", a name, is not a plural)
			switch be {
			case "was":
				be = "were"
			case "is":
				be = "are"
			}
		}
		kind := kindOf(tail, sentence)
		switch {
		case last == "to" && purposeVerbs[participle]:
			// "The Alien package is used to convert between …": the
			// infinitive's verb phrase answers
			return "What " + be + " " + subject + " " + participle + " to do?", true
		case last == "by":
			if !isParticiple(participle) {
				return "", false // "is copyright by": not a verb to ask with
			}
			// The agent does it: "was written by" asks "Who wrote X?",
			// "is maintained by" "Who maintains X?"; an agent that is not
			// named in capitals (a program, "the kernel") is a "what".
			verb := pastOf(participle)
			if be == "is" || be == "are" {
				l := lemmaOfParticiple(participle)
				if l == "" {
					return "", false
				}
				verb = thirdPersonOf(l)
			}
			wh := "Who"
			if !agentNamed(tail) {
				wh = "What"
			}
			return wh + " " + verb + " " + subject + anchorOr(head, tail, sentence, asOf, be == "was" || be == "were") + "?", true
		case kind == answerDate:
			return "When " + be + " " + subject + " " + participle + "?", true
		case kind == answerVersion && (last == "in" || last == "since"):
			// "was introduced in 2.5": "In which version was X introduced?"
			if last == "since" {
				return "Since which version " + be + " " + subject + " " + participle + "?", true
			}
			return "In which version " + be + " " + subject + " " + participle + "?", true
		case kind == answerPath && (last == "in" || last == "at" || last == "under" || last == "into" || last == "as"):
			// "is installed in /usr/lib/foo": "Where is X installed?"
			return "Where " + be + " " + subject + " " + participle + "?", true
		case (last == "in" || last == "at") && placeParticiples[participle] && kind == answerThing,
			last == "at" && kind == answerThing,
			(last == "from" || last == "on") && urlRe.MatchString(tail):
			// "was developed at the University of Bergen", "is available
			// from https://…": "Where was X developed?"
			return "Where " + be + " " + subject + " " + participle + "?", true
		case last == "as" && participle == "known":
			// "What is Debian unstable known as?"
			return "What " + be + " " + subject + " " + participle + " as?", true
		case last == "in" || last == "under" || last == "on" || last == "to" || last == "into" || last == "for":
			// "What is Wget written in?", "What is Valgrind licensed under?",
			// "What was Python updated to?", "What is Quill designed for?"
			return "What " + be + " " + subject + " " + participle + " " + last + "?", true
		}
		return "", false
	}
	// A release: "added in 2.5", "introduced in version 3".
	if last == "in" && len(f) >= 2 && kindOf(tail, sentence) == answerVersion {
		v, ok := parseRelation(strings.Join(f[:len(f)-1], " "))
		if !ok || v.copula || !v.past {
			return "", false
		}
		obj := objectBefore(sentence, f[0], last, tail)
		if obj == "" {
			return "", false // "In which version did X add?" asks nothing
		}
		return "In which version did " + subject + " " + v.lemma + " " + obj + "?", true
	}
	// A dated event: "opened on", "co-founded in".
	if (last == "on" || last == "in") && len(f) >= 2 && isDate(tail) {
		v, ok := parseRelation(strings.Join(f[:len(f)-1], " "))
		if !ok || v.copula {
			return "", false
		}
		aux := "does"
		if v.past {
			aux = "did"
		}
		obj := objectBefore(sentence, f[0], last, tail)
		if obj == "" {
			obj = objectAfter(sentence, f[0], tail)
		}
		if lf := strings.Fields(v.lemma); len(lf) == 2 {
			obj = strings.TrimSpace(strings.TrimPrefix(obj+" ", lf[1]+" ")) // "take up" + "up the position"
		}
		q := "When " + aux + " " + subject + " " + v.lemma
		if obj != "" {
			q += " " + obj
		}
		return q + "?", true
	}
	// A change: "rose by" 18%.
	if last == "by" && len(f) == 2 {
		v, ok := parseRelation(f[0])
		if !ok || v.copula {
			return "", false
		}
		aux := "does"
		if v.past {
			aux = "did"
		}
		return "By how much " + aux + " " + subject + " " + v.lemma + anchorOr(head, tail, sentence, asOf, v.past) + "?", true
	}
	// A port: "Quill listens on port 8080" asks "On which port does Quill
	// listen?".
	if len(f) == 3 && f[1] == "on" && f[2] == "port" {
		if v, ok := parseRelation(f[0]); ok && !v.copula && !v.past {
			q := "On which port does " + subject + " " + v.lemma
			if strings.Contains(sentence, "by default") {
				q += " by default"
			}
			return q + "?", true
		}
		return "", false
	}
	// An object and what the verb does it with, or where it puts it:
	// "What does restic encrypt all data with?", "Where does restic
	// store its data?".
	if len(f) == 2 && text.ObjectPreps[last] {
		if v, ok := parseRelation(f[0]); ok && !v.copula && !v.past {
			if obj := objectBefore(sentence, f[0], last, tail); obj != "" && !strings.Contains(obj, " "+last+" ") {
				if kindOf(tail, sentence) == answerPath && (last == "in" || last == "into" || last == "under" || last == "to") {
					return "Where does " + subject + " " + v.lemma + " " + obj + "?", true
				}
				return "What does " + subject + " " + v.lemma + " " + obj + " " + last + "?", true
			}
		}
	}
	// An amount given or earned: "How much did Innovation Trøndelag award?"
	if isAmount(tail) && len(f) == 1 {
		if v, ok := parseRelation(relation); ok && !v.copula && !measureLemma(v.lemma) {
			aux := "does"
			if v.past {
				aux = "did"
			}
			return "How much " + aux + " " + subject + " " + v.lemma + anchorOr(head, tail, sentence, asOf, v.past) + "?", true
		}
	}
	return Single(head, relation, tail, sentence, asOf)
}

// urlRe: a web or FTP address.
var urlRe = regexp.MustCompile(`^(?:(?:https?|ftp)://|www\.)\S+$`)

// agentNamed: the agent of a passive is named as a person or an
// organisation is ("Oda Rasmussen", "the Debian Project", "Beta Inc."),
// not a thing ("the kernel", "`systemd`", "/etc/foo").
func agentNamed(tail string) bool {
	w := strings.Fields(tail)
	for len(w) > 1 && (strings.EqualFold(w[0], "the") || strings.EqualFold(w[0], "a") || strings.EqualFold(w[0], "an")) {
		w = w[1:]
	}
	if len(w) == 0 || kindOf(tail, "") != answerThing && kindOf(tail, "") != answerPerson {
		return false
	}
	r, _ := utf8.DecodeRuneInString(w[0])
	return unicode.IsUpper(r) && !codeToken(w[0])
}

// measureLemma: verbs whose amount is a level ("reach NOK 37 million"),
// asked with "What did … reach?".
func measureLemma(l string) bool {
	switch l {
	case "reach", "total", "average", "hit", "amount", "stand", "peak", "settle":
		return true
	}
	return false
}

func anchorOr(head, tail, sentence string, asOf time.Time, past bool) string {
	return timeAnchor(head, tail, sentence, asOf, past)
}

// objectBefore returns the words of the sentence between the verb (the
// first occurrence of verb before the tail) and the preposition before the
// tail: "opened a cross-dock terminal on Brattøra quay on 8 September 2025"
// gives "a cross-dock terminal on Brattøra quay". It returns "" when there
// is none or they do not read as an object (a comma, a quote, a clause).
func objectBefore(sentence, verb, prep, tail string) string {
	ti := strings.LastIndex(sentence, tail)
	if ti < 0 {
		return ""
	}
	before := sentence[:ti]
	lower := strings.ToLower(before)
	vi := -1
	for k := 0; ; {
		i := strings.Index(lower[k:], verb)
		if i < 0 {
			break
		}
		vi = k + i
		k = vi + 1
	}
	if vi < 0 {
		return ""
	}
	rest := strings.TrimSpace(strings.TrimRight(before[vi+len(verb):], " `'\"‘“*"))
	rest = strings.TrimSpace(strings.TrimSuffix(rest, prep))
	if rest == "" || strings.Contains(rest, ", ") || strings.ContainsAny(rest, ";:\"“”()") || len(strings.Fields(rest)) > 12 {
		return ""
	}
	w := strings.Fields(rest)
	if dangling[strings.ToLower(w[0])] && strings.ToLower(w[0]) != "into" && strings.ToLower(w[0]) != "up" {
		return ""
	}
	return rest
}

func copulaQuestion(head, relation, tail, sentence string, asOf time.Time) (string, bool) {
	f := strings.Fields(strings.ToLower(relation))
	be, ok := copulas[f[0]]
	if !ok {
		return "", false
	}
	subject := questionCase(head)
	if len(f) == 2 && f[1] == "worth" {
		return "How much " + be + " " + subject + " worth" + timeAnchor(head, tail, sentence, asOf, be == "was" || be == "were") + "?", true
	}
	if len(f) == 3 && f[1] == "part" && f[2] == "of" {
		// "What is GNU findutils part of?"
		return "What " + be + " " + subject + " part of?", true
	}
	if len(f) == 3 && complementAdjectives[f[1]] {
		if f[1] == "available" {
			// "Quill is available from https://…": where to get it
			return "Where " + be + " " + subject + " available?", true
		}
		// "What is the Incoming system responsible for?"
		return "What " + be + " " + subject + " " + f[1] + " " + f[2] + "?", true
	}
	if len(f) > 1 {
		return "", false
	}
	if kindOf(tail, sentence) == answerPath {
		// "The system-wide configuration of Quill is /etc/quill.conf".
		return "Where " + be + " " + subject + " located?", true
	}
	if !strings.ContainsAny(tail, "0123456789") {
		// "Fjordline's largest warehouse is Lonevåg": the name is asked.
		wh := "What"
		if isPerson(tail, sentence) || agentRole(head) && isCapitalized(strings.TrimPrefix(tail, "The ")) {
			wh = "Who" // "Who is the main author of the DHCP server?": a role someone holds
		}
		if lt := strings.ToLower(tail); strings.HasPrefix(lt, "a ") || strings.HasPrefix(lt, "an ") {
			// A definition ("Nexidex is a treatment for hypertension")
			// holds whenever it was published: only a time of its own
			// sentence anchors it, never the publication month.
			asOf = time.Time{}
		}
		return wh + " " + be + " " + subject + timeAnchor(head, tail, sentence, asOf, be == "was" || be == "were") + "?", true
	}
	return Single(head, relation, tail, sentence, asOf)
}

// complementAdjectives take the prepositional complement a copula fact
// states ("is responsible for", "is compatible with"; the rule extractor's
// adjectiveComplement).
var complementAdjectives = toSet(`responsible compatible equivalent similar identical short specific due dependent
available native analogous superior useful suitable necessary required`)

// locativeQuestions ask where an organisation is.
var locativeQuestions = map[string]string{"based in": "based", "headquartered in": "headquartered",
	"located in": "located", "registered in": "registered", "incorporated in": "incorporated", "listed in": "listed"}

func attributeQuestion(head, relation, tail, sentence string, asOf time.Time) (string, bool) {
	subject := questionCase(head)
	rel := strings.ToLower(relation)
	if p, ok := locativeQuestions[rel]; ok {
		return "Where is " + subject + " " + p + "?", true
	}
	if participial(rel) {
		return "", false // "based on": neither a role nor a figure of the head
	}
	if isPerson(tail, sentence) {
		// "Who is the chief executive of Northwind Robotics?"
		// The sentence's dates belong to other events ("elected Ingrid
		// Solberg, the chief executive of Northwind Robotics, on 12
		// February"): the role is dated by the publication.
		q := "Who is the " + rel + " of " + subject
		if !asOf.IsZero() {
			q += " as of " + asOf.Format("January 2006")
		}
		return q + "?", true
	}
	if purpose, ok := strings.CutPrefix(rel, "command to "); ok && kindOf(tail, sentence) == answerCommand {
		// "To rebuild the font cache, run quill-cache -f." in a chunk
		// about quillpad: "Which command rebuilds the font cache for
		// `quillpad`?"
		return "Which command " + thirdPersonOf(purpose) + " for " + subject + "?", true
	}
	switch kindOf(tail, sentence) {
	case answerPath:
		// "Where is Quill's configuration file located?"
		return "Where is " + possessive(subject) + " " + rel + " located?", true
	case answerDate:
		// "When was Quill's first release?" reads as asked; "What was
		// Quill's release date?" too, and keeps the attribute's noun.
		return "What is " + possessive(subject) + " " + rel + "?", true
	}
	// "What was Fjordline Logistics' revenue for 2025?"
	a, be := "", "was"
	if x := anchor(head, tail, sentence); x != "" {
		a = " " + x
	} else {
		a, be = timeAnchor(head, tail, sentence, asOf, false), "is"
	}
	return "What " + be + " " + possessive(subject) + " " + rel + a + "?", true
}

// possessive writes "X's" or "Xs'".
func possessive(s string) string {
	if strings.HasSuffix(s, "'s") || strings.HasSuffix(s, "s'") {
		return s // already a possessive phrase: "Acme's revenue"
	}
	if strings.HasSuffix(s, "s") {
		return s + "'"
	}
	return s + "'s"
}

var periodRe = regexp.MustCompile(`^(?:(?:FY|fiscal\s+)?(?:19|20)\d{2}|Q[1-4]\s+(?:19|20)\d{2}|H[12]\s+(?:19|20)\d{2}|(?:19|20)\d{2}\s*[-/]\s*\d{2,4})$`)

// tableQuestion: "What was the grant (NOK million) of Northwind Robotics in
// the 2026 round?" for an entity row; "In "Key figures, Northwind Robotics
// AS", what was the revenue (NOK million) in 2025?" for a row of figures
// under period columns.
func tableQuestion(row, column, cell, rowLine, chunk string, asOf time.Time) (string, bool) {
	caption := tableCaption(chunk, rowLine)
	if caption == "" {
		caption = tableHeading(chunk, rowLine)
	}
	if caption == "" || manualSections[strings.ToLower(strings.TrimSpace(sectionNumber.ReplaceAllString(caption, "")))] {
		// "the revenue of Cold-chain logistics": of whose report? "the
		// default of log file in FILES": of which program's manual page?
		return "", false
	}
	if q, ok := taskQuestion(row, column, cell, caption); ok {
		return q, true
	}
	if instrumentColumns[strings.ToLower(strings.TrimSpace(column))] {
		// "What is the command of Debian in "Distribution Package"?": a
		// command for a task the row does not say (to install Borg)
		return "", false
	}
	if !namesSomething(row) && !namesSomething(caption) {
		// Under a heading that names nothing ("Segment revenue",
		// "Results"), a row of common nouns ("Cold-chain logistics")
		// leaves the question without its subject.
		return "", false
	}
	if c := column[0]; c >= '0' && c <= '9' && !periodRe.MatchString(column) {
		return "", false // "What is the 64-bit of MAX_PREC": a header that is no noun
	}
	if periodRe.MatchString(column) {
		if caption == "" {
			return "", false // "What was the revenue in 2025?" of whom?
		}
		return "In \"" + caption + "\", what was the figure for " + lowerFirst(row) + " in " + column + "?", true
	}
	if f := strings.Fields(row); len(f) > 6 || len(f) > 1 && imperativeRow(f[0]) {
		return "", false // "Compute the 32-bit hash value for a key": a description, not a name
	}
	if f := strings.Fields(row); len(f) > 1 && plainWords(row) {
		row = "\"" + row + "\"" // "does not extend to right of": a phrase the table names, quoted
	}
	be := "is"
	if pluralHeader(column) {
		be = "are" // "What are the contents of segid …?"
	}
	q := "What " + be + " the " + lowerHeader(column) + " of " + row + " in \"" + caption + "\""
	return q + "?", true
}

// pluralHeader reports a column header whose head noun, its last word, is
// plural ("Contents", "Supported platforms"): the question's verb agrees.
func pluralHeader(column string) bool {
	ts := tagged("the " + strings.ToLower(outsideBrackets(column)))
	for i := len(ts) - 1; i > 0; i-- {
		if t := ts[i].Tag; strings.HasPrefix(t, "NN") || strings.HasPrefix(t, "JJ") {
			return t == "NNS" || t == "NNPS"
		}
	}
	return false
}

// namesSomething: a phrase names an entity: a capitalised word after its
// first, a first word written as a name or an acronym ("PickMate",
// "EBITDA"), or code ("lz4 1.9.3", "zstd"); a year alone names nothing.
func namesSomething(s string) bool {
	f := strings.Fields(yearRe.ReplaceAllString(outsideBrackets(s), "")) // "(NOK million)" is a unit
	for i, w := range f {
		w = strings.Trim(w, ",.;:()[]\"'*_")
		if w == "" {
			continue
		}
		if codeToken(w) || i > 0 && len([]rune(w)) > 1 && isCapitalized(w) {
			return true
		}
		up := 0
		for _, r := range w {
			if unicode.IsUpper(r) {
				up++
			}
		}
		if up > 1 {
			return true
		}
	}
	return len(f) == 1 && programName(f[0])
}

// lowerFirst lower-cases a common-noun header ("Grant (NOK million)") but not
// an acronym or a name of two capitals ("EBITDA", "PickMate").
func lowerFirst(s string) string {
	first := strings.Fields(s)[0]
	up := 0
	for _, r := range first {
		if unicode.IsUpper(r) {
			up++
		}
	}
	if up != 1 {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// lowerHeader lower-cases each word of a title-cased column header that
// is a plain word ("Strategy Number" → "strategy number"), keeping
// acronyms and names of two capitals ("NOK", "PostgreSQL").
func lowerHeader(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		f[i] = lowerFirst(w)
	}
	return strings.Join(f, " ")
}

// plainWords: lower-case words of letters and hyphens only, no name, number
// or code ("does not extend to right of").
func plainWords(s string) bool {
	for _, r := range s {
		if !unicode.IsLower(r) && r != ' ' && r != '-' {
			return false
		}
	}
	return true
}

// imperativeRow: a row name opening with a verb in the imperative
// ("Compute …", "Return …") describes what the row does.
func imperativeRow(w string) bool {
	switch strings.ToLower(w) {
	case "compute", "return", "returns", "check", "checks", "determine", "determines", "get", "gets", "set", "sets",
		"test", "tests", "create", "creates", "build", "builds", "convert", "converts", "extract", "extracts", "compare",
		"compares", "fetch", "fetches", "find", "finds", "make", "makes", "use", "uses", "perform", "performs":
		return true
	}
	return false
}

// taskVerbs open the task a row of a command table names ("Shut down the
// system", "List all timer units in memory").
var taskVerbs = toSet(`show list stop start restart reload suspend hibernate shut switch view track enable disable
mask unmask send reset load unset set get check install remove purge update upgrade search display print find
download configure reconfigure audit clean build mount unmount kill create delete copy move rename compare extract
convert edit open close add verify test run execute query count sort reboot poweroff halt boot`)

// taskQuestion asks a row of a table that pairs tasks with commands
// ("Shut down the system | systemctl poweroff"): 'In "List of systemd
// command snippets", which command shuts down the system?'. The row opens
// with a verb of the task, has at most ten words and no placeholder
// ("$unit"); the column names commands or the cell is one.
func taskQuestion(row, column, cell, caption string) (string, bool) {
	f := strings.Fields(row)
	if len(f) < 2 || len(f) > 10 || strings.EqualFold(f[1], "of") || !taskVerbs[strings.ToLower(f[0])] || !isCapitalized(f[0]) && f[0] != strings.ToLower(f[0]) ||
		strings.ContainsAny(row, "$<>{}") {
		return "", false
	}
	c := strings.ToLower(column)
	if !strings.Contains(c, "command") && !strings.Contains(c, "snippet") && !strings.Contains(c, "syntax") && kindOf(cell, "") != answerCommand {
		return "", false
	}
	for k := 2; k+1 < len(f); k++ {
		// "Shut down and reboot the system": each coordinated verb agrees
		if (f[k-1] == "and" || f[k-1] == "or") && taskVerbs[f[k]] {
			f[k] = thirdPersonOf(f[k])
		}
	}
	task := thirdPersonOf(strings.ToLower(f[0])) + " " + strings.Join(f[1:], " ")
	return "In \"" + caption + "\", which command " + task + "?", true
}

// leadIn reports a line ending with a colon that introduces what follows
// in a sentence rather than titling it: it has a comma, opens with a word
// that opens sentences ("Consider", "However", "An"), or ends on a verb or
// a pointer ("… is:", "… this example:").
func leadIn(line string) bool {
	l := strings.TrimSpace(line)
	if !strings.HasSuffix(l, ":") {
		return false
	}
	f := strings.Fields(strings.ToLower(strings.TrimSuffix(l, ":")))
	if len(f) == 0 {
		return false
	}
	return strings.Contains(l, ", ") || leadInFirst[f[0]] || leadInLast[f[len(f)-1]]
}

var leadInFirst = toSet(`consider however for an a here this these see note as so then if when in e.g. i.e. thus therefore`)
var leadInLast = toSet(`is are was were be example examples this these here below follows following include includes`)

var sectionNumber = regexp.MustCompile(`^(?:[A-Z]|\d+)(?:\.\d+)*\.\s+`)

var captionNumber = regexp.MustCompile(`^(?:\*\*|_)?(?:Table|Tab\.)\s+\d+(?:\.\d+)*[.:]?\s*(?:[–—:-]\s*)?`)

// tableCaption returns the title line right above the table holding
// rowLine ("Table 1 – Key figures, Northwind Robotics AS" gives "Key
// figures, Northwind Robotics AS"), or "".
func tableCaption(chunk, rowLine string) string {
	i := strings.Index(chunk, rowLine)
	if i < 0 {
		return ""
	}
	lines := strings.Split(chunk[:i], "\n")
	k := len(lines) - 1
	for k >= 0 && strings.HasPrefix(strings.TrimSpace(lines[k]), "|") || k >= 0 && strings.TrimSpace(lines[k]) == "" && k == len(lines)-1 {
		k--
	}
	for k >= 0 && strings.TrimSpace(lines[k]) == "" {
		k--
	}
	if k < 0 {
		return ""
	}
	c := strings.TrimSpace(lines[k])
	if listItemLine(c) {
		return "" // "- The C module has the following limits:"
	}
	c = strings.TrimLeft(c, "#")
	c = strings.TrimSpace(strings.Trim(c, "*_"))
	c = captionNumber.ReplaceAllString(c, "")
	c = sectionNumber.ReplaceAllString(c, "") // "5.14.2.1. Out-of-date" names "Out-of-date"
	if sentenceLine(c) {
		return "" // "The following table is meant as an illustration. …"
	}
	if leadIn(c) {
		return "" // "Consider this example:", "However, if … (here on arm):"
	}
	c = strings.TrimSuffix(strings.TrimSpace(c), ":")
	if c == "" || strings.Contains(c, "\"") || strings.Contains(c, "](") || len(strings.Fields(c)) > 14 || !strings.ContainsFunc(c, unicode.IsUpper) {
		return ""
	}
	if strings.HasSuffix(strings.ToLower(c), "below") || strings.HasSuffix(strings.ToLower(c), "follows") {
		return "" // a lead-in sentence, not a title
	}
	return c
}

// listItemLine: a line of a bulleted or numbered list.
func listItemLine(l string) bool {
	return strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "+ ") || listNumberRe.MatchString(l)
}

var listNumberRe = regexp.MustCompile(`^\d+[.)]\s`)

// sentenceLine: a line that is prose, not a title: it ends a sentence
// after a word (not "Table 8.23.") and has a verb-like word or a second
// sentence in it, or it leads in to what follows.
func sentenceLine(l string) bool {
	low := strings.ToLower(l)
	if strings.Contains(low, "following") || strings.Contains(low, "as follows") || strings.Contains(low, "shown below") {
		return true
	}
	if strings.Contains(l, ". ") && strings.ContainsFunc(l[strings.Index(l, ". ")+2:], unicode.IsUpper) {
		return true // two sentences
	}
	if !strings.HasSuffix(l, ".") || len(strings.Fields(l)) < 5 {
		return false
	}
	for _, w := range strings.Fields(low) {
		switch strings.Trim(w, ",.;:") {
		case "is", "are", "was", "were", "has", "have", "can", "will", "shows", "lists", "gives", "contains":
			return true
		}
	}
	return false
}

// objectAfter returns the object after the verb when the date came first
// ("In February 2026 Ingrid Solberg joined the board of Kvarts"): the words
// after the verb up to a preposition of place or time or a punctuation mark.
func objectAfter(sentence, verb, tail string) string {
	lower := strings.ToLower(sentence)
	vi := strings.Index(lower, verb+" ")
	if vi < 0 || strings.Contains(sentence[vi:], tail) {
		return ""
	}
	var words []string
	for _, w := range strings.Fields(sentence[vi+len(verb):]) {
		clean := strings.TrimRight(w, ",.;:")
		if objectStops[strings.ToLower(clean)] || len(words) == 8 {
			break
		}
		words = append(words, clean)
		if clean != w {
			break
		}
	}
	if len(words) == 0 || strings.ContainsAny(strings.Join(words, " "), "\"“”()") {
		return ""
	}
	return strings.Join(words, " ")
}

var objectStops = map[string]bool{"in": true, "on": true, "at": true, "for": true, "from": true, "with": true,
	"to": true, "since": true, "by": true, "during": true, "and": true, "after": true, "before": true,
	"which": true, "who": true, "that": true, "when": true, "while": true}

// releaseRe splits a release-note head into its subject and the release it
// belongs to: "cat (coreutils 9.1)".
// itemReleaseRe is the relation of a NEWS item (processors/triplet
// newsItems): "was added in release of ferm", "were added to some log
// lines in release of Icecast", "was removed in release of gperf".
var itemReleaseRe = regexp.MustCompile(`^(was|were) (added|removed)((?: to .+?)?) in release of (\S+)$`)

var releaseRe = regexp.MustCompile(`^(.+) \(([^()]*\d[^()]*)\)$`)

// classRe finds the class noun written right after an identifier in a
// sentence ("the copy_file_range syscall"), which asks for it: "Which
// syscall …?".
var classRe = regexp.MustCompile(`^\s+(option|syscall|field|environment\s+variable|variable|command|flag)\b`)

// releaseAdverbs sit between a subject and its verb in release notes.
var releaseAdverbs = map[string]bool{"now": true, "no": true, "longer": true, "also": true, "first": true, "still": true, "only": true}

// releaseQuestion phrases a fact of release notes (triplet Kind "release"):
//   - "released on": "When was coreutils 9.1 released?";
//   - "introduced in": "Which release introduced the grep bug where …?";
//   - a noun ("CVE identifier", "severity"): "What is the severity of …?",
//     and "kind of release": "What kind of release is OpenSSL 3.0.19?";
//   - "is", "are", "is now": "What is the new way to …?", the answer being
//     the thing so described;
//   - a verb group with its qualifier ("now uses", "can now set to restrict
//     …", "has been replaced by", "have been deprecated since"): "What does
//     cat now use?", "Which field can Packages files now set to …?", "Since
//     which release have … been deprecated?".
//
// A head's release ("cat (coreutils 9.1)") opens the question: "In
// coreutils 9.1, which syscall does cat now use?". A program named alone,
// in lower case, is called a command: "the cksum command".
func releaseQuestion(head, relation, tail, sentence string) (string, bool) {
	if m := itemReleaseRe.FindStringSubmatch(strings.Join(strings.Fields(relation), " ")); m != nil {
		// A NEWS item: "In which release of ferm were functions … added?"
		return "In which release of " + m[4] + " " + m[1] + " " + head + " " + m[2] + m[3] + "?", true
	}
	subj, ctx := head, ""
	if m := releaseRe.FindStringSubmatch(head); m != nil {
		subj, ctx = m[1], m[2]
	}
	rel := strings.Join(strings.Fields(relation), " ")
	w := strings.Fields(rel)
	if len(w) == 0 {
		return "", false
	}
	switch {
	case ctx == "" && bareProgram.MatchString(subj):
		subj = "the " + subj + " command"
	case ctx == "" && programList.MatchString(subj):
		subj = "the " + subj + " commands"
	}
	if f := strings.Fields(subj); strings.HasSuffix(f[0], "ing") && isCapitalized(f[0]) && f[0] != strings.ToUpper(f[0]) {
		subj = strings.ToLower(subj[:1]) + subj[1:] // "Installing or upgrading a binary package"
	}
	var q string
	switch {
	case rel == "released on":
		q = "When was " + subj + " released"
	case rel == "introduced in":
		q = "Which release introduced " + subj
	case rel == "kind of release":
		q = "What kind of release is " + subj
	case rel == "CVE identifier" || rel == "severity":
		q = "What is the " + rel + " of " + subj
	case rel == "is" || rel == "are" || rel == "is now":
		q = "What " + rel + " " + subj
	default:
		wh := "What"
		if i := strings.Index(sentence, tail); i >= 0 {
			before, after := sentence[:i], sentence[i+len(tail):]
			if m := classRe.FindStringSubmatch(after); m != nil {
				wh = "Which "
				if strings.HasSuffix(strings.TrimSpace(before), "new") {
					wh += "new "
				}
				wh += strings.Join(strings.Fields(m[1]), " ")
			} else if strings.HasSuffix(strings.TrimSpace(before), "aliases") {
				wh = "Which alias"
			}
		}
		var aux string
		var rest []string
		switch w[0] {
		case "is", "are", "has", "have", "will", "can", "should":
			aux, rest = w[0], w[1:]
		default:
			k := 0
			for k < len(w) && releaseAdverbs[w[k]] {
				k++
			}
			if k == len(w) {
				return "", false
			}
			verb := w[k]
			aux = "do"
			lemma := verb
			if strings.HasSuffix(verb, "s") && !strings.HasSuffix(verb, "ss") {
				aux, lemma = "does", thirdPerson(verb)
			} else if l := lemmaOfParticiple(verb); l != "" || verb == "learnt" || verb == "got" {
				// "gained", "learned", "learnt": a past asked with "did"
				aux, lemma = "did", l
				switch verb {
				case "learnt":
					lemma = "learn"
				case "got":
					lemma = "get"
				}
			}
			rest = append(append(append([]string{}, w[:k]...), lemma), w[k+1:]...)
		}
		if n := len(rest); n > 0 && rest[n-1] == "since" {
			wh, rest = "Since which release", rest[:n-1]
		}
		q = wh + " " + aux + " " + subj
		if len(rest) > 0 {
			q += " " + strings.Join(rest, " ")
		}
	}
	q = strings.Join(strings.Fields(q), " ")
	if ctx != "" {
		r, n := utf8.DecodeRuneInString(q)
		q = "In " + ctx + ", " + string(unicode.ToLower(r)) + q[n:]
	}
	return q + "?", true
}

// bareProgram: a program's name alone, in lower case ("cksum").
var bareProgram = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// programList: programs named in a list ("cp, mv, and install").
var programList = regexp.MustCompile(`^[a-z][\w-]*(?:, [a-z][\w-]*)*,? and [a-z][\w-]*$`)

// participlePast maps the irregular participles whose simple past differs:
// "was written by X" is asked "Who wrote …?", never "Who written …?".
var participlePast = map[string]string{"written": "wrote", "given": "gave", "taken": "took", "begun": "began",
	"done": "did", "seen": "saw", "known": "knew", "drawn": "drew", "driven": "drove", "chosen": "chose",
	"spoken": "spoke", "grown": "grew", "shown": "showed", "thrown": "threw", "broken": "broke",
	"frozen": "froze", "stolen": "stole", "forgotten": "forgot", "gotten": "got", "ridden": "rode",
	"risen": "rose", "hidden": "hid", "eaten": "ate", "fallen": "fell", "sung": "sang", "rewritten": "rewrote",
	"undertaken": "undertook", "overseen": "oversaw", "beaten": "beat", "sworn": "swore", "worn": "wore",
	"torn": "tore", "woven": "wove", "mistaken": "mistook", "forbidden": "forbade", "flown": "flew",
	"blown": "blew", "withdrawn": "withdrew", "overtaken": "overtook", "shaken": "shook", "borne": "bore"}

// pastOf returns the simple past of a participle.
func pastOf(participle string) string {
	if p, ok := participlePast[participle]; ok {
		return p
	}
	return participle // "acquired", "built", "led": the same form
}

// placeParticiples place what they describe: "was built in Trondheim" asks
// "Where …?"; "is written in C" does not.
var placeParticiples = map[string]bool{"located": true, "based": true, "held": true, "born": true, "built": true,
	"opened": true, "situated": true, "headquartered": true, "hosted": true, "stored": true, "installed": true,
	"registered": true, "incorporated": true, "listed": true, "founded": true, "established": true, "made": true,
	"produced": true, "manufactured": true, "published": true, "printed": true, "buried": true, "raised": true}

// sameParticiples are irregular verbs whose participle is their past.
var sameParticiples = toSet(`built made led held sent paid found bought brought taught sold told won left kept
lost meant met read set put cut hit let run spread shut hung spun sought thought caught fought dealt felt heard
lent bent spent struck stuck shot sat laid said sold understood bound fed fled bred`)

// isParticiple: a past participle a question can turn into a past tense.
func isParticiple(w string) bool {
	return strings.HasSuffix(w, "ed") || participlePast[w] != "" || sameParticiples[w]
}

// tableHeading returns the nearest Markdown heading above the table holding
// rowLine in its chunk ("## Benchmarks"), the table's subject when no
// caption sits right above it; or "".
func tableHeading(chunk, rowLine string) string {
	i := strings.Index(chunk, rowLine)
	if i < 0 {
		return ""
	}
	lines := strings.Split(chunk[:i], "\n")
	for k := len(lines) - 1; k >= 0; k-- {
		l := strings.TrimSpace(lines[k])
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.Trim(strings.TrimLeft(l, "#"), "*_ "))
		h = sectionNumber.ReplaceAllString(h, "") // "4.1. Normal Unix authentication"
		if h == "" || strings.Contains(h, "\"") || strings.Contains(h, "](") || len(strings.Fields(h)) > 14 {
			return ""
		}
		return h
	}
	return ""
}

// participial: an attribute named by a participle and its preposition
// ("based on", "made by") is not a role a person holds.
func participial(rel string) bool {
	f := strings.Fields(rel)
	return len(f) > 1 && dangling[f[len(f)-1]] || len(f) > 0 && strings.HasSuffix(f[0], "ed")
}

// particles complete a phrasal participle: "was set up on", "is shut down by".
var particles = map[string]bool{"up": true, "down": true, "out": true, "in": true, "off": true}

// purposeVerbs say what a thing is for: "is used to convert …" is
// asked "What is it used to do?".
var purposeVerbs = toSet(`designed intended meant used optimized optimised suited`)

// agentRole: a subject naming a role that a person or an organisation
// holds ("the main author of the DHCP server", "the maintainer of Quill").
func agentRole(head string) bool {
	for _, w := range strings.Fields(strings.ToLower(head)) {
		if w == "of" {
			return false
		}
		if agentRoles[w] {
			return true
		}
	}
	return false
}

var agentRoles = toSet(`author authors maintainer maintainers developer developers creator creators founder founders
leader leaders designer designers inventor inventors owner owners publisher publishers sponsor sponsors vendor
vendors upstream copyright-holder`)

// entryQuestion asks for the term of a reference entry by what its
// description says it does (processors/triplet KindEntry): "Allow adding
// otherwise ignored files" under "-f, --force" of git-add(1) gives "Which
// option of git-add allows adding otherwise ignored files?". The verb in
// the imperative agrees with "which option", and so does each verb
// coordinated with it ("Open the diff … and let the user edit it").
func entryQuestion(desc, kind string) (string, bool) {
	ts := tagged(desc)
	k := 0
	for k < len(ts) && ts[k].Tag == "RB" && strings.HasSuffix(ts[k].Text, "ly") {
		k++ // "Interactively choose hunks …"
	}
	if k >= len(ts) {
		return "", false
	}
	out := []byte(desc)
	var b strings.Builder
	last := 0
	put := func(i int, w string) {
		b.Write(out[last:ts[i].Start])
		b.WriteString(w)
		last = ts[i].End()
	}
	agree := func(i int) {
		w := strings.ToLower(ts[i].Text)
		if !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") {
			w = thirdPersonOf(w)
		}
		put(i, w)
	}
	if k > 0 {
		put(0, strings.ToLower(ts[0].Text))
	}
	agree(k)
	verbAfterTo := func(w string) bool {
		v := tagged("to " + w)
		return len(v) == 2 && v[1].Tag == "VB"
	}
	prev := k // the last verb that agrees
	for i := k + 2; i < len(ts); i++ {
		sep := ts[i-1].Text
		if sep != "and" && sep != "or" && sep != "," {
			continue
		}
		final := i == len(ts)-1 || i == len(ts)-2 && ts[i+1].Tag == "."
		if final && sep == "and" && clauseVerbs[strings.ToLower(ts[i].Text)] {
			agree(i) // "Check configuration file syntax and exit"
			prev = i
			continue
		}
		if sep == "and" && i-2 != prev && strings.HasPrefix(ts[i-2].Tag, "NN") && imperatives[strings.ToLower(ts[i].Text)] &&
			i+1 < len(ts) && (ts[i+1].Tag == "DT" || ts[i+1].Tag == "PRP$") {
			// "Hide all elements of the interface and use all rows …": a
			// second verb with its own object
			agree(i)
			prev = i
			continue
		}
		if i-2 != prev && sep != "," && verbAfterTo(strings.ToLower(ts[i-2].Text)) {
			continue // "into pairs of delete and create": two words that coordinate with each other
		}
		switch {
		case ts[i].Tag == "VB" || ts[i].Tag == "VBP",
			sep == "and" && ts[i-2].Text == "," && (verbAfterTo(strings.ToLower(ts[i].Text)) || clauseVerbs[strings.ToLower(ts[i].Text)]):
			// "Open the diff … and let the user edit it"; "Read queries
			// from a file, one per line, and output the number …": a
			// second clause's verb, whatever the tagger made of it
		case (ts[i].Tag == "NN" || ts[i].Tag == "JJ" || ts[i].Tag == "NNP") && (i-2 == prev || i-3 == prev && sep != "," && ts[i-2].Text == "," ||
			final && sep != ",") && (verbAfterTo(strings.ToLower(ts[i].Text)) || final && clauseVerbs[strings.ToLower(ts[i].Text)]):
			// "Create, list, delete or verify a tag", "Show the version
			// and exit": a verb of a run of verbs, or the last word, that
			// the tagger reads as a noun
		default:
			continue
		}
		agree(i)
		prev = i
	}
	b.Write(out[last:])
	return "Which " + kind + " " + b.String() + "?", true
}

// nameInflected reports an option named by one word that the question
// says in another form: "Which option drops incoming responses?" for
// "--drop", "… allows key roll-overs …" for "--rollover". (The name as
// written is caught by ContainsAnswer.)
func nameInflected(question, option string) bool {
	name := strings.TrimPrefix(strings.TrimLeft(option, "-"), "no-")
	if !strings.HasPrefix(option, "-") {
		return false
	}
	name = strings.ToLower(name)
	words := strings.FieldsFunc(strings.ToLower(question), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	if parts := strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == '.' }); len(parts) > 1 {
		// "--ext-todo" for "enables sphinx.ext.todo extension",
		// "--follow-links" for "follows symbolic links": every word of
		// the name is in the question
		for _, p := range parts {
			if !slices.ContainsFunc(words, func(w string) bool { return w == p || len(p) >= 4 && strings.HasPrefix(w, p) }) {
				return false
			}
		}
		return true
	}
	if len(name) < 4 {
		return false
	}
	for i, w := range words {
		if i+1 < len(words) && len(w) >= 3 && strings.HasPrefix(w+words[i+1], name) {
			return true // "roll-overs" for --rollover
		}
		if len(name) >= 6 && commonPrefix(w, name) >= len(name)-1 {
			return true // "deduplication" for --deduplicate
		}
		if len(w) >= 4 && (strings.HasPrefix(w, name) || strings.HasPrefix(name, w) && len(w) >= len(name)-2) {
			return true
		}
	}
	return false
}

// clauseVerbs open a description's second clause, though the tagger reads
// them as nouns: "…, and output the number …".
var clauseVerbs = toSet(`output print write read return exit display report log send list show dump`)

// commonPrefix is the length of the prefix a and b share.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// manualSections are the headings every manual page has: a table under one
// is named by the page's program, which the heading does not say.
var manualSections = toSet(`files options environment examples description synopsis notes bugs author authors
usage configuration exit`)

// instrumentColumns head cells that are a means to an end the table does
// not name in its rows: a command, a package, an example.
var instrumentColumns = toSet(`command commands package packages example examples usage syntax snippet snippets code invocation`)
