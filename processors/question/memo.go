package question

import (
	"sync"

	"github.com/robustream/robustream/schemas"
)

// memo is a bounded, concurrency-safe cache of a pure function's results:
// when full it starts over, which bounds memory without bookkeeping.
type memo[V any] struct {
	mu  sync.Mutex
	max int
	m   map[string]V
}

func newMemo[V any](max int) *memo[V] { return &memo[V]{max: max, m: map[string]V{}} }

func (c *memo[V]) get(k string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *memo[V]) put(k string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = v
}

// memoKey hashes a function's string arguments.
func memoKey(parts ...string) string { return schemas.ID(parts...) }
