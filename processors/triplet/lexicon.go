package triplet

import (
	"strings"
	"unicode"
)

// The word lists the patterns need on top of the tagger: which verbs move a
// quantity, which nouns name a role, which subjects are too generic to ask
// about. The tagger says what part of speech a word is; these lists say what
// a fact made of it means.

// measureVerbs move a quantity: "rose 18% to NOK 412 million".
var measureVerbs = set("rose", "rises", "rise", "fell", "falls", "fall", "grew", "grows", "grow", "climbed",
	"climbs", "increased", "increases", "decreased", "decreases", "declined", "declines", "dropped", "drops",
	"jumped", "jumps", "slipped", "slips", "eased", "eases", "rebounded", "surged", "expanded", "shrank",
	"contracted", "improved", "widened", "narrowed", "edged", "doubled", "gained", "gains", "slid")

// levelVerbs state a quantity: "reached NOK 37 million", "totaled".
var levelVerbs = set("reached", "reaches", "totaled", "totals", "totalled", "averaged", "averages", "hit",
	"amounted", "amounts", "stood", "stands", "came", "peaked", "settled")

// consequence words open a sentence that draws on the one before it.
var consequence = set("hence", "thus", "therefore", "consequently", "so", "otherwise", "instead", "accordingly")

// copulas link a subject to what it is.
var copulas = set("is", "are", "was", "were", "remains", "remain", "remained", "became", "becomes", "'s")

// reporting verbs take a clause, not an object: "said the robots would …".
var reporting = set("said", "says", "say", "told", "noted", "notes", "stated", "states", "expects",
	"expect", "expected", "believes", "believe", "announced", "announces", "warned", "warns",
	"estimated", "estimates", "forecast", "forecasts", "projected", "projects", "argued", "argues",
	"claimed", "claims", "plans", "plan", "planned", "aims", "aimed", "hopes", "intends", "intended",
	"suggested", "suggests", "showed", "shows", "indicated", "indicates", "confirmed", "confirms",
	"attributed", "means", "mean", "thinks", "think", "added", "explained", "wrote", "agreed", "agrees")

// appointing verbs take a person and a role: "appointed Anders Vik as …".
var appointing = set("appointed", "appoints", "named", "names", "hired", "hires", "elected", "elects",
	"promoted", "promotes")

// roleHeads end the noun phrases that name a position held by a person.
var roleHeads = set("executive", "officer", "director", "chair", "chairman", "chairwoman", "chairperson",
	"manager", "president", "founder", "co-founder", "head", "ceo", "cfo", "cto", "coo", "member",
	"secretary", "minister", "spokesperson", "spokesman", "spokeswoman", "governor", "mayor", "leader",
	"owner", "partner", "editor", "treasurer", "adviser", "advisor", "economist", "analyst", "engineer",
	"architect", "maintainer", "author", "lead", "principal", "dean", "professor", "commissioner")

// locatives are participles that place an organisation: "based in Trondheim".
var locatives = set("based", "headquartered", "located", "registered", "listed", "incorporated")

// orgWords end the names of organisations rather than people; a generic
// subject ("The company", "Revenue") is read as the latest one named.
var orgWords = set("corp", "corporation", "inc", "ltd", "llc", "plc", "co", "as", "asa", "ab", "ag", "gmbh",
	"sa", "nv", "bank", "group", "holdings", "company", "partners", "capital", "foods", "energy", "motors",
	"labs", "fund", "trust", "ministry", "agency", "office", "programme", "program", "initiative",
	"university", "institute", "council", "markets", "services", "logistics", "pharmaceuticals", "union",
	"board", "authority", "robotics", "systems", "technologies", "technology", "industries", "airlines",
	"sensorteknikk", "solutions", "networks", "software", "foundation", "project", "association")

// companyNouns stand for the organisation the text is about.
var companyNouns = set("company", "group", "firm", "bank", "business", "manufacturer", "maker", "authority",
	"agency", "programme", "program", "organisation", "organization", "corporation")

// metricNouns are figures of an organisation stated without its name in a
// report about it: "Revenue rose 18% …".
var metricNouns = set("revenue", "revenues", "sales", "turnover", "operating profit", "net profit", "profit",
	"net income", "operating income", "ebitda", "headcount", "order intake", "order backlog", "backlog",
	"operating margin", "net sales", "gross margin", "earnings", "operating revenue", "operating revenues",
	"container traffic", "cargo volume", "output", "production")

// commonStarts are common nouns that open sentences with a capital the
// tagger may take for a name ("Container traffic grew …").
var commonStarts = func() map[string]bool {
	m := set("container", "cargo", "construction", "deliveries", "inflation", "growth", "unemployment",
		"demand", "exports", "imports", "spending", "investment", "employment", "wages", "prices", "shares",
		"operating", "net", "gross", "total", "annual", "quarterly", "core", "average", "consumer", "order",
		"analysts", "officials", "economists", "investors", "customers", "staff", "workers", "employees",
		"users", "researchers", "shareholders", "engineers", "deliveries", "shipments", "sales")
	for k := range metricNouns {
		m[strings.Fields(k)[0]] = true
	}
	for k := range companyNouns {
		m[k] = true
	}
	return m
}()

// badHeads are words a subject may not start with.
var badHeads = set("it", "its", "they", "he", "she", "we", "i", "you", "this", "that", "these", "those",
	"which", "who", "there", "here", "one", "some", "many", "most", "all", "each", "both", "such", "none",
	"other", "others", "what", "whose", "our", "my", "your", "their", "his", "her", "any", "every", "no",
	"another", "several", "few", "below", "above", "following")

// quantifiers open a counted phrase and are left out of the answer: "a
// further 340 robots" is answered "340 robots".
var quantifiers = set("a", "an", "the", "further", "another", "additional", "extra", "total", "of")

// dayParts and other words of time that may end a figure: "2,000 robots a
// year", "620 items per hour".
var unitsOfTime = set("hour", "day", "week", "month", "year", "quarter", "minute", "second", "shift", "night")

// set turns words into a set, for the word lists of the lexicon.
func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// orgLike reports whether a name ends like an organisation's.
func orgLike(name string) bool {
	f := strings.Fields(strings.ToLower(name))
	return len(f) > 0 && orgWords[strings.Trim(f[len(f)-1], ".,")]
}

// englishFunction are the commonest function words of English; a line
// without one and without a final period is no English prose (a
// configuration line, a fragment).
var englishFunction = set("the", "a", "an", "of", "to", "and", "in", "is", "are", "was", "were", "be", "been", "for",
	"that", "with", "on", "as", "by", "it", "this", "from", "or", "can", "which", "not", "at", "has", "have", "had",
	"will", "into", "its", "their", "but", "if", "when", "than", "so", "there", "may", "also", "all", "any", "each",
	"no", "do", "does", "these", "those", "who", "what", "where", "how", "you", "your", "we", "our", "they")

// foreignFunction are function words of the other languages documentation
// is translated into (French, Spanish, Portuguese, German, Italian) and
// that are no English words: two of them and fewer English ones mark a
// sentence English rules must not read ("Fornece proxies reversos em massa
// … para mod_proxy").
var foreignFunction = set("de", "la", "le", "les", "des", "du", "et", "est", "une", "que", "em", "para", "com",
	"por", "não", "das", "der", "die", "und", "ist", "nicht", "mit", "el", "los", "las", "del", "y", "il", "di",
	"che", "per", "una", "sono", "à", "pour", "dans", "sur", "avec", "pas", "ou", "e", "ein", "eine", "zu", "von",
	"auf", "für", "werden", "wird", "como", "pelo", "pela", "os", "uma", "ao", "nos", "su", "sus", "lo", "se")

// notEnglish reports a sentence in another language: more of its function
// words than of English ones, and at least two.
func notEnglish(ts []tok) bool {
	e, f := 0, 0
	for _, t := range ts {
		// "e/ou" is two words
		for _, w := range strings.FieldsFunc(t.lower, func(r rune) bool { return !unicode.IsLetter(r) }) {
			if englishFunction[w] {
				e++
			} else if foreignFunction[w] {
				f++
			}
		}
	}
	return f >= 2 && f > e
}

// noEnglishFunction: not one English function word.
func noEnglishFunction(ts []tok) bool {
	for _, t := range ts {
		if englishFunction[t.lower] {
			return false
		}
	}
	return true
}
