package chunk

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// The GRADE profile's windows: "chunks with a total length of 128 to 256
// tokens, using a 50-token overlap between consecutive chunks" (GRADE §4).
const (
	GradeMinTokens     = 128
	GradeMaxTokens     = 256
	GradeOverlapTokens = 50
)

// SplitWindow is Piece.Split of a GRADE window when the text was cut into
// more than one: its start (after the first) and its end (before the last)
// are where the windowing put them, not where a paragraph begins or ends.
const SplitWindow = "window"

// gradeWordTokens is the longest word, in tokens, that windows treat as
// one (or a quarter of the window if less): a longer one (a URL, a number
// run, unspaced CJK text) is cut between its tokens, so that window bounds
// and the overlap can fall inside it.
const gradeWordTokens = 16

// gradeTries bounds the candidate ends a window examines for one with an
// exact overlap before it settles for the best one without.
const gradeTries = 32

// Boundary strength of the end of a word, weakest first.
const (
	endToken     = iota // inside a word, between two of its tokens
	endWord             // after a word, before whitespace
	endSentence         // after sentence-final punctuation, or at a line break
	endParagraph        // at a blank line, or at the end of the text
)

// gradeAtom is a word, or a group of tokens of a word too long to be one.
type gradeAtom struct {
	start, end int
	strength   int // how strong a boundary the atom's end is
}

// SplitWindows cuts text into overlapping windows: the GRADE profile.
// Every window but the last has between minTokens and maxTokens tokens, and
// every window after the first starts exactly overlap tokens before the end
// of the one before it, counted on the text itself:
//
//	CountTokens(text[next.Start:prev.End]) == overlap
//
// Windows start and end at word boundaries (a word is a run of non-space
// runes), so Text is exactly text[Start:End] and never starts or ends with
// whitespace; a word of more than 16 tokens (or of more than a quarter of
// maxTokens) is cut between its tokens, never inside a rune.
//
// Where a window ends: among the word ends that give it minTokens to
// maxTokens tokens, paragraph ends (a blank line) come first, then sentence
// ends (final punctuation, or a line break), then other word ends, then
// cuts inside a long word; the latest first within each kind. The window
// ends at the first of these (at most 32 are tried) from which some word
// start lies exactly overlap tokens back, and the next window starts
// there. Snapping to word starts makes that impossible only where every
// word around the cut is several tokens long (a run of long numbers or
// rare names); if no candidate allows it, the window ends at the first
// candidate and the next starts at the latest word start more than overlap
// tokens back, so the overlap is then the smallest count above overlap
// that a word start gives. Ordinary prose never needs that.
//
// The last window is the rest of the text. It has at least minTokens
// whenever the window before it can leave that much (the rest from that
// window's start has at least 2*minTokens-overlap tokens): windows near
// the end end early enough. A text of at most maxTokens tokens is one
// piece, of Split "", whatever its size; the windows of a longer text are
// of Split SplitWindow. A window is of kind "table" if it reaches into a
// Markdown table, otherwise "text".
//
// Out-of-range arguments are clamped: maxTokens <= 0 is GradeMaxTokens,
// minTokens is within [1, maxTokens], overlap within [0, minTokens/2]. With
// bounds of a few tokens, coarser than the words, the overlap shrinks as
// needed for each window to end past the previous one within maxTokens.
func SplitWindows(text string, minTokens, maxTokens, overlap int) []Piece {
	if maxTokens <= 0 {
		maxTokens = GradeMaxTokens
	}
	minTokens = max(1, min(minTokens, maxTokens))
	overlap = max(0, min(overlap, minTokens/2))
	w := windower{text: text, min: minTokens, max: maxTokens, overlap: overlap, prevEnd: -1}
	w.atomize()
	if len(w.atoms) == 0 {
		return nil
	}
	w.run()
	w.kinds()
	return w.pieces
}

// windower holds the state of one SplitWindows.
type windower struct {
	text              string
	min, max, overlap int
	atoms             []gradeAtom
	// gap[k] is the token count of atom k with the whitespace before it;
	// sum[k] is gap[0]+…+gap[k-1]. Counts add up over atoms nearly always,
	// so sums estimate the count of a span; chosen spans are counted exactly.
	gap, sum []int
	alone    []int // token count of atom k on its own, or -1 until needed
	prevEnd  int   // the last atom of the window before, or -1
	pieces   []Piece
}

// atomize cuts the text into atoms and counts them.
func (w *windower) atomize() {
	// Words are atoms up to a quarter of a window, so that small budgets
	// still get windows of several atoms. A word is counted once, with the
	// whitespace before it (the count the estimates add up); its count
	// alone is taken only for the few atoms a window starts at.
	wordCap := min(gradeWordTokens, w.max/4)
	prev := 0
	for _, wd := range words(w.text, 0, len(w.text)) {
		n := CountTokens(w.text[prev:wd[1]])
		// A word alone can take more tokens than with its space (" bü" is
		// one, "bü" two). Windows of at least four times the cap fit that
		// easily; for smaller ones the count alone must fit the cap too.
		if n <= max(wordCap, 1) && (wordCap == gradeWordTokens || CountTokens(w.text[wd[0]:wd[1]]) <= max(wordCap, 1)) {
			w.atoms = append(w.atoms, gradeAtom{start: wd[0], end: wd[1]})
			w.gap = append(w.gap, n)
			prev = wd[1]
			continue
		}
		// One atom per token. A token end inside a rune is left out; where
		// that leaves a span of several runes and tokens (a token running
		// across a rune boundary, as in "bü"), each rune is an atom, so that
		// no atom of several runes is over one token.
		from := wd[0]
		for _, e := range tokenEnds(w.text[wd[0]:wd[1]]) {
			end := wd[0] + e
			base := from
			for _, cut := range runeCuts(w.text[base:end]) {
				w.atoms = append(w.atoms, gradeAtom{start: from, end: base + cut, strength: endToken})
				w.gap = append(w.gap, CountTokens(w.text[prev:base+cut]))
				from, prev = base+cut, base+cut
			}
		}
	}
	n := len(w.atoms)
	w.sum = make([]int, n+1)
	w.alone = make([]int, n)
	for k := range w.atoms {
		a := &w.atoms[k]
		w.sum[k+1] = w.sum[k] + w.gap[k]
		w.alone[k] = -1
		next := len(w.text)
		if k+1 < n {
			next = w.atoms[k+1].start
		}
		if next > a.end || k+1 == n {
			a.strength = strengthAfter(w.text, a.start, a.end, next)
		}
	}
}

// runeCuts returns the ends of the atoms a token span is cut into: its
// end alone, or, for a span of several runes and tokens, every rune end.
func runeCuts(span string) []int {
	if utf8.RuneCountInString(span) < 2 || CountTokens(span) < 2 {
		return []int{len(span)}
	}
	var cuts []int
	for i := range span {
		if i > 0 {
			cuts = append(cuts, i)
		}
	}
	return append(cuts, len(span))
}

// strengthAfter classifies the boundary after the word text[start:end],
// followed by whitespace up to next.
func strengthAfter(text string, start, end, next int) int {
	gap := text[end:next]
	if next == len(text) {
		return endParagraph
	}
	if nl := strings.IndexByte(gap, '\n'); nl >= 0 {
		if strings.IndexByte(gap[nl+1:], '\n') >= 0 {
			return endParagraph
		}
		return endSentence
	}
	// Final punctuation, possibly followed by closing quotes or brackets.
	for i := end; i > start; {
		r, n := utf8.DecodeLastRuneInString(text[start:i])
		switch r {
		case '"', '\'', ')', ']', '}', '’', '”', '»':
			i -= n
			continue
		case '.', '!', '?', '…', '。', '！', '？':
			return endSentence
		}
		break
	}
	return endWord
}

// tokens is the exact token count of atoms i through j.
func (w *windower) tokens(i, j int) int {
	return CountTokens(w.text[w.atoms[i].start:w.atoms[j].end])
}

// estimate is the estimated token count of atoms i through j.
func (w *windower) estimate(i, j int) int {
	if w.alone[i] < 0 {
		w.alone[i] = CountTokens(w.text[w.atoms[i].start:w.atoms[i].end])
	}
	return w.alone[i] + w.sum[j+1] - w.sum[i+1]
}

// run emits the windows.
func (w *windower) run() {
	last := len(w.atoms) - 1
	for i := 0; ; {
		// The window must end past the one before it. With bounds too
		// small for the atoms (a few tokens), the overlap gives way.
		if e := w.prevEnd + 1; e <= last && i < e && w.estimate(i, e) > w.max-gradeWordTokens && w.tokens(i, e) > w.max {
			i += sort.Search(e-i, func(d int) bool { return w.tokens(i+d, e) <= w.max })
		}
		if i == last || w.estimate(i, last) <= w.max+gradeWordTokens {
			if n := w.tokens(i, last); n <= w.max || i == last {
				split := SplitWindow
				if i == 0 {
					split = SplitNone
				}
				w.emit(i, last, n, split)
				return
			}
		}
		j, n, next := w.window(i)
		w.emit(i, j, n, SplitWindow)
		i, w.prevEnd = next, j
	}
}

// window chooses the end j of the window starting at atom i, which is not
// the last, its token count n, and the start of the next window.
func (w *windower) window(i int) (j, n, next int) {
	last := len(w.atoms) - 1
	// The admissible ends by estimate: from the first atom reaching min to
	// the last within max, and, when the rest of the text is short, early
	// enough that the last window reaches min.
	upTo := func(limit int) int {
		return sort.Search(last+1-i, func(k int) bool { return w.estimate(i, i+k) > limit }) + i - 1
	}
	lo := sort.Search(last+1-i, func(k int) bool { return w.estimate(i, i+k) >= w.min }) + i
	hi := upTo(w.max)
	if rest := w.estimate(i, last); rest < w.max+w.min {
		if h := upTo(rest + w.overlap - w.min); h >= lo {
			hi = min(hi, h)
		}
	}
	// Each window ends after the one before it, however coarse the atoms
	// are for the bounds.
	lo = max(min(lo, last-1), i, w.prevEnd+1)
	hi = max(min(hi, last-1), lo)
	// Candidates, strongest boundary first, the latest first within one
	// strength.
	var cands []int
	for s := endParagraph; s >= endToken && len(cands) < gradeTries; s-- {
		for k := hi; k >= lo && len(cands) < gradeTries; k-- {
			if w.atoms[k].strength == s {
				cands = append(cands, k)
			}
		}
	}
	// The first candidate with an exact overlap and a long enough last
	// window wins; failing that, the exact overlap matters more. A first
	// pass trusts the estimates, a second searches every candidate with
	// exact counts.
	for pass := 0; pass < 2; pass++ {
		best, bestScore := -1, -1
		for _, k := range cands {
			start, exact := w.overlapStart(i, k, pass == 1)
			if !exact && best >= 0 {
				continue
			}
			c := w.tokens(i, k)
			if c > w.max || c < w.min {
				continue
			}
			score := 0
			if w.tailOK(start) {
				score++
			}
			if exact {
				score += 2
			}
			if score == 3 {
				return k, c, start
			}
			if score > bestScore {
				best, bestScore, n, next = k, score, c, start
			}
		}
		if best >= 0 && (bestScore >= 2 || pass == 1) {
			return best, n, next
		}
	}
	// No candidate had an exact size within the bounds (the estimates are
	// off by a token or two at the edges of the range): take the longest
	// window within max.
	// Below the minimum if need be: max is a hard cap, min is not (the
	// atoms' counts add up to less than the span's when BPE merges across
	// them, so the estimate of min can land past max).
	k := hi
	c := w.tokens(i, k)
	for floor := max(i, w.prevEnd+1); k > floor && c > w.max; {
		k--
		c = w.tokens(i, k)
	}
	start, _ := w.overlapStart(i, k, true)
	return k, c, start
}

// overlapStart returns the start of the window after the one from atom i
// to atom j: the atom from which exactly overlap tokens run to the end of
// atom j, and true; or, if no atom gives exactly that, the latest atom
// giving more, and false. The start is always after i, so windows advance.
//
// Unless thorough, it trusts the estimates to rule an end out: it counts
// only the one start the estimates give exactly overlap, if any. Thorough,
// it bisects on exact counts, which fall as the start moves right (BPE
// merges across the whitespace between atoms are rare and small).
func (w *windower) overlapStart(i, j int, thorough bool) (int, bool) {
	if w.overlap == 0 || j <= i {
		return j + 1, w.overlap == 0
	}
	// The latest atom from which the estimate reaches overlap.
	d := sort.Search(j-i, func(d int) bool { return w.estimate(j-d, j) >= w.overlap })
	k := max(j-d, i+1)
	if w.estimate(k, j) == w.overlap && w.tokens(k, j) == w.overlap {
		return k, true
	}
	if !thorough {
		return k, false
	}
	// The latest k in [i+1, j] whose count reaches overlap, by bisection on
	// exact counts (i+1 if none does).
	reaches := func(k int) bool { return w.tokens(k, j) >= w.overlap }
	lo, hi := i+1, j
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if reaches(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, w.tokens(lo, j) == w.overlap
}

// tailOK says whether a window starting at atom start leaves a last window
// of at least min tokens, or cannot help it: a rest over max is windowed
// further, and a rest the bounds cannot make long enough is accepted.
func (w *windower) tailOK(start int) bool {
	last := len(w.atoms) - 1
	if w.estimate(start, last) > w.max+gradeWordTokens {
		return true
	}
	n := w.tokens(start, last)
	return n > w.max || n >= w.min
}

func (w *windower) emit(i, j, n int, split string) {
	start, end := w.atoms[i].start, w.atoms[j].end
	w.pieces = append(w.pieces, Piece{Text: w.text[start:end], Start: start, End: end, Tokens: n, Kind: KindText, Split: split})
}

// kinds marks the windows that hold part of a table.
func (w *windower) kinds() {
	k := 0
	for _, para := range paragraphs(w.text) {
		if !isTable(para.lines) {
			continue
		}
		for k < len(w.pieces) && w.pieces[k].End <= para.start {
			k++
		}
		// Windows overlap: mark every one that reaches into the table.
		for m := k; m < len(w.pieces) && w.pieces[m].Start < para.end; m++ {
			w.pieces[m].Kind = KindTable
		}
	}
}
