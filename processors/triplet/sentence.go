package triplet

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/text"
)

// Sentence is a sentence of a chunk: Text is exactly chunk[Start:End].
type Sentence = text.Sentence

// Sentences splits s into the sentences the extractor reads: Markdown prose
// only, split strictly (text.Prose, Strict; see text.Sentences). A wrong
// split would yield a wrong fact, a missed one only a fact less, so
// headings, tables and code are not read, a quoted sentence stays inside its
// reporting one, and a period ends a sentence only when the next word opens
// one. Decimals ("4.2") never split.
//
// Documentation adds two rules (docs/methods.md, Triplet extraction):
// a sentence may open with a program's name in lower case ("… in one
// archive. gzip is a compressor …"), so a period also ends a sentence
// before a lower-case name followed by a verb that agrees with it
// (lowerStart); and lines that are commands, prompts or option entries
// rather than prose ("$ make install", "./configure --prefix=/usr",
// "--with-foo  Build with foo") are left out (commandLine).
func Sentences(s string) []Sentence {
	var out []Sentence
	for _, sn := range text.Sentences(s, text.SentenceOptions{Layout: text.Prose, Strict: true}) {
		for _, p := range splitLowerStarts(sn) {
			if commandLine(p.Text) {
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

// splitLowerStarts splits a sentence before each lower-case sentence start
// (lowerStart) inside it.
func splitLowerStarts(sn Sentence) []Sentence {
	var out []Sentence
	start := 0
	t := sn.Text
	for i := 0; i+2 < len(t); i++ {
		if t[i] != '.' || t[i+1] != ' ' && t[i+1] != '\n' {
			continue
		}
		j := i + 1
		for j < len(t) && (t[j] == ' ' || t[j] == '\n' || t[j] == '\t') {
			j++
		}
		if !lowerStart(t[start:i], t[j:]) {
			continue
		}
		out = append(out, Sentence{Text: t[start : i+1], Start: sn.Start + start, End: sn.Start + i + 1})
		start = j
	}
	return append(out, Sentence{Text: t[start:], Start: sn.Start + start, End: sn.End})
}

// lowerStart reports whether after, which follows a period and white space
// ending before, opens a new sentence with a program's name in lower case:
// the word before the period is a plain word of three letters or more (not
// an abbreviation such as "e.g.", "etc." or "vs."), and the lower-case name
// is followed by a verb of the third person or "and" another name ("find
// and xargs comply …"), as a subject is.
func lowerStart(before, after string) bool {
	w := before
	if k := strings.LastIndexAny(before, " \n\t("); k >= 0 {
		w = before[k+1:]
	}
	if utf8.RuneCountInString(w) < 3 || abbreviations[strings.ToLower(w)] || !allLetters(w) {
		return false
	}
	f := strings.Fields(after)
	if len(f) < 3 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(f[0])
	if !unicode.IsLower(r) || functionWords[f[0]] || !nameWord(f[0]) {
		return false
	}
	next := f[1]
	switch next {
	case "is", "are", "was", "were", "has", "have", "can", "will", "does", "and":
		return true
	}
	return false
}

func allLetters(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return w != ""
}

// nameWord: letters, digits and the joiners of program names.
func nameWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '+' && r != '.' {
			return false
		}
	}
	return w != "" && !strings.HasSuffix(w, ".")
}

// commandLine reports a sentence that is a command, a shell prompt or an
// option entry rather than prose: it opens with a prompt ("$ ", "% ", "#
// "), a relative or absolute path to run ("./configure", "/usr/bin/foo"),
// or a bare option ("--with-foo", "-v"; an option quoted as code opens
// its description, which is prose).
func commandLine(s string) bool {
	switch {
	case strings.HasPrefix(s, "$ "), strings.HasPrefix(s, "% "), strings.HasPrefix(s, "# "), strings.HasPrefix(s, "> "):
		return true
	case strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"):
		return true
	case strings.HasPrefix(s, "--") && len(s) > 2 && unicode.IsLetter(rune(s[2])),
		strings.HasPrefix(s, "-") && len(s) > 2 && unicode.IsLetter(rune(s[1])) && (s[2] == ' ' || s[2] == ',' || unicode.IsLetter(rune(s[2]))):
		// "--with-foo", "-v, --verbose"; a Debian trailer "-- Name <…>"
		// or a dash that opens a sentence is not an option
		return true
	}
	return false
}
