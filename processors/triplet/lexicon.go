package triplet

import "strings"

// verbKind tells how a verb relates its subject to its object.
type verbKind int

const (
	// copula links the subject to a value: "X was $4.2 billion".
	copula verbKind = iota
	// measure moves or sets a quantity: "X rose to 4.1%", "X reached 12,400".
	measure
	// transitive acts on an object: "X acquired Y".
	transitive
)

// verbEntry is one verb form; multiword forms end in a particle ("rose to").
type verbEntry struct {
	words []string
	kind  verbKind
}

// lexicon maps the first word of a verb form to its entries, longest first.
// It is deliberately small: each verb is one the domain reports use for a
// fact worth asking about (RARE §5 prioritises metrics, operations and
// events in financial, economic and policy text).
var lexicon = buildLexicon()

func buildLexicon() map[string][]verbEntry {
	m := make(map[string][]verbEntry)
	add := func(kind verbKind, forms ...string) {
		for _, f := range forms {
			w := strings.Fields(f)
			m[w[0]] = append(m[w[0]], verbEntry{words: w, kind: kind})
		}
	}
	add(copula, "is", "are", "was", "were", "remains", "remain", "remained", "became", "becomes")
	for _, v := range []string{"rose", "rises", "fell", "falls", "grew", "grows", "climbed", "climbs",
		"increased", "increases", "decreased", "decreases", "declined", "declines", "dropped", "drops",
		"jumped", "jumps", "slipped", "slips", "eased", "eases", "rebounded", "surged", "amounted", "amounts",
		"edged", "expanded", "shrank", "contracted", "improved", "widened", "narrowed"} {
		add(measure, v+" to")
	}
	add(measure, "stood at", "stands at", "came in at", "settled at", "peaked at",
		"reached", "reaches", "totaled", "totals", "totalled", "averaged", "averages", "hit")
	add(transitive,
		"acquired", "acquires", "bought", "buys", "opened", "opens", "closed", "closes", "hired", "hires",
		"launched", "launches", "produced", "produces", "appointed", "appoints", "named", "names",
		"sold", "sells", "won", "wins", "signed", "signs", "completed", "completes", "reported", "reports",
		"posted", "posts", "recorded", "records", "employed", "employs", "introduced", "introduces",
		"released", "releases", "approved", "approves", "allocated", "allocates", "awarded", "awards",
		"disbursed", "disburses", "served", "serves", "funded", "funds", "built", "builds",
		"invested", "invests", "manufactured", "manufactures", "operated", "operates", "owned", "owns",
		"issued", "issues", "paid", "pays", "received", "receives", "elected", "elects",
		"promoted", "promotes", "raised", "raises", "cut", "cuts", "lowered", "lowers",
		"delivered", "delivers", "shipped", "ships", "added", "adds", "generated", "generates",
		"secured", "secures", "unveiled", "unveils", "exported", "exports", "imported", "imports",
		"trained", "trains", "assisted", "assists", "distributed", "distributes", "constructed",
		"created", "creates", "supported", "supports", "makes", "made", "runs", "ran",
		"has", "had", "merged with", "partnered with", "teamed up with")
	for k, es := range m {
		// Longest form first, so "rose to" is tried before any "rose".
		for i := 1; i < len(es); i++ {
			for j := i; j > 0 && len(es[j].words) > len(es[j-1].words); j-- {
				es[j], es[j-1] = es[j-1], es[j]
			}
		}
		m[k] = es
	}
	return m
}

// appointing verbs take a person as object; their tail is cut after the name.
var appointing = set("appointed", "appoints", "named", "names", "hired", "hires", "elected", "elects",
	"promoted", "promotes")

// blockers before a verb make the sentence modal, negated, infinitival or
// emphatic: not a plain statement of fact.
var blockers = set("will", "would", "could", "may", "might", "should", "can", "must", "to", "not",
	"did", "does", "do", "never", "cannot", "shall", "no")

// nounMarkers before a verb form turn it into a noun ("its sales", "the cut").
var nounMarkers = set("the", "a", "an", "its", "their", "his", "her", "our", "this", "that", "these",
	"those", "new", "first", "more", "fewer", "total")

// reporting verbs (and other clause-taking verbs) in the subject mean the
// sentence reports or predicts rather than states: skip it.
var reporting = set("said", "says", "say", "told", "noted", "notes", "stated", "states", "expects",
	"expect", "expected", "believes", "believe", "announced", "announces", "warned", "warns",
	"estimated", "estimates", "forecast", "forecasts", "projected", "projects", "argued", "argues",
	"claimed", "claims", "plans", "plan", "planned", "aims", "aimed", "hopes", "intends", "intended",
	"suggested", "suggests", "showed", "shows", "indicated", "indicates", "confirmed", "confirms")

// participleAdjectives are -ed words that modify nouns in subjects.
var participleAdjectives = set("adjusted", "combined", "based", "listed", "owned", "consolidated",
	"united", "limited", "unaudited", "audited", "reported", "expected", "estimated", "seasonally")

// introWords open an introductory phrase that ends at the first comma
// ("In Q3 2025, …", "According to the office, …").
var introWords = set("in", "during", "at", "on", "for", "after", "before", "by", "over", "meanwhile",
	"however", "also", "additionally", "separately", "according", "as", "following", "despite",
	"since", "overall", "elsewhere", "last", "earlier", "later", "moreover", "furthermore", "still",
	"nonetheless", "nevertheless", "then", "today", "yesterday", "within", "across", "under", "amid",
	"compared", "with", "while", "although", "though", "because", "when", "once", "if")

// pronouns and other words that make a subject useless as an entity.
var pronouns = set("it", "its", "they", "he", "she", "we", "i", "you", "this", "that", "these", "those",
	"which", "who", "there", "here", "one", "some", "many", "most", "all", "each", "both", "such",
	"none", "other", "others", "what", "whose")

// generic words open subjects that need a proper noun or a number to be
// specific ("Revenue was …" is not a fact about anything identifiable).
var generic = set("the", "a", "an", "its", "their", "our", "his", "her", "revenue", "revenues", "sales",
	"profit", "profits", "income", "growth", "inflation", "unemployment", "output", "production",
	"exports", "imports", "demand", "spending", "investment", "employment", "headcount", "margin",
	"company", "firm", "group", "bank", "program", "programme", "government", "ministry", "agency",
	"board", "management", "prices", "wages", "shares", "total", "net", "gross", "operating",
	"quarterly", "annual", "overall", "consumer", "core", "average", "median", "new", "gdp", "analysts",
	"officials", "staff", "economists", "investors", "customers", "funding", "costs", "debt", "rates")

// tailStops end an object phrase: prepositions, subordinators and time words
// that start a modifier rather than continue the object.
var tailStops = set("for", "as", "in", "on", "at", "during", "from", "to", "with", "by", "after",
	"before", "since", "amid", "following", "across", "under", "over", "through", "compared",
	"versus", "vs", "while", "because", "which", "who", "whom", "that", "when", "where", "although",
	"though", "including", "than", "despite", "against", "until", "via", "up", "down", "last", "this",
	"next", "earlier", "later", "year-on-year", "effective", "amid", "thanks", "due", "ahead",
	"bringing", "taking", "making", "driven", "led", "according", "marking", "compared")

// badTailStarts are words that cannot open a useful answer.
var badTailStarts = set("its", "their", "his", "her", "our", "my", "your", "it", "them", "him", "that",
	"this", "these", "those", "which", "who", "up", "down", "not", "to", "by", "also", "there",
	"itself", "themselves", "unchanged", "flat", "steady", "stable")

// adverbs that may sit between subject and verb or inside a phrasal verb.
func isAdverb(w string) bool {
	switch w {
	case "also", "then", "now", "already", "still", "further", "again", "just", "once":
		return true
	}
	return len(w) > 4 && strings.HasSuffix(w, "ly") && !notAdverbs[w]
}

// notAdverbs end in -ly but are nouns or adjectives.
var notAdverbs = set("supply", "apply", "family", "italy", "july", "monthly", "quarterly", "weekly",
	"daily", "yearly", "early", "only", "likely", "holy", "assembly", "anomaly", "rally", "ally")

// set turns words into a set, for the word lists of the lexicon.
func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
