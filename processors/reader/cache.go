package reader

import (
	"sync"

	"github.com/segmentio/encoding/json"

	"github.com/robustream/robustream/processors/provider"
)

// Cache holds the answers already received, by request id (a hash of model,
// prompt and decoding parameters), so that no answered prompt is sent again:
// not for a duplicate request, not after a restart, not on a rerun of
// `eval --once` over the same data dir. The stage writes every new answer to
// its changelog topic (streams.ChangelogTopic(StageName)) with the result,
// and a process loads the changelog into a Cache when it starts (Load).
// It is safe for concurrent use.
type Cache struct {
	mu sync.RWMutex
	m  map[string]cached
}

// cached is an answer as the changelog stores it.
type cached struct {
	Text      string    `json:"text"`
	TokensIn  int       `json:"tokens_in"`
	TokensOut int       `json:"tokens_out"`
	LatencyMS float64   `json:"latency_ms"`
	Contexts  []string  `json:"contexts,omitempty"`
	Sources   []string  `json:"sources,omitempty"`
	Scores    []float64 `json:"scores,omitempty"`
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[string]cached{}} }

// Load adds one changelog record (key: request id, value: the answer as
// the stage wrote it). A value that does not decode is skipped: the prompt
// is then sent again, which costs a call but loses nothing.
func (c *Cache) Load(requestID string, value []byte) {
	var a cached
	if json.Unmarshal(value, &a) != nil {
		return
	}
	c.mu.Lock()
	c.m[requestID] = a
	c.mu.Unlock()
}

// Len returns the number of answers held.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

func (c *Cache) get(requestID string) (cached, bool) {
	if c == nil {
		return cached{}, false
	}
	c.mu.RLock()
	a, ok := c.m[requestID]
	c.mu.RUnlock()
	return a, ok
}

// put remembers a and returns its changelog value.
func (c *Cache) put(requestID string, a cached) ([]byte, error) {
	b, err := json.Marshal(&a)
	if err != nil || c == nil {
		return b, err
	}
	c.mu.Lock()
	c.m[requestID] = a
	c.mu.Unlock()
	return b, nil
}

func cachedOf(a provider.Answer, latencyMS float64) cached {
	return cached{Text: a.Text, TokensIn: a.TokensIn, TokensOut: a.TokensOut, LatencyMS: latencyMS, Contexts: a.Contexts,
		Sources: a.ContextSources, Scores: a.ContextScores}
}
