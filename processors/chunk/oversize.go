package chunk

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A paragraph or table over the budget is cut into atoms, which are packed
// back into pieces like paragraphs are: greedily, while the piece stays
// within the budget. An atom still over the budget is cut into atoms of the
// next level.
const (
	levelBlock  = iota // a sentence, a table row, a table's title or notes, headings
	levelWord          // a run of non-space runes
	levelTokens        // tokens of a word, from one of its tokenEnds to the next
	levelRune          // one rune, which cannot be cut
)

// atom is a span of the input that may start or end a piece.
type atom struct {
	start, end int // span in the input, without the whitespace around it
	tokens     int // CountTokens of text[start:end]
	level      int
	split      string // Piece.Split of a piece that ends with this atom
	header     bool   // a piece that starts with this atom repeats the table header
}

// splitParagraph emits the pieces of paragraph u, which alone is over the
// budget, cut between sentences. Headings that would end the current piece
// open the first part instead, as they would have opened u.
func (p *packer) splitParagraph(u unit) {
	k := len(p.cur)
	for k > 0 && p.cur[k-1].heading {
		k--
	}
	lead := slices.Clone(p.cur[k:])
	p.cur = p.cur[:k]
	p.flushAll()
	p.est = 0 // flushAll resets it only if the headings were not all of cur
	var atoms []atom
	if len(lead) > 0 {
		// Split "" so that headings emitted alone are not marked as a cut.
		atoms = append(atoms, atom{start: lead[0].start, end: lead[len(lead)-1].end, tokens: p.spanTokens(lead)})
	}
	for _, s := range sentences(p.text, u.start, u.end) {
		atoms = append(atoms, atom{start: s[0], end: s[1], tokens: p.tokens(s[0], s[1]), split: SplitSentence})
	}
	p.pack(atoms, KindText, "", 0)
}

// splitTable emits the pieces of table unit u, whose table alone is over
// the budget, cut between rows. The first part keeps the caption and
// whatever precedes the header row, the introduction included if it fits
// there with the header and the first row (otherwise it is placed as a
// paragraph of its own, before the table); later parts start with a copy of
// the caption and of the header and delimiter rows, so that each part reads
// as the table it is part of; the notes stay with the last rows when they
// fit.
func (p *packer) splitTable(u unit) {
	ps := paragraphs(p.text[u.start:u.end])
	at := slices.IndexFunc(ps, func(para paragraph) bool { return isTable(para.lines) })
	if at < 0 {
		// group made u a table because one of these paragraphs is one; if
		// that ever changes, cutting the lines still bounds the pieces.
		at = 0
	}
	lines := lineSpans(p.text, u.start+ps[at].start, u.start+ps[at].end)
	line := func(k int) string { return p.text[lines[k].start:lines[k].end] }
	// The header is the row above the delimiter row or, in a table without
	// one, the first pipe-led row.
	h, rows := -1, 0
	for k := 0; k+1 < len(lines); k++ {
		if isDelimiterRow(line(k+1)) && strings.Contains(line(k), "|") {
			h, rows = k, k+2
			break
		}
	}
	if h < 0 {
		if k := slices.IndexFunc(lines, func(l lineSpan) bool { return strings.HasPrefix(p.text[l.start:l.end], "|") }); k >= 0 {
			h, rows = k, k+1
		}
	}
	if u.intro >= 0 {
		first := lines[min(rows, len(lines)-1)].end
		if p.tokens(u.start, first) > p.max {
			p.place(plain(p.paras[u.intro]))
			u.start = p.paras[u.intro+1].start
			u.intro = -1
			p.splitTable(u)
			return
		}
	}
	// Headings that would end the current piece open the first part, as
	// they would have opened the table, if they fit there.
	k := len(p.cur)
	for k > 0 && p.cur[k-1].heading {
		k--
	}
	if k < len(p.cur) && p.tokens(p.cur[k].start, lines[min(rows, len(lines)-1)].end) <= p.max {
		u.start = p.cur[k].start
		p.cur = p.cur[:k]
	}
	p.flushAll()
	p.est = 0
	var atoms []atom
	block := func(start, end int, header bool) {
		atoms = append(atoms, atom{start: start, end: end, tokens: p.tokens(start, end), split: SplitRow, header: header})
	}
	header, headerTokens := "", 0
	switch {
	case rows > 0:
		block(u.start, lines[rows-1].end, false)
		header = p.text[lines[h].start:lines[rows-1].next]
		if u.caption >= 0 {
			// Later parts name their table too: "Table 3.1. List of
			// systemctl commands" above the repeated header rows.
			header = strings.TrimSpace(p.text[p.paras[u.caption].start:p.paras[u.caption].end]) + "\n\n" + header
		}
		headerTokens = CountTokens(header)
		if 2*headerTokens > p.max {
			// A header taking most of the budget would leave parts of a
			// row or two: rather cut without it.
			header = ""
		}
	case at > 0:
		block(u.start, u.start+ps[at-1].end, false)
	}
	for _, l := range lines[rows:] {
		block(l.start, l.end, true)
	}
	if at+1 < len(ps) {
		block(u.start+ps[at+1].start, u.end, false)
	}
	p.pack(atoms, KindTable, header, headerTokens)
}

// pack emits atoms as pieces of kind kind: each piece takes the atoms that
// follow while its token count stays within the budget, with the whitespace
// between them. A piece starting with a table row starts with header.
func (p *packer) pack(atoms []atom, kind, header string, headerTokens int) {
	for i := 0; i < len(atoms); {
		a := atoms[i]
		if a.tokens > p.max {
			if finer := p.finer(a); finer != nil {
				p.pack(finer, kind, "", 0)
			} else {
				p.emitPart("", a.start, a.end, a.tokens, kind, a.split) // a rune, more tokens than the budget
			}
			i++
			continue
		}
		prefix, est := "", a.tokens
		if a.header && header != "" && headerTokens+a.tokens <= p.max {
			prefix, est = header, headerTokens+a.tokens
		}
		// Estimate with the count of each next atom with the whitespace
		// before it, which is exact unless a token spans the whitespace;
		// fit then checks the piece as a whole.
		j := i
		for j+1 < len(atoms) && atoms[j+1].tokens <= p.max {
			next := atoms[j+1]
			t := next.tokens
			if next.start > atoms[j].end {
				t = CountTokens(p.text[atoms[j].end:next.end])
			}
			if est+t > p.max {
				break
			}
			est += t
			j++
		}
		prefix, j, n := p.fit(prefix, atoms, i, j)
		p.emitPart(prefix, atoms[i].start, atoms[j].end, n, kind, atoms[j].split)
		i = j + 1
	}
}

// fit returns the last atom from atoms[i:j+1] that a piece starting with
// prefix and atoms[i] can end with and stay within the budget, with the
// piece's exact token count. Counts add up over atoms nearly always, so the
// first count usually fits; otherwise a binary search keeps the number of
// counts logarithmic. If even atoms[i] alone does not fit after prefix, the
// prefix goes.
func (p *packer) fit(prefix string, atoms []atom, i, j int) (string, int, int) {
	count := func(k int) int {
		if prefix == "" && k == i {
			return atoms[i].tokens
		}
		return CountTokens(prefix + p.text[atoms[i].start:atoms[k].end])
	}
	n := count(j)
	if n <= p.max {
		return prefix, j, n
	}
	lo, hi, nlo := i, j, count(i)
	if nlo > p.max {
		return "", i, atoms[i].tokens
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if m := count(mid); m <= p.max {
			lo, nlo = mid, m
		} else {
			hi = mid
		}
	}
	return prefix, lo, nlo
}

// finer cuts a into atoms of the next level, or returns nil for a rune.
func (p *packer) finer(a atom) []atom {
	var out []atom
	add := func(start, end, level int) {
		out = append(out, atom{start: start, end: end, level: level, split: SplitWord})
	}
	switch a.level {
	case levelBlock:
		for _, w := range words(p.text, a.start, a.end) {
			add(w[0], w[1], levelWord)
		}
	case levelWord:
		start := a.start
		for _, e := range tokenEnds(p.text[a.start:a.end]) {
			add(start, a.start+e, levelTokens)
			start = a.start + e
		}
	case levelTokens:
		for i := a.start; i < a.end; {
			_, n := utf8.DecodeRuneInString(p.text[i:a.end])
			add(i, i+n, levelRune)
			i += n
		}
	default:
		return nil
	}
	for k := range out {
		if out[k].start == a.start && out[k].end == a.end {
			// One word, or one group of tokens: the same text, the same
			// count, which for a huge word is worth not recounting.
			out[k].tokens = a.tokens
			continue
		}
		out[k].tokens = CountTokens(p.text[out[k].start:out[k].end])
	}
	return out
}

// emitPart appends a piece cut out of an oversize unit: prefix (a table
// header or nothing) then text[start:end], of tokens tokens.
func (p *packer) emitPart(prefix string, start, end, tokens int, kind, split string) {
	p.pieces = append(p.pieces, Piece{
		Text: prefix + p.text[start:end], Start: start, End: end, Tokens: tokens,
		Kind: kind, Split: split, Header: len(prefix),
	})
}

// sentences returns the spans of the sentences of text[start:end], without
// the whitespace around them. A sentence ends at whitespace after '.', '!',
// '?' or '…' (and any closing quotes or brackets after it), right after an
// ideographic full stop, exclamation or question mark (Chinese and Japanese
// put no space after them), and at a line break: within a paragraph a line
// is a list item, a row or a line of code as often as a wrapped sentence.
// Abbreviations end sentences too; that only moves a cut.
func sentences(text string, start, end int) [][2]int {
	var out [][2]int
	from, to := -1, -1 // the current sentence so far; from < 0 between sentences
	closed := false    // the current sentence ends with final punctuation
	cut := func() {
		if from >= 0 {
			out = append(out, [2]int{from, to})
		}
		from, closed = -1, false
	}
	for i := start; i < end; {
		r, n := utf8.DecodeRuneInString(text[i:end])
		switch {
		case r == '\n' || r == '\r':
			cut()
		case unicode.IsSpace(r):
			if closed {
				cut()
			}
		default:
			if from < 0 {
				from = i
			}
			to = i + n
			switch r {
			case '.', '!', '?', '…':
				closed = true
			case '"', '\'', ')', ']', '}', '’', '”', '»':
				// A closing mark keeps the sentence ended, or not.
			case '。', '！', '？':
				cut()
			default:
				closed = false
			}
		}
		i += n
	}
	cut()
	return out
}

// words returns the spans of the runs of non-space runes of text[start:end].
func words(text string, start, end int) [][2]int {
	var out [][2]int
	from := -1
	for i := start; i < end; {
		r, n := utf8.DecodeRuneInString(text[i:end])
		if unicode.IsSpace(r) {
			if from >= 0 {
				out = append(out, [2]int{from, i})
				from = -1
			}
		} else if from < 0 {
			from = i
		}
		i += n
	}
	if from >= 0 {
		out = append(out, [2]int{from, end})
	}
	return out
}

// lineSpan is a non-blank line: start and end leave out the whitespace
// around it, next is where the following line starts.
type lineSpan struct {
	start, end, next int
}

// lineSpans returns the non-blank lines of text[start:end].
func lineSpans(text string, start, end int) []lineSpan {
	var out []lineSpan
	for pos := start; pos < end; {
		lineEnd, next := end, end
		if nl := strings.IndexByte(text[pos:end], '\n'); nl >= 0 {
			lineEnd, next = pos+nl, pos+nl+1
		}
		l := text[pos:lineEnd]
		trimmed := strings.TrimLeftFunc(l, unicode.IsSpace)
		s := pos + len(l) - len(trimmed)
		e := s + len(strings.TrimRightFunc(trimmed, unicode.IsSpace))
		if s < e {
			out = append(out, lineSpan{start: s, end: e, next: next})
		}
		pos = next
	}
	return out
}
