package main

import (
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/processors/provider"
)

// perturbCacheFile is where the perturb stage keeps its generator replies,
// under the data dir: the LLM kinds' rewrites are paid for once, restarts
// included.
const perturbCacheFile = "cache/perturb-llm-replies.jsonl"

var (
	replyCachesMu sync.Mutex
	replyCaches   = map[string]*lazyReplyCache{}
)

// perturbReplyCache returns the reply cache of the perturb stage for
// dataDir, one per file for the whole process: the file is locked while
// open, and a stage built again (--dry-run's check, a benchmark, an engine
// restarted in the same process) must share it rather than be refused.
func perturbReplyCache(dataDir string, log *slog.Logger) perturb.ReplyCache {
	path, err := filepath.Abs(filepath.Join(dataDir, perturbCacheFile))
	if err != nil {
		path = filepath.Join(dataDir, perturbCacheFile)
	}
	replyCachesMu.Lock()
	defer replyCachesMu.Unlock()
	c := replyCaches[path]
	if c == nil {
		c = &lazyReplyCache{path: path, log: log}
		replyCaches[path] = c
	}
	return c
}

// lazyReplyCache opens its file on first use, so that building the stage
// (--dry-run does) touches no file. A file that cannot be opened (another
// process holds it, a read-only disk) leaves an in-memory cache for this
// process and a warning: replies are then paid again after a restart.
type lazyReplyCache struct {
	path string
	log  *slog.Logger

	once sync.Once
	disk *provider.DiskCache
	mem  *provider.ResponseCache
}

func (c *lazyReplyCache) open() {
	c.once.Do(func() {
		d, err := provider.OpenDiskCache(c.path)
		if err != nil {
			c.log.Warn("perturb: generator replies are cached in memory only", "err", err)
			c.mem = provider.NewResponseCache(0, 0)
			return
		}
		c.disk = d
	})
}

func (c *lazyReplyCache) Get(key string) (string, bool) {
	c.open()
	if c.disk != nil {
		return c.disk.Get(key)
	}
	return c.mem.Get(key)
}

func (c *lazyReplyCache) Put(key, value string) error {
	c.open()
	if c.disk != nil {
		return c.disk.Put(key, value)
	}
	c.mem.Put(key, value)
	return nil
}
