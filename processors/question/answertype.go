package question

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The kind of thing an answer is decides the word a question opens with
// (docs/methods.md, Question synthesis and QA checks): a person is asked
// with "Who", a date with "When", a place or a file's location with
// "Where", a count with "How many {unit}", a version with "In which
// version", a command with "Which command", a file with "Which file";
// anything else with "What". The kind is read from the answer's own shape
// first, then from what the sentence says around it.
type answerKind int

const (
	answerThing answerKind = iota
	answerPerson
	answerDate
	answerCount
	answerVersion
	answerPath
	answerCommand
)

var (
	// pathRe: an absolute or home-relative path, a path under a variable
	// ("$HOME/.config/x"), or a relative one with a directory part
	// ("debian/rules", "./configure" is a command, see commandRe).
	pathRe = regexp.MustCompile(`^(?:~|\$\{?[A-Za-z_]+\}?|%[A-Za-z_]+%)?/[\w.@%+*{}-]*(?:/[\w.@%+*{}-]*)*$|^(?:[\w.-]+/)+[\w.*-]+$`)
	// versionNumberRe: "2.5", "v1.2.3", "version 3", "release 2.5.3",
	// "3.0.19-1", "1.2rc1".
	versionNumberRe = regexp.MustCompile(`(?i)^(?:v|version\s+|release\s+)?\d+(?:\.\d+)+(?:[a-z]+\d*)?(?:[-~+][\w.~+-]+)?$|^(?i:version|release)\s+\d+$`)
	// releaseNameRe: a product and its release ("Quillpad 3.1",
	// "coreutils-9.0", "grep 2.5.3").
	releaseNameRe = regexp.MustCompile(`^[A-Za-z][\w+.]*(?:[ -]|\s+version\s+)v?\d+(?:\.\d+)+[\w.~+-]*$`)
	// isoDateRe: "2023-05-01"; longDateRe: "May 1, 2023", "1 May 2023".
	isoDateRe = regexp.MustCompile(`^(?:19|20)\d{2}-\d{2}(?:-\d{2})?$`)
	// unitCountRe: a whole number and the unit it counts ("64 KB", "3
	// seconds", "2 worker threads").
	unitCountRe = regexp.MustCompile(`^(\d{1,3}(?:,\d{3})+|\d+)\s+([A-Za-z][A-Za-z/-]*(?:\s+[a-z][a-z-]*)?)$`)
	// emailAfterRe: a name followed by its e-mail address in the sentence.
	emailAfterRe = regexp.MustCompile(`^\s*[<(]?[\w.+-]+(?:@|\s+at\s+)[\w-]+(?:\.|\s+dot\s+)[\w.-]+`)
)

// countUnits are the units a whole number counts in documentation: "How
// many seconds …?" reads as a person asks it.
var countUnits = toSet(`byte bytes kb mb gb tb kib mib gib tib bit bits second seconds minute minutes hour hours
day days week weeks month months year years line lines character characters column columns row rows
thread threads core cores cpu cpus process processes file files entry entries page pages
connection connections request requests retry retries attempt attempts level levels`)

// personNouns end names that are not a person's: organisations, projects,
// documents, standards and software ("the Free Software Foundation", "the
// Robot Exclusion Standard", "the GNU Make Manual").
var personNouns = toSet(`foundation project projects team teams consortium society association community committee
group software systems system library libraries toolkit kit suite server client engine framework platform
interface interfaces protocol format standard standards license licence manual guide handbook reference
documentation faq howto tutorial book edition language compiler debugger editor shell utilities utility tools
tool package packages distribution release version service services network networks exclusion specification
collection archive repository database directory file files public general lesser affero kernel driver daemon
browser desktop environment manager terminal viewer player studio office center centre consortium institute
initiative alliance conference summit`)

// kindOf reads what kind of thing tail is, as the answer to a fact stated
// with relation in sentence.
func kindOf(tail, sentence string) answerKind {
	t := strings.TrimSpace(tail)
	bare := strings.Trim(t, "`'\"“”‘’")
	switch {
	case bare == "":
		return answerThing
	case isDate(bare) || isoDateRe.MatchString(bare):
		return answerDate
	case isCommand(t, bare, sentence):
		return answerCommand
	case isPath(bare):
		return answerPath
	case versionNumberRe.MatchString(bare) || releaseNameRe.MatchString(bare):
		return answerVersion
	case isPerson(t, sentence):
		return answerPerson
	case countNoun(t) != "" || unitOf(t) != "":
		return answerCount
	}
	return answerThing
}

// isPath: a file or directory as documentation writes it.
func isPath(s string) bool {
	if strings.ContainsAny(s, " \t") || !strings.Contains(s, "/") || strings.Contains(s, "://") {
		return false
	}
	if !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~") && !strings.HasPrefix(s, "$") && !strings.HasPrefix(s, "%") {
		// "debian/rules" is a path; "TCP/IP", "and/or", "I/O" and "KB/s"
		// are not: a relative path is in lower case and has a dot or an
		// underscore, or at least two slashes.
		if s != strings.ToLower(s) || !strings.ContainsAny(s, "._") && strings.Count(s, "/") < 2 {
			return false
		}
	}
	return pathRe.MatchString(s)
}

// pathKind says what a path names, as far as its spelling tells: a
// directory when it ends in "/", a file when its last part has an
// extension, else nothing ("/dev/urandom", "/usr/bin/python" and
// "/usr/share/doc" look alike: a device, a program, a directory).
func pathKind(s string) string {
	s = strings.Trim(s, "`'\"")
	if strings.HasSuffix(s, "/") {
		return "directory"
	}
	last := s[strings.LastIndexByte(s, '/')+1:]
	if strings.Contains(last, ".") || strings.Contains(last, "*") {
		return "file"
	}
	return ""
}

// programRe0: the program word a command line opens with.
var programRe0 = regexp.MustCompile(`^(?:\./)?[a-z][\w.+-]*$`)

// commandCue: words that introduce a command line: "run make install",
// "type `ls -l`", "the command apt-get update".
var commandCue = regexp.MustCompile(`(?i)\b(?:run|running|type|typing|execute|executing|invoke|invoking|command|commands)\s*[:"'` + "`" + `]?\s*$`)

// isCommand: a command line: written as code in the sentence (in backticks
// or quotes), or right after a word that introduces one ("run", "type",
// "the command"), with a lower-case program first and, unless the sentence
// says it is a command, an option or an argument after it.
func isCommand(tail, bare, sentence string) bool {
	f := strings.Fields(bare)
	if len(f) == 0 {
		return false
	}
	if !programRe0.MatchString(f[0]) {
		return false
	}
	if f[0] == "a" || f[0] == "an" || f[0] == "the" {
		return false // "a built-package format called “wheels”": a phrase, not a command line
	}
	quoted := len(tail) > len(bare)+1 && strings.ContainsAny(tail[:1], "`'\"“‘") || strings.Contains(sentence, "`"+bare+"`") || strings.Contains(sentence, "'"+bare+"'") ||
		strings.Contains(sentence, "\""+bare+"\"")
	cued := false
	if i := strings.Index(sentence, bare); i > 0 {
		cued = commandCue.MatchString(sentence[:i])
	}
	if !quoted && !cued {
		return false
	}
	if len(f) == 1 {
		return cued // "run make": one word is a command only when the sentence says so
	}
	// Words after the program are options, arguments or sub-commands,
	// never prose: "make install", "apt-get update", "ls -l /tmp".
	for _, w := range f[1:] {
		if len(w) > 0 && unicode.IsUpper([]rune(w)[0]) && !isOption(w) && !strings.ContainsAny(w, "/=$.") {
			return false
		}
	}
	return true
}

// isPerson: a person's name (looksLikePerson, and no word of it a noun that
// names a thing), or a name the sentence follows with an e-mail address.
func isPerson(tail, sentence string) bool {
	if !looksLikePerson(tail) {
		return false
	}
	for _, w := range strings.Fields(strings.ToLower(tail)) {
		if personNouns[strings.Trim(w, ".,")] {
			return false
		}
	}
	if i := strings.Index(sentence, tail); i >= 0 && emailAfterRe.MatchString(sentence[i+len(tail):]) {
		return true
	}
	// A run of capitalised words that is also all in capitals ("GNU GPL") or
	// carries a digit is a name of a thing.
	if tail == strings.ToUpper(tail) {
		return false
	}
	return true
}

// unitOf returns the unit counted by a whole number ("64 KB" gives "KB",
// "3 seconds" "seconds"), or "".
func unitOf(tail string) string {
	m := unitCountRe.FindStringSubmatch(boundRe.ReplaceAllString(strings.TrimSpace(tail), ""))
	if m == nil {
		return ""
	}
	u := m[2]
	first, _, _ := strings.Cut(u, " ")
	if !countUnits[strings.ToLower(first)] || strings.Contains(u, " ") && !countUnits[strings.ToLower(u[strings.LastIndexByte(u, ' ')+1:])] {
		return ""
	}
	if strings.Contains(first, "/") {
		return "" // "100 MB/s" is a rate, not a count
	}
	return u
}

// countedUnit is the noun phrase "How many …" asks for: the counted noun
// of "12 new stores", or the unit of "64 KB".
func countedUnit(tail string) string {
	if n := countNoun(tail); n != "" {
		return n
	}
	return unitOf(tail)
}

// whFor is the wh-phrase asking for an answer of kind k that is the object
// of a verb ("What", "Who", "Which command", "Which file", "Which
// directory"); "" for the kinds asked with a template of their own.
func whFor(k answerKind, tail string) string {
	switch k {
	case answerPerson:
		return "Who"
	case answerCommand:
		return "Which command"
	case answerPath:
		switch pathKind(tail) {
		case "directory":
			return "Which directory"
		case "file":
			return "Which file"
		}
	}
	return "What"
}

// thirdPersonOf conjugates a lemma for "he/she/it": "maintain" →
// "maintains", "carry" → "carries", "push" → "pushes".
func thirdPersonOf(lemma string) string {
	verb, rest, _ := strings.Cut(lemma, " ")
	switch {
	case verb == "have":
		verb = "has"
	case verb == "be":
		verb = "is"
	case verb == "do", verb == "go":
		verb += "es"
	case strings.HasSuffix(verb, "y") && len(verb) > 2 && !strings.ContainsRune("aeiou", rune(verb[len(verb)-2])):
		verb = verb[:len(verb)-1] + "ies"
	case strings.HasSuffix(verb, "s"), strings.HasSuffix(verb, "x"), strings.HasSuffix(verb, "z"),
		strings.HasSuffix(verb, "ch"), strings.HasSuffix(verb, "sh"):
		verb += "es"
	default:
		verb += "s"
	}
	if rest != "" {
		return verb + " " + rest
	}
	return verb
}

// lemmaOfParticiple returns the base form of a past participle:
// "maintained" → "maintain", "written" → "write", "built" → "build".
func lemmaOfParticiple(p string) string {
	if past, ok := participlePast[p]; ok {
		if l, ok := irregular[past]; ok {
			return l
		}
		if l, ok := irregularLemma[past]; ok {
			return l
		}
	}
	if l, ok := irregular[p]; ok {
		return l
	}
	if l, ok := irregularLemma[p]; ok {
		return l
	}
	if strings.HasSuffix(p, "ed") && len(p) > 4 {
		return regularPast(p)
	}
	return ""
}

// irregularLemma adds the base forms of the irregular pasts and
// participles the report verbs (irregular) do not list.
var irregularLemma = map[string]string{"wrote": "write", "gave": "give", "took": "take", "did": "do",
	"knew": "know", "drew": "draw", "spoke": "speak", "showed": "show", "threw": "throw", "broke": "break",
	"froze": "freeze", "stole": "steal", "forgot": "forget", "rode": "ride", "hid": "hide", "ate": "eat",
	"sang": "sing", "rewrote": "rewrite", "undertook": "undertake", "oversaw": "oversee", "beat": "beat",
	"swore": "swear", "wore": "wear", "tore": "tear", "wove": "weave", "mistook": "mistake", "forbade": "forbid",
	"flew": "fly", "blew": "blow", "withdrew": "withdraw", "overtook": "overtake", "shook": "shake", "bore": "bear",
	"sent": "send", "found": "find", "taught": "teach", "told": "tell", "lost": "lose", "meant": "mean",
	"read": "read", "put": "put", "let": "let", "spread": "spread", "shut": "shut", "hung": "hang", "spun": "spin",
	"sought": "seek", "thought": "think", "caught": "catch", "fought": "fight", "dealt": "deal", "felt": "feel",
	"heard": "hear", "lent": "lend", "bent": "bend", "struck": "strike", "stuck": "stick", "shot": "shoot",
	"sat": "sit", "laid": "lay", "said": "say", "understood": "understand", "bound": "bind", "fed": "feed",
	"fled": "flee", "bred": "breed", "begun": "begin", "done": "do", "seen": "see", "known": "know",
	"shown": "show", "given": "give", "taken": "take", "written": "write", "chosen": "choose", "driven": "drive"}

// lowerInitial lower-cases the first letter of a phrase.
func lowerInitial(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
