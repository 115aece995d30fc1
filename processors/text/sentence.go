package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence is a sentence of a text: Text is exactly text[Start:End], without
// the whitespace around it.
type Sentence struct {
	Text       string
	Start, End int
}

// Layout says how the lines of a text bear on its sentences.
type Layout uint8

const (
	// Wrapped: a line break ends a sentence unless it sits inside a
	// hard-wrapped one (the line ends in a letter, a digit or a comma and
	// the next line starts in lower case). Every non-blank line belongs to
	// a sentence, so headings, table rows and code come out as sentences of
	// their own. For callers that must account for all of a text: answer
	// removal rebuilds a context from the sentences it keeps, and cutting a
	// wrapped sentence in two would leave half of an answer behind.
	Wrapped Layout = iota
	// EveryLine: every line break ends a sentence, wrapped or not. For
	// callers that only need candidate sentences and read chunks whose
	// lines are table rows, list items and headings as often as prose (the
	// built-in lexical reader, whose answers must not change under it).
	EveryLine
	// Prose: only running Markdown prose holds sentences. Blank lines,
	// headings, table rows, thematic breaks, fenced code (see Lines) and
	// list or quote markers end a sentence; headings, tables, thematic
	// breaks and code yield none, and the lines of a paragraph are read as
	// one. For callers that read facts from sentences (triplet extraction).
	Prose
)

// SentenceOptions are the choices of Sentences. The zero value splits
// plainly with the Wrapped layout.
type SentenceOptions struct {
	Layout Layout
	// Strict asks for evidence that a new sentence starts before ending one
	// (see Sentences). A wrong split costs an extractor a wrong fact, while
	// a missed split only costs it a fact; for removal and reading the
	// cost is the other way round, and they split plainly.
	Strict bool
}

// Sentences splits text into sentences. The layout (see Layout) decides
// which blocks of the text hold sentences; within a block a sentence may end
// after a run of '.', '!' or '?', any closing quotes or brackets (" ' ” ’ ) ]
// »), and whitespace. What decides whether it does:
//
// A plain split ends a sentence there unless the last mark is a period that
// directly follows an abbreviation on the list ("Dr.", "Inc.", "U.S.",
// "Jan.") or a single letter (an initial, "J. Smith").
//
// A strict split also needs the next word to open a sentence: it starts
// with a capital, a digit, a currency sign or an opening quote or bracket.
// A quoted sentence stays inside its reporting one (`He said "Demand was
// high." Then …` splits only after the closing quote); a period right
// before the whitespace ends nothing after a title, a month, "e.g." or a
// capital initial, and after a name suffix ("Inc.") or a dotted acronym
// ("U.S.") the next word decides: "Acme Co. Ltd." and "the U.S. Treasury"
// continue, "… at Acme Inc. The company …" and "… in the U.S. The economy
// …" end.
//
// Decimals ("4.2") never split, because no whitespace follows the point.
// Time and allocations are linear in the length of text.
func Sentences(text string, o SentenceOptions) []Sentence {
	split := splitPlain
	if o.Strict {
		split = splitStrict
	}
	var out []Sentence
	eachBlock(text, o.Layout, func(start, end int) {
		out = split(out, text, start, end)
	})
	return out
}

// eachBlock calls f with the byte spans of the blocks of text that hold
// sentences under layout, in order.
func eachBlock(text string, layout Layout, f func(start, end int)) {
	start, end := -1, -1
	closeBlock := func() {
		if start >= 0 {
			f(start, end)
		}
		start = -1
	}
	var last rune // last non-space rune of the block's last line (Wrapped)
	for l := range Lines(text) {
		t := strings.TrimSpace(l.Text)
		switch layout {
		case EveryLine:
			f(l.Start, l.End)
		case Prose:
			switch {
			case l.Code, t == "", strings.HasPrefix(t, "#"), strings.HasPrefix(t, "|"),
				strings.HasPrefix(t, "---"), strings.HasPrefix(t, "==="):
				closeBlock()
			default:
				lead := len(l.Text) - len(strings.TrimLeftFunc(l.Text, unicode.IsSpace))
				if m := listMarker(t); m > 0 {
					closeBlock()
					lead += m
				}
				if start < 0 {
					start = l.Start + lead
				}
				end = l.Start + len(strings.TrimRightFunc(l.Text, unicode.IsSpace))
			}
		default: // Wrapped
			if t == "" {
				closeBlock()
				continue
			}
			if start >= 0 {
				first, _ := utf8.DecodeRuneInString(t)
				if !(unicode.IsLetter(last) || unicode.IsDigit(last) || last == ',') || !unicode.IsLower(first) {
					closeBlock()
				}
			}
			if start < 0 {
				start = l.Start
			}
			end = l.End
			last, _ = utf8.DecodeLastRuneInString(t)
		}
	}
	closeBlock()
}

// listMarker returns the length of a list or quote marker opening t ("- ",
// "* ", "12. ", "> ") with the spaces after it, or 0.
func listMarker(t string) int {
	for _, m := range []string{"- ", "* ", "+ ", "> "} {
		if strings.HasPrefix(t, m) {
			return len(m) + len(t[len(m):]) - len(strings.TrimLeft(t[len(m):], " "))
		}
	}
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return i + 2
	}
	return 0
}

// appendSentence appends text[s:e] without the whitespace around it, unless
// nothing is left.
func appendSentence(out []Sentence, text string, s, e int) []Sentence {
	seg := text[s:e]
	trimmed := strings.TrimLeftFunc(seg, unicode.IsSpace)
	s += len(seg) - len(trimmed)
	e = s + len(strings.TrimRightFunc(trimmed, unicode.IsSpace))
	if s < e {
		out = append(out, Sentence{Text: text[s:e], Start: s, End: e})
	}
	return out
}

func isTerminator(c byte) bool { return c == '.' || c == '!' || c == '?' }

// skipClosers returns the position after the closing quotes and brackets
// that start at text[i:end].
func skipClosers(text string, i, end int) int {
	for i < end {
		r, n := utf8.DecodeRuneInString(text[i:end])
		if !strings.ContainsRune(`"'”’)]»`, r) {
			break
		}
		i += n
	}
	return i
}

// skipSpace returns the position after the whitespace that starts at
// text[i:end].
func skipSpace(text string, i, end int) int {
	for i < end {
		r, n := utf8.DecodeRuneInString(text[i:end])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}

// wordBefore returns the word that before ends with, without the opening
// quotes and brackets in front of it: the word a period right after before
// would close. It is empty when before ends in whitespace ("Dr ." is no
// abbreviation). It searches from the end: before runs from the start of the
// sentence, and splitting all of it into words at every period made
// splitting quadratic in the sentence length.
func wordBefore(before string) string {
	start := 0
	if i := strings.LastIndexFunc(before, unicode.IsSpace); i >= 0 {
		_, n := utf8.DecodeRuneInString(before[i:])
		start = i + n
	}
	return strings.TrimLeft(before[start:], `"“'‘([`)
}

// splitPlain appends the sentences of the block text[start:end] under the
// plain rule.
func splitPlain(out []Sentence, text string, start, end int) []Sentence {
	seg := start
	for i := start; i < end; i++ {
		c := text[i]
		if !isTerminator(c) {
			continue
		}
		j := skipClosers(text, i+1, end)
		if r, _ := utf8.DecodeRuneInString(text[j:end]); j < end && !unicode.IsSpace(r) {
			continue // no whitespace after: "4.2", "e-mail.com", "?!"
		}
		if c == '.' && abbreviationBefore(text[seg:i]) {
			continue
		}
		out = appendSentence(out, text, seg, j)
		seg = j
		i = j - 1
	}
	return appendSentence(out, text, seg, end)
}

// abbreviationBefore reports whether a period right after before closes an
// abbreviation on the list or an initial (a single letter), so that under
// the plain rule it ends no sentence.
func abbreviationBefore(before string) bool {
	w := strings.ToLower(wordBefore(before))
	return abbreviations[w] != notAbbrev || utf8.RuneCountInString(w) == 1 && unicode.IsLetter([]rune(w)[0])
}

// splitStrict appends the sentences of the block text[start:end] under the
// strict rule.
func splitStrict(out []Sentence, text string, start, end int) []Sentence {
	in := quoted(text, start, end)
	seg := start
	for i := start; i < end; i++ {
		c := text[i]
		if !isTerminator(c) {
			continue
		}
		run := i + 1 // the end of the run of marks that starts at i
		for run < end && isTerminator(text[run]) {
			run++
		}
		// If the run does not end a sentence at its first mark, it does
		// not at a later one either (they share what follows, and only a
		// last, single period gets the extra period test): skip to its
		// end, which keeps a long run of marks linear.
		if !strictEnds(text, start, end, i, run, in) {
			i = run - 1
			continue
		}
		k := skipClosers(text, run, end)
		n := skipSpace(text, k, end)
		out = appendSentence(out, text, seg, k)
		seg = n
		i = n - 1
	}
	return appendSentence(out, text, seg, end)
}

// strictEnds reports whether, under the strict rule, the block
// text[start:end] has a sentence end at the mark text[i], the first of the
// marks text[i:run]. in is quoted(text, start, end).
func strictEnds(text string, start, end, i, run int, in []bool) bool {
	if in[i-start] {
		// Inside a quotation only the last sentence can end the reporting
		// one: `He said "Demand was high." Then …`.
		r, _ := utf8.DecodeRuneInString(text[run:end])
		if run >= end || (r != '"' && r != '”') || in[run-start] {
			return false
		}
	}
	k := skipClosers(text, run, end)
	if k >= end {
		return false
	}
	n := skipSpace(text, k, end)
	if n == k || n >= end {
		return false
	}
	next, _ := utf8.DecodeRuneInString(text[n:end])
	if !(unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune("\"“'‘$€£(", next)) {
		return false
	}
	if text[i] == '.' && k == i+1 && !periodEnds(text[start:i], nextWord(text[n:end])) {
		return false
	}
	return true
}

// quoted marks the byte positions of text[start:end] that lie inside a
// quotation. A quote mark left open at the end of the block is ignored, so a
// stray mark cannot swallow the rest of the paragraph.
func quoted(text string, start, end int) []bool {
	in := make([]bool, end-start)
	open := -1
	for i := start; i < end; {
		r, n := utf8.DecodeRuneInString(text[i:end])
		switch {
		case r == '“' && open < 0:
			open = i
		case r == '”' && open >= 0, r == '"' && open >= 0:
			for j := open; j < i; j++ {
				in[j-start] = true
			}
			open = -1
		case r == '"':
			open = i
		}
		i += n
	}
	return in
}

// periodEnds decides under the strict rule whether a period right before
// whitespace closes a sentence, given the text before it and the word after
// it.
func periodEnds(before, next string) bool {
	w := wordBefore(before)
	if utf8.RuneCountInString(w) == 1 && unicode.IsUpper([]rune(w)[0]) {
		return false // an initial: "J. Smith"
	}
	switch abbreviations[strings.ToLower(w)] {
	case leading:
		return false
	case nameSuffix:
		// A company name rarely continues after its legal suffix: "Acme
		// Corp. Acme Corp agreed …" ends, "Acme Co. Ltd." does not.
		return !orgContinuations[strings.ToLower(next)]
	}
	if IsAcronym(w) {
		// "The U.S. Treasury" continues; "… in the U.S. The economy …" ends.
		return starters[strings.ToLower(next)]
	}
	return true
}

// nextWord returns the letters that open s, after any opening quotes or
// brackets.
func nextWord(s string) string {
	s = strings.TrimLeft(s, `"“'‘([`)
	if i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
		return s[:i]
	}
	return s
}

// wordSet turns a space-separated list into a set.
func wordSet(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// orgContinuations may follow a legal suffix inside one name.
var orgContinuations = wordSet("ltd limited holdings group llc plc co corp inc sa ag nv bv gmbh")

// starters are words that typically open an English sentence.
var starters = wordSet(`the a an it its this that these those they their he she his her we our
	in on at for but and however meanwhile during after before as by while although despite overall
	also separately additionally according since with from there following under last next revenue
	sales shares`)
