package chunk

import (
	"slices"
	"strings"
	"unicode"

	"github.com/robustream/robustream/processors/text"
)

// DefaultMaxTokens is the RARE profile's chunk size: "passages of
// approximately 600 tokens" (RARE §4.1).
const DefaultMaxTokens = 600

// Kinds of Piece.
const (
	KindText  = "text"
	KindTable = "table"
)

// Values of Piece.Split: how a piece was cut out of a paragraph or a table
// longer than the budget.
const (
	SplitNone     = ""         // whole paragraphs, or a whole table
	SplitSentence = "sentence" // whole sentences (or lines) of one paragraph
	SplitRow      = "row"      // whole rows of one table
	SplitWord     = "word"     // whole words of one sentence or row, or a part of one word
)

// Piece is one chunk of a text. Text is exactly text[Start:End] of the input,
// so spans can be checked and highlighted without re-searching, except that a
// part of a split table after the first starts with a copy of the table's
// header rows: Text[Header:] is always text[Start:End].
type Piece struct {
	Text   string
	Start  int // byte offset of the first byte in the input
	End    int // byte offset just past the last byte
	Tokens int // cl100k_base tokens of Text
	Kind   string
	Split  string // SplitNone, SplitSentence, SplitRow, SplitWord or SplitWindow
	Header int    // length of the repeated table header at the start of Text
}

// Split cuts text into pieces of at most maxTokens tokens (DefaultMaxTokens
// when maxTokens <= 0): the RARE profile (RARE §4.1).
//   - A paragraph (a block of non-blank lines; a fenced code block counts as
//     one) is not divided unless it alone is over maxTokens.
//   - A Markdown table travels as one unit with what explains it: its
//     caption (a heading, a "Table …" line, a bold line or a short line
//     without final punctuation right before it), its introduction (the
//     paragraph right before the caption or, without a caption, right before
//     the table, such as "Revenue by segment was as follows:") and its
//     notes ("Note…", "Source…", footnote marks right after it). When the
//     whole unit is over maxTokens but the table is not, the introduction is
//     let go first, then the notes, then the caption; each released
//     paragraph is packed like any other. The table itself is not divided
//     unless it alone is over maxTokens.
//   - Units are packed greedily while the piece stays within maxTokens. A
//     piece that holds a table (whole, or a part of one) is of kind "table",
//     whatever prose it also holds; any other piece is of kind "text".
//   - A heading is not left dangling at the end of a piece when it can open
//     the next one.
//
// maxTokens is a hard cap, because one hostile or badly extracted document
// (a megabyte without a blank line, a table of thousands of rows) would
// otherwise make one chunk larger than any embedding model or prompt takes.
// A paragraph over it is cut between sentences (see sentences), packed
// greedily; a sentence over it between words; a word over it between
// tokens, never inside a rune. A table over it is cut between rows, each
// part after the first repeating the header rows (when they take at most
// half the budget), the first keeping the introduction (if it fits there
// with the header and the first row) and the caption, the last the notes.
// A piece exceeds maxTokens only if it is a single rune of more tokens than
// that, which takes maxTokens < 4. Piece.Split records the cut.
//
// Empty or blank text yields no pieces.
func Split(text string, maxTokens int) []Piece {
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	ps := paragraphs(text)
	p := packer{text: text, max: maxTokens, paras: ps}
	for _, u := range group(ps) {
		p.place(u)
	}
	p.flushAll()
	return p.pieces
}

// place packs unit u, cutting it if it alone is over the budget and letting
// a table's attachments go if the table fits only without them.
func (p *packer) place(u unit) {
	n := p.tokens(u.start, u.end)
	switch {
	case n <= p.max:
		p.add(u)
	case !u.table:
		p.splitParagraph(u)
	default:
		p.placeTable(u)
	}
}

// placeTable places table unit u, which with its attachments is over the
// budget. It drops the attachments in the order intro, notes, caption until
// what remains fits; the dropped paragraphs are placed as plain units, in
// text order. A table over the budget on its own is cut (splitTable).
func (p *packer) placeTable(u unit) {
	ps := p.paras
	capStart := ps[u.body].start
	if u.caption >= 0 {
		capStart = ps[u.caption].start
	}
	bodyEnd := ps[u.body].end
	release := func(from, to int) { // the paragraphs ps[from:to], as plain units
		for k := from; k < to; k++ {
			p.place(plain(ps[k]))
		}
	}
	intro := func() {
		if u.intro >= 0 {
			release(u.intro, u.intro+1)
		}
	}
	core := u
	core.intro = -1
	switch {
	case p.tokens(capStart, u.end) <= p.max:
		intro()
		core.start = capStart
		p.add(core)
	case p.tokens(capStart, bodyEnd) <= p.max:
		intro()
		core.start, core.end, core.last = capStart, bodyEnd, u.body
		p.add(core)
		release(u.body+1, u.last+1)
	case p.tokens(ps[u.body].start, bodyEnd) <= p.max:
		intro()
		if u.caption >= 0 {
			release(u.caption, u.caption+1)
		}
		core.caption = -1
		core.start, core.end, core.last = ps[u.body].start, bodyEnd, u.body
		p.add(core)
		release(u.body+1, u.last+1)
	default:
		p.splitTable(u)
	}
}

// paragraph is a run of non-blank lines.
type paragraph struct {
	start, end int // byte span, without the trailing line break
	lines      []string
}

// unit is what packing moves around: a paragraph, or a table with its
// introduction, caption and notes. For a table, the fields below index
// paragraphs: intro and caption are -1 when absent, body is the table
// itself, and the notes are body+1 through last.
type unit struct {
	start, end int
	table      bool
	heading    bool

	intro, caption, body, last int
}

// plain is the unit of one paragraph that is not a table.
func plain(p paragraph) unit {
	return unit{start: p.start, end: p.end, heading: len(p.lines) == 1 && isHeading(p.lines[0]),
		intro: -1, caption: -1, body: -1, last: -1}
}

// paragraphs splits s at blank lines. Blank lines inside a fenced code
// block do not end it: a code sample is one paragraph.
func paragraphs(s string) []paragraph {
	var out []paragraph
	var cur *paragraph
	for l := range text.Lines(s) {
		line := strings.TrimRight(l.Text, "\r")
		if strings.TrimSpace(line) == "" && !l.Code {
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			continue
		}
		if cur == nil {
			cur = &paragraph{start: l.Start}
		}
		cur.end = l.Start + len(strings.TrimRightFunc(line, unicode.IsSpace))
		cur.lines = append(cur.lines, line)
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// group turns paragraphs into units, attaching to each table its caption,
// its introduction and its notes. A paragraph is attached only if no other
// table took it: notes go to the table they follow, and so are never the
// introduction of the next one. A heading is never an introduction, and a
// table whose caption is a heading has none, because a heading opens a
// section rather than continuing one.
func group(ps []paragraph) []unit {
	var out []unit
	// free says whether paragraph k is the last unit so far, on its own.
	free := func(k int) bool {
		if k < 0 || len(out) == 0 {
			return false
		}
		last := out[len(out)-1]
		return !last.table && last.start == ps[k].start
	}
	for i := 0; i < len(ps); i++ {
		if !isTable(ps[i].lines) {
			out = append(out, plain(ps[i]))
			continue
		}
		u := unit{start: ps[i].start, end: ps[i].end, table: true, intro: -1, caption: -1, body: i, last: i}
		first := i
		if free(i-1) && isTitle(ps[i-1].lines) {
			u.caption, first = i-1, i-1
			out = out[:len(out)-1]
		}
		headed := u.caption >= 0 && isHeading(ps[u.caption].lines[0])
		if !headed && free(first-1) && !out[len(out)-1].heading {
			u.intro, first = first-1, first-1
			out = out[:len(out)-1]
		}
		u.start = ps[first].start
		for i+1 < len(ps) && isNote(ps[i+1].lines) {
			i++
			u.end, u.last = ps[i].end, i
		}
		out = append(out, u)
	}
	return out
}

// isTable reports whether a paragraph holds a Markdown (GFM) table: a header
// row followed by a delimiter row, or at least two pipe-led rows.
func isTable(lines []string) bool {
	piped := 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if i > 0 && isDelimiterRow(t) && strings.Contains(lines[i-1], "|") {
			return true
		}
		if strings.HasPrefix(t, "|") {
			piped++
		}
	}
	return piped >= 2
}

// isDelimiterRow matches "|---|:--:|" style rows. A pipe is required: "---"
// alone is a thematic break, not a table.
func isDelimiterRow(t string) bool {
	if !strings.Contains(t, "|") || !strings.Contains(t, "-") {
		return false
	}
	for _, r := range t {
		switch r {
		case '|', '-', ':', ' ', '\t':
		default:
			return false
		}
	}
	return true
}

func isHeading(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "#")
}

// isTitle says whether a one-line paragraph reads as a table caption rather
// than as prose that introduces the table. A line ending in ':' ("Revenue
// by segment was as follows:") is an introduction: it is attached to the
// table all the same, but the paragraph before it is not.
func isTitle(lines []string) bool {
	if len(lines) != 1 {
		return false
	}
	t := strings.TrimSpace(lines[0])
	if len(strings.Fields(t)) > 30 || isTable(lines) {
		return false
	}
	lower := strings.ToLower(strings.Trim(t, "*_ "))
	switch {
	case isHeading(t),
		strings.HasPrefix(lower, "table"), strings.HasPrefix(lower, "exhibit"), strings.HasPrefix(lower, "figure"),
		strings.HasPrefix(t, "**") && strings.HasSuffix(t, "**"):
		return true
	}
	// A caption usually has no sentence-final punctuation.
	return !strings.ContainsAny(t[len(t)-1:], ".!?:")
}

// isNote says whether a paragraph right after a table explains it.
func isNote(lines []string) bool {
	if len(lines) == 0 || isTable(lines) {
		return false
	}
	t := strings.TrimSpace(lines[0])
	for _, mark := range []string{"†", "‡", "¹", "²", "³", "(a)", "(1)"} {
		if strings.HasPrefix(t, mark) {
			return true
		}
	}
	if strings.HasPrefix(t, "*") && !strings.HasPrefix(t, "* ") && !strings.HasPrefix(t, "**") {
		return true // a footnote mark such as "*Excluding one-off items."
	}
	lower := strings.ToLower(strings.TrimLeft(t, "*_> "))
	return strings.HasPrefix(lower, "note") || strings.HasPrefix(lower, "source")
}

// packer accumulates text units into pieces.
type packer struct {
	text   string
	max    int
	paras  []paragraph // the paragraphs of text, which table units index
	cur    []unit
	est    int // estimated tokens of cur: units plus separators
	pieces []Piece
	counts map[[2]int]int // memoized token counts of spans
}

// tokens counts the tokens of text[start:end], once per span: packing asks
// for the same units and separators again when it carries units over.
func (p *packer) tokens(start, end int) int {
	k := [2]int{start, end}
	if n, ok := p.counts[k]; ok {
		return n
	}
	if p.counts == nil {
		p.counts = map[[2]int]int{}
	}
	n := CountTokens(p.text[start:end])
	p.counts[k] = n
	return n
}

// spanTokens is the exact token count of the units us as one span. cl100k's
// pre-tokenizer never lets a token cross from a newline into a following
// non-space character, so when every unit after the first starts with a
// non-space right after a newline, the span's count is the sum of the counts
// of [unit start, next unit start) pieces (memoized, and shared by the
// candidate spans packing tries); otherwise the span is encoded whole.
func (p *packer) spanTokens(us []unit) int {
	for i := 1; i < len(us); i++ {
		prev, start := p.text[us[i].start-1], us[i].start
		if (prev != '\n' && prev != '\r') || start >= us[i].end || isSpace(p.text[start]) {
			return p.tokens(us[0].start, us[len(us)-1].end)
		}
	}
	sum := 0
	for i := 0; i+1 < len(us); i++ {
		sum += p.tokens(us[i].start, us[i+1].start)
	}
	return sum + p.tokens(us[len(us)-1].start, us[len(us)-1].end)
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// add appends u, first closing the current piece if u would overflow it. The
// estimate sums per-unit counts; flush checks the exact count, because BPE
// merges across the separator can differ by a token or two.
func (p *packer) add(u unit) {
	t := p.tokens(u.start, u.end)
	if len(p.cur) > 0 && p.est+p.sep(u)+t > p.max {
		p.flush(true)
		if len(p.cur) > 0 && p.est+p.sep(u)+t > p.max {
			// Even what was carried over (a heading) does not fit with u:
			// close it rather than break the size bound.
			p.flushAll()
		}
	}
	if len(p.cur) > 0 {
		p.est += p.sep(u)
	}
	p.cur = append(p.cur, u)
	p.est += t
}

func (p *packer) sep(u unit) int {
	if len(p.cur) == 0 {
		return 0
	}
	return p.tokens(p.cur[len(p.cur)-1].end, u.start)
}

// flush emits a prefix of cur as a piece and keeps the rest (a trailing
// heading, or units the exact count pushed out) as the start of the next one.
func (p *packer) flush(keepHeading bool) {
	n := len(p.cur)
	if n == 0 {
		return
	}
	if keepHeading {
		for n > 1 && p.cur[n-1].heading {
			n--
		}
	}
	exact := p.spanTokens(p.cur[:n])
	for n > 1 && exact > p.max {
		n--
		exact = p.spanTokens(p.cur[:n])
	}
	p.emitCounted(p.cur[:n], exact)
	rest := append([]unit(nil), p.cur[n:]...)
	p.cur, p.est = nil, 0
	for _, u := range rest {
		if len(p.cur) > 0 {
			p.est += p.sep(u)
		}
		p.cur = append(p.cur, u)
		p.est += p.tokens(u.start, u.end)
	}
}

func (p *packer) flushAll() {
	for len(p.cur) > 0 {
		p.flush(false)
	}
}

// emitCounted appends a piece whose exact token count is already known, so
// that no piece is encoded twice (BPE encoding dominates the cost of Split).
// The piece is of kind table if one of its units is a table.
func (p *packer) emitCounted(us []unit, tokens int) {
	start, end := us[0].start, us[len(us)-1].end
	kind := KindText
	if slices.ContainsFunc(us, func(u unit) bool { return u.table }) {
		kind = KindTable
	}
	p.pieces = append(p.pieces, Piece{Text: p.text[start:end], Start: start, End: end, Tokens: tokens, Kind: kind})
}
