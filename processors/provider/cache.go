package provider

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
)

// Default bounds of a ResponseCache. A triplet reply of 20 facts is about
// 6 KB, a question or score reply well under 1 KB, so the byte bound is the
// one that binds for extraction and the entry bound for the rest.
const (
	DefaultCacheEntries = 2048
	DefaultCacheBytes   = 16 << 20
)

// ResponseCache is a bounded, in-memory LRU of generator replies keyed by
// CacheKey, so that reprocessing an unchanged chunk or fact set does not
// ask the LLM again. It holds at most maxEntries replies and maxBytes bytes
// of keys and replies together, evicting the least recently used first; a
// reply larger than maxBytes on its own is not kept. It lives as long as
// the process: a restart asks again. Safe for concurrent use.
type ResponseCache struct {
	mu                   sync.Mutex
	maxEntries, maxBytes int
	bytes                int
	order                *list.List // of *cacheEntry, most recent at the front
	byKey                map[string]*list.Element
	hits, misses         int64
}

type cacheEntry struct{ key, value string }

// NewResponseCache returns an empty cache; a bound ≤ 0 takes its default
// (DefaultCacheEntries, DefaultCacheBytes).
func NewResponseCache(maxEntries, maxBytes int) *ResponseCache {
	if maxEntries <= 0 {
		maxEntries = DefaultCacheEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &ResponseCache{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// Get returns the reply stored under key and marks it recently used.
func (c *ResponseCache) Get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		c.misses++
		return "", false
	}
	c.hits++
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).value, true
}

// Put stores value under key, evicting as the bounds require.
func (c *ResponseCache) Put(key, value string) {
	size := len(key) + len(value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.removeLocked(e)
	}
	if size > c.maxBytes {
		return
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, value: value})
	c.bytes += size
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.removeLocked(c.order.Back())
	}
}

func (c *ResponseCache) removeLocked(e *list.Element) {
	ce := c.order.Remove(e).(*cacheEntry)
	delete(c.byKey, ce.key)
	c.bytes -= len(ce.key) + len(ce.value)
}

// Len returns the number of replies held.
func (c *ResponseCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Stats returns the lookups that found a reply and those that did not.
func (c *ResponseCache) Stats() (hits, misses int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// CacheKey is the key of a generator reply: a SHA-256 over who answers
// (GeneratorID), the decoding options and the prompt, each length-prefixed
// so that no two different inputs share a key.
func CacheKey(g Generator, opts GenerateOptions, prompt string) string {
	h := sha256.New()
	for _, p := range []string{GeneratorID(g), strconv.FormatFloat(opts.Temperature, 'g', -1, 64), strconv.Itoa(opts.MaxTokens), prompt} {
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// GeneratorID names a generator for cache keys: its String (for OpenAI:
// id, served model and endpoint, never a credential), else its ID, else
// its Go type.
func GeneratorID(g Generator) string {
	switch v := g.(type) {
	case fmt.Stringer:
		return v.String()
	case interface{ ID() string }:
		return v.ID()
	}
	return fmt.Sprintf("%T", g)
}
