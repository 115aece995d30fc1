package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNoRunMonthInQuestions: documents that give no date of their own,
// written by the test (so their modification time is now), yield questions
// none of which names the month of the run or carries a publication anchor
// ("as of …", "as reported in …"): a file's mtime is provenance, not a
// date of its facts: the documents' published_at is empty (sources/dir's
// tests check that their metadata keeps the mtime).
func TestNoRunMonthInQuestions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	dir := t.TempDir()
	docs := map[string]string{
		"bank.md": "# Northwind Bank\n\nNorthwind Bank appointed Maria Lopez as chief financial officer. " +
			"Northwind Bank opened 12 new branches. Northwind Bank is based in Bergen.\n",
		"globex.txt": "Globex Industries hired 450 engineers. Initech acquired Brightline Labs. " +
			"Globex Industries reported revenue of $4.2 billion.\n",
		"fjord.html": "<html><head><title>Fjordline</title></head><body><p>Fjordline Logistics operates 40 trucks. " +
			"Fjordline Logistics appointed Ingrid Solberg as chief executive.</p></body></html>",
	}
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "dir:" + dir, "--data-dir", data, "--log-level", "error"}, &out, &errb); code != 0 {
		t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	got := robustream(t, "sql", "--data-dir", data,
		"SELECT countIf(toYear(published_at) > 1970), count() FROM robustream.documents")
	if strings.TrimSpace(got) != "0\t3" {
		t.Errorf("dated documents, all: %q; want 0 of 3", strings.TrimSpace(got))
	}
	questions := strings.TrimSpace(robustream(t, "sql", "--data-dir", data, "SELECT question FROM robustream.questions"))
	if questions == "" {
		t.Fatal("no questions")
	}
	now := time.Now()
	for _, q := range strings.Split(questions, "\n") {
		for _, m := range []string{now.Format("January 2006"), now.Format("January"), now.Format("2006")} {
			if strings.Contains(q, m) {
				t.Errorf("%q names %q, which no document states", q, m)
			}
		}
		if strings.Contains(q, " as of ") || strings.Contains(q, "as reported in") {
			t.Errorf("%q has a publication anchor, but no document has a date", q)
		}
	}
	t.Logf("%d questions:\n%s", strings.Count(questions, "\n")+1, questions)
}
