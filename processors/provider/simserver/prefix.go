package simserver

import (
	"container/list"
	"unicode"
	"unicode/utf8"
)

// BlockTokens is the size of a prefix-cache block, vLLM's default
// block_size.
const BlockTokens = 16

// span is a token's byte range in its text.
type span struct{ start, end int }

// tokenize splits s into the server's tokens (see CountTokens), returning
// their byte ranges. Linear in s.
func tokenize(s string) []span {
	var out []span
	word := -1 // start of the current run of letters and digits
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if word < 0 {
				word = i
			}
			continue
		}
		if word >= 0 {
			out = append(out, span{word, i})
			word = -1
		}
		if !unicode.IsSpace(r) {
			out = append(out, span{i, i + utf8.RuneLen(r)})
		}
	}
	if word >= 0 {
		out = append(out, span{word, len(s)})
	}
	return out
}

// CountTokens returns the number of tokens the server counts in s, for
// usage, the prefix cache and the prefill cost: every run of letters and
// digits is one token, every other character but a space is one of its
// own. On English prose and the engine's prompts that comes within about a
// tenth of a BPE tokenizer's count (TestTokenCountNearBPE holds it to
// cl100k_base), which is all the timing model needs; a real tokenizer would
// cost more than the simulated prefill it times.
func CountTokens(s string) int { return len(tokenize(s)) }

// FNV-1a, 64 bits: deterministic across processes, so that block hashes
// and the seeds derived from prompts are too.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// blockHashes returns the hash of every full block of the tokens of s. Each
// hash continues the one before it, so a block's hash stands for the whole
// prefix up to its end and a block can only hit when everything before it
// matches too, as in vLLM's automatic prefix caching. A partial last block
// is never cached, as in vLLM.
func blockHashes(s string, toks []span) []uint64 {
	out := make([]uint64, 0, len(toks)/BlockTokens)
	h := uint64(fnvOffset)
	for i, t := range toks[:len(toks)/BlockTokens*BlockTokens] {
		h = fnv1a(h, s[t.start:t.end])
		h = fnv1a(h, "\x00") // "ab" then "c" is not "a" then "bc"
		if (i+1)%BlockTokens == 0 {
			out = append(out, h)
		}
	}
	return out
}

// prefixCache holds block hashes, least recently used evicted first. It is
// separate from the memory of the running sequences, unlike vLLM's, where a
// block in use cannot be evicted: a simplification that only matters when
// the cache is smaller than what runs at once.
type prefixCache struct {
	capacity int
	lru      list.List                // of uint64, most recent at the front
	blocks   map[uint64]*list.Element // hash → its element of lru
}

func newPrefixCache(capacity int) *prefixCache {
	return &prefixCache{capacity: capacity, blocks: map[uint64]*list.Element{}}
}

// admit returns how many leading blocks of a prompt are cached, marks them
// used, and caches the others, as vLLM does when it schedules a sequence.
func (c *prefixCache) admit(hashes []uint64) int {
	if c.capacity <= 0 {
		return 0
	}
	hit := 0
	for _, h := range hashes {
		e, ok := c.blocks[h]
		if !ok {
			break
		}
		c.lru.MoveToFront(e)
		hit++
	}
	for _, h := range hashes[hit:] {
		if e, ok := c.blocks[h]; ok { // a later block of a repeated run
			c.lru.MoveToFront(e)
			continue
		}
		if c.lru.Len() >= c.capacity {
			delete(c.blocks, c.lru.Remove(c.lru.Back()).(uint64))
		}
		c.blocks[h] = c.lru.PushFront(h)
	}
	return hit
}

// cachedTokens is how many of n prompt tokens are served from hit cached
// leading blocks. At least the last prompt token is always computed, since
// decoding starts from its logits, and hits count in whole blocks, so a
// prompt found whole in the cache recomputes its last block, as in vLLM.
func cachedTokens(n, hit int) int {
	if n < 1 {
		return 0
	}
	return min(hit, (n-1)/BlockTokens) * BlockTokens
}
