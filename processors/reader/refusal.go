package reader

import (
	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/text"
)

// RefusalText is the refusal our prompts ask for and the built-in readers
// give (RARE Table 2: "returning 'no such info'"). It is the built-in
// readers' own constant, so that what they say and what the judge is shown
// to recognise cannot drift apart.
const RefusalText = provider.RefusalText

// wholeRefusals are answers that are refusals only when they are the whole
// answer: "unknown" alone is a refusal, "The Unknown Soldier" is not. They are
// written in text.Normalize's output form.
var wholeRefusals = map[string]bool{
	"":               true,
	"unknown":        true,
	"not known":      true,
	"nores":          true, // NO-RES, the refusal token of some RAG benchmarks
	"no res":         true,
	"no result":      true,
	"no answer":      true,
	"na":             true, // N/A
	"not available":  true,
	"not applicable": true,
	"no idea":        true,
}

// refusalPhrases are token runs that mark a refusal wherever they occur in an
// answer ("Sorry, I cannot answer that from the context."). Written in
// text.Tokens' output form: lowercase, no ASCII punctuation, no articles.
var refusalPhrases = [][]string{
	{"no", "such", "info"},
	{"no", "such", "information"},
	{"nores"},
	{"cannot", "answer"},
	{"can", "not", "answer"},
	{"cant", "answer"},
	{"unable", "to", "answer"},
	{"not", "able", "to", "answer"},
	{"cannot", "be", "answered"},
	{"cannot", "be", "determined"},
	{"cannot", "determine"},
	{"not", "enough", "information"},
	{"not", "enough", "info"},
	{"not", "enough", "context"},
	{"insufficient", "information"},
	{"insufficient", "context"},
	{"no", "relevant", "information"},
	{"no", "information", "about"},
	{"does", "not", "contain", "answer"},
	{"do", "not", "contain", "answer"},
	{"doesnt", "contain", "answer"},
	{"does", "not", "provide", "answer"},
	{"does", "not", "mention"},
	{"doesnt", "mention"},
	{"is", "not", "mentioned"},
	{"not", "provided", "in", "context"},
	{"i", "dont", "know"},
	{"i", "do", "not", "know"},
	{"answer", "is", "unknown"},
	{"answer", "is", "not", "available"},
}

// IsRefusal reports whether answer says the model cannot answer: empty
// (or punctuation only), "no such info", "NO-RES", "I cannot answer …",
// "not enough information", "unknown", and equivalents (docs/methods.md,
// Answer matching and refusal detection). Matching is on normalized tokens,
// so case, punctuation and articles do not matter, and a phrase must occur
// as whole words.
func IsRefusal(answer string) bool {
	n := text.Normalize(answer)
	if wholeRefusals[n] {
		return true
	}
	toks := text.Tokens(answer)
	for _, p := range refusalPhrases {
		if text.ContainsRun(toks, p) {
			return true
		}
	}
	return false
}
