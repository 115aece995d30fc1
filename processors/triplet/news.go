package triplet

import (
	"regexp"
	"strings"
	"unicode"
)

// A NEWS file in no format of changelog.go still has release headings
// ("v2.5.1 - 24 Jan 2020", "Version 1.2.6", "New in 0.17:", "dbus
// 1.14.10 (2023-09-01)") over bullet items in the imperative ("- add
// shortcuts "sports", "dports", "comment"", "* Removed the --old option").
// An item that adds or removes something is asked for the release it came
// in: "In which release of ferm were shortcuts "sports", "dports",
// "comment" added?" → 2.5.1. The program is named by the document's title
// ("version history for ferm", "GNU sed NEWS", "NEWS about less") or by
// the headings themselves; without one no item is asked, since "In which
// release was support for IPv6 added?" has an answer for every program.

// newsTitleRes read the program a NEWS file's title names.
var newsTitleRes = []*regexp.Regexp{
	regexp.MustCompile(`^(?:GNU )?([A-Za-z][\w.+-]*) NEWS\b`),
	regexp.MustCompile(`(?i)^NEWS (?:about|for|of|file for) ([A-Za-z][\w.+-]*)`),
	regexp.MustCompile(`(?i)^News about ([A-Za-z][\w.+-]*)`),
	regexp.MustCompile(`(?i)^(?:version|release|change) history (?:for|of) ([A-Za-z][\w.+-]*)`),
	regexp.MustCompile(`(?i)^(?:changes|changelog) (?:for|of|in) ([A-Za-z][\w.+-]*)$`),
	regexp.MustCompile(`(?i)^([A-Za-z][\w.+-]*) (?:change ?log|changes|release notes|release history|news|releases)$`),
}

func newsProgram(title string) string {
	for _, re := range newsTitleRes {
		if m := re.FindStringSubmatch(strings.TrimSpace(title)); m != nil && !strings.EqualFold(m[1], "the") {
			return m[1]
		}
	}
	return ""
}

var (
	// newsHeadingRe is a release heading without the program's name:
	// "v2.5.1 - 24 Jan 2020", "Version 0.21 - July 2020", "New in 0.17:",
	// "Changes in version 1.19:", "Major changes in 43.0", "3.42.2 -
	// 2022-07-16", "Release 8.39 14-June-2016".
	newsHeadingRe = regexp.MustCompile(`^(?:(?:[Vv]ersion|[Rr]elease|[Cc]hanges in(?: version| release)?|[Nn]ew in(?: version)?|[Mm]ajor changes in|` +
		`[Nn]oteworthy changes in(?: version| release)?|[Oo]verview of changes (?:between \S+ and|in(?: version)?))\s+)?v?(\d+(?:\.\d+)+(?:[.~+-]?[a-z]+\d*)?)(.*)$`)
	// namedHeadingRe is a release heading that names its program:
	// "dbus 1.14.10 (2023-09-01)", "PulseAudio 16.1", "Changes in OpenSP
	// 1.5.2", "2022-12-12 - PgBouncer 1.18.0 - "No real mystery"".
	namedHeadingRe = regexp.MustCompile(`^(?:(?:[Cc]hanges|[Nn]ew|[Ww]hat's new) in |\d{4}-\d{2}-\d{2}\s+-\s+)?([A-Za-z][\w.+-]*) v?(\d+(?:\.\d+)+(?:[.~+-]?[a-z]+\d*)?)(.*)$`)
	// newsDateRe: what may follow a release heading's version.
	newsRestRe = regexp.MustCompile(`^(?:\s*:.{0,30}|\s*[-–,(\[].{0,40}|\s+\d[\w ,.-]{0,20}|\s*)$`)
	// itemRe is a bullet item's verb: what it says was added or removed.
	itemAddRe    = regexp.MustCompile(`^(?:[Aa]dd(?:ed|s)?|[Ii]ntroduced?|[Nn]ew) (\S.*)$`)
	itemRemoveRe = regexp.MustCompile(`^(?:[Rr]emoved?|[Dd]rop(?:ped)?) (\S.*)$`)
	// itemRefRe is a reference that closes an item: "(#1234)", "[T6284]",
	// "(Closes: #123)", ":mr:`180`", a credit "(Nick Kew)".
	itemAsideRe = regexp.MustCompile(`\([^()]*\s[^()]*\)`)
	itemRefRe   = regexp.MustCompile(`\s*(?:\((?:[Cc]loses:\s*)?#?\d+\)|\[[A-Z]*\d+\]|:\w+:` + "`[^`]*`" + `|\([A-Z][a-z]+(?: [A-Z][\w.'-]+){1,3}\))\s*$`)
)

// newsHeading reads a line as a release heading: its version, and the
// program it names ("" when it names none).
func newsHeading(l string) (version, prog string, ok bool) {
	l = strings.TrimSpace(strings.Trim(l, "*#= "))
	if strings.HasSuffix(l, ".") {
		return "", "", false // "OpenSSL 3.0 (thx to …).": a sentence of an item
	}
	if m := newsHeadingRe.FindStringSubmatch(l); m != nil && newsRestRe.MatchString(m[2]) {
		return m[1], "", true
	}
	if m := namedHeadingRe.FindStringSubmatch(l); m != nil && newsRestRe.MatchString(m[3]) && !imperatives[strings.ToLower(m[1])] {
		return m[2], m[1], true
	}
	return "", "", false
}

// indent is the number of blanks before a line's text.
func indent(chunk string, l line) int {
	return l.start - (strings.LastIndexByte(chunk[:l.start], '\n') + 1)
}

// bulletOf returns an item line's text without its bullet, or false.
func bulletOf(l string) (string, bool) {
	for _, b := range []string{"- ", "* ", "• ", "o ", "+ "} {
		if strings.HasPrefix(l, b) {
			return strings.TrimSpace(l[len(b):]), true
		}
	}
	return "", false
}

// newsItems reads the items of a NEWS chunk that add or remove something
// (KindRelease, relation "was added in release of PROG", "were added to
// some log lines in release of PROG" or "was removed in release of PROG",
// tail the version of the heading above). Only items that say it in one
// sentence of at most twelve words are read; an item that leads into a
// list (ending with ":"), holds code marks or says the same as another of
// the chunk gives nothing.
func newsItems(chunk, title string) []Triple {
	prog := newsProgram(title)
	lines := chunkLines(chunk)
	version, headingAt := "", 0
	type item struct {
		subject, verb, target, be string
		t                         Triple
	}
	var items []item
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.text == "" {
			continue
		}
		if v, p, ok := newsHeading(l.text); ok && indent(chunk, l) <= 1 {
			version, headingAt = v, l.start
			if prog == "" && p != "" {
				prog = p
			}
			continue
		}
		text, ok := bulletOf(l.text)
		if !ok || version == "" {
			continue
		}
		end := l.end
		for i+1 < len(lines) && lines[i+1].text != "" {
			if _, b := bulletOf(lines[i+1].text); b {
				break
			}
			if _, _, h := newsHeading(lines[i+1].text); h && indent(chunk, lines[i+1]) <= 1 {
				break
			}
			i++
			text += " " + lines[i].text
			end = lines[i].end
		}
		if k := sentenceEnd(text); k > 0 {
			text = text[:k] // the item's first sentence
		}
		text = collapse(itemRefRe.ReplaceAllString(strings.TrimSpace(strings.TrimSuffix(text, ".")), ""))
		verb, subject := "", ""
		if m := itemAddRe.FindStringSubmatch(text); m != nil {
			verb, subject = "added", m[1]
		} else if m := itemRemoveRe.FindStringSubmatch(text); m != nil {
			verb, subject = "removed", m[1]
		} else {
			continue
		}
		if !itemSubject(subject) {
			continue
		}
		target := ""
		if k := strings.Index(subject, " to "); k > 0 && verb == "added" && !infinitiveAt(subject[k+1:]) {
			if verbBefore(subject[:k]) {
				continue // "option --to-stdout extracts files to …": a description, not a thing added
			}
			// "Add mountpoints to some log lines": what was added, and
			// where, said after the verb
			subject, target = subject[:k], " "+subject[k+1:]
		}
		be := "was"
		if itemPlural(subject) {
			be = "were" // "functions @eq, @ne, @not were added"
		}
		items = append(items, item{subject: strings.ToLower(subject), verb: verb, target: target, be: be, t: Triple{Head: subject, Tail: version, Kind: KindRelease,
			// The evidence runs from the release's heading, which holds
			// the answer, to the item.
			Sentence: Sentence{Text: chunk[headingAt:end], Start: headingAt, End: end}}})
	}
	if prog == "" {
		return nil
	}
	seen := map[string]int{}
	for _, it := range items {
		seen[it.subject+"\x00"+it.verb]++
	}
	var out []Triple
	for _, it := range items {
		if seen[it.subject+"\x00"+it.verb] > 1 {
			continue // "Add tests" under two releases: no one answer
		}
		it.t.Relation = it.be + " " + it.verb + it.target + " in release of " + prog
		out = append(out, it.t)
	}
	return out
}

// itemSubject reports whether what an item adds or removes can be asked:
// two to twelve words, one sentence, no code marks or colon (a lead-in to
// a list, a "file: change" label), not a pronoun or a vague amount.
func itemSubject(s string) bool {
	w := strings.Fields(s)
	if len(w) < 2 || len(w) > 12 || strings.Contains(s, ". ") || strings.ContainsAny(s, ":;`?!") || strings.HasSuffix(s, ",") || itemAsideRe.MatchString(s) {
		return false // an aside: "(it is long gone and unused)"; "@resolve()" is code
	}
	switch strings.ToLower(w[0]) {
	case "it", "this", "that", "these", "those", "them", "some", "more", "various", "several", "many", "few", "other",
		"misc", "miscellaneous", "minor", "a", "an":
		return false
	}
	// "features for the Windows platform", "fixes to the parser": a
	// kind of change that names nothing added
	if strings.HasSuffix(strings.ToLower(w[0]), "ing") {
		return false // "Added requesting client certificates …"
	}
	for _, x := range w {
		switch strings.ToLower(x) {
		case "when", "where", "which", "that", "if", "unless", "because", "so", "by", "while", "whether":
			return false // "notes … of when functions were added", "compatibility by using …": a clause
		}
	}
	head := itemHead(s)
	named, vague := false, false
	for _, x := range head {
		named = named || x != strings.ToLower(x) || codeLike(x)
		vague = vague || vagueItems[strings.ToLower(x)]
	}
	return named || !vague
}

// vagueItems are nouns that say what kind of change an item is, not what
// it adds.
var vagueItems = set("feature", "features", "improvement", "improvements", "enhancement", "enhancements", "change",
	"changes", "fix", "fixes", "update", "updates", "test", "tests", "documentation", "docs", "translation",
	"translations", "example", "examples", "option", "options", "things", "stuff", "code", "workaround")

// itemHead is the noun phrase that opens an item's subject: its words up to
// a preposition, a quote or a name written as code ("functions" of
// "functions @eq, @ne, @not"; "the missing" … "declaration" of "the
// missing "environ" declaration for …" stops at the quote).
func itemHead(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		lw := strings.ToLower(strings.Trim(w, ","))
		if itemPreps[lw] || strings.ContainsAny(w, "\"'`‘’“”@$/_=") || strings.HasPrefix(w, "-") || strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			break
		}
		out = append(out, strings.Trim(w, ","))
	}
	return out
}

var itemPreps = set("of", "for", "to", "in", "into", "with", "from", "between", "on", "by", "at", "as", "when", "if", "via", "and", "or")

// itemPlural reports a subject whose head noun is plural: the last word
// before a preposition, names in quotes or code left aside ("new
// "protocol = capwin" … configuration file options", ""flush" hooks"; not
// "the missing "environ" declaration for …").
func itemPlural(s string) bool {
	last := ""
	quoted := false
	for _, w := range strings.Fields(s) {
		if strings.Count(w, `"`)%2 == 1 {
			quoted = !quoted
			continue
		}
		lw := strings.ToLower(w)
		if quoted || strings.ContainsAny(w, `"'`+"`@$/_=()") || strings.HasPrefix(w, "-") {
			continue
		}
		if itemPreps[lw] && lw != "and" && lw != "or" {
			break
		}
		if lw != "and" && lw != "or" {
			last = strings.Trim(w, ",")
		}
	}
	return last != "" && pluralNoun(last)
}

// pluralNoun reports a plural common noun by its tag ("functions",
// "mime-types"), not a name or a word in -ss ("access").
func pluralNoun(w string) bool {
	lw := strings.ToLower(w)
	ts := tagSentence("the " + lw)
	if len(ts) != 2 {
		return false
	}
	return ts[1].tag == "NNS" || (ts[1].tag == "VBZ" || ts[1].tag == "NN") && strings.HasSuffix(lw, "s") && !strings.HasSuffix(lw, "ss") &&
		!strings.HasSuffix(lw, "us") && !strings.HasSuffix(lw, "is") && lw != "news" // "hooks", read as a verb or a singular alone
}

// infinitiveAt reports "to" and a verb at the start of s: "option to
// allow …" says what it is for, not where it was added.
func infinitiveAt(s string) bool {
	ts := tagSentence(s)
	// The tagger reads an unknown word after "to" as a verb ("to
	// hwtimestamp directive"): the word must be a known one.
	return len(ts) > 1 && ts[1].tag == "VB" && (imperatives[ts[1].lower] || descriptionVerbs[ts[1].lower])
}

// verbBefore reports a verb in the words of an item before "to": the item
// describes what something does, and "to" is not where it was added.
func verbBefore(s string) bool {
	for _, t := range tagSentence(s) {
		if t.tag == "VBZ" || t.tag == "VBD" || t.tag == "VBP" {
			return true
		}
	}
	return false
}

// firstNewsHeading is the offset of the first release heading of a chunk
// (newsHeading), or -1.
func firstNewsHeading(chunk string) int {
	for _, l := range chunkLines(chunk) {
		if _, _, ok := newsHeading(l.text); ok && indent(chunk, l) <= 1 {
			return l.start
		}
	}
	return -1
}

// nowRe is "now" as a word: a change the sentence states.
var nowRe = regexp.MustCompile(`\bnow\b`)

// releaseChanges drops the general reader's facts that state a change
// ("… are now reported in domain capabilities XML") under a release heading
// the release patterns did not tie them to: asked without the release,
// they hold of no release in particular.
func releaseChanges(ts []Triple, chunk string) []Triple {
	h := firstNewsHeading(chunk)
	if h < 0 {
		return ts
	}
	out := ts[:0]
	for _, t := range ts {
		if t.Kind != KindRelease && t.Kind != KindTable && t.Kind != KindEntry && t.Sentence.Start > h && nowRe.MatchString(t.Sentence.Text) {
			continue
		}
		out = append(out, t)
	}
	return out
}
