package provider

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// DiskCache is a generator reply cache that outlives the process: every
// reply is appended to a file as one JSON line {"k": key, "v": reply} as
// soon as it arrives, and the file is read back when the cache is opened,
// so that an engine restarted over the same inputs does not pay for the
// same prompt twice. Keys are CacheKey values (who answers, the decoding
// options, the prompt).
//
// Unlike ResponseCache it is unbounded: it is meant for short replies
// (rewritten questions and passages), whose number grows with the test set
// rather than with the traffic. A line cut short by a crash is ignored on
// the next open (that one reply is asked again). The file is locked
// (flock) while open: a second process on the same file gets an error
// instead of interleaving its lines. Safe for concurrent use.
type DiskCache struct {
	mu           sync.Mutex
	f            *os.File
	m            map[string]string
	hits, misses int64
}

// diskLine is one line of a DiskCache file.
type diskLine struct {
	K string `json:"k"`
	V string `json:"v"`
}

// OpenDiskCache opens (creating it, and its directory, when missing) the
// cache file at path and loads the replies it holds.
func OpenDiskCache(path string) (*DiskCache, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("reply cache: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("reply cache: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("reply cache %s: in use by another process: %w", path, err)
	}
	c := &DiskCache{f: f, m: map[string]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var l diskLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.K == "" {
			continue // a line cut by a crash: its reply is asked again
		}
		c.m[l.K] = l.V
	}
	if err := sc.Err(); err != nil {
		f.Close()
		return nil, fmt.Errorf("reply cache %s: %w", path, err)
	}
	// A line cut by a crash must not swallow the next reply's line.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				f.Close()
				return nil, fmt.Errorf("reply cache %s: %w", path, err)
			}
		}
	}
	return c, nil
}

// Get returns the reply stored under key.
func (c *DiskCache) Get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if ok {
		c.hits++
	} else {
		c.misses++
	}
	return v, ok
}

// Put stores value under key and appends it to the file before returning,
// so that a reply paid for is kept even when the process dies right after.
func (c *DiskCache) Put(key, value string) error {
	b, err := json.Marshal(diskLine{K: key, V: value})
	if err != nil {
		return fmt.Errorf("reply cache: %w", err)
	}
	b = append(b, '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return errors.New("reply cache: closed")
	}
	if old, ok := c.m[key]; ok && old == value {
		return nil
	}
	// One write per line: with O_APPEND the line lands whole at the end.
	if _, err := c.f.Write(b); err != nil {
		return fmt.Errorf("reply cache: %w", err)
	}
	c.m[key] = value
	return nil
}

// Len returns the number of replies held.
func (c *DiskCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Stats returns the lookups that found a reply and those that did not.
func (c *DiskCache) Stats() (hits, misses int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Close releases the file and its lock; the replies stay on disk.
func (c *DiskCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}
