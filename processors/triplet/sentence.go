package triplet

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence is a sentence of a text: Text is exactly text[Start:End].
type Sentence struct {
	Text       string
	Start, End int
}

// Sentences splits text into sentences. Markdown structure is respected
// first: blank lines, headings, table rows, fences and list markers end a
// sentence, and headings, tables and code are not returned. Within prose a
// '.', '!' or '?' ends a sentence when it is followed by space and a capital,
// a digit, a currency sign or an opening quote, except
//   - inside a quotation (a quoted sentence stays inside its reporting one);
//   - after a title ("Dr.", "Mr.") or an initial ("J.");
//   - after a company suffix or dotted acronym ("Inc.", "Corp.", "U.S.")
//     unless the next word typically opens a sentence ("The", "It", "In").
//
// Decimals ("4.2") never split because no space follows the point.
func Sentences(text string) []Sentence {
	var out []Sentence
	for _, b := range proseBlocks(text) {
		out = append(out, splitBlock(text, b.start, b.end)...)
	}
	return out
}

type span struct{ start, end int }

// proseBlocks returns the spans of running prose: runs of lines that are not
// blank, headings, table rows or code. A list item starts a new block after
// its marker.
func proseBlocks(text string) []span {
	var out []span
	cur := span{-1, -1}
	closeCur := func() {
		if cur.start >= 0 {
			out = append(out, cur)
		}
		cur = span{-1, -1}
	}
	inFence := false
	for pos := 0; pos < len(text); {
		nl := strings.IndexByte(text[pos:], '\n')
		lineEnd, next := len(text), len(text)
		if nl >= 0 {
			lineEnd, next = pos+nl, pos+nl+1
		}
		line := text[pos:lineEnd]
		t := strings.TrimSpace(line)
		fence := strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
		switch {
		case fence || inFence:
			if fence {
				inFence = !inFence
			}
			closeCur()
		case t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "---") || strings.HasPrefix(t, "==="):
			closeCur()
		default:
			lead := len(line) - len(strings.TrimLeft(line, " \t"))
			if m := listMarker(t); m > 0 {
				closeCur()
				lead += m
			}
			if cur.start < 0 {
				cur.start = pos + lead
			}
			cur.end = pos + len(strings.TrimRightFunc(line, unicode.IsSpace))
		}
		pos = next
	}
	closeCur()
	return out
}

// listMarker returns the length of a list or quote marker opening t ("- ",
// "* ", "12. ", "> "), or 0.
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

// quoted marks the byte positions of text[start:end] that lie inside a
// quotation. A quote mark left open at the end of the block is ignored, so a
// stray mark cannot swallow the rest of the paragraph.
func quoted(text string, start, end int) []bool {
	in := make([]bool, end-start)
	open := -1
	for i := start; i < end; {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '“' && open < 0:
			open = i
		case r == '”' && open >= 0:
			for j := open; j < i; j++ {
				in[j-start] = true
			}
			open = -1
		case r == '"':
			if open < 0 {
				open = i
			} else {
				for j := open; j < i; j++ {
					in[j-start] = true
				}
				open = -1
			}
		}
		i += n
	}
	return in
}

func splitBlock(text string, start, end int) []Sentence {
	var out []Sentence
	in := quoted(text, start, end)
	segStart := start
	add := func(s, e int) {
		for s < e && isSpace(text[s]) {
			s++
		}
		for e > s && isSpace(text[e-1]) {
			e--
		}
		if s < e {
			out = append(out, Sentence{Text: text[s:e], Start: s, End: e})
		}
	}
	for i := start; i < end; i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		k := i + 1
		for k < end && (text[k] == '.' || text[k] == '!' || text[k] == '?') {
			k++
		}
		if in[i-start] {
			// Inside a quotation only the last sentence can end the
			// reporting one: `He said "Demand was high." Then …`.
			r, _ := utf8.DecodeRuneInString(text[k:])
			if k >= end || (r != '"' && r != '”') || in[k-start] {
				continue
			}
		}
		for k < end {
			r, n := utf8.DecodeRuneInString(text[k:])
			if r != '"' && r != '\'' && r != '”' && r != '’' && r != ')' && r != ']' {
				break
			}
			k += n
		}
		if k >= end {
			break
		}
		if !isSpace(text[k]) {
			continue
		}
		n := k
		for n < end && isSpace(text[n]) {
			n++
		}
		if n >= end {
			break
		}
		next, _ := utf8.DecodeRuneInString(text[n:])
		if !(unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune("\"“'‘$€£(", next)) {
			continue
		}
		if c == '.' && k == i+1 && !periodEnds(text[start:i], nextWord(text[n:end])) {
			continue
		}
		add(segStart, k)
		segStart = n
		i = n - 1
	}
	add(segStart, end)
	return out
}

// periodEnds decides whether a '.' closes a sentence, given the text before
// it and the word after it.
func periodEnds(before, next string) bool {
	w := before[strings.LastIndexFunc(before, unicode.IsSpace)+1:]
	w = strings.TrimLeft(w, "\"“'‘([")
	lw := strings.ToLower(w)
	if utf8.RuneCountInString(w) == 1 && unicode.IsUpper([]rune(w)[0]) {
		return false // an initial: "J. Smith"
	}
	if titles[lw] || lw == "e.g" || lw == "i.e" {
		return false
	}
	if suffixes[lw] {
		// A company name rarely continues after its legal suffix: "Acme
		// Corp. Acme Corp agreed …" ends, "Acme Co. Ltd." does not.
		return !orgContinuations[strings.ToLower(next)]
	}
	if isAcronym(w) {
		// "The U.S. Treasury" continues; "… in the U.S. The economy …" ends.
		return starters[strings.ToLower(next)]
	}
	return true
}

// isAcronym matches dotted abbreviations such as "U.S", "e.g" or "a.m" (the
// final point already cut off): at least two parts of one or two letters.
// "4.2" and "11.6%" are numbers, not acronyms.
func isAcronym(w string) bool {
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

func nextWord(s string) string {
	s = strings.TrimLeft(s, "\"“'‘(")
	if i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
		return s[:i]
	}
	return s
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// titles never end a sentence: a name follows.
var titles = set("mr", "mrs", "ms", "dr", "prof", "st", "sen", "rep", "gov", "gen", "col", "lt", "sgt",
	"capt", "rev", "hon", "messrs", "no", "nos", "vs", "fig", "figs", "approx", "est", "vol", "pp",
	"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")

// suffixes end company or personal names; a sentence may end with them.
var suffixes = set("inc", "corp", "ltd", "co", "llc", "plc", "bros", "etc", "jr", "sr", "ag", "sa", "nv", "bv", "gmbh")

// orgContinuations may follow a legal suffix inside one name.
var orgContinuations = set("ltd", "limited", "holdings", "group", "llc", "plc", "co", "corp", "inc", "sa", "ag", "nv", "bv", "gmbh")

// starters are words that typically open an English sentence.
var starters = set("the", "a", "an", "it", "its", "this", "that", "these", "those", "they", "their", "he",
	"she", "his", "her", "we", "our", "in", "on", "at", "for", "but", "and", "however", "meanwhile",
	"during", "after", "before", "as", "by", "while", "although", "despite", "overall", "also",
	"separately", "additionally", "according", "since", "with", "from", "there", "following", "under",
	"last", "next", "revenue", "sales", "shares")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
