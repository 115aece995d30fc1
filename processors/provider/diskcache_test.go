package provider

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDiskCache: replies survive a reopen; a line cut by a crash is
// skipped, the others kept; a second open of a held file is refused.
func TestDiskCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "replies.jsonl")
	c, err := OpenDiskCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put("k1", "one\nline two"); err != nil {
		t.Fatal(err)
	}
	if err := c.Put("k2", "two"); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDiskCache(path); err == nil {
		t.Error("a second open of a held cache file succeeded")
	}
	c.Close()
	// A crash in the middle of a third line.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"k":"k3","v":"thr`)
	f.Close()
	c, err = OpenDiskCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v, ok := c.Get("k1"); !ok || v != "one\nline two" {
		t.Errorf("k1 = %q, %v after reopening", v, ok)
	}
	if _, ok := c.Get("k3"); ok || c.Len() != 2 {
		t.Errorf("the cut line was read: %d replies", c.Len())
	}
	// The reply written after the cut line is read back whole.
	if err := c.Put("k4", "four"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c, err = OpenDiskCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Get("k4"); !ok || v != "four" {
		t.Errorf("k4 = %q, %v: the line after a cut one was lost", v, ok)
	}
}
