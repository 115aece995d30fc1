package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRemovedFileRetiresItsQuestions: under run, a file removed from the
// watched folder retires exactly the questions of its document; the other
// file's questions stay active.
func TestRemovedFileRetiresItsQuestions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline")
	}
	src := t.TempDir()
	for name, text := range map[string]string{
		"bank.md":    "# Northwind Bank\n\nNorthwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 12 new branches.\n",
		"globex.txt": "Globex Industries hired 450 engineers. Globex Industries is based in Springfield.\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	startEngineProcess(t, addr, nil, "--data-dir", data, "--source", "dir:"+src)
	q := func(query string) string { return strings.TrimSpace(robustream(t, "sql", "--data-dir", data, query)) }
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Minute); !ok(); time.Sleep(time.Second) {
			if time.Now().After(deadline) {
				t.Fatalf("still waiting for %s", what)
			}
		}
	}
	waitFor("questions of both documents", func() bool { return q("SELECT uniqExact(doc_id) FROM robustream.questions") == "2" })
	globex := q("SELECT doc_id FROM robustream.documents WHERE title = 'globex'")
	n := q("SELECT count() FROM robustream.questions WHERE doc_id = '" + globex + "'")
	if err := os.Remove(filepath.Join(src, "globex.txt")); err != nil {
		t.Fatal(err)
	}
	waitFor("globex's questions retired", func() bool { return q("SELECT count() FROM robustream.question_retirements") == n })
	got := q("SELECT q.doc_id, count() FROM robustream.question_retirements r JOIN robustream.questions q USING question_id GROUP BY q.doc_id")
	if got != globex+"\t"+n {
		t.Errorf("retired: %q, want %s questions of %s and nothing else", got, n, globex)
	}
	if v := q("SELECT version, length(text) > 0 FROM robustream.documents WHERE doc_id = '" + globex + "' ORDER BY version"); v != "1\t1\n2\t0" {
		t.Errorf("globex's versions: %q, want the file's and its deletion (no text)", v)
	}
}
