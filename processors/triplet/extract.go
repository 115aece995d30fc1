package triplet

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/text"
)

// Triple is one subject–verb–object fact read from a sentence. Head, Relation
// and Tail are verbatim substrings of Sentence.Text except that Relation is
// lower-cased and drops adverbs and auxiliaries ("has appointed" → "appointed",
// "rose sharply to" → "rose to").
type Triple struct {
	Head, Relation, Tail string
	Sentence             Sentence
}

// Extract returns the triples of the declarative sentences of a chunk's
// text, at most one per sentence (its main clause). It is the offline stand-in for the LLM
// extractor of RARE §4.2: a rule subject–verb–object reading with a small
// part-of-speech lexicon instead of a tagger, tuned for precision.
func Extract(chunkText string) []Triple {
	var out []Triple
	for _, s := range Sentences(chunkText) {
		if t, ok := readSentence(s.Text); ok {
			t.Sentence = s
			out = append(out, t)
		}
	}
	return out
}

// word is a whitespace-separated token of a sentence.
type word struct {
	cs, ce int    // byte span of the core: the token without outer punctuation
	lower  string // lower-cased core
	comma  bool   // a comma follows the core
	stop   bool   // a colon, semicolon, dash or closing bracket follows
	open   bool   // the token opens a bracket or quotation
}

func words(s string) []word {
	var out []word
	for i := 0; i < len(s); {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if i == j {
			break
		}
		cs, ce := i, j
		for cs < ce {
			r, n := utf8.DecodeRuneInString(s[cs:])
			if !strings.ContainsRune("\"“‘'([*_", r) {
				break
			}
			cs += n
		}
		for ce > cs {
			r, n := utf8.DecodeLastRuneInString(s[cs:ce])
			if !strings.ContainsRune(".,;:!?\"”’')]*_—–", r) {
				break
			}
			ce -= n
		}
		core := s[cs:ce]
		if ce < j && s[ce] == '.' && text.IsAcronym(core) {
			ce++ // keep the final point of a dotted acronym: "U.S."
			core = s[cs:ce]
		}
		trail := s[ce:j]
		out = append(out, word{
			cs: cs, ce: ce, lower: strings.ToLower(core),
			comma: strings.Contains(trail, ","),
			stop:  strings.ContainsAny(trail, ";:)]—–"),
			open:  cs > i && strings.ContainsAny(s[i:cs], "(["),
		})
		i = j
	}
	return out
}

// isLower reports whether the word starts with a lower-case letter: verbs in
// mid-sentence do, names do not, which keeps "Sells Group" out of the verbs.
func (w word) isLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s[w.cs:w.ce])
	return unicode.IsLower(r)
}

func (w word) isCapital(s string) bool {
	r, _ := utf8.DecodeRuneInString(s[w.cs:w.ce])
	return unicode.IsUpper(r)
}

func (w word) hasDigit(s string) bool { return strings.IndexFunc(s[w.cs:w.ce], unicode.IsDigit) >= 0 }

// readSentence finds subject, verb and object of one sentence.
func readSentence(s string) (Triple, bool) {
	ws := words(s)
	if len(ws) < 3 {
		return Triple{}, false
	}
	if strings.HasSuffix(strings.TrimSpace(s), "?") {
		return Triple{}, false // a question states nothing
	}
	// Drop introductory phrases ("In Q3 2025, …"). Without a comma the
	// phrase's end is a guess, so the sentence is skipped.
	start := 0
	for n := 0; n < 3 && start < len(ws) && introWords[ws[start].lower]; n++ {
		c := start
		for c < len(ws) && !ws[c].comma {
			c++
		}
		if c >= len(ws)-1 {
			return Triple{}, false
		}
		start = c + 1
	}
	vi, vend, relation, kind, headEnd, ok := findVerb(s, ws, start)
	if !ok {
		return Triple{}, false
	}
	if headEnd < 0 {
		headEnd = vi
	}
	for headEnd > start+1 && ws[headEnd-1].isLower(s) && isAdverb(ws[headEnd-1].lower) {
		headEnd--
	}
	head, ok := readHead(s, ws[start:headEnd])
	if !ok {
		return Triple{}, false
	}
	tail, ok := readTail(s, ws, vend, kind, appointing[relation])
	if !ok {
		return Triple{}, false
	}
	return Triple{Head: head, Relation: relation, Tail: tail}, true
}

// findVerb returns the main verb: the first lexicon verb outside appositives
// ("Acme Corp, which acquired Beta, opened …" skips "acquired"). headEnd is
// the end of the subject when an appositive follows it, else -1.
func findVerb(s string, ws []word, start int) (vi, vend int, relation string, kind verbKind, headEnd int, ok bool) {
	headEnd = -1
	inApp := false
	for i := start; i < len(ws) && i < start+24; i++ {
		w := ws[i]
		if inApp {
			if w.comma {
				inApp = false
			}
			continue
		}
		if i > start && w.isLower(s) {
			prev := ws[i-1]
			if end, rel, k, found := matchVerb(s, ws, i); found && !nounMarkers[prev.lower] && !strings.HasSuffix(prev.lower, "'s") {
				if blockers[prev.lower] || (end < len(ws) && ws[end].lower == "not") {
					return 0, 0, "", 0, 0, false
				}
				return i, end, rel, k, headEnd, true
			}
			if reporting[w.lower] || w.lower == "which" || w.lower == "who" || w.lower == "that" || w.lower == "whose" || blockers[w.lower] {
				return 0, 0, "", 0, 0, false
			}
			if strings.HasSuffix(w.lower, "ed") && !participleAdjectives[w.lower] {
				return 0, 0, "", 0, 0, false // an unknown verb: we cannot tell what it relates
			}
		}
		if w.stop || w.open {
			return 0, 0, "", 0, 0, false
		}
		if w.comma {
			if headEnd < 0 {
				headEnd = i + 1
			}
			inApp = true
		}
	}
	return 0, 0, "", 0, 0, false
}

// matchVerb matches a lexicon form at ws[i], allowing an auxiliary before a
// participle ("has appointed") and one adverb inside a phrasal form ("rose
// sharply to"). It returns the index after the form.
func matchVerb(s string, ws []word, i int) (end int, relation string, kind verbKind, ok bool) {
	w := ws[i]
	if (w.lower == "has" || w.lower == "have" || w.lower == "had") && i+1 < len(ws) && ws[i+1].isLower(s) && !w.comma {
		if e, rel, k, found := matchForm(s, ws, i+1); found && rel != "has" && rel != "had" {
			return e, rel, k, true
		}
	}
	return matchForm(s, ws, i)
}

func matchForm(s string, ws []word, i int) (int, string, verbKind, bool) {
	for _, e := range lexicon[ws[i].lower] {
		j := i + 1
		matched := true
		for _, part := range e.words[1:] {
			if j < len(ws) && isAdverb(ws[j].lower) && !ws[j-1].comma {
				j++
			}
			if j >= len(ws) || ws[j].lower != part || ws[j-1].comma {
				matched = false
				break
			}
			j++
		}
		if matched {
			return j, strings.Join(e.words, " "), e.kind, true
		}
	}
	return 0, "", 0, false
}

// readHead checks that the subject names something specific and returns it.
func readHead(s string, hs []word) (string, bool) {
	if len(hs) == 0 || len(hs) > 12 || pronouns[hs[0].lower] || introWords[hs[0].lower] {
		return "", false
	}
	head := s[hs[0].cs:hs[len(hs)-1].ce]
	if strings.ContainsAny(head, "\"“”():;[]") {
		return "", false
	}
	specific := hs[0].isCapital(s) && !generic[hs[0].lower]
	for _, w := range hs {
		if w.hasDigit(s) || (w.isCapital(s) && w.cs != hs[0].cs) {
			specific = true
		}
	}
	return head, specific
}

// readTail reads the object phrase from ws[j]: it ends at a clause or
// modifier boundary (a comma, a preposition, a subordinator, a bracket), so
// "$4.2 billion, up 8% from a year earlier" yields "$4.2 billion".
func readTail(s string, ws []word, j int, kind verbKind, person bool) (string, bool) {
	if j >= len(ws) || badTailStarts[ws[j].lower] {
		return "", false
	}
	if kind == copula && ws[j].isLower(s) {
		l := ws[j].lower
		if strings.HasSuffix(l, "ed") || strings.HasSuffix(l, "en") || strings.HasSuffix(l, "ing") {
			return "", false // passive or progressive: the object is elsewhere
		}
	}
	last := j
	for k := j; k < len(ws); k++ {
		w := ws[k]
		if k > j {
			if w.open || (tailStops[w.lower] && w.isLower(s)) {
				break
			}
			if (w.lower == "and" || w.lower == "or" || w.lower == "but") && clauseFollows(s, ws[k+1:]) {
				break
			}
		}
		last = k
		if w.comma || w.stop {
			break
		}
	}
	if person {
		// "appointed Maria Lopez chief financial officer": the answer is the
		// name, the capitalised run at the start.
		run := 0
		for k := j; k <= last && ws[k].isCapital(s); k++ {
			run++
			if ws[k].comma {
				break
			}
		}
		if run >= 2 {
			last = j + run - 1
		}
	}
	for last > j && trailingFiller[ws[last].lower] {
		last--
	}
	if last-j+1 > 12 {
		return "", false
	}
	tail := strings.Trim(s[ws[j].cs:ws[last].ce], "\"“”'’ ")
	if tail == "" {
		return "", false
	}
	content, fact := false, false
	for _, w := range ws[j : last+1] {
		if !nounMarkers[w.lower] && !trailingFiller[w.lower] {
			content = true
		}
		if w.hasDigit(s) || w.isCapital(s) {
			fact = true
		}
	}
	if kind != transitive && !fact {
		return "", false // "was strong" is an opinion, not a value to ask for
	}
	return tail, content
}

// clauseFollows reports whether a coordinated clause (one with its own verb)
// follows, as in "opened 12 stores and closed 3".
func clauseFollows(s string, rest []word) bool {
	for _, w := range rest {
		if w.isLower(s) && len(lexicon[w.lower]) > 0 {
			return true
		}
	}
	return false
}

var trailingFiller = set("and", "or", "but", "of", "the", "a", "an")

// isSpace is the whitespace between the words of a sentence.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
