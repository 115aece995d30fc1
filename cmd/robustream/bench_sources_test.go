package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBenchSources runs `bench sources` on a small input: a row for each
// format, every figure measured (no zero), the documents counted.
func TestBenchSources(t *testing.T) {
	var out bytes.Buffer
	if err := cmdBenchSources(context.Background(), []string{"-mb", "0.05"}, &out); err != nil {
		t.Fatalf("bench sources: %v\n%s", err, out.String())
	}
	rows := benchSourceRows(t, out.String())
	for _, f := range []string{"markdown", "text", "html", "pdf", "jsonl"} {
		if _, ok := rows[f]; !ok {
			t.Errorf("no row for %s:\n%s", f, out.String())
		}
	}
}

// With -samples, the real pages of sources/dir/testdata/pages are the HTML
// input.
func TestBenchSourcesSamples(t *testing.T) {
	var out bytes.Buffer
	pages := filepath.Join("..", "..", "sources", "dir", "testdata", "pages")
	if err := cmdBenchSources(context.Background(), []string{"-mb", "0.3", "-formats", "html", "-samples", pages}, &out); err != nil {
		t.Fatalf("bench sources: %v\n%s", err, out.String())
	}
	if rows := benchSourceRows(t, out.String()); len(rows) != 1 || rows["html"] < 2 {
		t.Errorf("rows %v, want html over at least 2 pages:\n%s", rows, out.String())
	}
}

// A format whose source emits fewer documents than it was given (here:
// files the dir: source skips as binary) fails the bench instead of
// printing a figure for work not done.
func TestBenchSourcesRefusesUnprocessedInput(t *testing.T) {
	_, err := benchSourceFormat(context.Background(), t.TempDir(), ".md", [][]byte{{0x89, 'P', 'N', 'G', 0, 0}}, 100)
	if err == nil || !strings.Contains(err.Error(), "emitted 0 documents") {
		t.Errorf("err %v, want a refusal", err)
	}
	if _, err := benchSourceFormat(context.Background(), t.TempDir(), ".md", nil, 100); err == nil {
		t.Error("no input gave a figure")
	}
}

// benchSourceRows parses the table: format → documents, checking that no
// figure is zero.
func benchSourceRows(t *testing.T, out string) map[string]int {
	rows := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 7 || f[0] == "format" {
			continue
		}
		docs, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		for _, v := range f[2:] {
			if x, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64); err != nil || x <= 0 {
				t.Errorf("%s: figure %q is not a positive number: %q", f[0], v, line)
			}
		}
		rows[f[0]] = docs
	}
	return rows
}
