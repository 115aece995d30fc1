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
	ranks, err := vocabulary()
	if err != nil {
		// The vocabulary is compiled into the binary: failing to parse it is
		// a broken build, not bad input.
		panic(err)
	}
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
func bpeMerge(ranks map[string]int, piece string, bounds []int) []int {
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

func pairRank(ranks map[string]int, piece string, start, end int) int {
	if r, ok := ranks[piece[start:end]]; ok {
		return r
	}
	return int(^uint(0) >> 1)
}
