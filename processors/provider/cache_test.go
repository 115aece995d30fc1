package provider

import (
	"context"
	"strings"
	"testing"
)

func TestResponseCacheBounds(t *testing.T) {
	c := NewResponseCache(2, 0)
	c.Put("a", "1")
	c.Put("b", "2")
	c.Get("a") // b is now the least recently used
	c.Put("c", "3")
	if _, ok := c.Get("b"); ok || c.Len() != 2 {
		t.Errorf("entry bound: b kept or %d entries", c.Len())
	}
	if v, ok := c.Get("a"); !ok || v != "1" {
		t.Errorf("Get(a) = %q, %v", v, ok)
	}

	c = NewResponseCache(0, 10)
	c.Put("k1", "12345") // 7 bytes
	c.Put("k2", "123")   // 5 more: k1 goes
	if _, ok := c.Get("k1"); ok {
		t.Error("byte bound: k1 kept")
	}
	c.Put("big", strings.Repeat("x", 20)) // larger than the cache: not kept
	if _, ok := c.Get("big"); ok || c.Len() != 1 {
		t.Errorf("oversized reply kept, or %d entries", c.Len())
	}
	c.Put("k2", "9") // replacing frees the old size
	if v, _ := c.Get("k2"); v != "9" || c.bytes != 3 {
		t.Errorf("replace: %q, %d bytes", v, c.bytes)
	}
	hits, misses := c.Stats()
	if hits != 1 || misses != 2 {
		t.Errorf("stats %d hits %d misses", hits, misses)
	}
}

type namedGen struct{ name string }

func (g namedGen) Generate(context.Context, string, GenerateOptions) (string, error) { return "", nil }
func (g namedGen) String() string                                                    { return g.name }

func TestCacheKey(t *testing.T) {
	a, b := namedGen{"model a"}, namedGen{"model b"}
	k := CacheKey(a, GenerateOptions{}, "prompt")
	for _, other := range []string{
		CacheKey(b, GenerateOptions{}, "prompt"),
		CacheKey(a, GenerateOptions{MaxTokens: 10}, "prompt"),
		CacheKey(a, GenerateOptions{Temperature: 0.5}, "prompt"),
		CacheKey(a, GenerateOptions{}, "prompt "),
	} {
		if other == k {
			t.Error("different inputs share a key")
		}
	}
	if CacheKey(a, GenerateOptions{}, "prompt") != k {
		t.Error("the key is not deterministic")
	}
}
