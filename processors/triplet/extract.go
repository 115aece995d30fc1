package triplet

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/text"
)

// badTail reports characters that no fact's value holds: layout and markup.
func badTail(t string) bool {
	return spaceRun(t, 2) || strings.ContainsAny(t, "*<>{}|=\\`[]") || strings.Contains(t, "-*-")
}

// spaceRun reports a run of n spaces inside a line of s: layout (columns,
// aligned text). The indentation that opens a wrapped line is not one: an
// indented paragraph is still prose.
func spaceRun(s string, n int) bool {
	run := strings.Repeat(" ", n)
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(strings.TrimLeft(l, " \t"), run) {
			return true
		}
	}
	return false
}

// factParticiples after a definition's genus state a fact of the subject
// ("a music server written in Python", "a fork based on Quill 2").
var factParticiples = set("written", "based", "developed", "implemented", "licensed", "maintained", "distributed",
	"released", "published", "created", "designed", "built")

// serverNouns name a kind of program after its name ("the Cyrus IMAP
// server").
var serverNouns = set("server", "daemon", "client", "service", "system", "editor", "browser", "shell", "compiler")

// pastAuthoring participles name a past act: "written by" is asked "Who
// wrote …?".
var pastAuthoring = set("written", "created", "designed", "built", "published")

// optionHeadRe is a subject that names a command-line option: "the -nn
// option", "The --force option".
var optionHeadRe = regexp.MustCompile(`^([Tt]he -{1,2}[\w-]+) option$`)

// Kind values of Triple (and schemas.Triplet.Kind): how a fact was stated,
// which decides how a question about it is phrased.
const (
	KindVerb      = "verb"      // subject–verb–object: "Acme acquired Beta"
	KindCopula    = "copula"    // subject–be–value: "Acme's revenue was $4.2 billion"
	KindAttribute = "attribute" // entity, attribute, value: "Northwind's chief executive, Anna Berg"
	KindTable     = "table"     // row entity, column header, cell of a Markdown table
)

// Triple is one fact read from a chunk. Tail is a verbatim substring of
// Sentence.Text and Sentence.Text of the chunk; Head usually is one too, but
// may be rebuilt ("Northwind Robotics' revenue" for a "Revenue …" sentence
// in a report about Northwind Robotics). Relation is a lower-cased verb form
// ("rose to", "was acquired by", "opened on") for Kind verb and copula, an
// attribute noun phrase ("chief executive", "based in") for Kind attribute
// and the column header for Kind table.
type Triple struct {
	Head, Relation, Tail string
	Kind                 string
	Sentence             Sentence
}

// Extract returns the facts of a chunk's text: those of its declarative
// prose sentences (one or more each), read over part-of-speech tags, and
// those of its Markdown tables (one per non-empty cell). It is the offline
// stand-in for the LLM extractor of RARE §4.2 and prefers precision to
// recall: a sentence it cannot read confidently (instructions, negations,
// modals, questions, pronoun subjects) yields nothing.
func Extract(chunkText string) []Triple { return ExtractTitled(chunkText, "") }

// ExtractTitled is Extract for a chunk of a document with a title: a title
// that names one release ("What’s New In Python 3.1") makes every chunk of
// the document release notes of that release (changelog.go).
func ExtractTitled(chunkText, title string) []Triple {
	var out []Triple
	sentences := Sentences(chunkText)
	r := reader{proper: map[string]bool{}, lower: map[string]bool{}, determined: map[string]bool{}}
	tagged := make([][]tok, len(sentences))
	for i, s := range sentences {
		tagged[i] = tagSentence(maskMarkup(s.Text))
		retagDoc(tagged[i])
		for k, t := range tagged[i] {
			if k > 0 && isCapital(t.text) && tagged[i][k-1].tag != "``" && tagged[i][k-1].text != ":" {
				r.proper[t.text] = true
			} else if !isCapital(t.text) {
				r.lower[t.lower] = true
				if k > 0 && (tagged[i][k-1].tag == "DT" || tagged[i][k-1].tag == "PRP$") {
					r.determined[t.lower] = true
				}
			}
		}
	}
	r.docTopic = chunkTopic(tagged)
	if t := titleTopic(chunkText); t != "" && (r.docTopic == "" || r.docTopic == t) {
		r.docTopic = t // "valgrind for Debian" above the text
	}
	for i, s := range sentences {
		if listFragment(chunkText, s) {
			continue // "* High-level balanced KafkaConsumer": a feature named, not a sentence
		}
		for _, t := range r.read(s.Text, tagged[i]) {
			t.Tail = unmarkDeterminer(t.Tail)
			if m := optionHeadRe.FindStringSubmatch(t.Head); m != nil {
				// "The -nn option enables new mail notification": an
				// option of which program? The page's title says, or
				// the fact is not asked.
				p := programOf(title)
				if p == "" {
					continue
				}
				t.Head = m[1] + " option of " + p
			}
			if badTail(t.Tail) || badTail(t.Head) || identifierTail(t.Tail) || t.Kind == KindVerb && bareNumberObject(t) || verbRepeated(t) {
				continue
			}
			t.Sentence = s
			out = append(out, t)
		}
	}
	out = append(out, tableTriples(chunkText)...)
	out = append(out, termTriples(chunkText, title)...)
	out = append(out, termDefaults(chunkText, title)...)
	out = append(out, entryTriples(chunkText, title)...)
	rel, at := readReleases(chunkText, title)
	if at != nil {
		out = inRelease(out, rel, at)
	}
	out = append(out, rel...)
	read := map[int]bool{}
	for _, t := range out {
		read[t.Sentence.End] = true
	}
	for _, t := range newsItems(chunkText, title) {
		if !read[t.Sentence.End] { // an item another pattern read (its evidence opens at the heading)
			out = append(out, t)
		}
	}
	return dropAmbiguous(releaseChanges(out, chunkText))
}

// dropAmbiguous drops verb facts whose head and relation have more than one
// tail in the chunk ("The MIPS port supports …" five processors): the
// question about them would have more than one answer. Dated and counted
// facts are kept when the tails agree.
func dropAmbiguous(ts []Triple) []Triple {
	tails := map[string]map[string]bool{}
	key := func(t Triple) string { return t.Kind + "\x00" + t.Head + "\x00" + t.Relation }
	for _, t := range ts {
		if tails[key(t)] == nil {
			tails[key(t)] = map[string]bool{}
		}
		tails[key(t)][t.Tail] = true
	}
	out := ts[:0]
	for _, t := range ts {
		if t.Kind != KindTable && len(tails[key(t)]) > 1 {
			continue
		}
		out = append(out, t)
	}
	return out
}

// reader reads the sentences of one chunk in order; it remembers the
// organisation last named as a subject, which "The company" and "Revenue"
// stand for in the sentences after it.
type reader struct {
	topic string
	last  string // the previous sentence's named subject, which "It" stands for
	// docTopic is the one thing the chunk presents as its subject
	// (chunkTopic), which "This package" stands for; "" when it presents
	// none or several.
	docTopic string
	proper   map[string]bool // words written with a capital inside a sentence of the chunk
	lower    map[string]bool // words written in lower case in the chunk
	// determined: lower-case words the chunk writes after a determiner
	// ("the price"), as common nouns are; a program name is written bare
	// ("use sed to …", "GNU sed").
	determined map[string]bool
}

// fixCapitals corrects the tags of capitalized words with what the chunk
// shows: a word capitalized inside a sentence is a name ("Vik took up …"),
// and a sentence's capitalized first word that the chunk never capitalizes
// elsewhere is a common word ("Container traffic grew …").
func (r *reader) fixCapitals(ts []tok) {
	for k := range ts {
		t := &ts[k]
		if !isCapital(t.text) || t.tag == "CD" || t.tag == "$" {
			continue
		}
		switch {
		case k > 0 && (t.tag == "NN" || t.tag == "NNS") && ts[k-1].tag != "``":
			t.tag = "NNP"
		case k == 0 && (t.tag == "NN" || t.tag == "NNS") && (r.proper[t.text] ||
			// "Candidates included …": a plural the tagger knows is a
			// common noun stays one
			!(t.tag == "NNS" && strings.HasSuffix(t.text, "s") && !strings.HasSuffix(t.text, "ss")) && !r.lower[t.lower] && !commonStarts[t.lower] && len(ts) > 1 && (ts[1].tag == "VBD" || ts[1].tag == "VBZ") && !r.figure(ts)):
			t.tag = "NNP"
		case k == 0 && t.tag == "NNP" && !r.proper[t.text] && (r.lower[t.lower] || commonStarts[t.lower]) && len(ts) > 1 &&
			ts[1].tag != "POS" && t.text != strings.ToUpper(t.text) && !months[t.lower] && !r.bareName(ts, t.lower):
			t.tag = "NN"
		}
	}
}

// sent is one tagged sentence being read.
type sent struct {
	s  string
	ts []tok
	// subjNamed: the main clause's subject is a name, so a plain object
	// of its verb is a fact about something specific.
	subjNamed bool
	// weakHead: the subject is named only by the capital of the sentence's
	// first word ("Release tarballs are available from …"), which the
	// chunk writes nowhere else; the newer, broader readings
	// (adjectiveComplement, purpose) do not take it as a name.
	weakHead bool
	// kindHead: the subject is a thing named in lower case before its kind
	// ("the iburst option"); a bare version ("in version 2.4") does not
	// say which program's release it is.
	kindHead bool
	// commonHead: a weak head whose first word the chunk also writes in
	// lower case, a common word ("Server support"), not a name.
	commonHead bool
}

func (x *sent) str(i, j int) string { return x.s[x.ts[i].start:x.ts[j-1].end] }

func (x *sent) tagAt(i int) string {
	if i < 0 || i >= len(x.ts) {
		return ""
	}
	return x.ts[i].tag
}

// link reads what joins a name to its role at k: a comma (apposition) or
// "is"/"was" (copula). It returns the token after it, whether it is a
// copula and whether there is one; without one, k itself.
func (x *sent) link(k int) (next int, copular, linked bool) {
	switch x.lowerAt(k) {
	case ",":
		return k + 1, false, true
	case "is", "was":
		return k + 1, true, true
	}
	return k, false, false
}

func (x *sent) lowerAt(i int) string {
	if i < 0 || i >= len(x.ts) {
		return ""
	}
	return x.ts[i].lower
}

func isNoun(tag string) bool   { return strings.HasPrefix(tag, "NN") }
func isProper(tag string) bool { return tag == "NNP" || tag == "NNPS" }
func isAdj(tag string) bool    { return strings.HasPrefix(tag, "JJ") }
func isVerb(tag string) bool   { return strings.HasPrefix(tag, "VB") }

// read returns the triples of one sentence.
func (r *reader) read(s string, ts []tok) []Triple {
	// "It" stands for the named subject of the sentence just before, and
	// only of that one: a sentence read no further (a scoping clause, an
	// instruction) leaves no subject for the next.
	last := r.last
	r.last = ""
	trimmed := strings.TrimSpace(s)
	if strings.HasSuffix(trimmed, "?") || strings.HasSuffix(trimmed, ":") {
		return nil // a question states nothing; a lead-in introduces a list
	}
	if !strings.ContainsAny(trimmed[len(trimmed)-1:], ".!\"”')") && len(ts) <= 8 || spaceRun(trimmed, 3) {
		return nil // a title or a layout line, not a sentence
	}
	if i := strings.Index(trimmed, " -- "); i > 0 && len(strings.Fields(trimmed[:i])) <= 5 && !strings.Contains(trimmed[i+4:], " -- ") {
		return nil // "GNU inetutils NEWS -- history of user-visible changes.": a title and what the file holds
	}
	if len(ts) > 4 && (ts[0].lower == "note" && ts[1].lower == "that" || ts[0].lower == "note" && ts[1].lower == ":") {
		ts = ts[2:] // "Note that Quill reads …": the rest is the statement
	}
	if notEnglish(ts) || !strings.HasSuffix(trimmed, ".") && !strings.HasSuffix(trimmed, "!") && noEnglishFunction(ts) {
		// "Fornece proxies reversos em massa …" (a translation the page
		// carries), "Header set X-Foo "bar"": no English sentence
		return nil
	}
	x := &sent{s: s, ts: ts}
	if t := x.commandFact(r.docTopic); t != nil {
		return []Triple{*t} // "To rebuild the cache, run fc-cache -f."
	}
	if len(x.ts) < 3 || startsWithVerb(x.ts) || x.ts[0].tag == "TO" {
		return nil // "Fix …", "Add support for …", "To fix this, …"
	}
	if consequence[x.lowerAt(0)] || x.caseBefore() {
		// "Hence gcc aligns …", "In this case, the variable … is set to
		// False": true of the case just described, not in general
		return nil
	}
	if conditional[x.lowerAt(0)] {
		return nil // "If you use Quill, …": true only under its condition
	}
	if announcement(x.ts) {
		return nil // "New command ESC-m removes a line mark": a change announced
	}
	r.fixCapitals(x.ts)
	lowerName(x.ts)
	if sequencing[x.lowerAt(0)] && !r.proper[x.ts[0].text] {
		// "First SQLite obtains a lock", "Then Git writes …": a step of
		// a procedure, true at that point of it, not of the subject
		return nil
	}
	var out []Triple
	// Roles and places named anywhere in the sentence.
	out = append(out, x.appositions()...)
	out = append(out, x.appositionDefinitions()...)

	// The main clause: an introductory phrase, the subject, an appositive,
	// the verb group and what follows it.
	start, introDate := x.skipIntro()
	if start < 0 || x.scopingIntro(start, introDate) {
		return out
	}
	hs, he := start, x.subject(start)
	if he == hs && r.docTopic != "" && x.genericSubject(hs, hs+2) {
		he = hs + 2 // "This package …", read below as the chunk's topic
	}
	if he == hs && start == 0 && x.lowerAt(0) == "it" && last != "" && x.lowerAt(1) != "'s" {
		// "Valgrind is a framework … It runs on Linux": "It" opening the
		// sentence after one about a named subject stands for it.
		he = 1
		r.last = last
		out = append(out, x.predicate(last, 0, 1, "")...)
		return out
	}
	if he == hs {
		return out
	}
	if w := x.ts[he-1].text; len(w) > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed") && w == strings.ToLower(w) {
		// "DBM based | shared object cache.": a subject ending in a
		// participle (whatever its tag) is a fragment's modifier
		return out
	}
	he = x.reducedRelative(hs, he)
	head, named := x.headText(hs, he)
	if !named && x.kindNamed(hs, he) {
		named, x.kindHead = true, true // "The iburst option enables …": a directive named in lower case
	}
	if !named && he-hs == 3 && x.lowerAt(hs) == "the" && (namedKinds[x.lowerAt(hs+1)] || x.lowerAt(hs+1) == "file" || x.lowerAt(hs+1) == "directory") &&
		(pathLike(x.ts[hs+2].text) || codeToken(x.ts[hs+2].text)) {
		named = true // "The file /etc/krb.equiv contains …": the kind, then its name
	}
	if hs == 0 && he > 1 && isCapital(x.ts[0].text) && strings.HasPrefix(head, x.ts[0].text+" ") &&
		(commonAdjectives[x.ts[0].lower] || isAdj(x.ts[0].tag) && strings.Contains(x.ts[0].text, "-") && !r.proper[x.ts[0].text] && x.ts[0].text != strings.ToUpper(x.ts[0].text)) {
		// "Public Python 3 modules must …", "Architecture-independent
		// …": an adjective opening the sentence keeps its capital only
		// there
		head = x.ts[0].lower + head[len(x.ts[0].text):]
	}
	if x.lowerAt(hs) == "only" {
		return out // "Only Mac OS X supports …": said to exclude the others, not of the subject
	}
	if he-hs == 2 && roleLikeGeneric[x.ts[hs].lower] && x.tagAt(hs+1) == "CD" {
		return out // "Value 0 turns off rate limiting": the value of which setting?
	}
	if strings.Contains(x.str(hs, min(he+2, len(x.ts))), " - ") {
		return out // "Issue 1533 - mod_tls module allow …": a change log's label and title, not a subject
	}
	if bareRelease(head) || bareReference(head) || documentPart(head) || x.deictic(hs, he) && (r.docTopic == "" || !x.genericSubject(hs, he)) {
		return out // "Version 1 was released in June 1989": a version of what the text is about, unnamed
	}
	if named && x.ts[hs].lower == "the" && x.tagAt(hs+1) == "CD" && !x.ts[hs+1].named() {
		named = false // "The two Perl scripts use …": the ones just mentioned
	}
	if named && (x.ts[hs].lower == "a" || x.ts[hs].lower == "an") {
		named = false // "A new Windows-only codec has been added": one thing introduced, not named
	}
	if named && hs == 0 && x.weakName(he, r) {
		x.weakHead = true
		x.commonHead = r.lower[x.ts[hs].lower] // "Server support …" where the chunk writes "server" too
	}
	if named && he-hs == 2 && x.ts[hs].lower == "the" && versionedName(x.ts[hs+1].text) {
		head = x.str(hs+1, he) // "The Nettle-3.5.1 corrects …": no article before a release
	}
	if (!named || x.weakHead || x.lowerAt(0) != "a" && x.lowerAt(0) != "an") && hs == 0 {
		if t := x.termDefinition(); t != nil {
			// "A debug package is a package that …", "Debug packages are
			// packages that …" (a capital opening the sentence only, the
			// term asked in lower case)
			if x.weakHead || commonAdjectives[x.ts[0].lower] {
				t.Head = x.ts[0].lower + t.Head[len(x.ts[0].text):]
			}
			return append(out, *t)
		}
	}
	if !named && r.docTopic != "" && x.genericSubject(hs, he) {
		// "This package provides …" in a chunk about one package
		head, named = r.docTopic, true
		x.subjNamed = true
		r.last = head
	}
	x.subjNamed = x.subjNamed || named && he-hs <= 4 && !x.possessive(hs, he)
	if x.subjNamed {
		r.last = head
	}
	if t := x.roleCopula(hs, he); t != nil {
		// "The maintainer of Quill is Oda Rasmussen."
		return append(out, *t)
	}
	if !named && r.docTopic != "" {
		// "The configuration file is /etc/quill.conf" in a chunk about
		// Quill: an attribute of the package
		if t := x.topicAttribute(r.docTopic, hs, he); t != nil {
			return append(out, *t)
		}
	}
	if !named || x.ts[hs].lower == "the" && companyNouns[x.ts[he-1].lower] && !x.hasProper(he-1, he) && head != r.docTopic {
		head = r.resolve(x, hs, he)
	} else if orgLike(head) && !strings.Contains(head, "'") {
		r.topic = head
	}
	i := x.skipParenthesis(he)
	if x.lowerAt(i) == "," {
		out = append(out, x.subjectAppositive(head, hs, he)...)
		// "Fjordline's chief executive, Anders Vik, visited …": the
		// person is the subject.
		if ne := x.name(i + 1); x.possessive(hs, he) && x.personName(i+1, ne) && x.lowerAt(ne) == "," {
			head = x.str(i+1, ne)
		}
		i = x.skipAppositive(i)
		if i < 0 {
			return out
		}
	}
	if head == "" {
		return out
	}
	if introDate == "" && x.kindSubject(hs, he) && x.pastEvent(i) {
		// "CVE IDs were assigned by VulnCheck", "Users reported a crash":
		// an event of some things of a kind, which ones said only by the
		// text around it
		return out
	}
	out = append(out, x.predicate(head, hs, i, introDate)...)
	if k := x.secondPassive(i); k > 0 {
		// "… is located all over the world and is managed by the Python
		// Infrastructure Team": a second verb group of the same subject
		out = append(out, x.predicate(head, hs, k, "")...)
	}
	return out
}

// commonAdjectives open a subject in lower case after its sentence's first
// word: "public Python 3 modules", "normal Debian packages".
var commonAdjectives = set("normal", "public", "private", "standard", "virtual", "native", "non-native", "main",
	"common", "optional", "essential", "required", "official", "local", "remote", "global", "static", "shared",
	"dynamic", "binary", "old", "new", "older", "newer", "recent", "current", "default", "separate", "individual",
	"available", "additional", "external", "internal", "existing", "installed", "unofficial", "experimental")

// caseBefore reports a sentence opening with a pointer to a case the text
// described before it: "In this case", "In such cases", "In either case".
func (x *sent) caseBefore() bool {
	if x.lowerAt(0) != "in" {
		return false
	}
	switch x.lowerAt(1) {
	case "this", "that", "such", "these", "those", "both", "either", "each", "which", "the", "any":
		w := x.lowerAt(2)
		return w == "case" || w == "cases" || x.lowerAt(1) == "the" && w == "latter" || x.lowerAt(1) == "the" && w == "former"
	}
	return false
}

// secondPassive returns the index of the copula of a passive coordinated
// with the main clause whose verb group starts at i ("and is managed by
// …", "and was rewritten in C"), or -1. A relative or subordinate clause,
// a semicolon or a comma before the "and" ends the search: what follows
// may have another subject.
func (x *sent) secondPassive(i int) int {
	for k := i + 1; k+2 < len(x.ts); k++ {
		switch w := x.lowerAt(k); {
		case x.tagAt(k) == "WDT" || x.tagAt(k) == "WP" || x.tagAt(k) == "WRB" || conditional[w] || w == ";" || w == ",",
			w == "because" || w == "while" || w == "although" || w == "since" || w == "but" || w == "so" || w == "or":
			return -1
		case w == "and" && (x.lowerAt(k+1) == "is" || x.lowerAt(k+1) == "was" || x.lowerAt(k+1) == "are" || x.lowerAt(k+1) == "were"):
			v := x.skipAdverbs(k + 2)
			if x.tagAt(v) == "VBN" && !neg(x.lowerAt(k+2)) {
				return k + 1
			}
			return -1
		}
	}
	return -1
}

// skipIntro skips introductory phrases: "In 2025, …", "On 14 March 2026
// Fjordline …", "Under the agreement, which …, Northwind …". It returns the
// index of the subject and the date of an introductory date phrase, or -1
// when the phrase's end cannot be told.
func (x *sent) skipIntro() (int, string) {
	i := 0
	date := ""
	for n := 0; n < 3 && i < len(x.ts); n++ {
		t := x.ts[i]
		if t.tag == "IN" || t.tag == "RB" || t.tag == "VBG" || t.lower == "according" || t.lower == "like" || t.lower == "unlike" {
			// "Like GNOME, Xfce is …": "Like" opening a sentence is read
			// as a name by its capital
			if t.tag == "IN" {
				if e := x.date(i + 1); e > i+1 {
					date = x.str(i+1, e)
					i = e
					if x.lowerAt(i) == "," {
						i++
					}
					continue
				}
			}
			if t.tag == "RB" && x.lowerAt(i+1) == "," {
				i += 2
				continue
			}
			if t.tag == "RB" && i+1 < len(x.ts) && (isProper(x.tagAt(i+1)) || x.tagAt(i+1) == "DT") {
				i++ // "Also, …" without its comma: "Meanwhile Acme …" is rare
				continue
			}
			c := i
			for c < len(x.ts) && c < i+14 && x.ts[c].lower != "," {
				c++
			}
			if c >= len(x.ts)-1 || c == i+14 {
				return -1, ""
			}
			i = c + 1
			// A relative clause after the phrase runs to the next comma.
			if w := x.tagAt(i); w == "WDT" || w == "WP" {
				c = i
				for c < len(x.ts) && x.ts[c].lower != "," {
					c++
				}
				if c >= len(x.ts)-1 {
					return -1, ""
				}
				i = c + 1
			}
			continue
		}
		break
	}
	return i, date
}

// np returns the end of the basic noun phrase at i (determiner, modifiers,
// nouns, numbers, possessives), or i when there is none. The phrase ends in
// a noun or a number.
func (x *sent) np(i int) int {
	j := i
	if t := x.tagAt(j); t == "DT" || t == "PDT" || t == "PRP$" {
		j++
	}
	last := -1
	for j < len(x.ts) {
		t := x.ts[j]
		switch {
		case strings.HasPrefix(t.text, "<") || strings.Contains(t.text, "@") && j > i:
			goto done // "Kirill Simonov <xi@example.net>": an address after a name
		case isNoun(t.tag) || t.tag == "CD" || t.tag == "$" || t.tag == "FW":
			last = j
		case isAdj(t.tag) || t.tag == "VBN" || t.tag == "VBG" || t.tag == "HYPH":
			// a modifier only before a noun
		case t.tag == "RB" && j > i && last < 0 && strings.HasSuffix(t.lower, "ly") && (isAdj(x.tagAt(j+1)) || x.tagAt(j+1) == "VBN"):
			// "a fully featured database", "a freely available package"
		case t.tag == "POS" && last == j-1:
			// "Northwind's chief executive"
		case t.text == "-" && last == j-1:
		case t.text == "(" && last == j-1 && j+2 < len(x.ts) && x.ts[j+2].text == ")" && text.Acronym(x.ts[j+1].text) &&
			(isNoun(x.tagAt(j+3)) || x.tagAt(j+3) == "IN" || x.tagAt(j+3) == "," || x.tagAt(j+3) == "."):
			// "a mail transfer agent (MTA) for hosts": the acronym of the
			// phrase, which goes on after it
			last = j + 2
			j += 2
		case (t.lower == "and" || t.lower == "or" || t.lower == ",") && last < 0 && isAdj(x.tagAt(j-1)) &&
			(isAdj(x.tagAt(j+1)) || t.lower == "," && isProper(x.tagAt(j+1)) && x.ts[j+1].named() && (isAdj(x.tagAt(j+2)) || isNoun(x.tagAt(j+2)))):
			// "a lightweight and flexible command-line processor", "a
			// free, LGPL mDNS/DNS-SD implementation"
		default:
			goto done
		}
		j++
	}
done:
	if last < 0 {
		return i
	}
	end := last + 1
	// Units: "620 items per hour", "2,000 robots a year".
	if x.hasNumber(i, end) {
		if x.lowerAt(end) == "per" && isNoun(x.tagAt(end+1)) {
			end += 2
		} else if (x.lowerAt(end) == "a" || x.lowerAt(end) == "an") && unitsOfTime[x.lowerAt(end+1)] {
			end += 2
		}
	}
	return end
}

func (x *sent) hasNumber(i, j int) bool {
	for k := i; k < j; k++ {
		if x.ts[k].tag == "CD" {
			return true
		}
	}
	return false
}

func (x *sent) hasProper(i, j int) bool {
	for k := i; k < j; k++ {
		if isProper(x.ts[k].tag) && x.ts[k].named() {
			return true
		}
	}
	return false
}

// ofNP extends a noun phrase by "of" phrases: "the chief executive of
// Northwind Robotics", "revenue of NOK 2.3 billion".
func (x *sent) ofNP(i, j int) int {
	for n := 0; n < 2 && x.lowerAt(j) == "of"; n++ {
		e := x.np(j + 1)
		if e == j+1 {
			break
		}
		j = e
	}
	return j
}

// date returns the end of a date at i: "14 March 2026", "March 14, 2026",
// "March 2026", "2025", "Q1 2026", "the first quarter of 2026"; or i.
func (x *sent) date(i int) int {
	year := func(k int) bool {
		t := x.lowerAt(k)
		return len(t) == 4 && (strings.HasPrefix(t, "19") || strings.HasPrefix(t, "20")) && isNumber(t)
	}
	day := func(k int) bool { t := x.lowerAt(k); return len(t) <= 2 && isNumber(t) }
	switch {
	case isoDateRe.MatchString(x.lowerAt(i)):
		return i + 1 // "2000-05-09"
	case day(i) && months[x.lowerAt(i+1)] && year(i+2):
		return i + 3
	case day(i) && months[x.lowerAt(i+1)]:
		return i + 2
	case months[x.lowerAt(i)] && day(i+1) && x.lowerAt(i+2) == "," && year(i+3):
		return i + 4
	case months[x.lowerAt(i)] && year(i+1):
		return i + 2
	case len(x.lowerAt(i)) == 2 && x.lowerAt(i)[0] == 'q' && year(i+1):
		return i + 2
	case year(i) && x.lowerAt(i+1) != "," && !isNoun(x.tagAt(i+1)):
		return i + 1
	case x.lowerAt(i) == "the" && (x.lowerAt(i+2) == "quarter" || x.lowerAt(i+2) == "half") && x.lowerAt(i+3) == "of" && year(i+4):
		return i + 5
	}
	return i
}

// isoDateRe is a calendar date written year first: "2000-05-09".
var isoDateRe = regexp.MustCompile(`^(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$`)

// period reports a reporting period at i ("Q3 2025", "the first quarter
// of 2026"): it dates figures, not events, so "When did …?" is not asked.
func (x *sent) period(i int) bool {
	t := x.lowerAt(i)
	return t == "the" || len(t) == 2 && t[0] == 'q'
}

// subject returns the end of the subject noun phrase at i, with "of"
// phrases and a time phrase ("Acme Corp's revenue in Q3 2025"), or i.
func (x *sent) subject(i int) int {
	if badHeads[x.lowerAt(i)] || x.tagAt(i) == "PRP" || x.tagAt(i) == "EX" {
		return i
	}
	j := x.np(i)
	if j == i {
		return i
	}
	j = x.ofNP(i, j)
	if p := x.lowerAt(j); (p == "in" || p == "at" || p == "on") && isProper(x.tagAt(j+1)) && !months[x.lowerAt(j+1)] {
		// "Inflation in Valdoria", "The factory in Kanalhavna"
		if e := x.np(j + 1); e > j+1 && x.hasProper(j+1, e) {
			j = e
		}
	}
	if p := x.lowerAt(j); p == "in" || p == "for" {
		if e := x.date(j + 1); e > j+1 {
			j = e
		}
	}
	return j
}

// headText returns the subject and whether it names something specific: a
// proper noun, or a number that is not the whole of it.
func (x *sent) headText(i, j int) (string, bool) {
	if j-i > 12 {
		return "", false
	}
	h := x.str(i, j)
	if strings.ContainsAny(h, "\"“”()[];:`'’") && !x.possessive(i, j) {
		return h, false
	}
	if x.ts[i].tag == "CD" && !x.ts[i].named() && j-i > 1 && isProper(x.tagAt(i+1)) {
		return h, false // "1.2 Rex released …": a version without what it is a version of
	}
	return h, x.hasProper(i, j)
}

func (x *sent) possessive(i, j int) bool {
	for k := i; k < j; k++ {
		if x.ts[k].tag == "POS" {
			return true
		}
	}
	return false
}

// resolve names a generic subject after the organisation last named in the
// chunk: "The company" is that organisation, "Revenue" its revenue. It
// returns "" when there is none or the subject is not one it may stand for.
func (r *reader) resolve(x *sent, i, j int) string {
	if r.topic == "" {
		return ""
	}
	words := make([]string, 0, j-i)
	for k := i; k < j; k++ {
		words = append(words, x.ts[k].lower)
	}
	if len(words) == 2 && words[0] == "the" && companyNouns[words[1]] {
		return r.topic // "The company"; "The Bergen company" may be another one
	}
	if metricNouns[strings.Join(words, " ")] {
		return possessiveOf(r.topic) + " " + strings.Join(words, " ")
	}
	return ""
}

// possessiveOf writes "X's" or "Xs'".
func possessiveOf(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "'"
	}
	return name + "'s"
}

// skipAppositive skips ", …," after the subject and returns the index after
// the second comma, or -1 when the appositive does not close.
func (x *sent) skipAppositive(i int) int {
	for k := i + 1; k < len(x.ts) && k < i+20; k++ {
		if x.ts[k].lower == "," {
			return k + 1
		}
		if x.ts[k].tag == ":" || x.ts[k].tag == "(" {
			return -1
		}
	}
	return -1
}

// subjectAppositive reads ", based in Trondheim," and ", in Osterøy
// municipality," after a named subject.
func (x *sent) subjectAppositive(head string, hs, he int) []Triple {
	i := he + 1
	if !x.hasProper(hs, he) {
		return nil
	}
	switch {
	case locatives[x.lowerAt(i)] && x.lowerAt(i+1) == "in":
		if e := x.np(i + 2); e > i+2 && x.hasProper(i+2, e) && x.lowerAt(e) == "," {
			return []Triple{{Head: head, Relation: x.ts[i].lower + " in", Tail: x.str(i+2, e), Kind: KindAttribute}}
		}
	case x.lowerAt(i) == "in" && isProper(x.tagAt(i+1)):
		if e := x.np(i + 1); e > i+1 && x.lowerAt(e) == "," && x.date(i+1) == i+1 {
			return []Triple{{Head: head, Relation: "located in", Tail: x.str(i+1, e), Kind: KindAttribute}}
		}
	}
	return nil
}

// role reads a role noun phrase at i ("the chief executive", "chief
// financial officer", "its new director") and returns its text without
// determiner or "new", and its end.
func (x *sent) role(i int) (string, int) {
	j := i
	for j < len(x.ts) && (x.ts[j].tag == "DT" || x.ts[j].tag == "PRP$" || x.ts[j].lower == "new") {
		j++
	}
	k := j
	for k < len(x.ts) && (isAdj(x.ts[k].tag) || isNoun(x.ts[k].tag) && (!isProper(x.ts[k].tag) || roleHeads[x.ts[k].lower])) && k < j+5 {
		k++
	}
	if k == j || !roleHeads[x.ts[k-1].lower] {
		return "", i
	}
	return x.str(j, k), k
}

// name returns the end of a person's or organisation's name at i: a run of
// capitalized proper nouns, or i.
func (x *sent) name(i int) int {
	j := i
	for j < len(x.ts) && isProper(x.ts[j].tag) && x.ts[j].named() && j < i+5 {
		j++
	}
	return j
}

// personName: two or three capitalized words, as names of people are.
func (x *sent) personName(i, j int) bool {
	n := j - i
	if n < 2 || n > 3 || orgLike(x.str(i, j)) {
		return false
	}
	for k := i; k < j; k++ {
		if months[x.ts[k].lower] {
			return false
		}
	}
	return true
}

// appositions reads roles and places anywhere in the sentence:
//   - "Ingrid Solberg, chief executive of Northwind Robotics" and "Anna
//     Berg, the CEO of Northwind," → (Northwind, chief executive, Anna Berg);
//   - "Northwind's chief executive, Anna Berg," and "Northwind's board
//     chair Henrik Dahl" → (Northwind, board chair, Henrik Dahl);
//   - "Ingrid Solberg, Northwind's chief executive" → the same;
//   - "Anna Berg is the chief executive of Northwind Robotics" → the same
//     (the copula is read here, since the role is the fact).
func (x *sent) appositions() []Triple {
	var out []Triple
	for i := 0; i < len(x.ts); i++ {
		if !isProper(x.tagAt(i)) || !isCapital(x.ts[i].text) || i > 0 && isProper(x.tagAt(i-1)) {
			continue
		}
		e := x.name(i)
		// Name first.
		if x.personName(i, e) {
			k, copular, linked := x.link(e)
			if linked {
				if r, re := x.role(k); r != "" && x.lowerAt(re) == "of" {
					oe := x.np(re + 1)
					if oe > re+1 && x.hasProper(re+1, oe) && (copular || x.closes(oe)) {
						out = append(out, Triple{Head: x.str(re+1, oe), Relation: r, Tail: x.str(i, e), Kind: KindAttribute})
					}
				} else if !copular && isProper(x.tagAt(k)) {
					// "Ingrid Solberg, Northwind's chief executive"
					oe := x.name(k)
					if x.tagAt(oe) == "POS" {
						if r, re := x.role(oe + 1); r != "" && x.closes(re) {
							out = append(out, Triple{Head: x.str(k, oe), Relation: r, Tail: x.str(i, e), Kind: KindAttribute})
						}
					}
				}
			}
		}
		// Organisation first: "Northwind's chief executive, Anna Berg,".
		if x.tagAt(e) == "POS" {
			r, re := x.role(e + 1)
			if r == "" {
				continue
			}
			k, copular, _ := x.link(re)
			ne := x.name(k)
			if x.personName(k, ne) && (x.closes(ne) || k == re && isVerb(x.tagAt(ne)) || copular) {
				out = append(out, Triple{Head: x.str(i, e), Relation: r, Tail: x.str(k, ne), Kind: KindAttribute})
			}
		}
	}
	return out
}

// closes reports whether a phrase ending at j ends there: a comma, the end
// of the sentence, or a final point.
func (x *sent) closes(j int) bool {
	return j >= len(x.ts) || x.lowerAt(j) == "," || x.tagAt(j) == "." || x.lowerAt(j) == ";"
}

// cutBefore reports a noun phrase ending at j that the tags cut short: a
// noun, or a plural noun read as a verb, still follows ("the
// debconf_specification | files/VBZ in …").
func (x *sent) cutBefore(j int) bool {
	t := x.tagAt(j)
	return isNoun(t) || t == "POS" || (t == "VBZ" || t == "VBP") && !x.closes(j+1) && x.tagAt(j+1) != "DT"
}

// predicate reads the verb group at i and what follows it.
func (x *sent) predicate(head string, hs, i int, introDate string) []Triple {
	// Adverbs before the verb: "already", "originally"; negation ends
	// the reading, and so does an adverb that makes the fact partial.
	for i < len(x.ts) && (x.ts[i].tag == "RB" || x.ts[i].tag == "RBR") {
		if neg(x.ts[i].lower) || partialAdverbs[x.ts[i].lower] && !(x.ts[i].lower == "also" && x.tagAt(i+1) == "VBD") {
			// "also" before a past event adds an event ("Helios Energy
			// also acquired Summit Solar"); before a present verb, one
			// more of what the subject does or has
			return nil
		}
		i++
	}
	if i >= len(x.ts) {
		return nil
	}
	v := x.ts[i]
	if v.lower == "must" {
		return x.requirement(head, i)
	}
	if v.lower == "can" {
		return x.foundAt(head, i)
	}
	if v.tag == "MD" || v.tag == "TO" || !isVerb(v.tag) && v.lower != "'s" {
		return nil
	}
	if reporting[v.lower] {
		return nil
	}
	// Auxiliaries: perfect "has appointed", passive "was acquired by".
	passive := false
	be := ""
	if v.lower == "has" || v.lower == "have" || v.lower == "had" {
		k := i + 1
		for k < len(x.ts) && x.ts[k].tag == "RB" {
			if neg(x.ts[k].lower) || partialAdverbs[x.ts[k].lower] {
				return nil
			}
			k++
		}
		if x.tagAt(k) == "VBN" {
			if x.lowerAt(k) == "been" {
				be = "was"
				if v.lower == "have" {
					be = "were" // "The tables have been updated to …"
				}
			} else {
				i, v = k, x.ts[k]
			}
		}
	}
	if reporting[v.lower] {
		return nil
	}
	if copulas[v.lower] || be != "" {
		if be == "" {
			be = v.lower
		}
		k := i + 1
		if x.lowerAt(i+1) == "been" {
			k++
		}
		for k < len(x.ts) && x.ts[k].tag == "RB" {
			if neg(x.ts[k].lower) || partialAdverbs[x.ts[k].lower] {
				return nil
			}
			k++
		}
		if x.tagAt(k) == "VBN" && !isNoun(x.tagAt(k+1)) {
			passive = true
			i, v = k, x.ts[k]
		} else if x.tagAt(k) == "VBG" {
			return nil // progressive: an action under way, not a fact
		} else {
			return x.copula(head, hs, be, k)
		}
	}
	if x.lowerAt(i+1) == "not" || x.lowerAt(i+1) == "n't" {
		return nil
	}
	verb := v.lower
	j := i + 1
	if x.tagAt(j) == "RP" {
		verb += " " + x.ts[j].lower // "took up"
		j++
	}
	if passive {
		return x.passive(head, be, verb, j)
	}
	if k := x.skipAdverbs(j); (measureVerbs[v.lower] || levelVerbs[v.lower]) &&
		(x.tagAt(k) == "CD" || x.tagAt(k) == "$" || x.lowerAt(k) == "to" || x.lowerAt(k) == "by" || x.lowerAt(k) == "at") {
		return x.measure(head, verb, j)
	}
	return x.transitive(head, verb, i, j, introDate)
}

// changeVerbs set their object to a new state, said after "to": "changed
// the default IPQoS settings to use DSCP AF21" asks nothing without it.
var changeVerbs = set("changed", "changes", "change", "modified", "modifies", "switched", "switches", "altered",
	"alters", "adjusted", "adjusts", "set", "sets", "updated", "updates", "moved", "moves", "converted", "converts")

// partialAdverbs in the verb group say the fact is one of several, holds
// some of the time or at one step ("then offers"), or is hedged: "Git also
// keeps a log", "FTS3/4 very often loads …", "TH3 tests only use …", "is
// usually installed in …". The question would ask as a rule, or as the
// only answer, what is neither.
var partialAdverbs = set("also", "then", "often", "usually", "sometimes", "normally", "generally", "typically", "rarely",
	"seldom", "frequently", "occasionally", "mostly", "only", "mainly", "partly", "partially", "probably", "possibly",
	"perhaps", "likely", "even", "too", "additionally", "commonly", "ordinarily", "chiefly", "either")

// conditional opens a clause that holds only under a condition.
var conditional = set("if", "unless", "when", "whenever", "whether")

func (x *sent) skipAdverbs(j int) int {
	for x.tagAt(j) == "RB" && !neg(x.lowerAt(j)) {
		j++
	}
	return j
}

func neg(w string) bool {
	return w == "not" || w == "n't" || w == "never" || w == "no" || w == "longer" || w == "hardly"
}

// copula reads "X is/was …" from the complement at k.
func (x *sent) copula(head string, hs int, be string, k int) []Triple {
	if t := x.codeTail(head, hs, be, k); t != nil {
		return t
	}
	if x.lowerAt(k) == "worth" {
		if e := x.np(k + 1); e > k+1 && x.hasNumber(k+1, e) {
			return []Triple{{Head: head, Relation: be + " worth", Tail: x.str(k+1, e), Kind: KindCopula}}
		}
		return nil
	}
	if t := x.adjectiveComplement(head, be, k); t != nil {
		return t
	}
	e := x.np(k)
	if e == k {
		return nil
	}
	if r, re := x.role(k); r != "" && (x.lowerAt(re) == "of" || x.lowerAt(re) == "at" || x.ts[k].lower != "a" && x.ts[k].lower != "an") {
		if pe := x.np(re + 1); x.ts[k].lower == "the" && x.lowerAt(re) == "of" && x.subjNamed && !x.weakHead &&
			pe > re+1 && x.hasProper(re+1, pe) && x.closes(pe) && !x.listAfter(pe) && !x.possessive(re+1, pe) {
			// "The Internet Software Consortium is the main author of
			// the DHCP server": who holds the role of a named thing
			return []Triple{{Head: x.str(k, pe), Relation: be, Tail: head, Kind: KindCopula}}
		}
		return nil // a role: read by appositions when it names its organisation
	}
	if t, stop := x.identifying(head, hs, be, k, e); stop {
		return t
	}
	e2 := x.acronymInside(x.ofNP(k, e))
	switch {
	case x.hasNumber(k, e) && !x.listAfter(e) && x.lowerAt(e) != "of" && !(x.lowerAt(e) == "," && (isAdj(x.tagAt(e+1)) || isVerb(x.tagAt(e+1)))) && !x.rangeOrComparison(e) &&
		x.tagAt(e) != "VBG":
		// (not "two character sequences | beginning with …", which the
		// participle completes)
		// "the 2D, antialiased drawing library" is not a figure
		// "Acme Corp's revenue in Q3 2025 was $4.2 billion"
		return []Triple{{Head: head, Relation: be, Tail: trimQuantity(x, k, e), Kind: KindCopula}}
	case x.lowerAt(k) == "part" && x.lowerAt(k+1) == "of" && (x.hasProper(hs, hs+1) || x.subjNamed && !x.weakHead):
		// "GNU findutils is part of the GNU Operating System", "The NFS
		// server is part of the Linux kernel"
		if pe := x.np(k + 2); pe > k+2 && x.hasProper(k+2, pe) && x.defStops(pe) && x.lowerAt(pe) != "with" {
			return []Triple{{Head: head, Relation: be + " part of", Tail: x.str(k+2, pe), Kind: KindCopula}}
		}
		return nil
	case x.definition(hs, k, e2):
		// "GNU Wget is a free utility for non-interactive download of
		// files": what the named thing is.
		if x.ts[hs].lower == "the" && !isProper(x.tagAt(hs+2)) && packageNouns[x.lowerAt(hs+2)] && copulas[x.lowerAt(hs+3)] {
			head = x.str(hs+1, hs+2) // "The xdg-utils package is a set of …": what xdg-utils is
		}
		end := x.defEnd(e2)
		if end < 0 {
			if ie := x.purposeInfinitive(e2); ie > 0 && !x.hasNumber(k, ie) && !x.deictic(k, ie) && !x.vagueDefinition(k, e2) {
				// "The Quill Tracker is a web tool to track the activity
				// of a source package": what it is for completes it
				return []Triple{{Head: head, Relation: be, Tail: x.str(k, ie), Kind: KindCopula}}
			}
			if pe := x.participleDefinition(x.innerParticiple(k, e2)); pe > 0 && !x.hasNumber(k, pe) && !x.deictic(k, pe) && !x.evaluative(k) {
				// "NFS is a protocol allowing remote access to a
				// filesystem through the network"
				return []Triple{{Head: head, Relation: be, Tail: x.str(k, pe), Kind: KindCopula}}
			}
		}
		rel := x.relativeFacts(head, e2, end)
		if end == e2 && end == e && end > k && x.tagAt(end) == "VBN" && factParticiples[x.lowerAt(end)] && (be == "is" || be == "was") {
			// "Mopidy is an extensible music server | written in Python":
			// the participle says a fact of the subject too (not "a fork
			// of the xpdf viewer | developed by …", which says one of the
			// viewer)
			pbe := be
			if x.lowerAt(end+1) == "by" && pastAuthoring[x.lowerAt(end)] {
				pbe = "was" // "Who wrote Quill?", not "Who writes Quill?"
			}
			rel = append(rel, x.passive(head, pbe, x.lowerAt(end), end+1)...)
		}
		if end > k && x.lowerAt(end) == "where" && !x.deictic(k, end) && !x.hasNumber(k, end) {
			// "BIN-DIR is a directory where Debian archive files are stored"
			if re := x.relativeDefinition(end); re > 0 {
				return append(rel, Triple{Head: head, Relation: be, Tail: x.str(k, re), Kind: KindCopula})
			}
			return rel
		}
		if end > k && x.vagueDefinition(k, end) && !x.deictic(k, end) {
			// "Fontconfig is a library which handles font configuration":
			// what kind of library is said by the clause.
			if re := x.relativeDefinition(end); re > 0 && !x.hasNumber(k, end) {
				return append(rel, Triple{Head: head, Relation: be, Tail: x.str(k, re), Kind: KindCopula})
			}
		}
		if end < 0 || end-k > 14 || x.hasNumber(k, end) || x.vagueDefinition(k, end) || x.deictic(k, end) || x.evaluative(k) {
			return rel
		}
		if x.ts[k].lower == "the" && x.tagAt(end) == "VBN" {
			return rel // "GRUB is the default bootloader | installed by Debian": the definite genus needs its qualifier
		}
		if x.tagAt(end) == "VBG" && !x.closes(end) {
			return rel // "Control keys are two character sequences | beginning with ^": the participle says which
		}
		if end-k < 3 && x.tagAt(end) != "." && x.lowerAt(end) != ":" {
			// "png_image is a structure | that describes …", "row_stride
			// is the step, | in png_byte units, between adjacent rows": a
			// bare genus is the definition only when the sentence ends
			// with it or a colon explains it ("zip is an archiver: it …")
			return rel
		}
		if w := x.lowerAt(end); (w == "which" || w == "that") && genericNouns[x.lowerAt(end-1)] && x.onlyAdjectives(k+1, end-1) {
			// "Mutt is a text-based application | which interacts with
			// users through menus": a kind of program, which the clause
			// goes on to describe, is not yet what Mutt is ("a key/value
			// storage system | that …" names its kind with nouns).
			//
			// A clause that is a remark rather than a description
			// ("a non-free library | that cannot be distributed by
			// Debian") leaves the genus as it was.
			if re := x.relativeDefinition(end); re > 0 && !x.deictic(k, re) && re-k <= relativeDefinitionMax+4 {
				return append(rel, Triple{Head: head, Relation: be, Tail: x.str(k, re), Kind: KindCopula})
			}
		}
		return append(rel, Triple{Head: head, Relation: be, Tail: x.str(k, end), Kind: KindCopula})
	case (x.ts[k].lower == "the" || x.possessive(k, e2)) && x.hasProper(k, e2) && x.closes(e2) && x.hasProper(hs, hs+1) &&
		!x.listAfter(e2) && x.innerParticiple(k, e2) == e2:
		// not "the GNU build system comprising Autoconf | , Automake …"
		// "Lonevåg is Fjordline's largest warehouse": the name answers
		// "What is Fjordline's largest warehouse?".
		comp := x.str(k, e2)
		if badHeads[x.ts[k].lower] || genericNouns[x.ts[e2-1].lower] || roleLikeGeneric[x.ts[e2-1].lower] {
			return nil // "NN is the Python version": a placeholder, not the version
		}
		return []Triple{{Head: comp, Relation: be, Tail: head, Kind: KindCopula}}
	}
	return nil
}

// rangeOrComparison reports a figure ending at e that goes on as a range
// or a comparison ("two | to three times smaller than Python 3.2", "30% |
// faster than …"): the number alone is not what the sentence says.
func (x *sent) rangeOrComparison(e int) bool {
	switch x.lowerAt(e) {
	case "to", "times", "than", "more", "less", "fewer", "faster", "slower", "smaller", "larger", "bigger", "higher", "lower":
		return true
	}
	return x.tagAt(e) == "JJR" || x.tagAt(e) == "RBR"
}

// roleLikeGeneric are nouns a definite phrase uses for a slot any value
// fills ("the Python version", "the default value"), not one thing named.
var roleLikeGeneric = set("version", "versions", "number", "name", "value", "default", "id", "identifier", "string", "path")

// passive reads "X was acquired by Y", "X was founded in 2014", "X was
// launched on 14 March 2026", "X is based in Trondheim".
func (x *sent) passive(head, be, participle string, j int) []Triple {
	participle = phrasalParticiple(participle)
	// "was written and maintained by", "is maintained, enhanced, and
	// distributed freely by": the first participle is asked.
	j = x.skipParticiples(j)
	p := x.lowerAt(j)
	switch p {
	case "for":
		// "Wget has been designed for robustness over slow network
		// connections": what the subject is for
		if purposeParticiples[participle] {
			return x.purpose(head, be+" "+participle+" for", j+1)
		}
	case "to":
		// "The Alien package is used to convert between different package
		// formats": what it is for, an infinitive that ends the sentence
		if ie := x.purposeInfinitive(j); purposeParticiples[participle] && ie > 0 && !x.weakHead && !x.deictic(j, ie) && !x.hasNumber(j, ie) {
			// asked "What is it used to do?", answered with the verb
			// phrase as written: "convert between different package formats"
			return []Triple{{Head: head, Relation: be + " " + participle + " to", Tail: x.str(j+1, ie), Kind: KindVerb}}
		}
	case "as":
		// "The NEWS.Debian file is installed as /usr/share/doc/…": the
		// path it takes
		if e := x.np(j + 1); e == j+2 && codeToken(x.ts[j+1].text) && x.closes(e) {
			return []Triple{{Head: head, Relation: be + " " + participle + " as", Tail: x.str(j+1, e), Kind: KindVerb}}
		}
		// "Debian unstable is known as sid": the other name of a named
		// subject, itself a name
		if e := x.np(j + 1); participle == "known" && x.subjNamed && !x.weakHead && e > j+1 && e-j <= 5 &&
			(x.hasProper(j+1, e) || x.codeLike(e-1) || x.ts[j+1].named()) && x.closes(e) && !x.listAfter(e) && !x.hasNumber(j+1, e) {
			return []Triple{{Head: head, Relation: be + " " + participle + " as", Tail: x.str(j+1, e), Kind: KindVerb}}
		}
	}
	switch p {
	case "to", "into", "as":
		if e := x.np(j + 1); p == "to" && upgradeParticiples[participle] && e > j+1 && x.hasProper(j+1, e) && x.hasNumber(j+1, e) && x.closes(e) && !x.listAfter(e) {
			// "Python has been updated to Unicode 6.0.0": the release it
			// moved to
			return []Triple{{Head: head, Relation: be + " " + participle + " to", Tail: x.str(j+1, e), Kind: KindVerb}}
		}
		// "was renamed to quill in August 2021": the date of the event
		for k := j + 1; k < len(x.ts) && k < j+6; k++ {
			if w := x.lowerAt(k); (w == "in" || w == "on") && x.date(k+1) > k+1 && !x.period(k+1) {
				return []Triple{{Head: head, Relation: be + " " + participle + " " + w, Tail: x.str(k+1, x.date(k+1)), Kind: KindVerb}}
			}
			if x.ts[k].lower == "," || x.tagAt(k) == "CC" {
				break
			}
		}
		// "KVM was merged into the Linux kernel", "/sbin/init is
		// symlinked to /lib/systemd/systemd": where the subject went, a
		// name that ends the phrase
		if e := x.np(j + 1); p != "as" && !upgradeParticiples[participle] && x.subjNamed && !x.weakHead && e > j+1 && (x.hasProper(j+1, e) || x.codeLike(e-1)) && !x.hasNumber(j+1, e) &&
			!x.cutBefore(e) && !x.listAfter(e) && x.lowerAt(e) != "of" && !x.possessive(j+1, e) {
			return []Triple{{Head: head, Relation: be + " " + participle + " " + p, Tail: x.str(j+1, e), Kind: KindVerb}}
		}
	case "by":
		// The agent is a name, not a thing named after one ("GDB's
		// "mini debuginfo" feature" is no one to ask "Who …?" about); the
		// subject is one ("Server support was contributed by …": support
		// of what?).
		if e := x.np(j + 1); !x.commonHead && e > j+1 && x.hasProper(j+1, e) && !x.listAfter(e) && !x.laterAgent(e) && (x.ts[e-1].named() || agentNouns[x.ts[e-1].lower]) && !x.possessive(j+1, e) &&
			!strings.ContainsAny(x.str(j+1, e), "\"'“”") {
			return []Triple{{Head: head, Relation: be + " " + participle + " by", Tail: x.str(j+1, e), Kind: KindVerb}}
		}
	case "under":
		// "Valgrind is licensed under the GNU General Public License",
		// "… under the terms of the GNU General Public Licence, a copy of
		// which …": the licence itself
		if x.lowerAt(j+1) == "the" && x.lowerAt(j+2) == "terms" && x.lowerAt(j+3) == "of" {
			if e := x.np(j + 4); e > j+4 && x.hasProper(j+4, e) && (x.closes(e) || x.lowerAt(e) == "(" || x.lowerAt(e) == ",") && !x.listAfter(e) {
				return []Triple{{Head: head, Relation: be + " " + participle + " under", Tail: x.str(j+4, e), Kind: KindVerb}}
			}
		}
		if e := x.np(j + 1); e > j+1 && x.hasProper(j+1, e) && (x.closes(e) || x.lowerAt(e) == "(") && !x.listAfter(e) {
			return []Triple{{Head: head, Relation: be + " " + participle + " under", Tail: x.str(j+1, e), Kind: KindVerb}}
		}
	case "in", "on", "at":
		if e := x.date(j + 1); e > j+1 {
			return []Triple{{Head: head, Relation: be + " " + participle + " " + p, Tail: x.str(j+1, e), Kind: KindVerb}}
		}
		if e := x.version(j + 1); p == "in" && versionEvents[participle] && !x.kindHead && e > j+1 && (x.closes(e) || x.lowerAt(e) == "(") {
			// "was introduced in version 2.4", "was removed in Quill 3.0"
			return []Triple{{Head: head, Relation: be + " " + participle + " " + p, Tail: x.str(j+1, e), Kind: KindVerb}}
		}
		if e := x.np(j + 1); e > j+1 && (x.hasProper(j+1, e) || x.codeLike(e-1)) && !x.hasNumber(j+1, e) &&
			!((x.lowerAt(e) == "and" || x.lowerAt(e) == "or") && !isVerb(x.tagAt(e+1))) {
			// not "is supported on Linux | and macOS": one of a list
			// "was based on libjpeg/SIMD": a name written as code. A
			// phrase the tags cut before its noun goes on: "is included
			// in the debconf_specification files/VBZ in …", "are based
			// on Bitstream Vera fonts/VBZ version 1.10"
			for e < len(x.ts) && (isNoun(x.tagAt(e)) || x.tagAt(e) == "CD" ||
				(x.tagAt(e) == "VBZ" || x.tagAt(e) == "VBP") && strings.HasSuffix(x.lowerAt(e), "s")) {
				e++
			}
			if x.cutBefore(e) {
				return nil
			}
			rel := be + " " + participle + " " + p
			kind := KindVerb
			if locatives[participle] && p != "on" {
				rel, kind = participle+" "+p, KindAttribute
			}
			return []Triple{{Head: head, Relation: rel, Tail: x.str(j+1, e), Kind: kind}}
		}
	}
	return nil
}

// measure reads "rose 18% to NOK 412 million", "reached NOK 37 million",
// "stood at 2.94%".
func (x *sent) measure(head, verb string, j int) []Triple {
	var out []Triple
	for x.tagAt(j) == "RB" && !neg(x.lowerAt(j)) {
		j++ // "rose sharply to"
	}
	if x.lowerAt(j) == "at" {
		verb += " at"
		j++
	}
	if x.lowerAt(j) == "by" {
		j++
	}
	if e := x.np(j); e > j && x.hasNumber(j, e) {
		rel := verb
		if measureVerbs[strings.Fields(verb)[0]] {
			rel = verb + " by"
		}
		out = append(out, Triple{Head: head, Relation: rel, Tail: x.str(j, e), Kind: KindVerb})
		j = e
	}
	if x.lowerAt(j) == "to" {
		if e := x.np(j + 1); e > j+1 && x.hasNumber(j+1, e) {
			out = append(out, Triple{Head: head, Relation: verb + " to", Tail: x.str(j+1, e), Kind: KindVerb})
		}
	}
	return out
}

// transitive reads the object of an active verb at i (its particle ending
// before j), and a date that dates the event.
func (x *sent) transitive(head, verb string, i, j int, introDate string) (out []Triple) {
	if x.lowerAt(j) == "a" && x.lowerAt(j+1) == "total" && x.lowerAt(j+2) == "of" && x.tagAt(j+3) == "CD" {
		j += 3 // "supports a total of ten architectures": the count is the object
	}
	obj := j
	if x.lowerAt(j) == "up" && x.lowerAt(j+1) == "to" && x.subjNamed {
		// "Quill supports up to 64 connections": a limit
		if e := x.np(j + 2); e > j+2 && x.ts[j+2].tag == "CD" && x.closes(e) && !x.listAfter(e) {
			// asked "How many connections does Quill support?"
			return []Triple{{Head: head, Relation: verb, Tail: x.str(j+2, e), Kind: KindVerb}}
		}
		return nil
	}
	if (verb == "stands" || verb == "stood") && x.lowerAt(j) == "for" && x.subjNamed {
		// "FFI stands for Foreign Function Interface": what an
		// abbreviation is short for, a name
		n := j + 1
		if x.lowerAt(n) == "the" {
			n++
		}
		if e := x.name(n); e > n && x.closes(e) && !x.listAfter(e) {
			return []Triple{{Head: head, Relation: verb + " for", Tail: x.str(j+1, e), Kind: KindVerb}}
		}
		return nil
	}
	if x.subjNamed && !x.weakHead && x.lowerAt(j) == "on" && x.lowerAt(j+1) == "port" && x.tagAt(j+2) == "CD" &&
		(x.closes(j+3) || x.lowerAt(j+3) == "by" && x.lowerAt(j+4) == "default" && x.closes(j+5)) && (x.tagAt(i) == "VBZ" || x.tagAt(i) == "VBP") {
		// "Quill listens on port 8080 (by default)": asked "On which
		// port does Quill listen?"
		return []Triple{{Head: head, Relation: verb + " on port", Tail: x.str(j+2, j+3), Kind: KindVerb}}
	}
	if p := x.lowerAt(j); x.subjNamed && prepVerbs[p] && (x.tagAt(j) == "IN" || x.tagAt(j) == "TO") {
		// "tmux depends on libevent", "mawk conforms to the POSIX
		// standard": a named object that ends the clause.
		if e := x.np(j + 1); e > j+1 && (x.hasProper(j+1, e) || x.codeLike(e-1)) && !x.hasNumber(j+1, e) && x.closes(e) && !x.listAfter(e) && e-j <= 7 {
			return []Triple{{Head: head, Relation: verb + " " + p, Tail: x.str(j+1, e), Kind: KindVerb}}
		}
		if e := x.np(j + 1); p == "with" && e > j+2 && x.tagAt(j+1) == "CD" && isNoun(x.tagAt(e-1)) && x.closes(e) && !x.listAfter(e) && e-j <= 5 {
			// "Python comes with two testing frameworks": a count,
			// asked "How many testing frameworks does Python come with?"
			return []Triple{{Head: head, Relation: verb + " " + p, Tail: x.str(j+1, e), Kind: KindVerb}}
		}
		if e := x.np(j + 1); verb == "defaults" && p == "to" && e > j+1 && x.closes(e) && !x.listAfter(e) && e-j <= 5 {
			// "Quill defaults to 32 bit", "… defaults to UTF-8": a value
			return []Triple{{Head: head, Relation: verb + " " + p, Tail: x.str(j+1, e), Kind: KindVerb}}
		}
		return nil
	}
	if t, stop := x.prepObject(head, verb, i, j); stop {
		return t
	}
	if x.lowerAt(i-1) == "also" && docVerbs[x.ts[i].lower] || x.vagueAmount(j) {
		// "Netatalk also provides the AppleTalk protocol": one of the
		// things a program provides, includes, supports …; "references a
		// huge number of …": no answer
		return nil
	}
	e := x.np(j)
	if v := x.ts[i].lower; controlVerbs[v] && x.lowerAt(x.ofNP(j, e)) == "to" && strings.HasPrefix(x.tagAt(x.ofNP(j, e)+1), "VB") ||
		placingVerbs[v] && (placingPreps[x.lowerAt(x.ofNP(j, e))] || !ambiguousPlacing[v]) ||
		x.lowerAt(x.ofNP(j, e)) == "as" && x.tagAt(x.ofNP(j, e)+1) == "CD" ||
		lightVerbs[v] && (x.tagAt(j) == "NN" || x.tagAt(j) == "NNS") && e == j+1 && x.tagAt(e) == "IN" {
		// "allows the contents of one database | to be copied", "puts
		// SQLite | into single-thread mode", "keeps track | of …": the
		// object is half of what the verb says
		return nil
	}
	if (x.lowerAt(j) == "a" || x.lowerAt(j) == "an") && memberVerbs[x.ts[i].lower] && !x.hasNumber(j, x.ofNP(j, e)) && !x.hasProper(j, x.ofNP(j, e)) {
		// "The Debian system contains a package called
		// popularity-contest": one of the things it holds, where the
		// question asks for the one
		return nil
	}
	if x.evaluative(j-1) || (x.tagAt(j) == "DT" || x.tagAt(j) == "PRP$") && x.evaluative(j) {
		return nil // "provides considerable coverage of …", "a solid foundation": a judgement, no thing named
	}
	if x.lowerAt(j) == "the" && anaphoric[x.lowerAt(j+1)] {
		return nil // "stores the entire 2000-character string": the one just described
	}
	if g := x.ts[i].lower; (g == "gives" || g == "gave" || g == "give") && (x.tagAt(j) != "DT" && x.tagAt(j) != "PRP$" || x.tagAt(e) == "DT" || x.tagAt(e) == "PRP$") {
		return nil // "gives users a choice": the first object is who receives
	}
	if e > j && !badHeads[x.ts[j].lower] {
		full := x.ofNP(j, e)
		switch {
		case appointing[x.ts[i].lower] && isProper(x.tagAt(j)):
			ne := x.name(j)
			if x.personName(j, ne) {
				out = append(out, Triple{Head: head, Relation: verb, Tail: x.str(j, ne), Kind: KindVerb})
				if x.lowerAt(ne) == "as" {
					if r, _ := x.role(ne + 1); r != "" && !strings.Contains(head, "'") {
						out = append(out, Triple{Head: head, Relation: r, Tail: x.str(j, ne), Kind: KindAttribute})
					}
				}
				e = ne
			}
		case full > e && x.hasNumber(e, full) && !x.hasNumber(j, e) && !x.hasProper(j, e) && e-j <= 4:
			// "reported revenue of NOK 2.3 billion": the figure is
			// an attribute of the subject.
			det := boolInt(x.ts[j].tag == "DT" || x.ts[j].tag == "PRP$")
			if e-j > det {
				attr := strings.ToLower(x.str(j+det, e))
				out = append(out, Triple{Head: head, Relation: attr, Tail: x.str(e+1, full), Kind: KindAttribute})
			}
			e = full
		case (x.hasNumber(j, full) || x.hasProper(j, full)) && vagueNouns[x.ts[full-1].lower] && !x.hasNumber(j, full) && !x.codeLike(full-1) &&
			!(x.ts[full-1].named() && x.hasProper(full-2, full-1)):
			// "stable, public APIs": a capitalized vague noun names
			// nothing; "Python helper tools", "GNU extensions" name a
			// kind of thing, not one ("Kvarts Battery Systems", all in
			// capitals, is a name)
			e = full
		case x.hasNumber(j, full) || x.hasProper(j, full):
			if t := x.tagAt(full); (t == "VBN" || t == "VBG" || t == "VBD" || isAdj(t)) && isNoun(x.tagAt(full+1)) {
				// "provides SSL | encrypted network connections": a
				// participle inside the object, which the tags cut short
				e = full
				break
			}
			if full-j <= 12 && !x.listAfter(full) && !x.listing(j, full) && !x.gerund(j) && (x.hasNumber(j, full) || plainObjectVerbs(x.ts[i].lower) || namedObjectVerbs[x.ts[i].lower] && x.subjNamed && x.hasProper(j, full)) &&
				(x.lowerAt(full) != "(" || x.defStops(full)) && !x.partialCount(j, full) && x.tagAt(full) != "VBG" && !x.postParticiple(j, full) {
				out = append(out, Triple{Head: head, Relation: verb, Tail: trimQuantity(x, j, full), Kind: KindVerb})
			}
			e = full
		case x.subjNamed && !x.hasNumber(j, full) && !pronounObjects[x.ts[j].lower] && isNoun(x.tagAt(full-1)) && !x.listing(j, full) &&
			plainObjectVerbs(x.ts[i].lower) && (x.defEnd(full) > 0 && x.defEnd(full)-j <= 12 || full-j <= 6 && x.purposeInfinitive(full) > 0):
			// "Wget respects the Robot Exclusion Standard", "mawk
			// implements the AWK language": the object, with what it is
			// for, ends the clause ("requires administrator powers | to
			// start instant commands": the adjunct below says it).
			end := x.defEnd(full)
			if end < 0 {
				end = full
			}
			vague := x.vagueObject(j, full) && (vagueNouns[x.lowerAt(full-1)] || !x.hasProper(full, end)) // "mappings | between Kerberos principals": the phrase names it
			if pe := x.namingPhrase(full); vague && pe > full {
				end, vague = pe, false // "files with a .gz extension"
			}
			cut := false
			if x.lowerAt(end) == "that" && contentNouns[x.lowerAt(end-1)] {
				// "provides the proof | that these files are yours": the
				// clause says what the proof is; the noun alone is not it
				cut = true
			} else if w := x.lowerAt(end); w == "who" || w == "whose" || w == "where" || (w == "that" || w == "which") && end == full && x.plainWords(j, end) {
				// "the e-mail address of the person | who is …", "the
				// section | where this package is stored": the clause
				// completes the object or it is not asked ("that" and
				// "which" clauses, often asides, are left as before)
				if re := x.relativeDefinition(end); re > 0 && !x.deictic(end, re) && re-j <= relativeDefinitionMax+4 {
					end = re
				} else {
					cut = true
				}
			} else if x.tagAt(end) == "VBG" && end == full || x.postParticiple(j, end) || x.tagAt(end) == "VBN" && x.tagAt(end+1) == "IN" && x.plainWords(j, end) {
				// "features an API | allowing users to …", "returns the
				// subset of rows | returned by the left SELECT": the
				// participle says which; the object is not said without it
				cut = true
			}
			if !vague && !cut && !x.gerund(j) {
				out = append(out, Triple{Head: head, Relation: verb, Tail: x.str(j, end), Kind: KindVerb})
			}
			e = end
		default:
			e = full
		}
		obj = e
		if n := len(out); n > 0 && out[n-1].Kind == KindVerb && out[n-1].Relation == verb && (x.tagAt(i) == "VBZ" || x.tagAt(i) == "VBP") {
			// "Podman uses Buildah | to build images", "Borg uses
			// SHA-256 | for chunk ids": the object is what the verb
			// takes for that purpose, and the question says it (a
			// present fact of a program; a change log's past verbs are
			// tied to their release as they were)
			switch adj, ok := x.adjunct(obj); {
			case !ok, adj == "" && !plainObjectVerbs(x.ts[i].lower) && !x.closes(obj) && x.lowerAt(obj) != "(":
				// "uses the GPG signature | on the files … to verify
				// …": what a light verb takes is said by what follows
				out = out[:n-1]
			case adj != "":
				out[n-1].Relation = verb + " " + adj
			}
		}
		if changeVerbs[x.ts[i].lower] && x.lowerAt(obj) == "to" && len(out) > 0 {
			// "changed the default settings to use DSCP AF21": what was
			// changed is said with its infinitive, not without
			return nil
		}
		if w := x.lowerAt(obj); conditional[w] || w == "," && conditional[x.lowerAt(obj+1)] {
			// "GDK emits GdkEventGrabBroken events when a grab is
			// broken": true only under the clause's condition, and one
			// of the things it emits
			return nil
		}
		// "employs 1,150 people and operates 14 warehouses"
		if x.lowerAt(obj) == "and" && (x.tagAt(obj+1) == "VBZ" || x.tagAt(obj+1) == "VBD") {
			defer func() { out = append(out, x.predicate(head, 0, obj+1, "")...) }()
		}
	}
	// A date after the object: "opened … on 8 September 2025". After "to"
	// and a verb ("helped to polish the language … in August 2022") the
	// date belongs to the other verb.
	for k := obj; k < len(x.ts) && k < obj+10 && x.tagAt(j) != "TO" && !pronounObjects[x.lowerAt(j)]; k++ {
		// "restructured it in 2001": what was restructured is not named
		if x.ts[k].lower == "," || x.tagAt(k) == "WDT" || x.tagAt(k) == "CC" {
			break
		}
		if p := x.ts[k].lower; p == "on" || p == "in" {
			if de := x.date(k + 1); de > k+1 && !x.period(k+1) {
				out = append(out, Triple{Head: head, Relation: verb + " " + p, Tail: x.str(k+1, de), Kind: KindVerb})
				return out
			}
		}
	}
	if introDate != "" && obj > j && !strings.HasPrefix(introDate, "Q") && !strings.HasPrefix(introDate, "the ") {
		if k := strings.Index(x.s, introDate); k >= 0 {
			out = append(out, Triple{Head: head, Relation: verb + " on", Tail: introDate, Kind: KindVerb})
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// trimQuantity drops the determiner and quantifiers before a number: "a
// further 340 robots" → "340 robots".
func trimQuantity(x *sent, i, j int) string {
	k := i
	for k < j && quantifiers[x.ts[k].lower] {
		k++
	}
	if k < j && k > i && x.ts[k].tag == "CD" {
		return x.str(k, j)
	}
	return x.str(i, j)
}

// lowerName reads a lower-case word that opens a sentence and is followed
// by its verb as a name: English sentences open with a capital, so one that
// does not opens with a program or command ("bc is an arbitrary precision
// numeric processing language", "mawk conforms to the POSIX standard").
func lowerName(ts []tok) {
	if len(ts) < 3 {
		return
	}
	t := &ts[0]
	if isProper(t.tag) && t.text == strings.ToUpper(t.text) && len(ts) > 3 {
		t = &ts[1] // "GNU grep is …"
		ts = ts[1:]
	}
	r, _ := utf8.DecodeRuneInString(t.text)
	if !unicode.IsLower(r) || len(t.text) > 20 || badHeads[t.lower] || functionWords[t.lower] {
		return
	}
	for i, c := range t.text {
		if c == '.' && i+1 < len(t.text) && t.text[i+1] >= '0' && t.text[i+1] <= '9' && strings.ContainsAny(t.text[:i], "0123456789") {
			continue // "libffi-3.4.4": a release
		}
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '-' && c != '_' && c != '+' {
			return
		}
	}
	v := 1
	if ts[1].lower == "(" {
		// "gzip (GNU zip) is …"
		for k := 2; k < len(ts) && k < 8; k++ {
			if ts[k].lower == ")" {
				v = k + 1
				break
			}
		}
	}
	if v >= len(ts) {
		return
	}
	if w := ts[v]; w.tag == "VBZ" || w.tag == "VBD" || w.lower == "is" || w.lower == "was" {
		t.tag, t.name = "NNP", true
	}
}

// definition reports a complement at k that says what the named subject at
// hs is: an indefinite noun phrase ("a free utility"), or a definite one
// without a name in it ("the default shell").
func (x *sent) definition(hs, k, e int) bool {
	if x.ts[hs].lower == "the" && kindNouns[x.lowerAt(hs+1)] && x.hasProper(hs+2, hs+3) && copulas[x.lowerAt(hs+3)] {
		hs += 2 // "The file Makefile.in is …", "The program quill is …"
	} else if x.ts[hs].lower == "the" && x.hasProper(hs+1, hs+2) && packageNouns[x.lowerAt(hs+2)] && copulas[x.lowerAt(hs+3)] {
		hs++ // "The xdg-utils package is …", "The Quill library is …"
	} else if x.ts[hs].lower == "the" && x.properRun(hs+1) >= hs+3 && copulas[x.lowerAt(x.properRun(hs+1))] {
		hs++ // "The Debian Free Software Guidelines are …": a name of several words
	} else if pr := x.properRun(hs + 1); x.ts[hs].lower == "the" && pr >= hs+3 && (packageNouns[x.lowerAt(pr)] || serverNouns[x.lowerAt(pr)]) && copulas[x.lowerAt(pr+1)] {
		hs++ // "The Cyrus IMAP server is …": a name of several words and its kind
	}
	if !x.hasProper(hs, hs+1) || len(x.ts[hs].text) < 2 || e == k || !isNoun(x.tagAt(e-1)) && !(x.ts[e-1].text == ")" && isNoun(x.tagAt(e-4))) {
		return false // (a phrase ends in a noun, or in its acronym: "a mail transfer agent (MTA)")
	}
	switch x.ts[k].lower {
	case "a", "an":
		return true

	case "the":
		return !x.hasProper(k, e) && !x.possessive(k, e)
	}
	return false
}

// defEnd returns the end of a definition whose noun phrase ends at e: the
// phrase and one prepositional phrase after it ("for non-interactive
// download of files"), up to a point where the clause ends or a relative
// clause begins; -1 when the end cannot be told or a list follows.
func (x *sent) defEnd(e int) int {
	for n := 0; n < 3 && !x.defStops(e); n++ {
		if !definitionPreps[x.lowerAt(e)] && !chainPreps[x.lowerAt(e)] {
			return -1
		}
		pe := x.np(e + 1)
		if pe == e+1 {
			return -1
		}
		e = pe
	}
	if !x.defStops(e) {
		return -1
	}
	return e
}

func (x *sent) defStops(e int) bool {
	if x.listAfter(e) {
		return false
	}
	switch x.lowerAt(e) {
	case "(":
		// "for the Transport Layer Security (TLS) protocol": a phrase
		// going on after the parenthesis did not end before it
		k := e + 1
		for k < len(x.ts) && x.ts[k].lower != ")" {
			k++
		}
		switch w := x.lowerAt(k + 1); {
		case k >= len(x.ts):
			return false
		case x.closes(k + 1), w == "that", w == "which", w == "who", w == "with", x.tagAt(k+1) == "VBZ", x.tagAt(k+1) == "MD":
			return true
		case x.tagAt(k+1) == "VBN" && (definitionPreps[x.lowerAt(k+2)] || x.lowerAt(k+2) == "by"):
			return true // "a database system (ORDBMS) based on POSTGRES"
		}
		return false
	case "that", "which", "who", "whose", ":", "with", "where":
		// a relative clause, a parenthesis or the features it comes
		// with: what it is has been said
		return true
	case "as":
		return x.tagAt(e+1) == "VBN" // "as defined by RFC4880"
	}
	if x.tagAt(e) == "VBN" && (definitionPreps[x.lowerAt(e+1)] || x.lowerAt(e+1) == "by") || x.lowerAt(e+1) == "under" {
		return true // "an XML toolkit implemented in C"
	}
	return x.closes(e)
}

var definitionPreps = set("for", "from", "to", "with", "in", "on", "of", "into")

// contentNouns take a "that" clause saying what they hold ("the proof
// that …", "the guarantee that …"): without it they say nothing.
var contentNouns = set("proof", "fact", "evidence", "guarantee", "assurance", "idea", "notion", "claim", "assumption",
	"belief", "impression", "possibility", "promise", "statement", "hope", "sign", "indication", "certainty",
	"confirmation", "expectation", "requirement", "rule", "condition", "news", "information", "warning", "reminder")

// chainPreps carry a definition's noun phrase on, as definitionPreps do
// ("a mailing list for private discussions amongst Debian developers"),
// but unlike them do not end a definition at a participle before them.
var chainPreps = set("among", "amongst", "between", "about", "within", "across", "through", "over", "at")

// listAfter reports a list going on after a phrase ending at e: ", B" or
// "and B" / "or B" with another noun phrase. A fact whose answer is one item
// of a list is not asked.
func (x *sent) listAfter(e int) bool {
	k := e
	if x.lowerAt(k) == "," && x.lowerAt(k+1) == "version" && x.tagAt(k+2) == "CD" && x.closes(k+3) {
		return false // "the GNU General Public License, version 2": which one, not another
	}
	if x.lowerAt(k) == "," && x.appositionCloses(e) {
		return false // "hosted by Savannah, the FSF's online development tool."
	}
	if x.lowerAt(k) == "," && x.lowerAt(k+1) == "a" && x.lowerAt(k+3) == "of" && (x.lowerAt(k+4) == "which" || x.lowerAt(k+4) == "whom") {
		return false // "the GNU General Public Licence, a copy of which …": a clause about it
	}
	if x.lowerAt(k) == "," {
		k++
	}
	if w := x.lowerAt(k); w == "and" || w == "or" {
		// "and closed 3 outlets", "and, …": another clause, not an item
		return !isVerb(x.tagAt(k+1)) && x.tagAt(k+1) != "MD" && x.tagAt(k+1) != "RB" && x.lowerAt(k+1) != "," && x.tagAt(k+1) != "TO"
	}
	if x.lowerAt(k) == "as" && x.lowerAt(k+1) == "well" {
		return true
	}
	return k > e && x.np(k) > k && (!isVerb(x.tagAt(k)) || x.np(k) > k+1)
}

// pronounObjects are objects that stand for something named elsewhere.
var pronounObjects = set("it", "them", "this", "that", "these", "those", "you", "us", "him", "her", "one",
	"something", "anything", "everything", "nothing", "some", "any", "all", "both", "each", "such", "other", "others")

// plainObjectVerbs are verbs whose plain object is a fact about the
// subject; "has", "uses", "makes" and "gives" take objects that say little
// on their own.
func plainObjectVerbs(v string) bool {
	switch v {
	case "has", "had", "have", "uses", "used", "makes", "made", "gets", "got", "takes",
		"took", "needs", "needed", "does", "did", "sees", "saw", "lets", "let", "causes", "caused",
		"helps", "helped", "help": // "helped the maintainer fix bugs": the object is someone helped to do something

		return false
	}
	return true
}

// prepVerbs are the prepositions that take a verb's object: "depends on",
// "conforms to", "runs on", "comes from", "works with".
var prepVerbs = set("on", "to", "from", "with")

// listing reports an object that announces a list instead of naming
// something: "the following files:", "contains:".
func (x *sent) listing(j, e int) bool {
	for k := j; k < e; k++ {
		switch x.ts[k].lower {
		case "following", "below", "above", "these", "those":
			return true
		}
	}
	// A colon after a plural object, or before anything but a pronoun,
	// announces items ("supports two formats:", "balanced KafkaConsumer:
	// …"); after a singular one and before a pronoun it explains it
	// ("defines the interface of the module: it is …").
	// A count before the colon ("has three built-in collating functions:
	// BINARY, NOCASE, and RTRIM") is exact whatever the items are.
	if x.tagAt(j) == "CD" && e-j <= 5 {
		return false
	}
	return x.lowerAt(e) == ":" && (e-1 < j || !isNoun(x.tagAt(e-1)) || strings.HasSuffix(x.tagAt(e-1), "S") || x.tagAt(e+1) != "PRP")
}

// vagueDefinition reports a definition that says only what kind of thing
// the subject is: a generic noun with none but vague modifiers, whether
// its substance follows in a relative clause ("bzip2recover is a simple
// program whose purpose is …" is not defined by "a simple program") or is
// not said at all ("Quill is a freely available open-source package").
func (x *sent) vagueDefinition(k, end int) bool {
	if !genericNouns[x.lowerAt(end-1)] {
		return false
	}
	for j := k + 1; j < end-1; j++ {
		if !vagueModifiers[x.lowerAt(j)] {
			return false // "a non-free library that …" says what it is
		}
	}
	return true
}

// vagueModifiers add nothing to what a generic noun says.
var vagueModifiers = set("optional", "simple", "small", "little", "new", "useful", "special", "general", "separate",
	"different", "other", "basic", "single", "few", "certain", "particular", "good", "nice", "free", "freely",
	"available", "open-source", "open", "source", "data", "complete", "powerful", "great", "whole", "full")

// genericNouns name a kind of thing too broad to define anything alone.
var genericNouns = set("program", "programs", "tool", "tools", "utility", "utilities", "library", "application",
	"software", "thing", "way", "package", "file", "command", "system", "project", "module", "set", "collection",
	"piece", "part", "kind", "type", "number", "lot", "framework", "toolkit", "solution", "implementation",
	"string", "value", "argument", "parameter", "variable", "field", "option")

// scopingIntro reports an introductory phrase before the subject at start
// that limits what the clause says: a mode, a setting, an example, a step
// or a contrast ("In WAL mode, SQLite exhibits …", "For "true", Git rejects
// …", "In this example, the field is …", "Finally, Git stores …",
// "However, FTS5 returns …"). Asked without it, the question states as a
// general fact what holds only there. A date or a release ("In 2025,",
// "On 14 March 2026", "In Python 3.3,") places the fact instead, and is
// kept.
func (x *sent) scopingIntro(start int, date string) bool {
	if start == 0 {
		return false
	}
	if date != "" {
		return false
	}
	if x.lowerAt(0) == "in" && x.hasNumber(1, start) {
		return false // "In Python 3.3, …", "In version 2, …"
	}
	switch w0, w1 := x.lowerAt(0), x.lowerAt(1); {
	case w0 == "for" && (w1 == "example" || w1 == "instance"), w0 == "e.g.", w0 == "by" && w1 == "default":
		// an example given is a fact of its own; a default is the
		// general case
		return false
	case w0 == "like" || w0 == "unlike":
		return false // "Like GNOME, Xfce is …": a comparison, not a scope
	}
	return true
}

// plainWords reports tokens i..j-1 holding no name, number, quotation or
// code: a phrase of common words, which a restrictive clause after it may
// complete ("the maximum number of parameters | that can be passed …"),
// where a named object ("a module called "ensurepip" | which …") is
// complete without it.
func (x *sent) plainWords(i, j int) bool {
	for k := i; k < j; k++ {
		t := x.ts[k]
		if t.named() || t.tag == "CD" || t.tag == "``" || t.tag == "''" || strings.ContainsAny(t.text, "\"“”`'_/.0123456789") || k > i && isCapital(t.text) {
			return false
		}
	}
	return true
}

// postParticiple reports a participle after a noun inside tokens i..j-1:
// "an API | allowing users", "the files | stored in the index". The phrase
// runs on past it into what the participle says, and cut there names a
// thing only half described.
func (x *sent) postParticiple(i, j int) bool {
	for k := i + 1; k < j; k++ {
		if x.ts[k].tag != "VBG" || !isNoun(x.ts[k-1].tag) {
			continue
		}
		switch n := x.tagAt(k + 1); {
		case n == "DT" || n == "PRP" || n == "PRP$" || n == "IN" || n == "TO":
			return true // "a module | providing the …", "a hook | running before …"
		case isNoun(n) && x.tagAt(k+2) == "TO":
			return true // "an API | allowing users to …"; "collating functions" is a noun phrase
		}
	}
	return false
}

// sequencing words open a step of a procedure.
var sequencing = set("first", "then", "next", "finally", "lastly", "afterwards", "afterward", "subsequently", "second", "third")

// controlVerbs take an object and an infinitive that says what it does
// or undergoes ("allows the contents to be copied", "causes the write to
// fail"); the object alone is not what the verb is about.
var controlVerbs = set("allow", "allows", "allowed", "enable", "enables", "enabled", "cause", "causes", "caused",
	"permit", "permits", "permitted", "force", "forces", "forced", "require", "requires", "required", "let", "lets",
	"want", "wants", "expect", "expects", "tell", "tells", "ask", "asks", "instruct", "instructs", "encourage",
	"encourages", "lead", "leads", "prevent", "prevents", "get", "gets", "help", "helps")

// placingVerbs put their object somewhere, hand it to someone or treat it
// as something: "puts SQLite into single-thread mode", "passes the remove
// argument to the prerm script", "treats the value as text". Without the
// place or the role there is no fact.
var placingVerbs = set("pass", "passes", "passed", "send", "sends", "sent", "forward", "forwards", "forwarded", "hand",
	"hands", "handed", "put", "puts", "place", "places", "placed", "treat", "treats", "treated", "regard", "regards",
	"regarded", "turn", "turns", "turned", "render", "renders", "rendered", "keep", "keeps", "kept", "leave", "leaves",
	"left", "consider", "considers", "considered", "interpret", "interprets", "interpreted")

// ambiguousPlacing verbs also have a plain object ("keeps a log", "leaves
// the cache"): they need the place after it to be read as placing.
var ambiguousPlacing = set("keep", "keeps", "kept", "leave", "leaves", "left", "turn", "turns", "turned",
	"pass", "passes", "passed", "send", "sends", "sent", "forward", "forwards", "forwarded", "hand", "hands", "handed")

var placingPreps = set("into", "in", "as", "on", "onto", "to", "under", "at")

// lightVerbs with a bare noun and a preposition make one verb of the
// three: "keeps track of", "makes use of", "takes care of", "pays
// attention to". The noun is not an object to ask for.
var lightVerbs = set("keep", "keeps", "kept", "make", "makes", "made", "take", "takes", "took", "pay", "pays", "paid",
	"give", "gives", "gave", "have", "has", "had", "do", "does", "did")

// anaphoric adjectives after "the" point back to what the text has just
// described: "the entire string", "the same file", "the resulting value".
var anaphoric = set("same", "entire", "whole", "remaining", "above", "aforementioned", "former", "latter",
	"resulting", "corresponding", "respective", "previous", "preceding", "said", "other")

// memberVerbs say what a thing holds or offers; with an indefinite object
// ("contains a package …") the object is one member of many.
// What a thing provides or ships ("provides a framework for …") is asked:
// it says what the thing is for.
var memberVerbs = set("contain", "contains", "contained", "include", "includes", "included",
	"read", "reads", "accept", "accepts", "support", "supports", "offer", "offers") // "Alot reads a config file …": one of what it reads

// onlyAdjectives reports tokens i..j-1 that are all adjectives (none is
// also none); a lower-case compound with a hyphen ("text-based",
// "cross-platform") counts as one, whatever its tag.
func (x *sent) onlyAdjectives(i, j int) bool {
	for k := i; k < j; k++ {
		t := x.ts[k]
		if !isAdj(t.tag) && !(strings.Contains(t.text, "-") && t.text == strings.ToLower(t.text)) {
			return false
		}
	}
	return true
}

// kindSubject reports a subject that names a kind of thing, not one: a
// plural common noun without a determiner, whatever names modify it ("CVE
// IDs", "Debian users", "PDF files").
func (x *sent) kindSubject(hs, he int) bool {
	if he <= hs || determiners[x.lowerAt(hs)] || x.tagAt(hs) == "CD" {
		return false
	}
	// The tags of a capitalized phrase are not to be trusted here ("PDF
	// files/NNP"): the head's spelling says plural common noun, or a
	// plural of an acronym ("IDs", "URLs").
	w := x.ts[he-1].text
	return pluralAcronym.MatchString(w) || w == strings.ToLower(w) && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3
}

var pluralAcronym = regexp.MustCompile(`^[A-Z]{2,}s$`)

// determiners open a noun phrase that points at particular things.
var determiners = set("the", "a", "an", "this", "these", "those", "that", "its", "their", "our", "his", "her", "my",
	"your", "each", "every", "all", "some", "any", "no", "both")

// pastEvent reports a verb group at i in the past: "were assigned",
// "reported", "have been fixed" is a present perfect and not one.
func (x *sent) pastEvent(i int) bool {
	for i < len(x.ts) && x.ts[i].tag == "RB" {
		i++
	}
	switch w := x.lowerAt(i); {
	case w == "was" || w == "were":
		return x.tagAt(i+1) == "VBN" || x.tagAt(i+1) == "RB" && x.tagAt(i+2) == "VBN"
	case x.tagAt(i) == "VBD":
		return true
	}
	return false
}

// foundVerbs say where a thing is to be had: "can be found in …", "can be
// downloaded from …".
var foundVerbs = set("found", "obtained", "downloaded", "fetched", "retrieved", "located")

// foundAt reads "X can be found in the file doc/NewStuff", "X can be
// downloaded from https://…" (the modal at i): where a named thing is, a
// path, an address or a file named by code that ends the clause, asked
// "Where can X be found?".
func (x *sent) foundAt(head string, i int) []Triple {
	if !x.subjNamed || x.weakHead || x.lowerAt(i+1) != "be" {
		return nil
	}
	k := i + 2
	for x.tagAt(k) == "RB" && !neg(x.lowerAt(k)) && !partialAdverbs[x.lowerAt(k)] {
		k++
	}
	p := x.lowerAt(k + 1)
	if !foundVerbs[x.lowerAt(k)] || p != "in" && p != "at" && p != "from" && p != "on" {
		return nil
	}
	j := k + 2
	if x.lowerAt(j) == "the" && (x.lowerAt(j+1) == "file" || x.lowerAt(j+1) == "directory") {
		j += 2
		if x.lowerAt(j) == "called" || x.lowerAt(j) == "named" {
			j++
		}
	}
	if j >= len(x.ts) || !(codeToken(x.ts[j].text) || pathLike(x.ts[j].text)) || !x.closes(j+1) && x.lowerAt(j+1) != "(" {
		return nil
	}
	return []Triple{{Head: head, Relation: "can be " + x.lowerAt(k) + " " + p, Tail: x.str(j, j+1), Kind: KindVerb}}
}

// pathLike: a relative path ("doc/ChangeLog", "docs/index.rst").
func pathLike(w string) bool {
	i := strings.IndexByte(w, '/')
	return i > 0 && i < len(w)-1 && !strings.ContainsAny(w, " <>\"'") && unicode.IsLetter(rune(w[0])) && unicode.IsLetter(rune(w[i+1]))
}
