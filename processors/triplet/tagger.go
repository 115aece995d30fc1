package triplet

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/jdkato/prose/v3/tag"
	"github.com/jdkato/prose/v3/tokenize"
)

// tok is a tagged token of a sentence: Text is exactly sentence[start:end].
type tok struct {
	text, lower string
	tag         string // Penn Treebank tag, after the corrections of retag
	start, end  int
	// name marks a lower-case word read as a name: a program or command
	// that opens a sentence ("bc is an arbitrary precision …").
	name bool
}

// named: a capitalized word, or one read as a name.
func (t tok) named() bool { return t.name || isCapital(t.text) }

// The tokenizer and the averaged-perceptron tagger of prose (model embedded
// in the module, loaded once per process, safe for concurrent use).
var (
	tokenizer = tokenize.New()
	tagger    = sync.OnceValue(func() *tag.Tagger {
		t, err := tag.New()
		if err != nil {
			// The model is compiled into the binary: failing to decode
			// it is a broken build, not a run-time condition.
			panic("triplet: cannot load the part-of-speech model: " + err.Error())
		}
		return t
	})
)

// currencies are ISO codes written before amounts ("NOK 412 million"); they
// are tagged like "$" so that an amount reads as one phrase.
var currencies = set("nok", "eur", "usd", "gbp", "sek", "dkk", "chf", "jpy", "cny", "cad", "aud", "isk", "pln")

// magnitudes continue a number: "412 million".
var magnitudes = set("million", "billion", "trillion", "thousand", "hundred", "m", "bn", "mn")

// abbreviations keep their final point at the end of a sentence.
var abbreviations = set("inc", "corp", "ltd", "co", "jr", "sr", "dr", "mr", "mrs", "ms", "st", "no", "vs", "etc", "plc")

// months name calendar months.
var months = set("january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december")

// tagSentence tokenizes and tags one sentence, with offsets into s.
func tagSentence(s string) []tok {
	raw := tokenizer.Tokenize(plainApostrophes(s))
	tagger().TagTokens(raw)
	out := make([]tok, 0, len(raw)+1)
	for i, r := range raw {
		t := tok{text: r.Text, lower: strings.ToLower(r.Text), tag: r.Tag, start: r.Start, end: r.End()}
		if i == len(raw)-1 && len(t.text) > 1 && strings.HasSuffix(t.text, ".") && !strings.Contains(t.text[:len(t.text)-1], ".") &&
			!abbreviations[strings.TrimSuffix(t.lower, ".")] {
			// "… is Jane Doe." : the tokenizer keeps the point of a short
			// capitalized word, as of an abbreviation ("Inc.").
			t.text, t.lower, t.end = t.text[:len(t.text)-1], t.lower[:len(t.lower)-1], t.end-1
			out = append(out, t, tok{text: ".", lower: ".", tag: ".", start: t.end, end: t.end + 1})
			continue
		}
		out = append(out, t)
	}
	retag(out)
	return out
}

// plainApostrophes writes the typographic apostrophe of HTML and typeset
// text ("Python’s", "users’", "don’t") as the tokenizer knows it, keeping
// every byte offset: the three bytes of "’" become two spaces and "'", so
// that "Python’s" is read as "Python" and the possessive "'s", and "don’t"
// as "do" and "n't". Spans are still cut from the original text.
func plainApostrophes(s string) string {
	const curly = "\u2019"
	if !strings.Contains(s, curly) {
		return s
	}
	b := []byte(s)
	for i := 0; i+len(curly) <= len(b); i++ {
		if string(b[i:i+len(curly)]) != curly {
			continue
		}
		if i > 0 && b[i-1] == 'n' && i+len(curly) < len(b) && b[i+len(curly)] == 't' {
			copy(b[i-1:], "  n'") // "don’t" → "do  n't"
		} else {
			copy(b[i:], "  '")
		}
		i += len(curly) - 1
	}
	return string(b)
}

// retag fixes the tags the news-trained model gets wrong on the figures of
// reports: currency codes, magnitudes, percentages and months.
func retag(ts []tok) {
	for i := range ts {
		t := &ts[i]
		switch {
		case currencies[t.lower] && t.text == strings.ToUpper(t.text) && i+1 < len(ts) && isNumber(ts[i+1].text):
			t.tag = "$"
		case magnitudes[t.lower] && i > 0 && isNumber(ts[i-1].text):
			t.tag = "CD"
		case t.tag == "$" && isCapital(t.text) && len(t.text) > 1 && !currencies[t.lower]:
			t.tag = "NNP" // "Quillpad/$ 9": a name before a number, not a currency
		case t.text == "%":
			t.tag = "NN"
		case isNumber(t.text):
			t.tag = "CD"
		case months[t.lower] && isCapital(t.text):
			t.tag = "NNP"
		case versionedName(t.text):
			t.tag = "NNP" // "Nettle-3.5.1", read as an adjective or a number by the model
		case isCapital(t.text) && !functionWords[t.lower] && i+1 < len(ts) && (ts[i+1].tag == "NNP" || ts[i+1].tag == "NNPS" || ts[i+1].tag == "POS") &&
			t.tag != "DT" && t.tag != "PRP$" && t.tag != "NNP" && t.tag != "NNPS":
			t.tag = "NNP" // "Northwind Robotics", read "Northwind/IN" by the model
		case numberWords[t.lower] && t.tag != "CD" && i+1 < len(ts) && (isNoun(ts[i+1].tag) || isAdj(ts[i+1].tag)) && (i == 0 || ts[i-1].lower != "the"):
			t.tag = "CD" // "ten/JJ Linux architectures": a count the model read as an adjective
		case isAdj(t.tag) && isCapital(t.text) && !functionWords[t.lower] && t.text != strings.ToUpper(t.text) && i+1 < len(ts) &&
			(i > 0 && (isNoun(ts[i+1].tag) && ts[i+1].tag != "NNP" || ts[i+1].tag == "CD") || i == 0 && ts[i+1].tag == "CD"):
			t.tag = "NNP" // "Debian/JJ 9", "the Debian/JJ archive": a name the model read as an adjective
		case t.tag == "JJ" && i > 0 && ts[i-1].tag == "DT" && (i+1 == len(ts) || ts[i+1].tag == "WDT" || ts[i+1].tag == "." || ts[i+1].tag == ":"):
			t.tag = "NN" // "a C-library/JJ that …": an article and no noun after, the word is the noun
		case t.tag == "RB" && i > 0 && (ts[i-1].lower == "a" || ts[i-1].lower == "an" || ts[i-1].lower == "the") && i+1 < len(ts) &&
			(isAdj(ts[i+1].tag) || isNoun(ts[i+1].tag) || ts[i+1].tag == "VBN") && !strings.HasSuffix(t.lower, "ly") && !degreeAdverbs[t.lower]:
			t.tag = "JJ" // "a fast/RB distributed system": after an article, an adjective
		case t.tag == "JJ" && strings.HasSuffix(t.lower, "ed") && (strings.HasPrefix(t.lower, "co-") || strings.HasPrefix(t.lower, "re-")) && i > 0 && strings.HasPrefix(ts[i-1].tag, "NNP"):
			t.tag = "VBD" // "Solberg co-founded Northwind"
		}
	}
}

// degreeAdverbs grade or time the word after them ("a very fast system",
// "an already formatted copy"): adverbs even after an article.
var degreeAdverbs = set("very", "too", "so", "more", "most", "less", "least", "quite", "rather", "fairly", "pretty",
	"much", "far", "even", "just", "not", "also", "only", "still", "well", "as", "almost", "nearly", "already",
	"always", "never", "ever", "once", "often", "yet", "soon")

// numberWords are counts written as words; "one" is left out, it is as
// often a pronoun ("one of the …").
var numberWords = set("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
	"thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty",
	"fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "dozen")

// functionWords are capitalized at the start of a sentence but are never
// names.
var functionWords = set("the", "a", "an", "in", "on", "at", "for", "by", "with", "from", "to", "of", "and",
	"or", "but", "as", "after", "before", "since", "during", "under", "over", "this", "that", "these",
	"those", "its", "their", "our", "his", "her", "it", "they", "we", "he", "she", "if", "when", "while",
	"because", "although", "though", "each", "every", "all", "some", "no", "not", "also", "then", "there",
	"here", "what", "which", "who", "whom", "whose", "where", "how", "why", "is", "was", "are", "were")

// startsWithVerb reports whether the sentence opens with a verb once its
// capital is taken away: "Fix performance issue …", "Adds support …",
// "Improve …". The tagger reads a capitalized first word as a proper noun,
// so the first word is tagged again in lower case.
func startsWithVerb(ts []tok) bool {
	if len(ts) == 0 {
		return false
	}
	first := ts[0].text
	if !isCapital(first) || first == strings.ToUpper(first) && len(first) > 1 {
		return false
	}
	if len(ts) > 1 && (ts[1].lower == "is" || ts[1].lower == "was" || ts[1].lower == "has") {
		return false // "Sed is a non-interactive editor": no instruction goes on with "is"
	}
	if imperatives[ts[0].lower] || imperatives[strings.TrimSuffix(ts[0].lower, "s")] || imperatives[strings.TrimSuffix(ts[0].lower, "es")] ||
		descriptionVerbs[ts[0].lower] {
		return len(ts) < 2 || !isCapital(ts[1].text) || ts[1].tag == "DT"
	}
	words := make([]string, 0, 6)
	words = append(words, ts[0].lower)
	for _, t := range ts[1:min(len(ts), 6)] {
		words = append(words, t.text)
	}
	g := tagger().Tag(words)
	return strings.HasPrefix(g[0].Tag, "VB") && ts[0].tag != "DT" && !isProperRun(ts)
}

// isProperRun: two capitalized words open the sentence, as names do
// ("Make Corp"), so the first is not a verb.
func isProperRun(ts []tok) bool {
	return len(ts) > 1 && isCapital(ts[1].text) && strings.HasPrefix(ts[1].tag, "NNP")
}

// imperatives are the verbs that open changelog and release-note bullets.
var imperatives = set("add", "adjust", "allow", "apply", "avoid", "build", "bump", "change", "check",
	"clarify", "clean", "correct", "decode", "define", "deprecate", "disable", "document", "drop", "enable",
	"encode", "ensure", "expose", "extend", "fix", "handle", "hide", "ignore", "implement", "improve",
	"include", "install", "introduce", "keep", "let", "make", "mark", "merge", "move", "optimize",
	"prefer", "prevent", "print", "refactor", "reject", "remove", "rename", "reorder", "replace",
	"require", "reset", "resolve", "restore", "return", "reuse", "revert", "rewrite", "run", "see",
	"show", "simplify", "skip", "sort", "speed", "split", "stop", "support", "switch", "teach", "tell",
	"treat", "try", "turn", "update", "upgrade", "use", "validate", "warn", "bring", "give", "teach",
	"do", "get", "fail", "accept", "process", "properly", "correctly", "now", "also", "convert", "create",
	"delete", "generate", "load", "parse", "pass", "read", "write", "respect", "honor", "honour", "detect", "please")

func isCapital(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// isNumber: "1,240", "4.2", "18%", "2025", "3rd" is not.
func isNumber(s string) bool {
	s = strings.TrimSuffix(s, "%")
	if s == "" {
		return false
	}
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == ',' || r == '.':
		default:
			return false
		}
	}
	return digits > 0 && s[0] >= '0' && s[0] <= '9'
}
