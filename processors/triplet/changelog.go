package triplet

import (
	"regexp"
	"strings"
	"unicode"
)

// Release notes and NEWS files state their facts tersely: "cat now uses the
// copy_file_range syscall", "[bug introduced in coreutils-9.0]", a heading
// "* Noteworthy changes in release 9.1 (2022-04-15) [stable]". The general
// reader rejects most of these lines (imperatives, fragments, lower-case
// subjects), so this file reads the shapes release notes use, each into a
// triple of Kind KindRelease whose question the question package phrases.
//
// A fact of a section is only worth asking with the release it belongs to,
// so the head carries the release named by the nearest heading above the
// sentence in the chunk, in parentheses: "cat (coreutils 9.1)". A chunk cut
// out of the middle of a section has no such heading, and its heads name
// the program alone.

// KindRelease: a fact read from release notes (see changelog.go). Relation
// is a verb group ("now uses", "is now based on", "has been replaced by",
// "released on", "introduced in"), possibly followed by the words that
// qualify it in the sentence ("to determine groups"), or a noun ("CVE
// identifier", "severity", "kind of release").
const KindRelease = "release"

// releaseMarks are strings only release notes hold; a chunk without any is
// not read by the patterns of this file.
var releaseMarks = []string{"Noteworthy changes", "urgency=", "Release Notes", "[bug", "[Bug", "Major changes between",
	"\n** ", "\n * ", " NEWS"}

func releaseChunk(chunk string) bool {
	for _, m := range releaseMarks {
		if strings.Contains(chunk, m) {
			return true
		}
	}
	return false
}

// release is the release a span of a chunk belongs to.
type release struct {
	at   int    // offset of its heading in the chunk
	name string // "coreutils 9.1", "OpenSSL 3.0.19", "Git v2.39"
	prog string // "coreutils"
}

var (
	gnuTitleRe   = regexp.MustCompile(`^GNU (\S+) NEWS\b`)
	gnuReleaseRe = regexp.MustCompile(`^\*\s+Noteworthy changes in release (\S+) \((\d{4}-\d{2}-\d{2})\)`)
	debianRe     = regexp.MustCompile(`^([a-z0-9][a-z0-9.+-]*) \(((?:\d+:)?[0-9][^)\s]*)\) [a-z-]+; urgency=`)
	trailerRe    = regexp.MustCompile(`^-- .+?<[^>]+>\s+[A-Z][a-z]{2}, (\d{1,2} [A-Z][a-z]{2} \d{4})`)
	between      = regexp.MustCompile(`Major changes between (\S+) \S+ and (\S+) (\S+) \[(\d{1,2} [A-Z][a-z]{2} \d{4})\]`)
	gitTitleRe   = regexp.MustCompile(`^(Git v?\d+\.\d+(?:\.\d+)?) Release Notes$`)
	// versionRe is the other common NEWS heading: "version 1.34 - Sergey
	// Poznyakoff, 2021-02-13" (tar), "Version 4.3 (19 Jan 2020)" (make).
	versionRe = regexp.MustCompile(`^[Vv]ersion (\d[\w.]*)(?: - [^,]+, | \()(\d{4}-\d{2}-\d{2}|\d{1,2} [A-Z][a-z]{2,8} \d{4})\)?$`)
)

// line is a line of a chunk, trimmed, with its offsets.
type line struct {
	text       string
	start, end int
}

func chunkLines(chunk string) []line {
	var out []line
	for off := 0; off <= len(chunk); {
		e := strings.IndexByte(chunk[off:], '\n')
		if e < 0 {
			e = len(chunk) - off
		}
		l := chunk[off : off+e]
		t := strings.TrimSpace(l)
		lead := strings.Index(l, t)
		out = append(out, line{text: t, start: off + lead, end: off + lead + len(t)})
		off += e + 1
	}
	return out
}

// releaseTriples returns the release-note facts of a chunk: release dates
// of headings and trailers, the facts of its sentences, the release that
// introduced each bug fixed, and the CVE identifiers of security fixes.
func releaseTriples(chunk, title string) []Triple {
	out, _ := readReleases(chunk, title)
	return out
}

// readReleases is releaseTriples, and the release each offset of the chunk
// falls under (nil when the chunk is no release notes).
func readReleases(chunk, title string) ([]Triple, func(off int) release) {
	tr := titleRelease(title)
	if !releaseChunk(chunk) && tr.name == "" {
		return nil, nil
	}
	lines := chunkLines(chunk)
	var out []Triple
	var rels []release
	if tr.name != "" {
		rels = append(rels, tr) // the whole document is about one release
	}
	prog := ""
	cur := func() release {
		if len(rels) == 0 {
			return release{}
		}
		return rels[len(rels)-1]
	}
	sentence := func(l line) Sentence { return Sentence{Text: l.text, Start: l.start, End: l.end} }
	for _, l := range lines {
		if m := gnuTitleRe.FindStringSubmatch(l.text); m != nil {
			prog = m[1]
			continue
		}
		if m := gnuReleaseRe.FindStringSubmatchIndex(l.text); m != nil && prog != "" {
			name := prog + " " + l.text[m[2]:m[3]]
			rels = append(rels, release{at: l.start, name: name, prog: prog})
			out = append(out, Triple{Head: name, Relation: "released on", Tail: l.text[m[4]:m[5]], Kind: KindRelease, Sentence: sentence(l)})
			continue
		}
		if m := versionRe.FindStringSubmatchIndex(l.text); m != nil && prog != "" {
			name := prog + " " + l.text[m[2]:m[3]]
			rels = append(rels, release{at: l.start, name: name, prog: prog})
			out = append(out, Triple{Head: name, Relation: "released on", Tail: l.text[m[4]:m[5]], Kind: KindRelease, Sentence: sentence(l)})
			continue
		}
		if m := debianRe.FindStringSubmatch(l.text); m != nil {
			rels = append(rels, release{at: l.start, name: m[1] + " " + m[2], prog: m[1]})
			continue
		}
		if m := trailerRe.FindStringSubmatch(l.text); m != nil && cur().name != "" {
			out = append(out, Triple{Head: cur().name, Relation: "released on", Tail: m[1], Kind: KindRelease, Sentence: sentence(l)})
			continue
		}
		if m := between.FindStringSubmatch(l.text); m != nil {
			name := m[2] + " " + m[3]
			rels = append(rels, release{at: l.start, name: name, prog: m[2]})
			out = append(out, Triple{Head: name, Relation: "released on", Tail: m[4], Kind: KindRelease, Sentence: sentence(l)})
			continue
		}
		if m := gitTitleRe.FindStringSubmatch(l.text); m != nil {
			rels = append(rels, release{at: l.start, name: m[1], prog: "Git"})
		}
	}
	at := func(off int) release {
		r := release{}
		for _, x := range rels {
			if x.at < off {
				r = x
			}
		}
		if r.name == "" && prog != "" {
			r.prog = prog
		}
		return r
	}
	for _, s := range Sentences(chunk) {
		for _, x := range readRelease(s, at(s.Start)) {
			if tr.name != "" {
				// prose pages about one release open sentences with
				// common words; NEWS files name files and programs so
				// ("Packages files")
				x.Head = sentenceCase(x.Head, chunk)
			}
			out = append(out, x)
		}
	}
	out = append(out, bugTriples(chunk, lines, at)...)
	out = append(out, cveTriples(chunk, lines, at)...)
	return out, at
}

// pastChanges are the past verbs release notes state a change with: what a
// component gained, learned, added or dropped in the release.
var pastChanges = set("gained", "learned", "learnt", "acquired", "added", "dropped", "removed", "introduced",
	"deprecated", "got", "lost")

// inRelease ties the general reader's facts of a release-notes chunk to
// their release: a fact read from a sentence that a release pattern also
// read goes (the pattern's reading carries the release); a change stated
// with a past verb ("The CPack RPM Generator gained the … option") under a
// release heading is asked in that release ("In CMake 3.21, what did …
// gain?"), where alone it would hold for no release in particular.
func inRelease(general, rel []Triple, at func(off int) release) []Triple {
	read := map[int]bool{}
	for _, t := range rel {
		read[t.Sentence.Start] = true
	}
	out := general[:0]
	for _, t := range general {
		if t.Kind != KindTable && read[t.Sentence.Start] {
			continue
		}
		if r := at(t.Sentence.Start); t.Kind == KindVerb && r.name != "" && pastChanges[t.Relation] {
			t.Head, t.Kind = withRelease(lowerArticle(t.Head), r), KindRelease
		}
		out = append(out, t)
	}
	return out
}

// sentenceCase lower-cases the first word of a head that is capitalized only
// because it opened its sentence ("Frozen modules (Python 3.4)" → "frozen
// modules (Python 3.4)"): a plain word, followed by a lower-case one, that
// the chunk never writes capitalized inside a sentence.
func sentenceCase(head, chunk string) string {
	f := strings.Fields(head)
	if len(f) < 2 || f[1] == "" || !unicode.IsLower([]rune(f[1])[0]) {
		return head
	}
	w := f[0]
	for i, c := range w {
		if i == 0 && !unicode.IsUpper(c) || i > 0 && !unicode.IsLower(c) {
			return head // a name written as one: "ImportError", "SMTP", "lz4"
		}
	}
	if midSentence(chunk, w) {
		return head // "… uses Python …": a name
	}
	return strings.ToLower(w[:1]) + head[1:]
}

// midSentence reports whether chunk writes w as a word after a lower-case
// letter, a comma or a semicolon and a space: inside a sentence.
func midSentence(chunk, w string) bool {
	for off := 0; ; {
		i := strings.Index(chunk[off:], w)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(w)
		if i >= 2 && chunk[i-1] == ' ' && (chunk[i-2] >= 'a' && chunk[i-2] <= 'z' || chunk[i-2] == ',' || chunk[i-2] == ';') &&
			(end == len(chunk) || !unicode.IsLetter(rune(chunk[end])) && !unicode.IsDigit(rune(chunk[end]))) {
			return true
		}
		off = i + 1
	}
}

// titleReleaseRes read a document title that names one release: "What’s New
// In Python 3.1 — Python 3.11.2 documentation", "Git 2.39 Release Notes",
// "Release notes for Quill 4.2".
var titleReleaseRes = []*regexp.Regexp{
	regexp.MustCompile(`^What['’]s [Nn]ew [Ii]n (([A-Z][\w+-]*(?: [A-Z][\w+-]*)?) v?\d+(?:\.\d+)+)\b`),
	regexp.MustCompile(`^(([A-Z][\w+-]*(?: [A-Z][\w+-]*)?) v?\d+(?:\.\d+)+) [Rr]elease [Nn]otes\b`),
	regexp.MustCompile(`^[Rr]elease [Nn]otes (?:for|of) (([A-Z][\w+-]*(?: [A-Z][\w+-]*)?) v?\d+(?:\.\d+)+)\b`),
}

// titleRelease returns the release a document's title names, as a release
// every span of its chunks belongs to unless a heading in the chunk names
// another; or the zero release.
func titleRelease(title string) release {
	for _, re := range titleReleaseRes {
		if m := re.FindStringSubmatch(strings.TrimSpace(title)); m != nil {
			return release{at: -1, name: m[1], prog: m[2]}
		}
	}
	return release{}
}

// withRelease writes a head with the release it belongs to: "cat (coreutils
// 9.1)". A head that names the release already stays as it is.
func withRelease(head string, r release) string {
	head = collapse(head)
	if r.name == "" || strings.Contains(head, r.name) {
		return head
	}
	return head + " (" + r.name + ")"
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// The shapes of release-note sentences, tried in order. Each regexp runs on
// the sentence as it stands (line breaks and indentation included), so that
// its groups are verbatim spans of it.
var (
	// "OpenSSL 3.0.19 is a security patch release."
	kindOfReleaseRe = regexp.MustCompile(`^(\S+ \d[\d.]*\S*) is (an? (?:[a-z]+\s+){0,3}release)\.$`)
	// "The most severe CVE fixed in this release is High."
	severityRe = regexp.MustCompile(`^The most severe CVE fixed in this\s+release is ([A-Z][a-z]+)\.$`)
	// ""git merge-tree --stdin" is a new way to request …", "… is now a way to …"
	wayRe = regexp.MustCompile(`^(?s)["'](` + codeSpan + `)["'] is\s+(now\s+a|a\s+new)\s+way\s+to\s+(.+)\.$`)
	// "A new "--include-whitespace" option is added to "git patch-id", and …"
	newOptionRe = regexp.MustCompile(`^A new ["'](-[\w-]+)["'] option is added to ["']([^"']+)["']`)
	// ""git rebase" gained the "--update-refs" option", ""git bundle" learned a
	// new "--quiet" option": an option a command acquired in the release.
	gainedRe = regexp.MustCompile(`^(?s)["'](` + codeSpan + `)["']\s+(?:has\s+)?(learned|learnt|gained|acquired|got)\s+(?:the\s+|a\s+new\s+|a\s+|an\s+)?(["']--?[\w-]+["'])\s+option\b`)
	// "dircolors takes a new --print-ls-colors option to display LS_COLORS entries, …"
	takesRe = regexp.MustCompile(`^(?s)([a-z][\w-]*) takes a new (--?[\w-]+) option (to [^,.]+)`)
	// "Two new facilities, "timer" and "counter", are introduced to the trace2 API."
	newThingsRe = regexp.MustCompile(`^(Two|Three|Four) new ([a-z]+), ("[^"]+" and "[^"]+"), are introduced to (the [\w ]+)\.$`)
	// "The find version without FTS, oldfind, has been completely removed."
	removedRe = regexp.MustCompile(`^The ([a-z]+ [a-z]+(?: [a-z]+ [A-Z]+)?), ([a-z][\w-]*), has been (?:completely )?removed\.`)
	// "The confusing GREP_COLOR environment variable is now obsolescent."
	obsoleteRe = regexp.MustCompile(`^The (?:[a-z]+ )?([A-Z][A-Z0-9_]+) (environment variable|option|variable) is now (obsolescent|deprecated)\.$`)
	// "The egrep and fgrep commands, which have been deprecated since release
	// 2.5.3 (2007), now warn that they … should be replaced by grep -E and grep -F."
	deprecatedRe = regexp.MustCompile(`^The ([a-z]+ and [a-z]+ commands), which have been deprecated since\s+(release \d[\d.]*)`)
	replacedByRe = regexp.MustCompile(`should\s+be\s+replaced\s+by\s+([a-z]+ -[A-Za-z] and [a-z]+ -[A-Za-z])\.$`)
	// "Instead of GREP_COLOR='xxx', use GREP_COLORS='mt=xxx'."
	insteadRe = regexp.MustCompile(`^Instead of ([A-Z][A-Z_]+='[^']*'), use ([A-Z][A-Z_]+='[^']*')\.$`)
	// "The "Yes, do as I say" prompt for removing essential packages has been replaced by an error message."
	passiveByRe = regexp.MustCompile(`^(?s)(The .+?) (has\s+been\s+replaced\s+by|is\s+now\s+based\s+on) ((?:an?|the) [a-z ]+?|[A-Z][A-Za-z0-9]+)(,| instead of [^,.]+|\.)`)
	// The verb group of a change: "now uses", "no longer allows", "will now
	// also match", "can now set", "will no longer try to remove".
	changeRe = regexp.MustCompile(`^(?s)(?:(On macOS|Also), )?(.+?)\s+((?:(?:will|can)\s+)?(?:now|no\s+longer)(?:\s+(?:also|first))?\s+(?:try\s+to\s+|tries\s+to\s+)?)([a-z]+)\s+(?:only\s+)?(.+)$`)
)

// codeSpan is a command line or an identifier as release notes quote it.
const codeSpan = `[a-z][\w.-]*(?: [\w@{}.=-]+)*`

// readRelease reads one sentence of release notes in release r.
func readRelease(s Sentence, r release) []Triple {
	t := strings.TrimSpace(s.Text)
	if k := sentenceEnd(t); k > 0 {
		t = t[:k] // a bracketed note or a second sentence the split left on
	}
	fact := func(head, rel, tail string) []Triple {
		if tail == "" || !strings.Contains(s.Text, tail) {
			return nil
		}
		return []Triple{{Head: head, Relation: rel, Tail: tail, Kind: KindRelease, Sentence: s}}
	}
	if m := kindOfReleaseRe.FindStringSubmatch(t); m != nil {
		return fact(m[1], "kind of release", m[2])
	}
	if m := severityRe.FindStringSubmatch(t); m != nil && r.name != "" {
		return fact("the most severe CVE fixed in "+r.name, "severity", m[1])
	}
	if m := wayRe.FindStringSubmatch(t); m != nil {
		if strings.HasPrefix(m[2], "now") {
			return fact(withRelease("a way to "+collapse(m[3]), r), "is now", m[1])
		}
		return fact(withRelease("the new way to "+collapse(m[3]), r), "is", m[1])
	}
	if m := newOptionRe.FindStringSubmatch(t); m != nil {
		return fact(withRelease(`the new option added to "`+m[2]+`"`, r), "is", m[1])
	}
	if m := gainedRe.FindStringSubmatch(t); m != nil {
		return fact(withRelease(`"`+m[1]+`"`, r), m[2], m[3])
	}
	if m := takesRe.FindStringSubmatch(t); m != nil {
		return fact(withRelease(m[1], r), "takes "+collapse(m[3]), m[2])
	}
	if m := newThingsRe.FindStringSubmatch(t); m != nil {
		return fact(withRelease("the "+strings.ToLower(m[1])+" new "+m[2]+" introduced to "+m[4], r), "are", m[3])
	}
	if m := removedRe.FindStringSubmatch(t); m != nil {
		return fact(withRelease("the "+m[1]+" that has been removed", r), "is", m[2])
	}
	if m := obsoleteRe.FindStringSubmatch(t); m != nil {
		return fact(withRelease("the "+m[2]+" that is now "+m[3], r), "is", m[1])
	}
	if m := deprecatedRe.FindStringSubmatch(t); m != nil {
		out := fact(withRelease("the "+m[1], r), "have been deprecated since", m[2])
		if b := replacedByRe.FindStringSubmatch(t); b != nil {
			out = append(out, fact(withRelease("the "+m[1], r), "should be replaced by", b[1])...)
		}
		return out
	}
	if m := insteadRe.FindStringSubmatch(t); m != nil {
		return fact(withRelease(m[1], r), "should be replaced by", m[2])
	}
	if m := passiveByRe.FindStringSubmatch(t); m != nil {
		rel := collapse(m[2])
		if strings.HasPrefix(m[4], " instead of") {
			rel += m[4]
		}
		return fact(withRelease(lowerArticle(m[1]), r), rel, m[3])
	}
	return readChange(s, t, r)
}

// lowerArticle lower-cases an opening "The"/"A".
func lowerArticle(s string) string {
	for _, a := range []string{"The ", "A ", "An "} {
		if strings.HasPrefix(s, a) {
			return strings.ToLower(a) + s[len(a):]
		}
	}
	return s
}

// subjectStops may not open the subject of a change: pronouns, clauses,
// generic articles.
var subjectStops = set("it", "its", "this", "that", "these", "those", "they", "their", "if", "when", "with",
	"for", "in", "a", "an", "using", "similarly", "previously", "now", "there", "you", "we", "all", "only", "furthermore",
	"several", "some", "many", "most", "various", "numerous", "few", "other", "both", "each", "every", "any")

// objectOpeners cannot open an object: "can now read from and write to …".
var objectOpeners = set("from", "with", "at", "of", "about", "over", "through", "across", "between", "within",
	"without", "against", "and", "or", "but", "not")

// changeAdverbs are adverbs a change sentence puts after "now" ("now
// always supports"): the verb is the next word, and the reading is unsure.
var changeAdverbs = set("always", "also", "still", "only", "even", "never", "often", "usually", "correctly",
	"properly", "automatically", "again", "too", "officially", "fully")

// objectStops end the object of a change and may open its qualifier.
var objectStops = set("if", "when", "instead", "in", "for", "on", "as", "like", "by", "even", "before", "after", "into",
	"to", "so", "because", "since", "that", "which", "thanks", "unless", "while", "rather")

// qualifierStarts are the stop words that open a qualifier worth keeping in
// the question: "to determine groups", "in addition to TERM", "instead of
// blocks if …", "when copying to a directory", "by default".
var qualifierStarts = set("to", "when", "instead", "in", "for", "as", "by", "on")

// intransitive verbs take no object worth asking for.
var intransitive = set("warn", "warns", "work", "works", "exit", "exits", "fail", "fails", "misbehave", "misbehaves",
	"loop", "loops", "get", "gets", "errors")

// vague objects say nothing a person would ask for: "corner cases".
var vague = set("cases", "issues", "problems", "things", "ways", "stuff", "variant", "behavior", "behaviour")

var wordRe = regexp.MustCompile(`\S+`)

var pronounRe = regexp.MustCompile(`\b(?:it|its|they|them|their|this|these)\b`)

// readChange reads "SUBJECT [will|can] now|no longer VERB OBJECT [QUALIFIER]".
func readChange(s Sentence, t string, r release) []Triple {
	m := changeRe.FindStringSubmatchIndex(t)
	if m == nil {
		return nil
	}
	intro := ""
	if m[2] >= 0 {
		intro = t[m[2]:m[3]]
	}
	subj := collapse(t[m[4]:m[5]])
	group := strings.Fields(strings.ToLower(t[m[6]:m[7]]))
	verb := t[m[8]:m[9]]
	rest := t[m[10]:m[11]]
	if !changeSubject(subj) || intransitive[verb] || verb == "is" || verb == "are" || verb == "has" || verb == "have" ||
		verb == "be" || strings.HasSuffix(verb, "ly") || changeAdverbs[verb] {
		// "can now be transferred …": a passive, its object no thing;
		// "now always supports …": the verb comes after the adverb
		return nil
	}
	sw := strings.Fields(subj)
	last := strings.ToLower(sw[len(sw)-1])
	switch last {
	case "is", "are", "was", "were", "has", "have":
		return nil
	}
	plural := strings.Contains(subj, " and ") || strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") && !strings.ContainsAny(last, "'\"")
	modal := len(group) > 0 && (group[0] == "will" || group[0] == "can")
	tries := len(group) > 0 && group[len(group)-1] == "to"
	switch {
	case modal || tries:
	case plural && strings.HasSuffix(verb, "s") && !strings.HasSuffix(verb, "ss"):
		return nil
	case !plural && !strings.HasSuffix(verb, "s"):
		return nil
	}
	// The object: words up to a stop word, a comma or the end.
	words := wordRe.FindAllStringIndex(rest, -1)
	if len(words) == 0 {
		return nil
	}
	objEnd, stopAt := -1, -1
	for k, w := range words {
		word := rest[w[0]:w[1]]
		lw := strings.ToLower(strings.Trim(word, `"'`))
		if k > 0 && objectStops[lw] && !insideQuote(rest[:w[0]]) {
			objEnd, stopAt = words[k-1][1], k
			break
		}
		if strings.HasSuffix(word, ",") || strings.HasSuffix(word, ";") || strings.HasSuffix(word, ".") && k == len(words)-1 {
			objEnd = w[1] - 1
			break
		}
		if k == len(words)-1 {
			objEnd = w[1]
		}
	}
	if objEnd <= 0 || stopAt == 0 {
		return nil
	}
	obj := rest[:objEnd]
	if strings.HasSuffix(strings.TrimSpace(obj), ":") {
		return nil // "an optional symlinks argument:" introduces a list or an example
	}
	ow := strings.Fields(obj)
	first := strings.ToLower(strings.Trim(ow[0], `"'(`))
	if len(ow) > 10 || objectStops[first] || objectOpeners[first] || subjectStops[first] && first != "a" && first != "an" || strings.HasSuffix(first, "ly") ||
		len(ow) == 1 && !codeLike(ow[0]) || vague[strings.ToLower(ow[len(ow)-1])] || pronounRe.MatchString(obj) {
		return nil
	}
	// The qualifier: from the stop word to a comma or the end.
	qual := ""
	if stopAt > 0 && qualifierStarts[strings.ToLower(rest[words[stopAt][0]:words[stopAt][1]])] {
		q := rest[words[stopAt][0]:]
		if i := strings.IndexAny(q, ",;"); i >= 0 {
			q = q[:i]
		}
		q = collapse(strings.TrimSuffix(strings.TrimSpace(q), "."))
		for _, cut := range []string{" like ", " in usage", " by silently ", " thanks to "} {
			if i := strings.Index(q, cut); i > 0 && !strings.HasPrefix(q, strings.TrimSpace(cut)) {
				q = q[:i]
			}
		}
		q = collapse(q)
		qw := strings.Fields(q)
		if i := strings.IndexAny(q, "(:"); i >= 0 {
			q = collapse(q[:i]) // "instead of raising TypeError (bpo-15006)": the reference is no part of it
		}
		qw = strings.Fields(q)
		if len(qw) > 0 && functionWords[strings.ToLower(qw[len(qw)-1])] {
			q, qw = "", nil // "to specify the": cut short, the qualifier says nothing
		}
		switch {
		case len(qw) == 0 || len(qw) > 12 || qw[0] == "by" && q != "by default":
			q = ""
		case pronounRe.MatchString(q) || strings.Contains(q, " that ") || strings.HasSuffix(q, " that"):
			return nil // "on error instead of mislabeling it as …": the question would need the sentence
		}
		qual = q
	}
	if (verb == "treat" || verb == "treats") && qual == "" {
		return nil
	}
	// "the copy_file_range syscall": the identifier is the answer, the
	// noun says what is asked ("Which syscall …?").
	tail := obj
	if c := classed.FindStringSubmatch(obj); c != nil {
		tail = c[1] + c[2]
	}
	rel := strings.Join(append(group, strings.ToLower(verb)), " ")
	if qual != "" {
		rel += " " + qual
	}
	if intro == "On macOS" {
		rel += " on macOS"
	}
	if !strings.Contains(s.Text, tail) {
		return nil
	}
	return []Triple{{Head: withRelease(lowerArticle(subj), r), Relation: rel, Tail: tail, Kind: KindRelease, Sentence: s}}
}

// classed matches an object that is an identifier and its class: "the
// copy_file_range syscall", "the -files0-from option", "a new
// --print-ls-colors option".
var classed = regexp.MustCompile(`^(?:(?:the|a|an)\s+(?:new\s+)?(\S*[-_=.:]\S*)\s+(?:option|syscall|field|variable|environment\s+variable|command|flag)|the\s+aliases\s+(\S+=\S+))$`)

// changeSubject: what a change is about is a program, an option, a command
// line or a noun phrase, not a pronoun, a clause or a list of prose.
func changeSubject(s string) bool {
	w := strings.Fields(s)
	if len(w) == 0 || len(w) > 8 {
		return false
	}
	first := strings.ToLower(strings.Trim(w[0], `"'`))
	if subjectStops[first] || strings.ContainsAny(s, ";:()") {
		return false
	}
	for _, x := range w[1:] {
		switch strings.ToLower(x) {
		case "that", "which", "who", "to", "if", "when":
			return false
		}
	}
	if strings.Contains(s, ",") {
		// Only a list of programs: "cp, mv, and install".
		return listRe.MatchString(s)
	}
	return true
}

var listRe = regexp.MustCompile(`^[a-z][\w-]*(?:, [a-z][\w-]*)+,? (?:and|or) [a-z][\w-]*$`)

// insideQuote reports whether a prefix leaves a double quote open.
func insideQuote(prefix string) bool { return strings.Count(prefix, `"`)%2 == 1 }

// codeLike: an option, an identifier or a value as code writes them.
func codeLike(w string) bool {
	w = strings.Trim(w, `"'.,`)
	return strings.HasPrefix(w, "-") || strings.ContainsAny(w, "_=/:") ||
		strings.IndexFunc(w, unicode.IsDigit) >= 0 || w != strings.ToLower(w)
}

var (
	// "[bug introduced in coreutils-9.0]", "[Bug#51860 introduced in grep
	// 3.5]", "[Bug present since the SELinux implementation in 4.5.6]".
	bugLineRe = regexp.MustCompile(`^\[[Bb]ug(?:#\d+)? (?:introduced in|present since) (?:.*? )??([a-z]+[ -]\d[\w.-]*\w|[A-Z_]*\d[\w.-]*\w|\d[\d.]*\d)\.?\]$`)
	// A description's clause ends before these.
	bugCuts = []string{", possibly", ", reverting", ", which", ", so ", " by ", " like ", " in usage"}
)

// bugTriples reads paragraphs that end with the release a bug was
// introduced in: the paragraph's first sentence says what no longer
// happens, which, without "no longer", describes the bug.
func bugTriples(chunk string, lines []line, at func(int) release) []Triple {
	var out []Triple
	for i, l := range lines {
		m := bugLineRe.FindStringSubmatchIndex(l.text)
		if m == nil {
			continue
		}
		start := i
		for start > 0 && lines[start-1].text != "" && !strings.HasPrefix(lines[start-1].text, "[") && !strings.HasPrefix(lines[start-1].text, "*") {
			start--
		}
		if start == i {
			continue
		}
		para := chunk[lines[start].start:l.end]
		first := para
		if k := sentenceEnd(para); k > 0 {
			first = para[:k]
		}
		desc := bugDescription(collapse(first))
		if desc == "" {
			continue
		}
		r := at(lines[start].start)
		head := "the bug where" + desc
		switch {
		case r.name != "":
			head = "the bug fixed in " + r.name + " where" + desc
		case r.prog != "":
			head = "the " + r.prog + " bug where" + desc
		}
		tail := strings.TrimPrefix(l.text[m[2]:m[3]], "in ")
		out = append(out, Triple{Head: head, Relation: "introduced in", Tail: tail, Kind: KindRelease,
			Sentence: Sentence{Text: para, Start: lines[start].start, End: l.end}})
	}
	return out
}

// sentenceEnd returns the offset just past the first sentence's final
// point (outside quotes), or -1.
func sentenceEnd(p string) int {
	quoted := false
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '"':
			quoted = !quoted
		case '.':
			if !quoted && (i+1 == len(p) || p[i+1] == ' ' || p[i+1] == '\n') && (i == 0 || p[i-1] != '.') {
				return i + 1
			}
		}
	}
	return -1
}

// bugDescription turns "On macOS, 'mv A B' no longer fails with …" into
// "on macOS, 'mv A B' fails with …", or returns "".
func bugDescription(s string) string {
	s = strings.TrimSuffix(s, ".")
	if !strings.Contains(s, " no longer ") {
		return ""
	}
	intro := ""
	if rest, ok := strings.CutPrefix(s, "On macOS, "); ok {
		intro, s = ", on macOS, ", rest
	}
	subj, _, _ := strings.Cut(s, " no longer ")
	subj = strings.TrimSuffix(strings.TrimSuffix(subj, " can"), " will")
	if w := strings.Fields(subj); len(w) == 0 || subjectStops[strings.ToLower(w[0])] || strings.Contains(subj, ", ") && !listRe.MatchString(subj) {
		return ""
	}
	s = strings.Replace(s, " no longer ", " ", 1)
	s = strings.Replace(s, " sometimes ", " ", 1)
	// Cut the description before what only comments on it: a
	// consequence, an example, a cause of the misreading.
	vi := len(subj) + 1
	cut := len(s)
	for _, c := range bugCuts {
		if i := strings.Index(s[min(vi, len(s)):], c); i >= 0 && vi+i < cut {
			cut = vi + i
		}
	}
	s = s[:cut]
	if n := len(strings.Fields(s)); n < 3 || n > 24 || strings.Count(s, `"`)%2 == 1 || strings.Count(s, "'")%2 == 1 {
		return ""
	}
	if intro == "" {
		intro = " "
	}
	return intro + lowerArticle(s)
}

// cveTriples reads the bullets of security releases: "* Fixed Stack buffer
// overflow in CMS `AuthEnvelopedData` parsing. ([CVE-2025-15467])" gives
// the CVE identifier of the fix, in the release of the section.
func cveTriples(chunk string, lines []line, at func(int) release) []Triple {
	var out []Triple
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l.text, "* Fix") {
			continue
		}
		end := i
		for end+1 < len(lines) && lines[end+1].text != "" && !strings.HasPrefix(lines[end+1].text, "*") {
			end++
		}
		bullet := chunk[l.start:lines[end].end]
		m := cveRe.FindStringSubmatchIndex(bullet)
		r := at(l.start)
		if m == nil || r.name == "" {
			continue
		}
		desc := collapse(strings.ReplaceAll(bullet[m[2]:m[3]], "`", ""))
		if w := strings.Fields(desc); len(w) > 1 && w[0] != strings.ToUpper(w[0]) {
			desc = strings.ToLower(desc[:1]) + desc[1:]
		}
		text := bullet[2:]
		out = append(out, Triple{Head: "the " + desc + " fixed in " + r.name, Relation: "CVE identifier", Tail: bullet[m[4]:m[5]],
			Kind: KindRelease, Sentence: Sentence{Text: text, Start: l.start + 2, End: lines[end].end}})
	}
	return out
}

var cveRe = regexp.MustCompile(`^\* Fix(?:ed)? ((?s).+?)\.\s+\(\[(CVE-\d{4}-\d+)\]\)$`)
