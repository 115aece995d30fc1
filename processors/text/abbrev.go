package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbrevKind says what usually follows an abbreviation, which decides
// whether its period may also end a sentence.
type abbrevKind uint8

const (
	notAbbrev abbrevKind = iota
	// leading: a name, a number or an example follows ("Dr. Smith",
	// "No. 4", "Jan. 2025", "e.g. fuel"), so the period never ends a
	// sentence.
	leading
	// nameSuffix: it ends a company or personal name ("Acme Inc.",
	// "Smith Jr.") or a list ("etc."), so a sentence may well end with it.
	nameSuffix
	// dotted: a dotted acronym ("U.S."), which ends a sentence as often as
	// it opens a noun phrase.
	dotted
)

// abbreviations is the abbreviation list of the sentence splitter:
// lowercase, without the final period. Any listed abbreviation keeps a plain
// split from ending a sentence; a strict split looks at the word after a
// name suffix or a dotted acronym (see Sentences).
var abbreviations = func() map[string]abbrevKind {
	m := make(map[string]abbrevKind)
	for kind, words := range map[abbrevKind]string{
		leading: `mr mrs ms dr prof st sen rep gov gen col lt sgt capt rev hon messrs
			no nos vs fig figs approx est vol pp e.g i.e
			jan feb mar apr jun jul aug sep sept oct nov dec`,
		nameSuffix: `inc corp ltd co llc plc bros etc jr sr ag sa nv bv gmbh`,
		dotted:     `u.s u.k`,
	} {
		for _, w := range strings.Fields(words) {
			m[w] = kind
		}
	}
	return m
}()

// IsAcronym reports whether w is a dotted abbreviation such as "U.S", "e.g"
// or "a.m" (its final point already cut off): at least two parts of one or
// two letters each. "4.2" and "11.6%" are numbers, not acronyms.
func IsAcronym(w string) bool {
	parts := strings.Split(w, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if n := utf8.RuneCountInString(p); n == 0 || n > 2 || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			return false
		}
	}
	return true
}
