package triplet

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/robustream/robustream/processors/text"
)

// The general reading of documentation prose: guards that keep the
// subject–verb–object reading of any verb the tagger recognises from
// turning announcements, identifiers and unnamed things into facts
// (docs/methods.md, Triplet extraction).

// announcing words open a release-note bullet that names a change rather
// than a fact about its subject: "New command ESC-m removes a line mark",
// "Added option --foo sets …", "Improved parser handles …". The sentence
// says the change exists; read as subject–verb–object it makes "What does
// New command ESC-m remove?".
var announcing = set("new", "added", "removed", "improved", "updated", "fixed", "deprecated", "experimental",
	"initial", "better", "faster", "renamed", "reworked", "enhanced", "extended", "various", "minor", "major")

// announcement reports a sentence opening with an announcing word and a
// common noun ("New command …", "Added support …"); a name after it ("New
// York", "Improved Foo") is left to the other rules.
func announcement(ts []tok) bool {
	if len(ts) < 3 || !announcing[ts[0].lower] || !isCapital(ts[0].text) {
		return false
	}
	w := ts[1].text
	return !isCapital(w) || ts[1].lower == "support" || ts[1].lower == "option" || ts[1].lower == "command"
}

// versionedName: a name with a release number in it ("Nettle-3.5.1",
// "Quill2.4"), which takes no article in a question.
func versionedName(w string) bool {
	if !isCapital(w) || len(w) < 3 {
		return false
	}
	digit := strings.IndexFunc(w, unicode.IsDigit)
	return digit > 0 && strings.ContainsAny(w, ".-_") && strings.IndexFunc(w, unicode.IsLetter) == 0
}

// identifierRe matches tails that are bare identifiers of an issue or
// advisory: asked without the thing they identify ("What did Mitre
// assign?" → "CVE-2019-12290") the question has no answer a reader could
// give.
var identifierRe = regexp.MustCompile(`(?i)^(?:CVE|CAN|GHSA|DSA|DLA|USN|RHSA)-[0-9A-Za-z-]+$|^(?:bug\s*)?#\s*\d+$|^(?:bug|issue|ticket)\s+\d+$`)

func identifierTail(t string) bool { return identifierRe.MatchString(strings.TrimSpace(t)) }

// codeLike: a lower-case word written as code: a program, library or file
// name with a digit, point, slash or underscore in it ("libjpeg/SIMD",
// "libgpg-error1", "pcre_chartables.c", ".gz"), or a word the sentence
// reads as a name. Ordinary hyphenated words ("command-line") are not.
func (x *sent) codeLike(i int) bool {
	if i < 0 || i >= len(x.ts) {
		return false
	}
	t := x.ts[i]
	if t.name {
		return true
	}
	w := strings.TrimRight(t.text, ".,;:")
	if len(w) < 2 || !strings.ContainsFunc(w, unicode.IsLetter) || strings.ContainsAny(w, "`'\"()[]{}<>*|=\\") {
		return false
	}
	return strings.ContainsAny(w, "0123456789./_")
}

// namesSomething reports a proper noun, a number or a code-like word in
// [i, j): what makes a phrase about one thing rather than a kind.
func (x *sent) namesSomething(i, j int) bool {
	if x.hasProper(i, j) || x.hasNumber(i, j) {
		return true
	}
	for k := i; k < j; k++ {
		if x.codeLike(k) {
			return true
		}
	}
	return false
}

// skipParticiples skips a run of coordinated participles and the adverbs
// after them: "maintained, enhanced, and distributed freely by the Tcl
// community" reads on at "by"; the first participle is the one asked. It
// returns j itself when no such run follows.
func (x *sent) skipParticiples(j int) int {
	k := j
	for n := 0; n < 4; n++ {
		m := k
		if x.lowerAt(m) == "," {
			m++
		}
		if x.lowerAt(m) == "and" || x.lowerAt(m) == "or" {
			m++
		}
		if m == k || x.tagAt(m) != "VBN" && !(x.tagAt(m) == "VBD" && strings.HasSuffix(x.lowerAt(m), "ed")) {
			break
		}
		k = m + 1
	}
	if k == j {
		return j
	}
	for x.tagAt(k) == "RB" && !neg(x.lowerAt(k)) {
		k++
	}
	return k
}

// namingPhrase returns the end of a prepositional phrase at e that makes a
// vague object specific by naming something ("files with a .gz
// extension", "extensions for debhelper"), when the clause ends after it;
// or e.
func (x *sent) namingPhrase(e int) int {
	if p := x.lowerAt(e); p != "with" && p != "for" && p != "of" {
		return e
	}
	pe := x.np(e + 1)
	if pe == e+1 || !x.namesSomething(e+1, pe) || x.listAfter(pe) {
		return e
	}
	if x.closes(pe) || x.lowerAt(pe) == "to" && x.tagAt(pe+1) == "VB" {
		return pe
	}
	if p := x.lowerAt(pe); p == "on" || p == "in" {
		// "a framework for Multicast DNS Service Discovery | on Debian."
		if qe := x.np(pe + 1); qe > pe+1 && x.closes(qe) && !x.listAfter(qe) {
			return qe
		}
	}
	return e
}

// bareNumberRe matches a number or version with nothing it counts:
// "6.7.5", "v4.3", "4.x", "12".
var bareNumberRe = regexp.MustCompile(`^v?\d+(?:[.,]\d+)*[a-z]?(?:\.x)?$`)

// bareNumberObject reports the object of an ordinary verb that is a bare
// number or version ("Word boundaries 6.7.5." in a table of contents, read
// as subject, verb and object): no question asks for it. A quantity moved
// or reached ("rose by 18%", "reached 4,000") keeps its relation's
// preposition or a unit and is not one.
func bareNumberObject(t Triple) bool {
	f := strings.Fields(t.Relation)
	if len(f) != 1 || measureVerbs[f[0]] || levelVerbs[f[0]] {
		return false
	}
	return bareNumberRe.MatchString(strings.TrimSpace(t.Tail))
}

// partialCount reports an object that the words after it restrict or
// compare: a restrictive relative clause ("GNU extensions that violate the
// POSIX standard", "two options that serve the same purpose as …") or a
// comparison after a count ("three bytes instead of two"). The phrase
// alone names more than, or other than, what the sentence states.
func (x *sent) partialCount(j, e int) bool {
	if w := x.lowerAt(e); (w == "that" || w == "who" || w == "whose") && !x.ts[e-1].named() && !x.codeLike(e-1) && !codeToken(x.ts[e-1].text) {
		// "disables GNU extensions that violate the POSIX standard": a
		// restrictive relative clause is part of what is named
		return true
	}
	if !x.hasNumber(j, e) {
		return false
	}
	switch x.lowerAt(e) {
	case "that", "which", "who", "instead", "rather", "than", "more", "less", "fewer":
		return true
	}
	return false
}

// agentNouns end the names of groups that do things as one: "the Tcl
// community", "the Quill project", "the Fjord developers".
var agentNouns = set("community", "project", "team", "developers", "maintainers", "foundation", "consortium",
	"group", "contributors")

// appositionCloses reports ", the/a NOUN PHRASE" after a name ending at e
// that runs to the end of the sentence: an apposition saying what the name
// is ("by Savannah, the FSF's online development management tool."), not
// a second item; one whose phrase holds "and"/"or" or goes on is left to
// be read as a list.
func (x *sent) appositionCloses(e int) bool {
	if x.lowerAt(e) != "," || !x.ts[e-1].named() {
		return false
	}
	if d := x.lowerAt(e + 1); d != "the" && d != "a" && d != "an" {
		return false
	}
	pe := x.ofNP(e+1, x.np(e+1))
	return pe > e+2 && (pe >= len(x.ts) || x.tagAt(pe) == "." && pe == len(x.ts)-1)
}

// bareName reports a capitalized first word that a definition opens
// ("Sed is a non-interactive editor") and that the chunk writes in lower
// case only bare, never after a determiner: the program's name ("GNU
// sed", "use sed to …"), not a common noun, which the chunk would write
// "the trie", "a price".
func (r *reader) bareName(ts []tok, lower string) bool {
	return len(ts) > 3 && r.lower[lower] && !r.determined[lower] && !commonStarts[lower] &&
		(ts[1].lower == "is" || ts[1].lower == "was") && (ts[2].lower == "a" || ts[2].lower == "an")
}

// figure reports a sentence that gives a figure to its first word ("Price
// is $350 in the US"): a common noun the model knows ("price") stays one,
// since a figure of nothing named is asked about nothing ("What is
// Price?"). A name the model does not know is tagged a proper noun anyway.
func (r *reader) figure(ts []tok) bool {
	return len(ts) > 2 && copulas[ts[1].lower] && (ts[2].tag == "CD" || ts[2].tag == "$")
}

// listFragment reports a sentence that is an item of a bulleted or numbered
// list and does not end as a sentence does: a feature or a name listed
// ("* High-level balanced KafkaConsumer (requires broker >= 0.9)"), whose
// words a tagger reads as a clause that says nothing.
func listFragment(chunk string, s Sentence) bool {
	t := strings.TrimSpace(s.Text)
	if t == "" || strings.ContainsAny(t[len(t)-1:], ".!") {
		return false
	}
	line := chunk[strings.LastIndexByte(chunk[:s.Start], '\n')+1:]
	line = strings.TrimLeft(line, " \t")
	switch {
	case strings.HasPrefix(line, "* "), strings.HasPrefix(line, "- "), strings.HasPrefix(line, "+ "), strings.HasPrefix(line, "• "):
		return true
	}
	n := 0
	for n < len(line) && line[n] >= '0' && line[n] <= '9' {
		n++
	}
	return n > 0 && n+1 < len(line) && (line[n] == '.' || line[n] == ')') && line[n+1] == ' '
}

// phrasalParticiples are phrasal verbs that documentation writes as the
// noun, one word ("has been setup on Alioth"): the question says the verb.
var phrasalParticiples = map[string]string{
	"setup": "set up", "backup": "backed up", "cleanup": "cleaned up", "shutdown": "shut down",
	"lookup": "looked up", "checkout": "checked out", "login": "logged in", "logout": "logged out",
	"signup": "signed up", "rollout": "rolled out", "startup": "started up",
}

// phrasalParticiple returns the participle p as a question should write it.
func phrasalParticiple(p string) string {
	if v, ok := phrasalParticiples[p]; ok {
		return v
	}
	return p
}

// bareReleaseRe: a version or release number with no name before it.
var bareReleaseRe = regexp.MustCompile(`(?i)^(?:the\s+)?(?:version|release|v\.?|rev\.?|revision)\s*\d[\w.-]*$`)

// numberHeads are number words that open a sentence about a value just
// described ("Zero disables the warning", "One means …"): no subject.
var numberHeads = set("zero", "one", "two", "three", "four", "five", "none", "both", "all")

// bareRelease reports a head that is a version number alone ("Version 1",
// "release 2.4") or a number word ("Zero"): a question about it would not
// say of what.
func bareRelease(head string) bool {
	h := strings.TrimSpace(head)
	return bareReleaseRe.MatchString(h) || numberHeads[strings.ToLower(h)]
}

// referenceNouns are documents and records known by a number ("PEP 393",
// "RFC 4880", "bug #1234"): "the PEP" is the one just mentioned.
var referenceNouns = set("pep", "rfc", "cve", "bpo", "bug", "issue", "patch", "ticket", "commit", "section",
	"chapter", "appendix", "figure", "table", "example", "listing", "proposal", "draft", "spec", "specification")

// bareReference reports a head that points at a numbered document the text
// mentioned before ("the PEP", "this RFC") instead of naming it.
func bareReference(head string) bool {
	f := strings.Fields(strings.ToLower(head))
	return len(f) == 2 && (f[0] == "the" || f[0] == "this" || f[0] == "that") && referenceNouns[f[1]]
}

// adjectivePreps are the adjectives whose prepositional complement is what
// a copula says about its subject: "The Incoming system is responsible for
// collecting updated packages", "X is compatible with Y", "FFI is short for
// …". Each adjective takes the prepositions listed.
var adjectivePreps = map[string][]string{
	"responsible": {"for"}, "compatible": {"with"}, "equivalent": {"to"}, "similar": {"to"},
	"identical": {"to"}, "short": {"for"}, "specific": {"to"}, "due": {"to"}, "dependent": {"on"},
	"available": {"from", "at", "on", "in"}, "native": {"to"}, "analogous": {"to"}, "superior": {"to"},
	"useful": {"for"}, "suitable": {"for"}, "necessary": {"for"}, "required": {"for"},
}

// adjectiveComplement reads "X is <adjective> <preposition> Y" from the
// complement at k (docs/methods.md, The rule extractor): (X, is responsible
// for, collecting updated packages and installing them in the Debian
// archive), kind copula, asked "What is X responsible for?". Y is a noun
// phrase that names something and ends the clause, or, after "for", a
// gerund phrase that is the rest of the sentence; a list, a condition or a
// phrase pointing at its context ("your packages") gives nothing.
func (x *sent) adjectiveComplement(head, be string, k int) []Triple {
	adj, p := x.lowerAt(k), x.lowerAt(k+1)
	if x.weakHead || !isAdj(x.tagAt(k)) || !slices.Contains(adjectivePreps[adj], p) {
		return nil
	}
	j := k + 2
	rel := be + " " + adj + " " + p
	if p == "for" {
		return x.purpose(head, rel, j)
	}
	e := x.np(j)
	if e == j || badHeads[x.lowerAt(j)] {
		return nil
	}
	e = x.ofNP(j, e)
	if !x.closes(e) || x.listAfter(e) || x.deictic(j, e) || e-j > 8 {
		return nil
	}
	if !x.namesSomething(j, e) && (adj == "available" || x.vagueObject(j, e)) {
		return nil // "available in many formats"
	}
	return []Triple{{Head: head, Relation: rel, Tail: x.str(j, e), Kind: KindCopula}}
}

// purposeParticiples say what a thing is made or meant for: "is designed
// for", "is used for".
var purposeParticiples = set("designed", "intended", "meant", "used", "optimized", "optimised", "reserved", "suited")

// purpose reads what follows "for" at j in "is responsible for …", "is
// designed for …": a gerund phrase that is the rest of the sentence
// ("collecting updated packages and installing them in the Debian
// archive"), or a noun phrase that ends the clause and is not vague ("most
// users"). A list, a modal, a condition, a second clause or a phrase
// pointing at its context ("your packages") gives nothing.
func (x *sent) purpose(head, rel string, j int) []Triple {
	if x.weakHead {
		return nil
	}
	if x.tagAt(j) == "VBG" {
		end := x.restClause(j, j, func(k int, w string) bool {
			return conditional[w] || x.tagAt(k) == "PRP" && w != "them" && w != "it"
		})
		if end < 0 || x.deictic(j, end) {
			return nil
		}
		return []Triple{{Head: head, Relation: rel, Tail: x.str(j, end), Kind: kindOfRelation(rel)}}
	}
	e := x.np(j)
	if e == j || badHeads[x.lowerAt(j)] || pronounObjects[x.lowerAt(j)] {
		return nil
	}
	e = x.ofNP(j, e)
	if !x.closes(e) || x.listAfter(e) || x.deictic(j, e) || e-j > 8 || x.vagueObject(j, e) {
		return nil // "useful for most users"
	}
	if x.np(j) == j+1 && !x.namesSomething(j, e) && e == j+1 {
		return nil // "used for testing": one common word says too little
	}
	return []Triple{{Head: head, Relation: rel, Tail: x.str(j, e), Kind: kindOfRelation(rel)}}
}

// adjunct reads a purpose after a verb's object at e: an infinitive ("to
// build images") or a "for" phrase ("for chunk ids", "for reading
// mailboxes") that is the rest of the sentence. It returns the phrase,
// "" and true when none follows (the object ends the clause, or another
// phrase follows that the question may leave out, as a price or a "for"
// phrase it cannot read), or false when an infinitive of purpose follows
// that cannot be said whole: "What does Podman use?" is no question when
// the sentence says what for.
func (x *sent) adjunct(e int) (string, bool) {
	switch x.lowerAt(e) {
	case "to":
		if x.tagAt(e+1) != "VB" {
			return "", true // "converts X to Y": a second object, left as it was
		}
		if end := x.purposeInfinitive(e); end > 0 && !x.deictic(e, end) && end-e <= 8 {
			return x.str(e, end), true
		}
		return "", false
	case "for":
		if x.tagAt(e+1) == "VBG" {
			end := x.restClause(e+1, e+1, func(k int, w string) bool { return conditional[w] || x.tagAt(k) == "PRP" })
			if end > 0 && !x.deictic(e, end) && end-e <= 8 {
				return x.str(e, end), true
			}
			return "", false
		}
		ne := x.np(e + 1)
		if ne == e+1 || badHeads[x.lowerAt(e+1)] || pronounObjects[x.lowerAt(e+1)] || x.hasNumber(e+1, ne) {
			return "", true // "for $693.9 million", "for its centre": a price, a beneficiary, left out as before
		}
		ne = x.ofNP(e+1, ne)
		if !x.closes(ne) || x.listAfter(ne) || x.deictic(e+1, ne) || ne-e > 7 {
			return "", true
		}
		return x.str(e, ne), true // "for authentication": one word is purpose enough
	case "via", "through", "using":
		// "implements LMTP | via the lmtpd daemon": how, which the
		// question keeps
		ne := x.np(e + 1)
		if ne == e+1 || pronounObjects[x.lowerAt(e+1)] {
			return "", false
		}
		ne = x.ofNP(e+1, ne)
		if !x.closes(ne) || x.listAfter(ne) || x.deictic(e+1, ne) || ne-e > 7 {
			return "", false
		}
		return x.str(e, ne), true
	}
	return "", true
}

// prepObject reads a present-tense verb whose object is followed by a
// preposition and a name, a path or code that ends the clause: the name is
// the answer, the object stays in the question ("What does restic encrypt
// all data with?" → AES-256; "Where does restic store its data?" →
// /var/lib/restic). The object is at most five words and no pronoun but a
// possessive one ("its data"); a number, a list or a second clause gives
// nothing.
func (x *sent) prepObject(head, verb string, i, j int) (out []Triple, stop bool) {
	if !x.subjNamed || x.weakHead || x.tagAt(i) != "VBZ" && x.tagAt(i) != "VBP" || reporting[x.ts[i].lower] {
		return nil, false
	}
	if w := x.lowerAt(j); pronounObjects[w] && w != "its" && w != "their" || x.tagAt(j) == "IN" || x.tagAt(j) == "TO" || w == "a" || w == "an" {
		return nil, false // not "it", "them", "a config file" (any one); "its data" is the subject's
	}
	e := x.np(j)
	if e == j || e-j > 5 || x.hasNumber(j, e) || x.listAfter(e) {
		return nil, false
	}
	p := x.lowerAt(e)
	if !text.ObjectPreps[p] || x.namingPhrase(e) > e {
		return nil, false // "produces files | with a .gz extension": the phrase says which files
	}
	ne := x.np(e + 1)
	if ne == e+1 || ne-e > 5 || !x.closes(ne) || x.listAfter(ne) || x.possessive(e+1, ne) {
		return nil, false
	}
	path := ne == e+2 && pathLike(x.ts[e+1].text)
	if !path && !x.hasProper(e+1, ne) && !x.codeLike(ne-1) && !(ne == e+2 && x.ts[e+1].named()) {
		return nil, false
	}
	if path && p != "in" && p != "into" && p != "under" && p != "to" {
		return nil, false
	}
	if x.lowerAt(j) == "the" && !x.hasProper(j, e) && !x.codeLike(e-1) {
		// "installs the feature configuration file to …": the one the
		// context means; neither the place nor the object is asked
		return nil, true
	}
	return []Triple{{Head: head, Relation: verb + " " + p, Tail: x.str(e+1, ne), Kind: KindVerb}}, true
}

// identifyingAdjectives make "the … N" one thing of its kind: there is one
// default backend, one official website.
var identifyingAdjectives = set("default", "official", "main", "primary", "recommended", "preferred", "standard",
	"only", "original", "current", "latest", "first", "canonical", "reference", "principal", "sole", "successor",
	"predecessor", "upstream", "native")

// identifying reads a copula whose complement at k..e names one thing of
// a named scope: "the default backend in Xapian 1.4.x", "the official
// website of Icinga", "the first release of Quill". It is asked the other
// way round, for the subject: "What is the default backend in Xapian
// 1.4.x?" → Glass. The subject is a name (a capital it keeps, or code),
// the scope holds a name or a version, and the clause ends with it.
// Without a scope ("Glass is the default backend.") it says which one the
// subject is of a kind the chunk has in mind, and neither way round is a
// question: stop is true.
func (x *sent) identifying(head string, hs int, be string, k, e int) (out []Triple, stop bool) {
	if x.ts[k].lower != "the" || e-k < 2 || e-k > 5 {
		return nil, false
	}
	ident := false
	for i := k + 1; i < e-1; i++ {
		ident = ident || identifyingAdjectives[x.ts[i].lower] || x.tagAt(i) == "JJS"
	}
	if !ident || !isNoun(x.tagAt(e-1)) || genericNouns[x.ts[e-1].lower] {
		return nil, false
	}
	if x.closes(e) {
		return nil, true
	}
	p := x.lowerAt(e)
	if p != "in" && p != "of" && p != "for" && p != "on" {
		return nil, false
	}
	pe := x.np(e + 1)
	if pe == e+1 || !(x.hasProper(e+1, pe) || x.version(e+1) > 0 || x.codeLike(pe-1)) || !x.closes(pe) || x.listAfter(pe) || x.possessive(e+1, pe) {
		return nil, false
	}
	hw := strings.Fields(head)
	if len(hw) == 0 || len(hw) > 4 || !isCapital(hw[0]) && !x.codeLike(hs) || pronounObjects[strings.ToLower(hw[0])] ||
		badHeads[strings.ToLower(hw[0])] || x.deictic(hs, k) {
		return nil, false
	}
	return []Triple{{Head: x.str(k, pe), Relation: be, Tail: head, Kind: KindCopula}}, true
}

// kindOfRelation: an adjective's complement is a copula fact, a
// participle's a verb fact.
func kindOfRelation(rel string) string {
	if f := strings.Fields(rel); len(f) == 3 && adjectivePreps[f[1]] != nil {
		return KindCopula
	}
	return KindVerb
}

// termWords are the nouns and modifiers that never make a term of their
// own: "A good example is …", "A copy of the licence is …".
// quantityWords open a plural phrase that counts instead of naming.
var quantityWords = set("most", "many", "several", "some", "few", "all", "both", "various", "numerous", "other", "such", "these", "those", "certain", "more", "fewer", "additional", "multiple")

var termWords = set("example", "examples", "copy", "lot", "number", "way", "thing", "bit", "couple", "variety",
	"list", "kind", "type", "sort", "part", "result", "reason", "problem", "question", "solution", "alternative",
	"consequence", "note", "word", "case", "good", "better", "best", "common", "typical", "possible", "great",
	"nice", "quick", "short", "long", "first", "second", "last", "next", "final", "similar", "major", "minor",
	"few", "little", "big", "small", "large", "new", "old", "simple", "further", "related")

// termDefinition reads the definition of a term: "A debug package is a
// package that contains additional information that can be used by gdb."
// gives (a debug package, is, a package that contains …), kind copula,
// asked "What is a debug package?" (docs/methods.md, The rule extractor).
// The subject is an indefinite noun phrase of at most four words, one of
// them a word that makes it a term; the complement is indefinite and says
// what the term is, as a named subject's definition does (defEnd,
// vagueDefinition, relativeDefinition).
func (x *sent) termDefinition() *Triple {
	// A plural term has no article: "Debug packages are packages that …"
	plural, from, be := false, 1, "is"
	if w := x.lowerAt(0); w != "a" && w != "an" {
		if t := x.tagAt(0); badHeads[w] || quantityWords[w] || !isNoun(t) && !isAdj(t) || isProper(t) && !isCapital(x.ts[0].text) {
			return nil
		}
		plural, from, be = true, 0, "are"
	}
	he := x.np(0)
	switch {
	case plural && (he < 1 || he > 4 || x.tagAt(he-1) != "NNS" || x.lowerAt(he) != "are"):
		return nil
	case !plural && (he < 2 || he > 5 || x.tagAt(he-1) != "NN" || x.lowerAt(he) != "is"):
		return nil
	}
	term := false
	for m := from; m < he; m++ {
		if x.tagAt(m) == "CD" || x.tagAt(m) == "POS" {
			return nil
		}
		if !termWords[x.lowerAt(m)] && !vagueModifiers[x.lowerAt(m)] && !genericNouns[x.lowerAt(m)] {
			term = true
		}
	}
	if !term || termWords[x.lowerAt(he-1)] {
		return nil
	}
	k := he + 1
	if w := x.lowerAt(k); !plural && w != "a" && w != "an" {
		return nil
	}
	if t := x.tagAt(k); plural && (t == "DT" || t == "PRP$" || t == "CD" || badHeads[x.lowerAt(k)] || quantityWords[x.lowerAt(k)] || !isNoun(t) && !isAdj(t)) {
		return nil // "Debug packages are the ones …", "… are many"
	}
	if plural && he == 1 && isAdj(x.tagAt(k)) {
		// "Asterisks are valid URL characters": a property of a plain
		// word, not the definition of a term
		return nil
	}
	e := x.np(k)
	if e == k || !isNoun(x.tagAt(e-1)) || plural && x.tagAt(e-1) != "NNS" {
		return nil
	}
	e = x.ofNP(k, e)
	end := x.defEnd(e)
	if pe := x.participleDefinition(e); (end < 0 || x.tagAt(end) == "VBN" && genericNouns[x.lowerAt(e-1)]) && pe > 0 && !x.hasNumber(k, pe) && !x.deictic(k, pe) {
		// "A daemon is a process started automatically by the boot sequence."
		return &Triple{Head: x.str(0, he), Relation: be, Tail: x.str(k, pe), Kind: KindCopula}
	}
	if end > 0 && x.tagAt(end) == "VBN" && genericNouns[x.lowerAt(e-1)] {
		return nil // "a temporary file | used to …" whose participle could not be read: the genus alone is no definition
	}
	if end > k && x.vagueDefinition(k, end) && !x.deictic(k, end) {
		if re := x.relativeDefinition(end); re > 0 && !x.hasNumber(k, end) && !x.deictic(k, re) {
			return &Triple{Head: x.str(0, he), Relation: be, Tail: x.str(k, re), Kind: KindCopula}
		}
	}
	if end < 0 || end-k > 14 || x.hasNumber(k, end) || x.vagueDefinition(k, end) || x.deictic(k, end) {
		return nil
	}
	if w := x.lowerAt(end); w == "that" || w == "which" || w == "who" || w == "whose" || end-k < 3 {
		// "A virtual package is a name that several packages provide":
		// the genus alone ("a name") defines nothing
		if re := x.relativeDefinition(end); re > 0 && !x.deictic(end, re) && !x.hasNumber(end, re) {
			return &Triple{Head: x.str(0, he), Relation: be, Tail: x.str(k, re), Kind: KindCopula}
		}
		return nil
	}
	return &Triple{Head: x.str(0, he), Relation: be, Tail: x.str(k, end), Kind: KindCopula}
}

// weakName reports a subject [0, he) named only by its first word's
// capital: one word in lower case otherwise, not an acronym, not code, not
// read as a program name, and not written with its capital inside any
// sentence of the chunk.
func (x *sent) weakName(he int, r *reader) bool {
	t := x.ts[0]
	if !isCapital(t.text) || t.text == strings.ToUpper(t.text) || t.name || x.codeLike(0) || r.proper[t.text] ||
		x.hasProper(1, he) || x.hasNumber(1, he) {
		return false
	}
	// A word the chunk also writes in lower case, a common word of
	// documentation, or the modifier of a common noun ("Release
	// tarballs", "Full documentation"); a name alone ("Quillpad") stays
	// one.
	return r.lower[t.lower] || commonStarts[t.lower] || docWords[t.lower] || he > 1 && isNoun(x.tagAt(he-1)) && !isProper(x.tagAt(he-1))
}

// docWords are common nouns that open sentences of documentation with a
// capital ("Syntax is similar to C", "Installation is described in …").
var docWords = set("syntax", "documentation", "installation", "usage", "support", "configuration", "output", "input",
	"performance", "compatibility", "security", "release", "releases", "version", "versions", "source", "license",
	"licensing", "development", "testing", "compilation", "building", "packaging", "translation", "translations",
	"feedback", "help", "information", "data", "code", "design", "behaviour", "behavior", "portability")

// properRun returns the end of a run of proper nouns at i (i when none).
func (x *sent) properRun(i int) int {
	for i < len(x.ts) && isProper(x.ts[i].tag) {
		i++
	}
	return i
}

// purposeInfinitive returns the end of an infinitive of purpose at e that
// is the rest of the sentence ("a web tool | to track the activity of a
// source package."), under the limits of relativeDefinition: no modal,
// negation, list, aside, second clause or pronoun, at most
// relativeDefinitionMax tokens, ending on a noun. Otherwise -1.
func (x *sent) purposeInfinitive(e int) int {
	if x.lowerAt(e) != "to" || x.tagAt(e+1) != "VB" {
		return -1
	}
	return x.restClause(e, e+1, func(k int, w string) bool {
		return w == "such" || x.tagAt(k) == "WP" || x.tagAt(k) == "PRP" || conditional[w]
	})
}

// requirement reads what a policy requires of its subject with "must" at
// i (docs/methods.md, The rule extractor): "Public Quill modules must be
// installed in /usr/lib/quill/dist-packages" gives (Public Quill modules,
// must be installed in, /usr/lib/quill/dist-packages), "The quill2 package
// must depend on the quill2.7 package" gives (…, must depend on, the
// quill2.7 package); both kind verb. A requirement states a fact of the
// document that sets it; "should", "may" and "can" state none. Only a place
// (a path or a name after in/into/to/under) or a named object of a
// prepositional verb is read; a negation, a list or a condition gives
// nothing.
func (x *sent) requirement(head string, i int) []Triple {
	k := i + 1
	if neg(x.lowerAt(k)) || x.lowerAt(k) == "n't" {
		return nil
	}
	var rel string
	var j int
	switch {
	case x.lowerAt(k) == "be" && x.tagAt(k+1) == "VBN":
		p := x.lowerAt(k + 2)
		if p != "in" && p != "into" && p != "to" && p != "under" {
			return nil
		}
		rel, j = "must be "+phrasalParticiple(x.lowerAt(k+1))+" "+p, k+3
	case x.tagAt(k) == "VB" && prepVerbs[x.lowerAt(k+1)]:
		rel, j = "must "+x.lowerAt(k)+" "+x.lowerAt(k+1), k+2
	default:
		return nil
	}
	e := x.np(j)
	if e == j || !x.namesSomething(j, e) || x.deictic(j, e) {
		return nil
	}
	if x.lowerAt(e) == "," && codeToken(x.ts[e+1].text) && e+2 < len(x.ts) && x.tagAt(e+2) == "." {
		// "… modules directory, /usr/lib/quill/dist-packages.": the path
		// in apposition to the directory it names
		return []Triple{{Head: head, Relation: rel, Tail: x.str(e+1, e+2), Kind: KindVerb}}
	}
	if !x.closes(e) || x.listAfter(e) {
		return nil
	}
	return []Triple{{Head: head, Relation: rel, Tail: x.str(j, e), Kind: KindVerb}}
}

// documentPart: a subject that is a part of the document itself ("Table
// 3.1", "Section 1.5", "Figure 2"): what it lists is said of the book.
func documentPart(head string) bool {
	f := strings.Fields(strings.ToLower(head))
	if len(f) > 0 && (f[0] == "the" || f[0] == "this") {
		f = f[1:]
	}
	return len(f) == 2 && documentParts[f[0]] && strings.IndexFunc(f[1], unicode.IsDigit) == 0
}

var documentParts = set("table", "section", "figure", "chapter", "appendix", "example", "listing", "part", "line", "lines", "step",
	"page", "paragraph", "item", "note", "footnote")

// vagueAmount reports an object at j that is an unstated amount ("a huge
// number of Linux distributions", "several tools", "a wide audience"):
// no one answer names it.
func (x *sent) vagueAmount(j int) bool {
	switch x.lowerAt(j) {
	case "several", "many", "various", "numerous", "countless", "multiple", "plenty", "lots":
		return true
	case "a", "an":
		return amountAdjectives[x.lowerAt(j+1)] && (amountNouns[x.lowerAt(j+2)] || x.lowerAt(j+3) == "of" && amountNouns[x.lowerAt(j+3)]) ||
			amountNouns[x.lowerAt(j+1)] && x.lowerAt(j+2) == "of" || x.lowerAt(j+1) == "lot" || amountAdjectives[x.lowerAt(j+1)] && x.lowerAt(j+2) == "audience"
	}
	return false
}

var amountAdjectives = set("huge", "large", "great", "small", "wide", "vast", "growing", "broad", "big", "considerable", "certain")
var amountNouns = set("number", "range", "variety", "amount", "array", "set", "selection", "collection", "audience", "lot", "host", "handful")

// laterAgent reports a second agent after the one ending at e ("was
// maintained by Santiago Vila and, later, by Josip Rodin"): the agent
// asked is one of several.
func (x *sent) laterAgent(e int) bool {
	for k := e; k < len(x.ts) && x.lowerAt(k) != ";" && x.tagAt(k) != "."; k++ {
		if x.lowerAt(k) == "by" {
			return true
		}
	}
	return false
}

// evaluative reports a definition opening with a judgement ("a good source
// of information", "a great way to …"): an opinion, not what the subject
// is.
func (x *sent) evaluative(k int) bool {
	return evaluativeWords[x.lowerAt(k+1)] || x.tagAt(k+1) == "RB" && evaluativeWords[x.lowerAt(k+2)]
}

var evaluativeWords = set("good", "great", "excellent", "nice", "useful", "handy", "best", "better", "convenient",
	"easy", "fine", "perfect", "wonderful", "important", "interesting", "popular", "powerful", "reliable",
	"considerable", "extensive", "solid", "significant", "substantial", "comprehensive", "thorough", "detailed",
	"decent", "reasonable", "adequate", "limited")

// verbRepeated reports a verb fact whose subject or object holds its own
// verb again: "PNG_SETJMP_NOT_SUPPORTED disables SETJMP
// PNG_READ_TRANSFORMS_NOT_SUPPORTED | disables | …" is lines of a list
// without points read as one sentence, a line swallowed by the subject or
// the object.
func verbRepeated(t Triple) bool {
	f := strings.Fields(t.Relation)
	if t.Kind != KindVerb || len(f) == 0 {
		return false
	}
	for _, w := range strings.Fields(strings.ToLower(t.Head + " " + t.Tail)) {
		if w == f[0] {
			return true
		}
	}
	return false
}
