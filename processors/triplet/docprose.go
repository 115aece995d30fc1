package triplet

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shapes of documentation prose (READMEs, manuals): a program or file
// named by an apposition ("Build with Expat, a library for XML parsing"),
// a path or address as a value ("The Quill home page is https://…"),
// subjects that carry a parenthesis or a participle phrase, and "This
// package" standing for the one thing the chunk is about (docs/methods.md,
// The rule extractor).

// codeToken reports a token that is a URL, an e-mail address, an absolute
// or home-relative path or a file name with an extension: a specific value
// however it is cased ("/etc/quill.conf", "https://quill.example/",
// "quill.conf").
func codeToken(w string) bool {
	w = strings.TrimRight(w, ".,;:")
	if len(w) < 3 || strings.ContainsAny(w, "`'\"()[]{}<>*|=\\") {
		return false
	}
	switch {
	case strings.Contains(w, "://"):
		return true
	case strings.HasPrefix(w, "/") && len(w) > 1 && (unicode.IsLetter(rune(w[1])) || w[1] == '_'):
		return strings.Count(w, "/") >= 2 || strings.Contains(w, ".")
	case strings.HasPrefix(w, "~/"):
		return true
	case strings.Contains(w, "@") && strings.Contains(w[strings.Index(w, "@"):], "."):
		return true
	case hostName(w):
		return true
	}
	// a file name: letters before the dot, a short lower-case extension
	if i := strings.LastIndexByte(w, '.'); i > 0 && i < len(w)-1 && len(w)-i-1 <= 5 {
		ext := w[i+1:]
		if strings.IndexFunc(ext, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 && !isNumber(w) &&
			unicode.IsLetter(rune(w[0])) && fileExtensions[ext] {
			return true
		}
	}
	return false
}

// hostName: a lower-case host name of two labels or more under a common
// top-level domain ("lists.debian.org", "irc.oftc.net").
func hostName(w string) bool {
	labels := strings.Split(w, ".")
	if len(labels) < 2 || !topLevelDomains[labels[len(labels)-1]] {
		return false
	}
	for _, l := range labels {
		if l == "" || strings.IndexFunc(l, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' }) >= 0 {
			return false
		}
	}
	return unicode.IsLetter(rune(w[0]))
}

var topLevelDomains = set("org", "com", "net", "edu", "gov", "io", "dev", "info", "eu", "de", "fr", "uk", "nl", "jp",
	"ch", "at", "it", "es", "se", "no", "fi", "dk", "be", "ca", "au", "us", "ru", "cn", "br", "in")

// fileExtensions are the extensions that make a word a file name; a word
// such as "e.g" or "Inc.com" is not one.
var fileExtensions = set("conf", "cfg", "ini", "txt", "md", "rst", "html", "xml", "json", "yaml", "yml", "toml",
	"gz", "xz", "bz2", "zst", "tar", "tgz", "zip", "deb", "so", "a", "h", "c", "cc", "py", "pl", "sh", "el",
	"info", "pdf", "ps", "dvi", "png", "jpg", "svg", "db", "log", "pc", "list", "service", "socket", "d")

// retagDoc corrects the tags of documentation tokens: a path, URL, address
// or file name is a name (it points at one thing), and a verb of the
// documentation vocabulary that the news-trained model reads as a plural
// noun after a subject ("GCC on AIX defaults/NNS to 32 bit") is a verb.
func retagDoc(ts []tok) {
	finite := false // a finite verb seen before i
	for i := range ts {
		t := &ts[i]
		if t.tag == "VBZ" && strings.HasSuffix(t.lower, "s") && i > 1 && isProper(ts[i-1].tag) &&
			(finite && (ts[i-2].tag == "DT" || isAdj(ts[i-2].tag) || ts[i-2].tag == "NN") || i+1 < len(ts) && ts[i+1].tag == "MD") {
			// "changed the default Fjord settings/VBZ to …": a plural
			// noun inside the object, not a second verb; "Public Quill
			// modules/VBZ must …": no verb comes before a modal
			t.tag = "NNS"
		}
		if t.tag == "VBZ" && !finite && strings.HasSuffix(t.lower, "s") && i > 0 && (isNoun(ts[i-1].tag) || isAdj(ts[i-1].tag)) &&
			i+1 < len(ts) && docVerbs[ts[i+1].lower+"s"] && !strings.HasPrefix(ts[i+1].tag, "VB") {
			// "The core Unix tools/VBZ support/NN SELinux": a plural
			// subject and the verb of its clause
			t.tag, ts[i+1].tag = "NNS", "VBP"
		}
		if !finite && (t.tag == "NN" || isAdj(t.tag) || t.tag == "VB") && docVerbs[t.lower+"s"] && i > 1 && ts[i-1].tag == "NNS" &&
			i+1 < len(ts) && ts[i+1].tag != "NN" && ts[i+1].tag != "NNS" {
			t.tag = "VBP" // "The GNU tools support/NN long options"
		}
		if t.tag == "NNS" && !finite && strings.HasSuffix(t.lower, "s") && i > 1 && (kindNouns[ts[i-1].lower] || identifierKinds[ts[i-1].lower]) &&
			isProper(ts[i-2].tag) && i+1 < len(ts) && (ts[i+1].tag == "DT" || isAdj(ts[i+1].tag) || isNoun(ts[i+1].tag) || ts[i+1].tag == "VBN" || ts[i+1].tag == "VBD" || ts[i+1].tag == "PRP$") {
			// "The mod_rewrite module rewrites/NNS requested URLs": the
			// verb after a name and its kind
			t.tag = "VBZ"
		}
		if t.tag == "VBD" || t.tag == "VBZ" || t.tag == "VBP" || t.tag == "MD" {
			finite = true
		}
		switch {
		case codeToken(t.text):
			t.tag, t.name = "NNP", true
		case packageName(t.text) && i > 1 && kindNouns[ts[i-1].lower] && ts[i-2].tag == "DT",
			packageName(t.text) && i > 0 && i+1 < len(ts) && ts[i-1].tag == "DT" && kindNouns[ts[i+1].lower],
			identifierName(t.text) && i > 0 && i+1 < len(ts) && ts[i-1].tag == "DT" && (kindNouns[ts[i+1].lower] || identifierKinds[ts[i+1].lower]):
			// "the package openjdk-17-jre", "the libfoo-dev package": a
			// package is named by its lower-case name; "the .fc file",
			// "the debian/control file", "the mod_rewrite module": an
			// identifier before its kind
			t.tag, t.name = "NNP", true
		case t.tag == "NNS" && docVerbs[t.lower] && i > 0 && (isNoun(ts[i-1].tag) || ts[i-1].tag == "CD") && i+1 < len(ts) &&
			(ts[i+1].tag == "DT" || ts[i+1].tag == "TO" || ts[i+1].tag == "IN" || isProper(ts[i+1].tag) || ts[i+1].tag == "CD"):
			t.tag = "VBZ"
		case isAdj(t.tag) && i > 0 && (ts[i-1].tag == "NN" || ts[i-1].tag == "NNS") && (i+1 == len(ts) || ts[i+1].lower == "," || ts[i+1].lower == ";" || ts[i+1].tag == "."):
			// "arbitrary precision arithmetic/JJ,": a noun ending its
			// phrase, not an adjective after one
			t.tag = "NN"
		case isAdj(t.tag) && genericNouns[t.lower] && i > 0 && (ts[i-1].tag == "DT" || isAdj(ts[i-1].tag)) && i+1 < len(ts) && ts[i+1].tag == "WDT":
			// "a library/JJ which handles …": the noun a relative clause
			// describes
			t.tag = "NN"
		}
	}
}

// packageName: a lower-case word shaped like a Debian package or program
// name, with a digit, a hyphen, a plus or a dot inside ("libfoo-dev",
// "openjdk-17-jre", "python3.11").
func packageName(w string) bool {
	if len(w) < 3 || !lowerFirstWord(w) || !nameWord(w) {
		return false
	}
	return strings.ContainsAny(w, "0123456789-+.")
}

// identifierName: a lower-case word written as an identifier, not a word
// of English: with "_" or "/" inside ("mod_rewrite", "debian/control") or
// a file extension (".fc"). An option ("-l", "--fast") is not one: it
// names nothing without its program.
func identifierName(w string) bool {
	switch {
	case len(w) < 2 || strings.ContainsAny(w, "`'\"()[]{}<>*|=\\"):
		return false
	case strings.HasPrefix(w, ".") && len(w) > 2:
		return strings.IndexFunc(w[1:], func(r rune) bool { return !unicode.IsLower(r) && !unicode.IsDigit(r) }) < 0
	}
	return lowerFirstWord(w) && nameWord(strings.ReplaceAll(w, "/", "_")) && strings.ContainsAny(w[1:len(w)-1], "_/")
}

// identifierKinds are the kinds an identifier is named with in reference
// text, besides kindNouns: "the mod_rewrite module", "the Require
// directive".
var identifierKinds = set("option", "directive", "field", "variable", "flag", "setting", "parameter", "function",
	"macro", "script", "target", "keyword", "extension")

// docVerbs are the verbs documentation states facts with, in the third
// person.
var docVerbs = set("defaults", "requires", "provides", "supports", "includes", "contains", "depends", "uses",
	"replaces", "conforms", "implements", "installs", "reads", "writes", "ships", "runs", "needs", "builds",
	"links", "loads", "stores", "creates", "generates", "produces", "accepts", "exports", "offers")

// kindNouns name what a package is, after its name: "the Quill package",
// "the quill program".
var kindNouns = set("package", "library", "program", "tool", "utility", "utilities", "software", "project", "file", "directory",
	"suite", "toolkit", "framework", "application", "daemon", "module", "distribution", "command")

// appositionDefinitions reads a name followed by an appositive noun phrase
// that says what it is: "Build GDB with Expat, a library for XML parsing."
// and "This is Quill, the GNU text editor." give (Expat, is, a library for
// XML parsing) and (Quill, is, the GNU text editor), kind copula. The name
// is a proper noun or a code-like word, the appositive opens with "a",
// "an" or "the" and ends where the clause does (a comma, the end of the
// sentence, a relative clause); a list ("Acme, a maker of X, and Beta")
// and a phrase with a number or a name of its own after "the" are not
// read.
func (x *sent) appositionDefinitions() []Triple {
	var out []Triple
	for k := 1; k+2 < len(x.ts); k++ {
		if x.ts[k].lower != "," {
			continue
		}
		d := x.lowerAt(k + 1)
		if d != "a" && d != "an" && d != "the" {
			continue
		}
		// the name before the comma
		ns := k
		for ns > 0 && isProper(x.tagAt(ns-1)) && x.ts[ns-1].named() && k-ns < 4 {
			ns--
		}
		if ns == k || months[x.ts[k-1].lower] || x.hasNumber(ns, k) && !x.ts[ns].name {
			continue
		}
		if x.tagAt(0) == "IN" && !strings.Contains(x.str(0, k), ",") {
			continue // "For local or batch SMTP, a sender address … is ignored": the comma ends the opening phrase
		}
		if ns > 0 && (x.tagAt(ns-1) == "POS" || x.lowerAt(ns-1) == "of" || x.lowerAt(ns-1) == "as" || x.tagAt(ns-1) == "DT" || isAdj(x.tagAt(ns-1))) {
			continue // "the Expat, …", "version of Quill, the …": the name is a modifier; "passed as NULL, a …": a value
		}
		if ns > 0 && x.lowerAt(ns-1) == "," || x.listBefore(ns) {
			continue // an item of a list: "Acme, Beta, the …"
		}
		if ns > 2 && x.lowerAt(ns-1) == "by" && x.tagAt(ns-2) == "VBN" && isNoun(x.tagAt(ns-3)) {
			// "Distutils, the utilities architected by Greg Ward, a
			// component of …": after the agent of a participle that
			// qualifies a noun, the phrase may describe that noun; a
			// passive's agent ("was written by Lintwerk, a …") is kept
			continue
		}
		if x.exampleBefore(ns) {
			continue // "for example in the case of … for B-trees, a signed integer": an ellipsis, not an apposition
		}
		if ns == 0 && x.tagAt(k+1) == "DT" && !x.closesApposition(k) {
			continue // "Quill, the editor, is …" is read by the main clause
		}
		e := x.np(k + 1)
		if e == k+1 || !isNoun(x.tagAt(e-1)) || x.hasNumber(k+1, e) {
			continue
		}
		if d == "the" && (x.hasProper(k+2, e) && !x.hasKind(k+2, e) || x.possessive(k+1, e)) {
			continue // "Quill, the Acme product": a relation to another name
		}
		end := x.defEnd(x.ofNP(k+1, e))
		if end < 0 || end-k > 14 || x.vagueDefinition(k+1, end) || x.deictic(k+1, end) || genericNouns[x.lowerAt(end-1)] && end-k <= 3 {
			continue
		}
		if !x.closes(end) && !(x.lowerAt(end) == "which" || x.lowerAt(end) == "that") {
			continue
		}
		if (x.lowerAt(end) == "which" || x.lowerAt(end) == "that") && end-(k+1) <= 2 {
			continue // "Pixar, the company that produced the movies": the genus alone says nothing
		}
		if x.listAfter(end) || x.lowerAt(end) == "," && (x.lowerAt(end+1) == "and" || x.lowerAt(end+1) == "or") {
			continue
		}
		out = append(out, Triple{Head: x.str(ns, k), Relation: "is", Tail: x.str(k+1, end), Kind: KindCopula})
	}
	return out
}

// closesApposition: the apposition after the comma at k closes before a
// verb of its own would make it the subject of the clause.
func (x *sent) closesApposition(k int) bool {
	e := x.np(k + 1)
	end := x.defEnd(x.ofNP(k+1, e))
	return end > 0 && (end >= len(x.ts) || x.tagAt(end) == ".")
}

// hasKind: a kind noun in the phrase ("the GNU source-level debugger" has
// none; "the GNU C library" has one).
func (x *sent) hasKind(i, j int) bool {
	for k := i; k < j; k++ {
		if kindNouns[x.ts[k].lower] || genericNouns[x.ts[k].lower] || x.ts[k].lower == "debugger" {
			return true
		}
	}
	return !x.hasProper(j-1, j) // the phrase ends in a common noun: "the GNU debugger"
}

// listBefore: the name at i is the last item of a list ("X, Y and Z, a …").
func (x *sent) listBefore(i int) bool {
	w := x.lowerAt(i - 1)
	return w == "and" || w == "or"
}

// codeTail reads a copula whose complement is one code-like token closing
// the clause: "The Quill home page is https://quill.example/." gives (The
// Quill home page, is, https://quill.example/).
func (x *sent) codeTail(head string, hs int, be string, k int) []Triple {
	noun := x.lowerAt(k - 2)
	for j := k - 3; j > hs && !addressNouns[noun]; j-- {
		if w := x.lowerAt(j); w == "of" || w == "for" {
			noun = x.lowerAt(j - 1) // "The official home page of Mutt is …"
			break
		}
	}
	if x.lowerAt(k) == "at" && addressNouns[noun] {
		k++ // "Wget's home page is at <https://…>"
		if k >= len(x.ts) || !codeToken(x.ts[k].text) || !x.closes(k+1) {
			return nil
		}
		return []Triple{{Head: head, Relation: be, Tail: x.str(k, k+1), Kind: KindCopula}}
	}
	if k >= len(x.ts) || !codeToken(x.ts[k].text) || !x.closes(k+1) && x.lowerAt(k+1) != "(" || !addressNouns[noun] {
		return nil
	}
	return []Triple{{Head: head, Relation: be, Tail: x.str(k, k+1), Kind: KindCopula}}
}

// addressNouns end the subjects whose value is a path or an address: "the
// Quill home page", "the configuration file", "the bug tracker"; "the
// official POSIX name is regex.h" names a file of something unnamed.
var addressNouns = set("page", "homepage", "site", "website", "repository", "repo", "address", "url", "file",
	"directory", "dir", "location", "archive", "tracker", "list", "server", "mirror", "path", "socket")

// vagueObject reports an object that names no particular thing: a bare
// common noun ("files", "extensions"), or a phrase whose head noun is a
// vague one ("stable, public APIs", "a set of development tools") with no
// name, number or path in it.
func (x *sent) vagueObject(j, e int) bool {
	if x.hasNumber(j, e) || x.hasProper(j, e) {
		return false
	}
	if e-j == 1 && isNoun(x.tagAt(j)) {
		return true
	}
	return vagueNouns[x.lowerAt(e-1)]
}

// vagueNouns head objects that say little without a name: "many
// features", "external libraries", "public APIs".
var vagueNouns = set("features", "feature", "things", "thing", "options", "extensions", "files", "tools",
	"functions", "libraries", "programs", "apis", "support", "ways", "changes", "improvements", "fixes",
	"issues", "problems", "data", "information", "details", "stuff", "functionality", "capabilities",
	"facilities", "utilities", "components", "parts", "elements", "items", "types", "kinds", "methods",
	"commands", "routines", "interfaces", "modules", "packages", "applications", "systems", "framework")

// genericSubject reports a subject that stands for the package a chunk
// is about: "This package", "The library", "This program"; "This file" or
// "The directory" name something else.
func (x *sent) genericSubject(hs, he int) bool {
	if he-hs != 2 {
		return false
	}
	d := x.ts[hs].lower
	return (d == "this" || d == "the") && packageNouns[x.ts[hs+1].lower]
}

// packageNouns are the kind nouns a package is called by.
var packageNouns = set("package", "library", "program", "tool", "utility", "software", "project", "suite",
	"toolkit", "framework", "application")

// gerund: an object opening with a verb in -ing ("building GNU libiconv")
// is an activity, a clause rather than a thing.
func (x *sent) gerund(j int) bool {
	return x.tagAt(j) == "VBG" || strings.HasSuffix(x.lowerAt(j), "ing") && (x.tagAt(j+1) == "DT" || isProper(x.tagAt(j+1)))
}

// chunkTopic returns the one thing a chunk presents as its subject: the
// name in "This is Quill, …" / "This is the Quill package", or the named
// subject of a definition opening the chunk ("Quill is a text editor").
// When the chunk
// presents more than one, or none, it returns "": "This package" is then
// read as nothing.
func chunkTopic(sentences [][]tok) string {
	names := map[string]bool{}
	first := ""
	for i, ts := range sentences {
		if n := topicOf(ts, i == 0); n != "" && first == "" {
			first = n
		}
		// any definition in the chunk competes with the topic
		if n := topicOf(ts, true); n != "" {
			names[n] = true
		}
	}
	if len(names) != 1 {
		return ""
	}
	return first
}

// topicOf returns the name a sentence introduces as the document's
// subject, or "": "This is X" anywhere, a definition ("X is a …") only as
// the chunk's first sentence.
func topicOf(ts []tok, first bool) string {
	if len(ts) < 3 {
		return ""
	}
	i := 0
	if ts[0].lower == "this" && (ts[1].lower == "is" || ts[1].lower == "was") {
		i = 2
		if ts[i].lower == "the" {
			i++
		}
	}
	j := i
	for j < len(ts) && j < i+4 && (isProper(ts[j].tag) && ts[j].named() || ts[j].name) {
		j++
	}
	if j == i {
		return ""
	}
	name := joinToks(ts[i:j])
	switch {
	case i > 0 && j < len(ts) && (ts[j].lower == "," || ts[j].tag == "." || kindNouns[ts[j].lower]):
		return name
	case first && i == 0 && j+1 < len(ts) && (ts[j].lower == "is" || ts[j].lower == "are") && (ts[j+1].lower == "a" || ts[j+1].lower == "an"):
		return name
	}
	return ""
}

// joinToks writes tokens as the text they came from would, one space
// between words.
func joinToks(ts []tok) string {
	var b strings.Builder
	for k, t := range ts {
		if k > 0 && ts[k-1].end < t.start {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// skipParenthesis returns the index after a parenthesis opening at i
// ("gzip (GNU zip) is …") when a verb follows it, else i.
func (x *sent) skipParenthesis(i int) int {
	if x.lowerAt(i) != "(" {
		return i
	}
	for k := i + 1; k < len(x.ts) && k < i+8; k++ {
		if x.ts[k].lower == ")" {
			if isVerb(x.tagAt(k + 1)) {
				return k + 1
			}
			return i
		}
	}
	return i
}

// reducedRelative extends a subject ending at he by a participle phrase
// with a name ("The oldest version of Python supported by Quill is 3.2"):
// it returns the new end when a copula follows, else he.
func (x *sent) reducedRelative(hs, he int) int {
	if x.tagAt(he) != "VBN" {
		return he
	}
	switch x.lowerAt(he + 1) {
	case "by", "in", "with", "on", "for":
	default:
		return he
	}
	e := x.np(he + 2)
	if e == he+2 || !x.hasProper(he+2, e) || !copulas[x.lowerAt(e)] {
		return he
	}
	return e
}

// lowerFirstWord: the first rune of s is lower case.
func lowerFirstWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// topicAttribute reads "The configuration file is /etc/quill.conf" and
// "The default port is 5433" in a chunk about one package (chunkTopic) as
// an attribute of that package: (Quill, configuration file,
// /etc/quill.conf). The subject is "the" and common nouns and adjectives
// only, the verb "is", and the value one path, address or number that ends
// the clause.
func (x *sent) topicAttribute(topic string, hs, he int) *Triple {
	if x.lowerAt(hs) != "the" || he-hs < 3 || he-hs > 4 || x.lowerAt(he) != "is" {
		return nil
	}
	for k := hs + 1; k < he; k++ {
		if t := x.tagAt(k); !(t == "NN" || isAdj(t)) || x.ts[k].named() {
			return nil
		}
	}
	if kindNouns[x.lowerAt(he-1)] && he-hs == 2 {
		return nil // "The package is …": the package itself, not an attribute
	}
	k := he + 1
	switch {
	case k < len(x.ts) && codeToken(x.ts[k].text) && x.closes(k+1):
	case x.tagAt(k) == "CD" && x.closes(k+1) && x.date(k) == k:
	default:
		return nil
	}
	return &Triple{Head: topic, Relation: strings.ToLower(x.str(hs+1, he)), Tail: x.str(k, k+1), Kind: KindAttribute}
}

// maskMarkup returns s with its inline Markdown and reStructuredText markup
// blanked out, byte for byte, so that the tagger reads the words while
// every offset still points into s: emphasis marks ("**kcat**"), code
// marks ("`gnupg.info`", "“mkapiref.py“") and link syntax ("[GNOME
// platform][platform]", "[text](https://…)", "<https://…>" keeps its
// address). A span cut from s between two words never holds a blanked
// mark at its ends; one holding a mark inside is rejected as markup
// (badTail).
func maskMarkup(s string) string {
	b := []byte(s)
	blank := func(i, j int) {
		for k := i; k < j && k < len(b); k++ {
			b[k] = ' '
		}
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '`':
			blank(i, i+1)
		case '*':
			if i+1 < len(s) && s[i+1] != ' ' || i > 0 && s[i-1] != ' ' {
				blank(i, i+1)
			}
		case '<':
			if j := strings.IndexByte(s[i:], '>'); j > 0 && strings.Contains(s[i:i+j], "://") {
				blank(i, i+1)
				blank(i+j, i+j+1)
			}
		case '[':
			// [text](target) or [text][ref]: the brackets and target go
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				continue
			}
			j += i
			if j+1 < len(s) && (s[j+1] == '(' || s[j+1] == '[') {
				closer := byte(')')
				if s[j+1] == '[' {
					closer = ']'
				}
				if k := strings.IndexByte(s[j+2:], closer); k >= 0 {
					blank(i, i+1)
					blank(j, j+2+k+1)
				}
			}
		}
	}
	return string(b)
}

// deictic reports a phrase that points at its context instead of naming
// ("the build system of this project", "a fork of our code"): its answer
// means nothing without the document.
func (x *sent) deictic(i, j int) bool {
	for k := i; k < j; k++ {
		switch x.ts[k].lower {
		case "this", "these", "those", "our", "your", "my", "here":
			return true
		}
	}
	return false
}

// roleCopula reads "The maintainer of quill is Oda Rasmussen." as (quill,
// maintainer, Oda Rasmussen), kind attribute: a subject that is "the", a
// role and "of" something, the verb "is", and a person's name closing the
// clause.
func (x *sent) roleCopula(hs, he int) *Triple {
	if x.lowerAt(hs) != "the" || x.lowerAt(he) != "is" {
		return nil
	}
	r, re := x.role(hs)
	if r == "" || x.lowerAt(re) != "of" {
		return nil
	}
	oe := x.np(re + 1)
	if oe == re+1 || oe != he || x.deictic(re+1, oe) {
		return nil
	}
	ne := x.name(he + 1)
	if !x.personName(he+1, ne) || !x.closes(ne) {
		return nil
	}
	return &Triple{Head: x.str(re+1, oe), Relation: r, Tail: x.str(he+1, ne), Kind: KindAttribute}
}

// unmarkDeterminer drops a determiner standing before markup that opens
// the rest of a span: "the [GNOME platform" (the link "[GNOME
// platform][platform]" blanked by maskMarkup) becomes "GNOME platform",
// still a verbatim span of the sentence.
func unmarkDeterminer(t string) string {
	for _, d := range []string{"the ", "a ", "an ", "The ", "A ", "An "} {
		rest, ok := strings.CutPrefix(t, d)
		if !ok {
			continue
		}
		trimmed := strings.TrimLeft(rest, "[`*_")
		if trimmed != rest && trimmed != "" && !strings.ContainsAny(trimmed, "[]`*") {
			return trimmed
		}
	}
	return t
}

// relativeFacts reads the relative clause of a definition as a fact about
// the defined name: "libquill is a codec that uses SIMD instructions …"
// gives (libquill, uses, SIMD instructions). Only when the definition is a
// bare noun phrase ending at e (end == e): after a prepositional phrase
// ("an extension to the JPEG format that allows …") the clause may belong
// to the last noun instead. The verb is read as a main clause's would be.
func (x *sent) relativeFacts(head string, e, end int) []Triple {
	if end != e || end < 0 || end+1 >= len(x.ts) {
		return nil
	}
	if w := x.lowerAt(end); w != "that" && w != "which" || x.tagAt(end+1) != "VBZ" || reporting[x.lowerAt(end+1)] {
		return nil
	}
	if copulas[x.lowerAt(end+1)] || x.lowerAt(end+1) == "has" {
		return nil // "a library that is …", "that has been …": another copula or a perfect
	}
	return x.predicate(head, 0, end+1, "")
}

// termLine is one line of a list of packages or programs with what each
// is: "  perl-doc      - Perl documentation." (a README.Debian naming the
// binary packages of its source).
var termLine = regexp.MustCompile(`^\s*([a-z][a-z0-9.+-]*[a-z0-9])\s+-\s+([A-Z][^:;*|<>\x60]{2,80}?)\.?\s*$`)

// unprefixed drops a verb prefix from the first word of s ("Reapply
// commits" → "Apply commits", "Unpack …" → "Pack …"), which the tagger's
// lexicon may not hold although the verb it prefixes is there.
func unprefixed(s string) string {
	for _, p := range []string{"Re", "Un", "Pre", "De", "Dis"} {
		if rest := strings.TrimPrefix(s, p); rest != s && len(rest) > 3 && unicode.IsLower(rune(rest[0])) {
			return strings.ToUpper(rest[:1]) + rest[1:]
		}
	}
	return s
}

// restates reports a description that only spells out its term: the same
// letters, in order, once case, spaces and punctuation are set aside.
func restates(term, desc string) bool {
	letters := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, s)
	}
	return letters(term) == letters(desc)
}

// termLike: a line that opens like a term line, whatever its description.
var termLike = regexp.MustCompile(`^\S+\s+-\s+\S`)

// termTriples reads lists of terms and what they are, one per line, as
// definitions: (perl-doc, is, Perl documentation), kind copula, the line
// being the sentence. A term must be shaped like a package name (a digit,
// hyphen, plus or dot inside: "perl-doc", "libfoo2"), or stand in a run of
// at least three such lines; a description that points at its context
// ("This file", "the rest of …") is not read. File names in capitals
// ("COPYING - copying conditions") are not terms: every package has them.
func termTriples(chunk, title string) []Triple {
	lines := chunkLines(chunk)
	var out []Triple
	for i := 0; i < len(lines); i++ {
		run := 0
		for k := i; k < len(lines) && termLine.MatchString(lines[k].text); k++ {
			run++
		}
		for k := i; k < i+run; k++ {
			m := termLine.FindStringSubmatch(lines[k].text)
			term, desc := m[1], strings.TrimSpace(m[2])
			if !packageName(term) && run < 3 {
				continue
			}
			if k+1 < len(lines) && lines[k+1].text != "" && !termLike.MatchString(lines[k+1].text) {
				continue // the description goes on in the next line
			}
			mt := manTitleRe.FindStringSubmatch(strings.TrimSpace(title))
			man := mt != nil && mt[1] == term && (mt[2] == "1" || mt[2] == "8") // the NAME line of a command's manual page
			first := strings.ToLower(strings.Fields(desc + " x")[0])
			if startsWithVerb(tagSentence(desc)) || startsWithVerb(tagSentence(unprefixed(desc))) || verbFirst(tagSentence(desc)) ||
				man && verbReading(tagSentence(desc)) || imperatives[first] || descriptionVerbs[first] {
				// "egd - Use the module …", "git-rebase - Reapply commits
				// …": what to do, not what it is; on the manual page of
				// that command, what it does (entryTriples)
				if man {
					l := lines[k]
					if t, ok := readEntry(chunk, l.start, l.start+strings.Index(l.text, desc), l.end, "command", nil, nil, "", true); ok {
						t.Tail = term
						out = append(out, t)
					}
				}
				continue
			}
			if restates(term, desc) {
				continue // "gitrepository-layout - Git Repository Layout": the name spelled out
			}
			w := strings.ToLower(desc)
			if strings.HasPrefix(w, "this ") || strings.HasPrefix(w, "these ") || strings.Contains(w, " this ") || len(strings.Fields(desc)) > 12 {
				continue
			}
			l := lines[k]
			out = append(out, Triple{Head: term, Relation: "is", Tail: desc, Kind: KindCopula,
				Sentence: Sentence{Text: l.text, Start: l.start, End: l.end}})
		}
		if run > 0 {
			i += run - 1
		}
	}
	return out
}

// namedObjectVerbs say little with a common object ("uses a setup") but
// state a fact with a named one: "GnuPG uses Unix domain sockets".
var namedObjectVerbs = set("uses", "used", "needs", "needed")

// upgradeParticiples move a thing to a release: "has been updated to
// Unicode 6.0.0", "was upgraded to OpenSSL 3.0".
var upgradeParticiples = set("updated", "upgraded", "bumped", "moved", "ported", "rebased", "migrated")

// versionEvents are the participles dated by a release: "was introduced
// in version 2.4".
var versionEvents = set("introduced", "added", "removed", "deprecated", "dropped", "fixed", "released", "changed")

// version returns the end of a release named at i: "version 2.4", "2.4",
// "release 1.0.3", "Quill 3.0", "v2.1"; or i.
func (x *sent) version(i int) int {
	num := func(k int) bool {
		w := x.lowerAt(k)
		w = strings.TrimPrefix(w, "v")
		return strings.Contains(w, ".") && w != "" && w[0] >= '0' && w[0] <= '9' && strings.Trim(w, "0123456789.") == ""
	}
	switch {
	case (x.lowerAt(i) == "version" || x.lowerAt(i) == "release") && (num(i+1) || x.tagAt(i+1) == "CD"):
		return i + 2
	case num(i):
		return i + 1
	case isProper(x.tagAt(i)) && x.ts[i].named() && num(i+1):
		return i + 2
	}
	return i
}

// titleLine is a README.Debian title naming its package: "valgrind for
// Debian", "Python 3.11 for Debian", "openjdk-17 for Debian/Ubuntu".
var titleLine = regexp.MustCompile(`^(?:#+\s*)?([A-Za-z][\w.+-]*(?: [0-9][\w.]*)?) (?:for|in) Debian(?:/Ubuntu)?$`)

// titleTopic returns the package a chunk's first line names as a
// README.Debian title does ("valgrind for Debian"), or "". A title naming
// two things ("xmlsec and libxmlsec for Debian") or a kind ("Perl
// Packages for Debian") names no one package.
func titleTopic(chunk string) string {
	for _, l := range strings.Split(chunk, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		m := titleLine.FindStringSubmatch(l)
		if m == nil || strings.EqualFold(m[1], "packages") || strings.EqualFold(m[1], "notes") {
			return ""
		}
		return m[1]
	}
	return ""
}

// commandVerbs introduce the command that does what a "To …" phrase says.
var commandVerbs = set("run", "use", "type", "execute", "invoke", "call")

// commandFact reads "To rebuild the font cache, run fc-cache -f." in a
// chunk about one package (topic) as (topic, command to rebuild the font
// cache, fc-cache -f), kind attribute: the purpose is a "To VERB …" phrase
// of at most eight words closed by a comma, the command runs from after
// "run"/"use"/"type"/… to the end of the sentence, opens with a lower-case
// program name or a path, and holds at most eight tokens. Without a topic
// it is not read: "the command to rebuild the font cache" of which
// package?
func (x *sent) commandFact(topic string) *Triple {
	if topic == "" || len(x.ts) < 6 || x.lowerAt(0) != "to" || x.tagAt(1) != "VB" {
		return nil
	}
	c := 2
	for c < len(x.ts) && c < 10 && x.lowerAt(c) != "," {
		c++
	}
	if x.lowerAt(c) != "," || !commandVerbs[x.lowerAt(c+1)] {
		return nil
	}
	k := c + 2
	end := len(x.ts)
	if x.tagAt(end-1) == "." {
		end--
	}
	if k >= end || end-k > 8 || x.lowerAt(end-1) == ":" {
		return nil
	}
	first := x.ts[k].text
	if !(lowerFirstWord(first) && nameWord(strings.TrimRight(first, "-")) || strings.HasPrefix(first, "/") || strings.HasPrefix(first, "./")) {
		return nil
	}
	if functionWords[x.lowerAt(k)] || x.tagAt(k) == "DT" || x.tagAt(k) == "PRP" || x.tagAt(k) == "PRP$" {
		return nil // "run the following command", "use it"
	}
	for i := k; i < end; i++ {
		if x.lowerAt(i) == "," || x.tagAt(i) == "CC" || x.tagAt(i) == "MD" || x.tagAt(i) == "WDT" {
			return nil // the command is followed by a clause or an alternative
		}
	}
	return &Triple{Head: topic, Relation: "command to " + strings.ToLower(x.str(1, c)), Tail: x.str(k, end), Kind: KindAttribute}
}

// relativeDefinition returns the end of a restrictive relative clause at e
// that completes a vague definition ("a library | which handles font
// configuration and access at the system level."), when the clause is the
// rest of the sentence: "that"/"which", a verb in the present, no modal,
// negation, list or parenthesis, at most relativeDefinitionMax tokens from
// the relative pronoun to the final point. Otherwise -1.
func (x *sent) relativeDefinition(e int) int {
	if x.lowerAt(e) == "where" && (x.tagAt(e+1) == "DT" || isNoun(x.tagAt(e+1)) || isAdj(x.tagAt(e+1))) {
		// "a directory | where Debian archive files are stored.": a
		// clause with its own subject, which may end on its verb
		end := len(x.ts)
		if x.tagAt(end-1) == "." {
			end--
		}
		if end-e > relativeDefinitionMax || end <= e+2 || !isVerb(x.tagAt(end-1)) && !isNoun(x.tagAt(end-1)) {
			return -1
		}
		verb := false
		for k := e + 1; k < end; k++ {
			switch w := x.lowerAt(k); {
			case x.tagAt(k) == "MD", neg(w), w == "," || w == ";" || w == ":" || w == "(" || w == ")", w == "etc", w == "such",
				x.tagAt(k) == "WDT" || x.tagAt(k) == "WRB" || x.tagAt(k) == "PRP":
				return -1
			case isVerb(x.tagAt(k)) && x.tagAt(k) != "VBG":
				verb = true
			}
		}
		if !verb {
			return -1
		}
		return end
	}
	if w := x.lowerAt(e); w != "that" && w != "which" {
		return -1
	}
	if v := x.tagAt(e + 1); v != "VBZ" && v != "VBP" || reporting[x.lowerAt(e+1)] || copulas[x.lowerAt(e+1)] || x.lowerAt(e+1) == "has" {
		return -1
	}
	return x.restClause(e, e+1, func(k int, w string) bool { return w == "such" || x.tagAt(k) == "PRP" && w != "it" })
}

// restClause returns the end of the rest of the sentence (before its final
// point) when, read from first, it is one plain clause: at most
// relativeDefinitionMax tokens after from, at least two from first, no
// modal, negation, list, aside or second clause ("etc", a comma, a
// relative pronoun …) nor any token stop reports, and ending on its
// object, a noun or a number, not mid-phrase. Otherwise -1.
func (x *sent) restClause(from, first int, stop func(k int, w string) bool) int {
	end := len(x.ts)
	if x.tagAt(end-1) == "." {
		end--
	}
	if end-from > relativeDefinitionMax || end <= first+1 {
		return -1
	}
	for k := first; k < end; k++ {
		if pe := x.nameInParentheses(k); pe > k {
			k = pe // "on Linux's LSM (Linux Security Modules) interface": a name spelled out
			continue
		}
		switch w := x.lowerAt(k); {
		case x.tagAt(k) == "MD", neg(w), w == "," || w == ";" || w == ":" || w == "(" || w == ")", w == "etc",
			x.tagAt(k) == "WDT", stop(k, w):
			return -1
		}
	}
	if !isNoun(x.tagAt(end-1)) && x.tagAt(end-1) != "CD" {
		return -1
	}
	return end
}

// nameInParentheses returns the index of the ")" closing a parenthesis at
// k that holds only a name or an acronym ("(MAC)", "(Linux Security
// Modules)"), or -1.
func (x *sent) nameInParentheses(k int) int {
	if x.lowerAt(k) != "(" {
		return -1
	}
	for m := k + 1; m < len(x.ts) && m <= k+5; m++ {
		switch {
		case x.lowerAt(m) == ")":
			if m == k+1 {
				return -1
			}
			return m
		case !isProper(x.tagAt(m)):
			return -1
		}
	}
	return -1
}

// acronymInside returns the end of a noun phrase that goes on after an
// acronym in parentheses at e ("a Mandatory Access Control (MAC) |
// system"), or e.
func (x *sent) acronymInside(e int) int {
	pe := x.nameInParentheses(e)
	if pe != e+2 || !isNoun(x.tagAt(pe+1)) {
		return e
	}
	k := pe + 1
	for isNoun(x.tagAt(k)) {
		k++
	}
	return k
}

// participleDefinition returns the end of a reduced relative clause at e
// that completes a definition ("a process | started automatically by the
// boot sequence.", "a protocol | allowing remote access to a filesystem
// through the network."), when it is the rest of the sentence under the
// limits of restClause: a participle followed by its preposition, or a
// present participle by its object. Otherwise -1.
func (x *sent) participleDefinition(e int) int {
	switch x.tagAt(e) {
	case "VBN":
		if p := x.lowerAt(x.skipAdverbs(e + 1)); !definitionPreps[p] && p != "by" && p != "as" {
			return -1
		}
	case "VBG":
		if t := x.tagAt(e + 1); t != "DT" && !isAdj(t) && !isNoun(t) {
			return -1
		}
	default:
		return -1
	}
	return x.restClause(e, e+1, func(k int, w string) bool {
		return w == "such" || x.tagAt(k) == "WP" || x.tagAt(k) == "PRP" || conditional[w]
	})
}

// innerParticiple returns the index of a present participle that a noun
// phrase [k, e) took in after its noun ("a protocol | allowing remote
// access"), where the reduced relative clause begins, or e.
func (x *sent) innerParticiple(k, e int) int {
	for m := k + 2; m < e; m++ {
		if x.tagAt(m) == "VBG" && isNoun(x.tagAt(m-1)) {
			return m
		}
	}
	return e
}

// relativeDefinitionMax bounds the relative clause of a definition: longer
// clauses are instructions or asides, and answers no one would repeat.
const relativeDefinitionMax = 14

// settingTerm is the term line of a reference entry for a setting or an
// option: "client_min_messages (enum)", "work_mem (integer)", "--jobs=N".
var settingTerm = regexp.MustCompile(`^(?:([a-z_][a-z0-9_.]*[a-z0-9]) \((?:integer|string|enum|boolean|real|floating point|bool|int|float|list|size|duration)\)|(--?(?:\[no-\])?[a-zA-Z][\w-]*)(?:[= ][A-Za-z<\[][^ ]*)?)$`)

// optionLine opens the term line of an option that settingTerm cannot name
// ("-s "program [argument …]""): it ends the entry before it all the same.
// placeholderLine is the term line of an argument: "<commit>",
// "<pathspec>…".
var placeholderLine = regexp.MustCompile(`^<[\w.-]+>\S*$`)

var optionLine = regexp.MustCompile(`^--?(?:\[no-\])?[a-zA-Z]`)

// defaultRe finds the default a reference entry states: "The default is
// NOTICE.", "The default value is 20480.", "The default port is 53.",
// "Defaults to llvmjit." The value
// runs to the end of the sentence.
var defaultRe = regexp.MustCompile(`(?:^|[.!] )(?:The default(?: [a-z]+){0,2} is|Defaults to) ([^;:]+?)\.(?:\s|$)`)

// termDefaults reads the defaults of reference entries (docs/methods.md,
// The rule extractor): a setting's term line, then, in the paragraphs up to
// the next term line or heading, the sentence that states its default:
// (client_min_messages, defaults to, NOTICE), kind verb, asked "What does
// client_min_messages default to?". A value that is a behaviour ("to use
// base 2**30 on 64-bit machines"), longer than six words, or followed by
// "which"/"but" is cut or not read.
func termDefaults(chunk, title string) []Triple {
	lines := chunkLines(chunk)
	var out []Triple
	term := ""
	for _, l := range lines {
		if m := settingTerm.FindStringSubmatch(l.text); m != nil {
			t := m[1] + strings.Replace(m[2], "[no-]", "", 1) // "--[no-]verify": the option is "--verify"
			if term == "" || "--no-"+strings.TrimPrefix(term, "--") != t {
				term = t // (after "--ahead-behind", "--no-ahead-behind" is the same entry's negation)
			}
			continue
		}
		if strings.HasPrefix(l.text, "#") || optionLine.MatchString(l.text) || placeholderLine.MatchString(l.text) {
			term = "" // a heading, another option or an argument's entry ("<commit>") ends the entry
			continue
		}
		if term == "" || l.text == "" {
			continue
		}
		m := defaultRe.FindStringSubmatchIndex(l.text)
		if m == nil {
			continue
		}
		v := l.text[m[2]:m[3]]
		if i := strings.Index(v, ", "); i > 0 {
			v = v[:i] // "'Default', which is a collection …"
		}
		w := strings.Fields(v)
		if len(w) == 0 || len(w) > 6 || w[0] == "to" || w[0] == "that" || w[0] == "not" || functionWords[strings.ToLower(w[len(w)-1])] {
			continue
		}
		start := m[0]
		if start > 0 {
			start += 2 // after ". "
		}
		end := m[1]
		if end > 0 && (l.text[end-1] == ' ' || l.text[end-1] == '\n') {
			end--
		}
		s := Sentence{Text: l.text[start:end], Start: l.start + start, End: l.start + end}
		head := term
		if p := programOf(title); p != "" && strings.HasPrefix(term, "-") {
			head = p + " " + term // "What does knsupdate -t default to?"
		} else if strings.HasPrefix(term, "-") {
			term = ""
			continue // "-t", "--hashsize" of which program?
		}
		out = append(out, Triple{Head: head, Relation: "defaults to", Tail: v, Kind: KindVerb, Sentence: s})
		term = "" // one default per entry
	}
	return out
}

// exampleBefore reports "for example", "for instance", "e.g." or "such as"
// before the token at i in its clause: what follows illustrates, often
// leaving its verb out.
func (x *sent) exampleBefore(i int) bool {
	for k := i - 1; k >= 0; k-- {
		switch w := x.lowerAt(k); {
		case w == ";" || w == ":":
			return false
		case w == "example" && x.lowerAt(k-1) == "for", w == "instance" && x.lowerAt(k-1) == "for",
			w == "e.g." || w == "e.g", w == "as" && x.lowerAt(k-1) == "such":
			return true
		}
	}
	return false
}
