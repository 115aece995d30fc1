package triplet

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/robustream/robustream/processors/text"
)

// KindEntry is a reference entry: a term line naming an option (or a
// function, command, directive … that its section heading names) and the
// description under it. Head is the description's first sentence as
// written, without its full stop ("Allow adding otherwise ignored files");
// Relation is what the term is ("option", "option of git-add",
// "function"); Tail is the term's name ("--force"). The question asks for
// the term by what it does: "Which option of git-add allows adding
// otherwise ignored files?".
const KindEntry = "entry"

// optionTermRe is a term line of options: "-f", "--force", "-f, --force",
// "-T number", "--tabsize=number", "-n <count>", "--color[=<when>]".
var optionTermRe = regexp.MustCompile(`^` + optionTerm + `$`)

const optionTerm = `(?:-[?@#$%]|--?(?:\[no-\])?[A-Za-z0-9][\w-]*(?:\[?=\S+|\s<?[a-z][\w-]*>?)?)(?:\s*,\s*--?(?:\[no-\])?[A-Za-z0-9][\w-]*(?:\[?=\S+|\s<?[a-z][\w-]*>?)?)*`

// inlineEntryRe is a term and its description on one line, as text manual
// pages and Markdown lists write them: "-f, --force   Allow adding …",
// "- --force: Allow adding …", "--force — Allow adding …".
var inlineEntryRe = regexp.MustCompile(`^\s*(?:[-*+]\s+)?(` + optionTerm + `)(?:\s{2,}|\s*[:—–]\s+|\s+-\s+)([A-Z]\S*\s.*)$`)

// optionNameRe finds the option names of a term line, their arguments cut.
var optionNameRe = regexp.MustCompile(`(?:^|[\s,])(-[?@#$%]|--?(?:\[no-\])?[A-Za-z0-9][\w-]*)`)

// identifierTermRe is a term line that is one identifier: "wordcount",
// "mark_old" (written in lower case, as a function or directive is).
var identifierTermRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*[a-z0-9]$`)

// manTitleRe is a manual page's title, "git-add(1)": the program it
// documents qualifies the question ("option of git-add").
var manTitleRe = regexp.MustCompile(`^([A-Za-z0-9][\w.+-]*)\((\d)[a-z]*\)`)

// dashTitleRe is a manual page's title written "name – what it is"
// ("kdig – Advanced DNS lookup utility — Knot DNS 3.2.6 documentation",
// "ntpd - Network Time Protocol (NTP) Daemon").
var dashTitleRe = regexp.MustCompile(`^([a-z][\w.+-]*)\s+[–—-]\s+\S`)

// programOf returns the program a page documents, by its title: a manual
// page's "git-add(1)" or "kdig – Advanced DNS lookup utility"; or "".
func programOf(title string) string {
	title = strings.TrimSpace(title)
	if m := manTitleRe.FindStringSubmatch(title); m != nil {
		return m[1]
	}
	if m := dashTitleRe.FindStringSubmatch(title); m != nil {
		return m[1]
	}
	if m := gnuTitleProgRe.FindStringSubmatch(title); m != nil && !text.NotName(strings.ToLower(m[1])) {
		return strings.ToLower(m[1]) // "The GNU nano text editor", "Limits control (GNU M4 1.4.19 macro processor)"
	}
	if m := manualInParensRe.FindStringSubmatch(title); m != nil && !docFileNames[strings.ToUpper(m[1])] {
		// A texinfo node of a program's manual: "Main Options (PSPP)";
		// a node on another program of the suite names it ("Invoking
		// pspp-convert (PSPP)", "The pspp-output dir Command (PSPP)").
		prog := strings.ToLower(m[1])
		for _, w := range strings.Fields(title[:len(title)-len(m[0])]) {
			if strings.HasPrefix(strings.ToLower(w), prog+"-") {
				return strings.ToLower(w)
			}
		}
		return prog
	}
	if bareTitleRe.MatchString(title) && !docFileNames[strings.ToUpper(title)] && !text.NotName(strings.ToLower(title)) {
		return strings.ToLower(title) // a manual page titled by its program alone: "couriertcpd", "ONSGMLS"
	}
	return ""
}

// manualInParensRe is a texinfo node's title, whose manual is named in
// parentheses after it as the program is written: in capitals or in lower
// case, one word ("Main Options (PSPP)"; not "Installing (Linux)").
var manualInParensRe = regexp.MustCompile(`\s\(([A-Z][A-Z0-9+-]+|[a-z][a-z0-9+-]*)\)$`)

// bareTitleRe is a title that is one program name, in lower case or, as
// manual pages print it, in capitals.
var bareTitleRe = regexp.MustCompile(`^(?:[a-z][a-z0-9_.+-]*|[A-Z][A-Z0-9_.+-]{2,})$`)

// docFileNames are the names of documentation files, which title a page
// without naming a program.
var docFileNames = set("README", "NEWS", "CHANGES", "CHANGELOG", "INSTALL", "TODO", "FAQ", "COPYING", "AUTHORS",
	"THANKS", "HACKING", "BUGS", "LICENSE", "NOTES", "HISTORY", "INDEX", "CONTENTS", "GLOSSARY", "OVERVIEW", "USAGE",
	"OPTIONS", "DESCRIPTION", "SYNOPSIS", "EXAMPLES", "FILES", "ENVIRONMENT", "CREDITS", "MANUAL", "GUIDE", "TUTORIAL")

// buildHeading reports a section about building the program, whose
// options are the configure script's ("--disable-mouse").
func buildHeading(h string) bool {
	h = strings.ToLower(h)
	for _, w := range []string{"building", "build options", "configure", "compil", "installation options"} {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
}

// gnuTitleProgRe is a GNU manual's title, which names its program after
// "GNU", alone or as a texinfo node's manual in parentheses.
var gnuTitleProgRe = regexp.MustCompile(`(?:^|\()(?:The )?GNU ([A-Za-z][\w+-]*)\b`)

// entryKinds are the plural nouns of a section heading over identifier
// entries ("## Rebindable functions", "Directives"), and what one entry is.
// (Not "options": a bare word under "Options" is a value of one, as
// sphinx-build's builders are, not an option.)
var entryKinds = map[string]string{"functions": "function", "commands": "command", "directives": "directive",
	"variables": "variable", "statements": "statement",
	"parameters": "parameter", "properties": "property", "hooks": "hook", "macros": "macro", "targets": "target"}

// asideRe is a parenthesis inside a description.
var asideRe = regexp.MustCompile(`\s*\([^()]*\)`)

// entryRefFirst open a description that leans on another entry: "Same as
// --foo", "See …", "Like -x, but …", "Ignored".
var entryRefFirst = set("same", "see", "like", "unlike", "opposite", "equivalent", "synonym", "alias", "deprecated",
	"obsolete", "ignored", "also", "as")

// entryRefWords anywhere make a description lean on its neighbours or on
// the page: "the above", "this option", "add them".
var entryRefWords = set("above", "below", "previous", "preceding", "following", "this", "these", "those", "it", "its",
	"them", "they", "former", "latter", "here", "there", "you", "your")

// entryTriples reads the reference entries of a chunk (KindEntry): one or
// more term lines naming the same thing, then a paragraph whose first
// sentence says, opening with a verb, what it does. An entry is read only
// when the sentence stands alone: three to 24 words, ending with a full
// stop, no negation, no pointer to another entry or to the page ("Same as
// …", "See …", "this", "the above"), no argument placeholder of the term
// line ("Set the tab length to number columns"). Options are named by
// their longest name; a one-word identifier only under a heading that
// names its kind ("Functions"). Two entries with the same description are
// both dropped by the graph (one question, two answers).
func entryTriples(chunk, title string) []Triple {
	lines := chunkLines(chunk)
	program := programOf(title)
	if program == "" {
		// "Which option enables debug output?" has an answer for every
		// tool of a corpus: an entry is asked only of a page that names
		// its program
		return nil
	}
	// A manual page documents the program's own options; a manual may
	// also document those of its configure script.
	manPage := manTitleRe.MatchString(strings.TrimSpace(title)) || dashTitleRe.MatchString(strings.TrimSpace(title))
	heading := ""
	var out []Triple
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if h, ok := headingText(l.text); ok {
			heading = h
			continue
		}
		if buildHeading(heading) {
			continue // "10 Building and its Options": options of the configure script, not of the program
		}
		kind, names, args := entryTerm(l.text, heading)
		if kind == "" {
			// "-f, --force   Allow adding otherwise ignored files."
			m := inlineEntry(l.text)
			if m == nil {
				continue
			}
			if kind, names, args = entryTerm(l.text[m[2]:m[3]], heading); kind == "" {
				continue
			}
			e := i + 1
			for e < len(lines) && lines[e].text != "" && inlineEntry(lines[e].text) == nil && !optionTermRe.MatchString(lines[e].text) {
				e++
			}
			if t, ok := readEntry(chunk, l.start, l.start+m[4], lines[e-1].end, kind, names, args, program, manPage); ok {
				out = append(out, t)
			}
			i = e - 1
			continue
		}
		// Further term lines of the same entry ("-f" then "--force"),
		// blank lines between them.
		j := i + 1
		for ; j < len(lines); j++ {
			if lines[j].text == "" {
				continue
			}
			k2, n2, a2 := entryTerm(lines[j].text, heading)
			if k2 != kind || kind != "option" {
				break
			}
			names, args = append(names, n2...), append(args, a2...)
		}
		if j >= len(lines) {
			break
		}
		// The description: the paragraph from j to the next blank line.
		e := j
		for e < len(lines) && lines[e].text != "" {
			if _, ok := headingText(lines[e].text); ok {
				break
			}
			e++
		}
		i = j - 1
		if e == j {
			continue
		}
		if t, ok := readEntry(chunk, l.start, lines[j].start, lines[e-1].end, kind, names, args, program, manPage); ok {
			out = append(out, t)
		}
	}
	return out
}

// readEntry reads the entry whose term lines start at start and whose
// description runs from from to to.
func readEntry(chunk string, start, from, to int, kind string, names, args []string, program string, manPage bool) (Triple, bool) {
	para := chunk[from:to]
	ss := Sentences(para)
	if len(ss) == 0 {
		return Triple{}, false
	}
	desc := strings.TrimSpace(ss[0].Text)
	if plain := strings.TrimSpace(asideRe.ReplaceAllString(desc, "")); plain != desc && len(plain) > 0 {
		// "Send a reverse (PTR) query …", "Use the TCP protocol (default
		// is UDP …).": what it does, without the aside
		desc = strings.Replace(plain, " .", ".", 1)
	}
	addedStop := false
	if kind == "option" && len(ss) == 1 && !strings.HasSuffix(desc, ".") && !strings.Contains(strings.TrimSpace(para), "\n") && len(desc) > 0 {
		desc, addedStop = desc+".", true // "show this help message and exit": a generated help's one line, no full stop
	}
	verbLower := false
	if r := []rune(desc); kind == "option" && len(r) > 0 && unicode.IsLower(r[0]) {
		// "only rewrite a packfile if …", "read from INPUT in csv format":
		// a lower-case verb opens many generated or pandoc descriptions
		if ts := tagSentence(desc); len(ts) > 1 && (imperatives[ts[0].lower] || descriptionVerbs[ts[0].lower] || verbFirst(ts)) {
			desc, verbLower = string(unicode.ToUpper(r[0]))+string(r[1:]), true
		}
	}
	if !entryDescription(desc, args, kind != "command") {
		np, ok := valueDescription(desc, args)
		if !ok || kind != "option" || verbLower || addedStop {
			return Triple{}, false
		}
		desc = "Sets " + np // "-maxperip=n  Maximum number of connections …": what its value sets
	}
	rel := kind
	if program != "" && kind != "command" {
		rel = kind + " of " + program
	}
	end := from + len(strings.TrimRight(ss[0].Text, " \n"))
	if k := strings.Index(para, strings.TrimSpace(ss[0].Text)); k >= 0 {
		end = from + k + len(strings.TrimSpace(ss[0].Text))
	}
	s := Sentence{Text: chunk[start:end], Start: start, End: end}
	name := entryName(names)
	if severalOptions(names) {
		return Triple{}, false // "--author=<pattern>, --committer=<pattern>": one description of two options
	}
	for _, p := range []string{"--enable-", "--disable-", "--with-", "--without-"} {
		if strings.HasPrefix(name, p) && !manPage {
			// "--disable-mouse" in a manual's chapter on building: an
			// option of the configure script, not of the program
			return Triple{}, false
		}
	}
	if name != "" && !strings.Contains(chunk[start:from], name) {
		return Triple{}, false // "--[no-]signoff": neither name is written out
	}
	return Triple{Head: strings.TrimSuffix(desc, "."), Relation: rel, Tail: name, Kind: KindEntry, Sentence: s}, true
}

// inlineEntry matches inlineEntryRe on a line with its code and emphasis
// marks blanked (offsets kept), or returns nil.
func inlineEntry(l string) []int {
	return inlineEntryRe.FindStringSubmatchIndex(strings.NewReplacer("`", " ", "*", " ").Replace(l))
}

// headingText returns a heading line's text: a Markdown heading ("##
// Options") or a short line in capitals ("OPTIONS").
func headingText(l string) (string, bool) {
	if strings.HasPrefix(l, "#") {
		return strings.TrimSpace(strings.TrimLeft(l, "#")), true
	}
	if len(l) > 3 && len(l) < 40 && l == strings.ToUpper(l) && strings.IndexFunc(l, unicode.IsLetter) >= 0 && !strings.HasPrefix(l, "-") {
		return l, true
	}
	return "", false
}

// entryTerm reads a term line: its kind ("option", or the kind its
// heading names), its names and the argument words it shows. kind is ""
// for any other line.
func entryTerm(l, heading string) (kind string, names, args []string) {
	l = strings.TrimSpace(strings.NewReplacer("`", "", "**", "").Replace(l))
	if len(l) == 0 || len(l) > 60 {
		return "", nil, nil
	}
	if optionTermRe.MatchString(l) {
		for _, m := range optionNameRe.FindAllStringSubmatch(l, -1) {
			names = append(names, strings.Replace(m[1], "[no-]", "", 1)) // "--[no-]verify"
		}
		for _, f := range strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == ',' || r == '=' || r == '[' || r == ']' }) {
			if !strings.HasPrefix(f, "-") {
				args = append(args, strings.Trim(f, "<>'`\"()"))
			}
		}
		return "option", names, args
	}
	if identifierTermRe.MatchString(l) && strings.ToLower(l[:1]) == l[:1] {
		f := strings.Fields(strings.ToLower(heading))
		if len(f) > 0 {
			if k, ok := entryKinds[f[len(f)-1]]; ok {
				return k, []string{l}, nil
			}
		}
	}
	return "", nil, nil
}

// entryDescription reports whether a description's first sentence can be
// asked: see entryTriples.
func entryDescription(desc string, args []string, sentence bool) bool {
	if sentence && !strings.HasSuffix(desc, ".") || strings.HasSuffix(desc, "..") {
		return false
	}
	ts := tagSentence(maskMarkup(desc))
	words := 0
	for i, t := range ts {
		if t.tag != "." && t.tag != "," {
			words++
		}
		if neg(t.lower) || entryRefWords[t.lower] || t.tag == "MD" {
			return false
		}
		for _, a := range args {
			if strings.EqualFold(strings.Trim(t.text, "<>'`\"()"), a) && placeholderAt(ts, i) {
				return false // "to number columns": the argument, by its placeholder
			}
		}
	}
	if words < 3 || words > 24 || strings.ContainsAny(desc, ":;?()\"<>") {
		return false
	}
	k := 0
	for k < len(ts) && ts[k].tag == "RB" && strings.HasSuffix(ts[k].lower, "ly") {
		k++ // "Interactively choose hunks …"
	}
	if k >= len(ts) || !isCapital(ts[0].text) || entryRefFirst[ts[0].lower] {
		return false
	}
	v := ts[k]
	if v.lower == "be" || v.lower == "is" || v.lower == "are" || v.lower == "have" || v.lower == "has" || v.lower == "do" && k+1 < len(ts) && ts[k+1].lower == "n't" {
		return false
	}
	if finiteLater(ts[k:]) {
		return false
	}
	if k == 0 && (verbFirst(ts) || !sentence && verbReading(ts)) {
		return true
	}
	return v.tag == "VB" || v.tag == "VBZ" || v.tag == "VBP" || imperatives[v.lower] ||
		strings.HasSuffix(v.lower, "s") && imperatives[strings.TrimSuffix(v.lower, "s")] ||
		strings.HasSuffix(v.lower, "es") && imperatives[strings.TrimSuffix(v.lower, "es")]
}

// valueDescription reads the description of an option that takes a value
// when it names that value with a noun phrase ("Maximum number of
// connections accepted from the same IP address.", "The file to write the
// report to."): the phrase, with "the" before it unless it has an article,
// to be asked "Which option of couriertcpd sets the maximum number of …?".
// The sentence must stand alone as entryDescription's do, with no verb of
// its own outside a relative clause ("Length of the queue which holds
// pending connections" is one; "Value is ignored" is not).
func valueDescription(desc string, args []string) (string, bool) {
	if len(args) == 0 || !strings.HasSuffix(desc, ".") || strings.ContainsAny(desc, ":;?()\"<>") {
		return "", false
	}
	ts := tagSentence(maskMarkup(desc))
	words := 0
	relative := false
	for i, t := range ts {
		if t.tag != "." && t.tag != "," {
			words++
		}
		if neg(t.lower) || entryRefWords[t.lower] || t.tag == "MD" {
			return "", false
		}
		switch {
		case t.tag == "WDT" || t.lower == "that" || t.lower == "which" || t.lower == "to" && i+1 < len(ts) && ts[i+1].tag == "VB":
			relative = true
		case (t.tag == "VBZ" || t.tag == "VBP" || t.tag == "VBD") && !relative:
			return "", false
		}
		for _, a := range args {
			if strings.EqualFold(strings.Trim(t.text, "<>'`\"()"), a) && placeholderAt(ts, i) {
				return "", false
			}
		}
	}
	if words < 3 || words > 16 || !isCapital(ts[0].text) || entryRefFirst[ts[0].lower] {
		return "", false
	}
	for _, t := range ts {
		if strings.HasPrefix(t.text, "-") && len(t.text) > 1 {
			return "", false // "Alternative to -b": it leans on another option
		}
	}
	if verbFirst(ts) || imperatives[ts[0].lower] || descriptionVerbs[ts[0].lower] || tagger().Tag([]string{"it", ts[0].lower})[1].Tag == "VBZ" {
		return "", false // "Specifies the PID file", "Perform L3 tunneling tests": a verb the capital hid
	}
	first := ts[0]
	switch {
	case first.lower == "the" || first.lower == "a" || first.lower == "an":
		if len(ts) < 2 || !(isNoun(ts[1].tag) || isAdj(ts[1].tag)) {
			return "", false
		}
		return strings.ToLower(desc[:1]) + strings.TrimSuffix(desc[1:], "."), true
	case isNoun(first.tag) || isAdj(first.tag):
		if verbFirst(ts) || first.tag == "NNP" && first.text != strings.ToUpper(first.text[:1])+first.lower[1:] {
			return "", false
		}
		np := strings.TrimSuffix(desc, ".")
		if first.text != strings.ToUpper(first.text) {
			np = strings.ToLower(np[:1]) + np[1:] // "Maximum number …"; not "TCP port …"
		}
		return "the " + np, true
	}
	return "", false
}

// descriptionVerbs open descriptions in the imperative and are no nouns,
// though a capital makes the tagger read them so ("Specify frequency
// offset", "Perform L3 tunneling tests").
var descriptionVerbs = set("specify", "perform", "select", "display", "send", "limit", "override", "force", "suppress",
	"wait", "listen", "connect", "execute", "exit", "operate", "save", "store", "produce", "emit", "verify", "enter",
	"exclude", "assume", "append", "prepend", "bind", "omit", "retry", "attempt", "query", "write", "specifies",
	"start", "begin", "insert", "extract", "translate", "edit", "mount", "configure", "compile", "press", "choose")

// entryName picks the name an entry is asked by: its longest, but the
// option itself over its negation ("--signoff", not "--no-signoff", for
// "-s, --signoff, --no-signoff").
func entryName(names []string) string {
	name := ""
	for _, n := range names {
		neg := strings.HasPrefix(n, "--no-")
		if name == "" || neg == strings.HasPrefix(name, "--no-") && len(n) > len(name) || !neg && strings.HasPrefix(name, "--no-") {
			name = n
		}
	}
	return name
}

// verbFirst reports a sentence opening with a verb by the tag of its first
// word in lower case: a capital makes the tagger read any word as a name.
func verbFirst(ts []tok) bool {
	if len(ts) < 2 {
		return false
	}
	words := []string{ts[0].lower}
	for _, t := range ts[1:min(len(ts), 6)] {
		words = append(words, t.text)
	}
	tag := tagger().Tag(words)[0].Tag
	return tag == "VB" || tag == "VBP"
}

// finiteLater reports an auxiliary after the first word, before any
// relative or subordinating word: "Changes to the index are kept" opens
// with its subject, not with a verb.
func finiteLater(ts []tok) bool {
	for _, t := range ts[1:] {
		switch t.lower {
		case "that", "which", "who", "whose", "when", "where", "if", "unless", "while", "because", "so", "as", "than", "whether", ",", ";":
			return false
		case "is", "are", "was", "were", "has", "have", "had":
			return true
		}
		if t.tag == "MD" {
			return true
		}
	}
	return false
}

// verbReading reports a first word the tagger reads as a verb in any of
// the places a verb stands: opening a sentence, after "to", after "they".
// It is asked only where a verb is expected and a noun is the exception:
// the one-line description of a command on its own manual page ("git-merge
// - Join two or more development histories together").
func verbReading(ts []tok) bool {
	if verbFirst(ts) {
		return true
	}
	for _, lead := range []string{"to", "they"} {
		words := []string{lead, ts[0].lower}
		for _, t := range ts[1:min(len(ts), 6)] {
			words = append(words, t.text)
		}
		if tag := tagger().Tag(words)[1].Tag; tag == "VB" || tag == "VBP" {
			return true
		}
	}
	return false
}

// placeholderAt reports an argument's word at i used as its placeholder
// ("Set the tab length to number columns", "in a file keyfile"), not as a
// word of a noun phrase ("the nameserver port number", "the address").
func placeholderAt(ts []tok, i int) bool {
	if i+1 < len(ts) && (ts[i+1].tag == "NN" || ts[i+1].tag == "NNS") && ts[i+1].lower != ts[i].lower {
		return ts[i].lower == "number" || ts[i].lower == "num" // "number columns", "num entries": a count, written as its placeholder
	}
	if i > 0 && (ts[i-1].tag == "DT" || ts[i-1].tag == "PRP$" || isAdj(ts[i-1].tag)) {
		return false
	}
	return true
}

// severalOptions reports term lines that name two different long options
// (not one and its negation): the description is of both, and the
// question would have two answers.
func severalOptions(names []string) bool {
	long := map[string]bool{}
	for _, n := range names {
		if strings.HasPrefix(n, "--") {
			long[strings.TrimPrefix(strings.TrimPrefix(n, "--"), "no-")] = true
		}
	}
	return len(long) > 1
}

// namedKinds: text.NamedKinds as a set.
var namedKinds = set(text.NamedKinds...)

// kindNamed reports a subject "the W option" (directive, command, …) whose
// W is one lower-case word that is no adjective: the option is named.
func (x *sent) kindNamed(hs, he int) bool {
	if he-hs != 3 || x.ts[hs].lower != "the" || !namedKinds[x.ts[hs+2].lower] {
		return false
	}
	w := x.ts[hs+1]
	return w.text == w.lower && len(w.text) > 2 && !text.NotName(w.lower) && !isAdj(w.tag) &&
		w.tag != "VBN" && w.tag != "VBG" && w.tag != "CD" && w.tag != "RB" && !strings.ContainsAny(w.text, "'\"")
}
