package chunk

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the BPE vocabulary tokens are counted with. cl100k_base is the
// vocabulary of the GPT-3.5/4 family, close enough to the models RARE sized
// its ~600-token chunks for (RARE §4.1).
const Encoding = "cl100k_base"

// vocabFile is the embedded rank file of Encoding in the offline loader.
const vocabFile = Encoding + ".tiktoken"

var (
	vocabOnce sync.Once
	vocab     map[string]int // token bytes → rank
	vocabErr  error
)

// vocabulary loads the embedded BPE ranks once. The offline loader reads the
// ranks compiled into the binary: the default loader would download them,
// which an air-gapped deployment cannot do.
//
// Only the ranks are loaded, not a tiktoken-go encoder: CountTokens needs
// counts, not ids, and the encoder's regexp pre-tokenizer and id slices cost
// most of the chunk stage's time. tokens_test.go keeps tiktoken-go as the
// reference CountTokens must agree with.
func vocabulary() (map[string]int, error) {
	vocabOnce.Do(func() {
		vocab, vocabErr = tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(vocabFile)
		if vocabErr != nil {
			vocabErr = fmt.Errorf("cannot load BPE vocabulary %s: %w", Encoding, vocabErr)
		}
	})
	return vocab, vocabErr
}

// CountTokens returns the number of cl100k_base tokens of text. Special-token
// markers such as "<|endoftext|>" are counted as ordinary text, so hostile
// documents cannot smuggle control tokens in.
//
// It equals len(EncodeOrdinary(text)) of tiktoken-go: the same pre-tokenizer
// (see nextPiece) and the same merge order (see bpeMerge), counted rather
// than materialized.
func CountTokens(text string) int {
	if text == "" {
		return 0
	}
	ranks := mustVocabulary()
	if !utf8.ValidString(text) {
		// tiktoken-go matches on []rune(text) and encodes the matched runes
		// back, so each invalid byte becomes U+FFFD; do the same.
		text = string([]rune(text))
	}
	var scratch [64]int
	n := 0
	for i := 0; i < len(text); {
		j := nextPiece(text, i)
		piece := text[i:j]
		if _, ok := ranks[piece]; ok || len(piece) == 1 {
			// Most pieces (a word with its leading space) are one token:
			// skip the merge, as tiktoken-go does.
			n++
		} else {
			n += mergedCount(ranks, piece, scratch[:0])
		}
		i = j
	}
	return n
}

// mustVocabulary is vocabulary for code that cannot return an error. The
// vocabulary is compiled into the binary: failing to parse it is a broken
// build, not bad input, and NewStage reports it before any text is counted.
func mustVocabulary() map[string]int {
	ranks, err := vocabulary()
	if err != nil {
		panic(err)
	}
	return ranks
}

// tokenEnds returns where the tokens of text end, as offsets into text, in
// order and ending with len(text), leaving out the ends that fall inside a
// rune (a rare rune is several byte tokens): cutting text at any of them
// cuts between tokens without splitting a rune. Each invalid byte counts as
// one rune, as in CountTokens.
func tokenEnds(text string) []int {
	ranks := mustVocabulary()
	s := text
	if !utf8.ValidString(text) {
		s = string([]rune(text))
	}
	var ends, scratch []int
	for i := 0; i < len(s); {
		j := nextPiece(s, i)
		piece := s[i:j]
		if _, ok := ranks[piece]; ok || len(piece) == 1 {
			ends = append(ends, j)
		} else {
			scratch = bpeMerge(ranks, piece, scratch[:0])
			for _, b := range scratch[1:] {
				ends = append(ends, i+b)
			}
		}
		i = j
	}
	// Keep the ends at rune starts of s, mapped to text: s and text have
	// the same runes, only invalid bytes are three bytes long in s.
	out := ends[:0]
	si, ti := 0, 0
	for _, e := range ends {
		for si < e {
			_, sn := utf8.DecodeRuneInString(s[si:])
			_, tn := utf8.DecodeRuneInString(text[ti:])
			si, ti = si+sn, ti+tn
		}
		if si == e {
			out = append(out, ti)
		}
	}
	return out
}

// mergeCache memoizes the token counts of pieces that are not tokens
// themselves. They are few (names, rare words, long numbers) but recur: the
// packer counts overlapping spans, and documents are re-chunked on every new
// version. It is emptied when full, which bounds its memory.
var mergeCache struct {
	sync.Mutex
	m map[string]int
}

const (
	mergeCacheSize   = 1 << 14
	mergeCacheMaxLen = 128 // longer pieces (runs of spaces, say) are not kept
)

// mergedCount is len(bpeMerge(ranks, piece, scratch))-1, memoized.
func mergedCount(ranks map[string]int, piece string, scratch []int) int {
	if len(piece) > mergeCacheMaxLen {
		return len(bpeMerge(ranks, piece, scratch)) - 1
	}
	mergeCache.Lock()
	n, ok := mergeCache.m[piece]
	mergeCache.Unlock()
	if ok {
		return n
	}
	n = len(bpeMerge(ranks, piece, scratch)) - 1
	mergeCache.Lock()
	if mergeCache.m == nil || len(mergeCache.m) >= mergeCacheSize {
		mergeCache.m = make(map[string]int)
	}
	// A copy: piece points into a whole document.
	mergeCache.m[strings.Clone(piece)] = n
	mergeCache.Unlock()
	return n
}

// Character classes of the cl100k pre-tokenizer. They partition the runes:
// \p{L}, \p{N}, \r and \n, the rest of \s, and everything else.
const (
	clOther   = iota // [^\s\p{L}\p{N}]: punctuation, symbols, marks, controls
	clLetter         // \p{L}
	clNumber         // \p{N}
	clSpace          // \s except \r and \n
	clNewline        // \r or \n
)

// asciiClass caches classOf for ASCII, which is nearly all of the text.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = slowClass(r)
	}
	return t
}()

// slowClass classifies r with the tables regexp2 (tiktoken-go's regexp
// engine) uses: \p{L} and \p{N} are unicode.L and unicode.N, \s is
// unicode.IsSpace.
func slowClass(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return clNewline
	case unicode.Is(unicode.L, r):
		return clLetter
	case unicode.Is(unicode.N, r):
		return clNumber
	case unicode.IsSpace(r):
		return clSpace
	}
	return clOther
}

// runeAt decodes the rune at s[i] (s is valid UTF-8) with its size and class.
func runeAt(s string, i int) (rune, int, uint8) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1, asciiClass[c]
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return r, n, slowClass(r)
}

// nextPiece returns the end of the pre-token starting at s[i], i < len(s).
// It is the leftmost-first match of cl100k_base's pattern
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// written out by hand: the alternatives are tried in order and each one's
// backtracking is resolved in closed form. Every rune starts some
// alternative, so pieces tile s.
func nextPiece(s string, i int) int {
	r0, n0, c0 := runeAt(s, i)
	j := i + n0
	// (?i:'s|'t|'re|'ve|'m|'ll|'d). regexp2 folds the input with
	// unicode.ToLower, so fold the same way.
	if r0 == '\'' && j < len(s) {
		r1, n1, _ := runeAt(s, j)
		switch unicode.ToLower(r1) {
		case 's', 't', 'm', 'd':
			return j + n1
		case 'r', 'v', 'l':
			want := 'e'
			if unicode.ToLower(r1) == 'l' {
				want = 'l'
			}
			if k := j + n1; k < len(s) {
				if r2, n2, _ := runeAt(s, k); unicode.ToLower(r2) == want {
					return k + n2
				}
			}
		}
	}
	switch c0 {
	case clLetter:
		// [^\r\n\p{L}\p{N}]?\p{L}+ with the option empty.
		return endOfClass(s, j, clLetter)
	case clNumber:
		// \p{N}{1,3}; no earlier alternative can start with a number.
		for k := 1; k < 3 && j < len(s); k++ {
			_, n, c := runeAt(s, j)
			if c != clNumber {
				break
			}
			j += n
		}
		return j
	case clOther, clSpace:
		// [^\r\n\p{L}\p{N}]?\p{L}+ with r0 as the option.
		if j < len(s) {
			if _, n1, c1 := runeAt(s, j); c1 == clLetter {
				return endOfClass(s, j+n1, clLetter)
			}
		}
		// ' ?[^\s\p{L}\p{N}]+[\r\n]*': a punctuation run, optionally after
		// one ASCII space.
		if c0 == clOther {
			return endOfNewlines(s, endOfClass(s, j, clOther))
		}
		if r0 == ' ' && j < len(s) {
			if _, n1, c1 := runeAt(s, j); c1 == clOther {
				return endOfNewlines(s, endOfClass(s, j+n1, clOther))
			}
		}
	}
	// r0 is whitespace. Scan its run [i, end), remembering the last \r or \n
	// and where the run's last rune starts.
	end, lastNL, lastStart := i, -1, i
	for end < len(s) {
		_, n, c := runeAt(s, end)
		if c != clSpace && c != clNewline {
			break
		}
		if c == clNewline {
			lastNL = end
		}
		lastStart = end
		end += n
	}
	switch {
	case lastNL >= 0:
		// \s*[\r\n]+: \s* backs off until [\r\n]+ can match, i.e. to the
		// last line break of the run; [\r\n]+ then ends right after it.
		return lastNL + 1
	case end == len(s) || lastStart == i:
		// \s+(?!\S) at the end of the text, or \s+ for a single rune
		// before a non-space.
		return end
	default:
		// \s+(?!\S) backs off one rune so that a space follows.
		return lastStart
	}
}

// endOfClass returns the end of the run of runes of class c from s[j].
func endOfClass(s string, j int, c uint8) int {
	for j < len(s) {
		_, n, cj := runeAt(s, j)
		if cj != c {
			break
		}
		j += n
	}
	return j
}

// endOfNewlines returns the end of the run of \r and \n from s[j].
func endOfNewlines(s string, j int) int {
	for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
		j++
	}
	return j
}

// bpeMerge byte-pair encodes piece and returns the boundaries of its tokens:
// token k is piece[b[k]:b[k+1]], so there are len(b)-1 tokens. It repeatedly
// merges the adjacent pair of lowest rank, the leftmost on ties, exactly
// like tiktoken (and tiktoken-go's bytePairMerge). bounds is scratch space
// for the result.
//
// Short pieces, nearly all of them, take scanMerge; long ones heapMerge,
// whose cost grows as n log n instead of n²: a hostile document can hold a
// megabyte without a space, which is a single piece.
func bpeMerge(ranks map[string]int, piece string, bounds []int) []int {
	if len(piece) < heapMergeMin {
		return scanMerge(ranks, piece, bounds)
	}
	return heapMerge(ranks, piece, bounds)
}

// heapMergeMin is the piece length from which heapMerge beats scanMerge
// (BenchmarkMergeCrossover): below it, rescanning a few ranks costs less
// than allocating and maintaining the heap.
const heapMergeMin = 128

// scanMerge is bpeMerge by rescanning every pair rank after each merge:
// quadratic, but without allocation and fastest for short pieces.
func scanMerge(ranks map[string]int, piece string, bounds []int) []int {
	const none = int(^uint(0) >> 1)
	for k := 0; k <= len(piece); k++ {
		bounds = append(bounds, k)
	}
	// rank[k] is the rank of tokens k and k+1 merged, or none. It lives
	// after the boundaries in the same scratch slice to spare an allocation
	// for short pieces.
	base := len(bounds)
	for k := 0; k+1 < len(piece); k++ {
		bounds = append(bounds, pairRank(ranks, piece, bounds[k], bounds[k+2]))
	}
	bounds = append(bounds, none) // the last token has no right neighbour
	b := bounds[:base]
	rank := bounds[base:]
	pair := func(k int) int {
		if k+2 < len(b) {
			return pairRank(ranks, piece, b[k], b[k+2])
		}
		return none
	}
	for len(b) > 2 {
		best, at := none, -1
		for k, r := range rank[:len(b)-1] {
			if r < best {
				best, at = r, k
			}
		}
		if at < 0 {
			break
		}
		// Merge tokens at and at+1: drop boundary at+1, then re-rank the
		// merged token against both of its neighbours.
		b = append(b[:at+1], b[at+2:]...)
		rank = append(rank[:at+1], rank[at+2:]...)
		rank[at] = pair(at)
		if at > 0 {
			rank[at-1] = pair(at - 1)
		}
	}
	return b
}

// heapMerge is bpeMerge in O(n log n). The tokens form a doubly linked
// list over their start offsets, and a min-heap holds a candidate for every
// adjacent pair of tokens whose concatenation has a rank. A merge changes
// only the pairs on either side of the merged token, so it pushes at most
// two candidates; a candidate whose pair has changed since it was pushed is
// recognized when popped and dropped. The heap thus pops the current pairs
// in tiktoken's order.
//
// A candidate is the uint64 rank<<32 | start, so that comparing candidates
// is comparing integers: lowest rank first, the leftmost on ties. It is
// current if the token at start still has a pair of that rank: the pair
// starting at start only ever grows, and a longer string is another token
// with another rank. live counts the current candidates, so that the
// stale ones left in the heap once they are all merged are not popped one
// by one. Offsets are int32: a piece lies in one document, far below 2 GiB
// (Chunk spans are uint32 already).
func heapMerge(ranks map[string]int, piece string, bounds []int) []int {
	n := int32(len(piece))
	// One struct per token rather than three slices, because merges visit
	// the piece in rank order, that is at random: one cache miss per visit
	// rather than three.
	tok := make([]mergeToken, n)
	h := make(mergeHeap, 0, n)
	for i := range n {
		tok[i] = mergeToken{next: i + 1, prev: i - 1, pair: -1}
		if i+1 < n {
			if r, ok := ranks[piece[i:i+2]]; ok {
				tok[i].pair = int32(r)
				h = append(h, uint64(r)<<32|uint64(i))
			}
		}
	}
	h.init()
	live := len(h)
	// setPair records the pair of the token at start with the next one,
	// which ends at end, and queues it if it has a rank.
	setPair := func(start, end int32) {
		if tok[start].pair >= 0 {
			live--
		}
		tok[start].pair = -1
		if r, ok := ranks[piece[start:end]]; ok {
			tok[start].pair = int32(r)
			live++
			h.push(uint64(r)<<32 | uint64(start))
		}
	}
	for live > 0 {
		c := h.pop()
		start := int32(uint32(c))
		t := &tok[start]
		if int64(t.pair) != int64(c>>32) {
			continue // stale: that pair has grown or been merged away
		}
		// Merge the tokens at start and mid into one ending at end.
		mid := t.next
		end := tok[mid].next
		t.next, tok[mid].next = end, -1
		if tok[mid].pair >= 0 {
			tok[mid].pair = -1
			live--
		}
		if end < n {
			tok[end].prev = start
			setPair(start, tok[end].next)
		} else {
			t.pair = -1
			live--
		}
		if p := t.prev; p >= 0 {
			setPair(p, end)
		}
	}
	for i := int32(0); i < n; i = tok[i].next {
		bounds = append(bounds, int(i))
	}
	return append(bounds, int(n))
}

// mergeToken is a token of heapMerge's list: the starts of the next and
// previous tokens (next is -1 once the token has been merged into the one
// before it), and the rank of the token merged with the next one, or -1.
type mergeToken struct {
	next, prev, pair int32
}

// mergeHeap is a 4-ary min-heap of merge candidates: shallower than a
// binary heap, so a sift touches fewer cache lines of a heap that, for a
// megabyte-long piece, is far larger than the cache.
type mergeHeap []uint64

func (h mergeHeap) init() {
	if len(h) < 2 {
		return
	}
	for k := (len(h) - 2) / 4; k >= 0; k-- {
		h.down(k)
	}
}

func (h *mergeHeap) push(c uint64) {
	*h = append(*h, c)
	s := *h
	k := len(s) - 1
	for k > 0 {
		p := (k - 1) / 4
		if s[p] <= c {
			break
		}
		s[k] = s[p]
		k = p
	}
	s[k] = c
}

func (h *mergeHeap) pop() uint64 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	if last > 0 {
		h.down(0)
	}
	return top
}

func (h mergeHeap) down(k int) {
	c := h[k]
	for {
		first := 4*k + 1
		if first >= len(h) {
			break
		}
		m := first
		for j := first + 1; j < first+4 && j < len(h); j++ {
			if h[j] < h[m] {
				m = j
			}
		}
		if h[m] >= c {
			break
		}
		h[k] = h[m]
		k = m
	}
	h[k] = c
}

func pairRank(ranks map[string]int, piece string, start, end int) int {
	if r, ok := ranks[piece[start:end]]; ok {
		return r
	}
	return int(^uint(0) >> 1)
}
