package text

import "strings"

// NamedKinds are the nouns after which documentation names a thing in lower
// case: "the iburst option", "the makestep directive". The rule extractor
// reads such a subject as named and the question checks accept it as a
// name; both read this one list.
var NamedKinds = []string{"option", "directive", "command", "setting", "function", "variable", "parameter",
	"keyword", "flag", "statement", "macro", "subcommand"}

// ObjectPreps introduce what a verb does its object with, or where it puts
// it ("encrypts all data | with AES-256", "stores the index | in
// /var/lib/quill"): the rule extractor reads such a fact and the question
// templates ask it; both read this one list.
var ObjectPreps = map[string]bool{"with": true, "in": true, "into": true, "under": true, "to": true, "from": true,
	"using": true, "via": true}

// notNames are the words that stand between "the" and such a noun without
// naming anything: "the following command", "the same option".
var notNames = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`following same above below previous next default new old first last second
given specified appropriate relevant corresponding other additional main special particular optional required
necessary single only whole entire usual standard current latter former respective original actual config
configuration shell program user system`) {
		notNames[w] = true
	}
}

// NotName reports a lower-case word that, between "the" and one of
// NamedKinds, names nothing ("following", "default").
func NotName(w string) bool { return notNames[w] }

// Acronym reports a word written in capitals, as an acronym is: "MTA",
// "DMARC", "HTTP2" (two to eight characters, a capital first).
func Acronym(w string) bool {
	if len(w) < 2 || len(w) > 8 {
		return false
	}
	for i, r := range w {
		if !(r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
