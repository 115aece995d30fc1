package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQuestionsAnchorToPublicationDate: a document that says when it was
// published gets that date, and its questions anchor to its period, never
// to the day of the run.
func TestQuestionsAnchorToPublicationDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	dir := t.TempDir()
	doc := "# Northwind quarterly report\n\nPublished: 2026-04-28\n\n" +
		"Northwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 12 new branches.\n\n" +
		"Globex Industries hired 450 engineers. Initech acquired Brightline Labs.\n"
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "dir:" + dir, "--data-dir", data, "--log-level", "error"}, &out, &errb); code != 0 {
		t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	if got := strings.TrimSpace(robustream(t, "sql", "--data-dir", data, "SELECT toDate(published_at) FROM robustream.documents")); got != "2026-04-28" {
		t.Errorf("published_at %q, want 2026-04-28", got)
	}
	questions := robustream(t, "sql", "--data-dir", data, "SELECT question FROM robustream.questions")
	if strings.TrimSpace(questions) == "" {
		t.Fatal("no questions")
	}
	now := time.Now().Format("January 2006")
	for _, q := range strings.Split(strings.TrimSpace(questions), "\n") {
		if strings.Contains(q, now) && now != "April 2026" {
			t.Errorf("%q anchors to the run date", q)
		}
		if (strings.Contains(q, " as of ") || strings.Contains(q, "as reported in")) && !strings.Contains(q, "April 2026") {
			t.Errorf("%q anchors to another period than the document's", q)
		}
	}
	t.Logf("questions:\n%s", questions)
}
