package simserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/chunk"
)

func TestTokenize(t *testing.T) {
	f := func(s string, want ...string) {
		t.Helper()
		var got []string
		for _, sp := range tokenize(s) {
			got = append(got, s[sp.start:sp.end])
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Errorf("tokenize(%q) = %q, want %q", s, got, want)
		}
	}
	f("")
	f("  \n\t")
	f("Acme Corp's revenue was $4.2 billion.", "Acme", "Corp", "'", "s", "revenue", "was", "$", "4", ".", "2", "billion", ".")
	f("Context [1]:\nnaïve 東京", "Context", "[", "1", "]", ":", "naïve", "東京")
}

// TestTokenCountNearBPE holds CountTokens to its documented promise on the
// engine's prompts and English prose: within about a tenth of cl100k_base,
// the real tokenizer of processors/chunk.
func TestTokenCountNearBPE(t *testing.T) {
	texts := []string{
		readGolden(t, "prompt_rag.golden"),
		readGolden(t, "prompt_closed_book.golden"),
		"Acme Corp published its quarterly report on Monday. Acme Corp's revenue in Q3 2025 was $4.2 billion. " +
			"Its operating margin was 18%, up from 15% a year earlier, and the company raised its full-year outlook.",
		"Northwind Bank appointed Maria Lopez as chief financial officer. She previously led the treasury " +
			"department of a regional lender and holds a degree in economics from the University of Lisbon.",
	}
	var ours, bpe int
	for _, s := range texts {
		n, want := CountTokens(s), chunk.CountTokens(s)
		if r := float64(n) / float64(want); r < 0.8 || r > 1.25 {
			t.Errorf("%d tokens, cl100k %d: ratio %.2f out of [0.8, 1.25] for %q", n, want, r, s)
		}
		ours, bpe = ours+n, bpe+want
	}
	if r := float64(ours) / float64(bpe); r < 0.9 || r > 1.1 {
		t.Errorf("overall %d tokens, cl100k %d: ratio %.2f out of [0.9, 1.1]", ours, bpe, r)
	}
}

func TestBlockHashesChain(t *testing.T) {
	words := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%d ", prefix, i)
		}
		return b.String()
	}
	hashes := func(s string) []uint64 { return blockHashes(s, tokenize(s)) }
	a := hashes(words("w", 40))                  // 40 tokens: 2 full blocks
	b := hashes(words("w", 20) + words("v", 40)) // shares the first 20 tokens
	c := hashes("x " + words("w", 39))           // differs only in the first token
	if len(a) != 2 || len(b) != 3 || len(c) != 2 {
		t.Fatalf("block counts %d %d %d, want 2 3 2", len(a), len(b), len(c))
	}
	if a[0] != b[0] || a[1] == b[1] {
		t.Errorf("shared first block must hit, diverging second must not: %x %x", a, b)
	}
	if a[0] == c[0] || a[1] == c[1] {
		t.Errorf("a block must not hit when an earlier token differs: %x %x", a, c)
	}
}

func TestPrefixCacheLRU(t *testing.T) {
	c := newPrefixCache(3)
	f := func(hashes []uint64, want int) {
		t.Helper()
		if got := c.admit(hashes); got != want {
			t.Errorf("admit(%v) = %d, want %d", hashes, got, want)
		}
	}
	f([]uint64{1, 2}, 0)
	f([]uint64{1, 2}, 2)
	f([]uint64{1, 3}, 1) // 3 cached, 1 and 2 kept
	f([]uint64{4}, 0)    // evicts 2, the least recently used
	f([]uint64{1, 2}, 1)
	f([]uint64{9, 1}, 0) // only leading blocks count
	if c.lru.Len() != 3 || len(c.blocks) != 3 {
		t.Errorf("cache holds %d blocks (%d in the map), capacity 3", c.lru.Len(), len(c.blocks))
	}
	off := newPrefixCache(-1)
	off.admit([]uint64{1})
	if got := off.admit([]uint64{1}); got != 0 {
		t.Errorf("a disabled cache hit %d blocks", got)
	}
}

func TestPrefixCacheOverHTTP(t *testing.T) {
	shared := strings.Repeat("The quarterly report of Acme Corp covers revenue, margins and outlook. ", 20)
	sharedTokens := CountTokens(shared)
	f := func(cfg Config, first, second string, restart bool, wantHit bool) {
		t.Helper()
		s := start(t, with(cfg))
		if r := post(nil, s, "/completions", map[string]any{"prompt": first}); r.status != 200 {
			t.Fatalf("first: %v %d", r.err, r.status)
		}
		if st := s.Stats(); st.CachedTokens != 0 {
			t.Fatalf("the first prompt found %d cached tokens in an empty cache", st.CachedTokens)
		}
		if restart {
			if err := s.Restart(); err != nil {
				t.Fatal(err)
			}
		}
		var resp completionResp
		post(newClient(t), s, "/completions", map[string]any{"prompt": second}).decode(t, &resp)
		st := s.Stats()
		cached := st.CachedTokens
		switch {
		case !wantHit && cached != 0:
			t.Errorf("%d tokens of the second prompt cached, want none", cached)
		case wantHit && (cached == 0 || cached%BlockTokens != 0 || cached > sharedTokens):
			t.Errorf("%d tokens of the second prompt cached, want a positive multiple of %d up to the %d shared", cached, BlockTokens, sharedTokens)
		}
		if st.PromptTokens != CountTokens(first)+CountTokens(second) || resp.Usage.PromptTokens != CountTokens(second) {
			t.Errorf("prompt tokens %d, usage %d", st.PromptTokens, resp.Usage.PromptTokens)
		}
	}
	f(Config{}, shared+"Question: What was the revenue?", shared+"Question: What was the margin?", false, true)
	f(Config{}, "Unrelated: "+shared, shared+"Question: What was the margin?", false, false)
	f(Config{}, "short prompt", "short prompt", false, false) // under one block
	f(Config{}, shared, shared, true, false)                  // a restart empties the cache
	f(Config{PrefixCacheBlocks: -1}, shared+"a", shared+"b", false, false)

	// The whole prompt cached still computes its last token.
	s := start(t, with(Config{}))
	exact := strings.Repeat("x ", 4*BlockTokens)
	for range 2 {
		post(nil, s, "/completions", map[string]any{"prompt": exact})
	}
	if st := s.Stats(); st.CachedTokens != 3*BlockTokens || st.PromptTokens != 8*BlockTokens || st.PrefixHitRate() != 3.0/8 {
		t.Errorf("a repeated prompt of 4 blocks: %d of %d tokens cached", st.CachedTokens, st.PromptTokens)
	}
}
