package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEvalOnceRetiresRemovedFile: a file removed from a dir: folder between
// two eval --once runs on one data dir retires exactly its document's
// questions at the second run (the source remembers which files of the
// folder it emitted); a third, unchanged run emits nothing; another folder
// on the same data dir retires nothing of the first; a folder emptied of
// document files, or gone, retires nothing (a warning, an error); the file
// put back is a new version of its document.
func TestEvalOnceRetiresRemovedFile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline")
	}
	src := t.TempDir()
	files := map[string]string{
		"bank.md":     "# Northwind Bank\n\nNorthwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 12 new branches.\n",
		"globex.txt":  "Globex Industries hired 450 engineers. Globex Industries is based in Springfield.\n",
		"initech.txt": "Initech appointed Peter Gibbons as chief operating officer. Initech is based in Austin.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	eval := func(source string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run([]string{"eval", "--once", "--source", source, "--data-dir", data, "--log-level", "warn"}, &out, &errb); code != 0 {
			t.Fatalf("eval --once --source %s exited %d\n%s\n%s", source, code, out.String(), tail(errb.String(), 3000))
		}
		return out.String()
	}
	expectVersions := func(out, want string) {
		t.Helper()
		if !strings.Contains(out, "eval finished") || !strings.Contains(out, want) {
			t.Fatalf("eval summary does not say %q:\n%s", want, out)
		}
	}
	q := func(query string) string { return strings.TrimSpace(robustream(t, "sql", "--data-dir", data, query)) }
	// retired lists "doc_id count" per document with retired questions.
	retired := func() string {
		return q("SELECT doc_id, uniqExact(question_id) FROM robustream.question_retirements GROUP BY doc_id ORDER BY doc_id")
	}
	asked := func(where string) string {
		return q("SELECT doc_id, uniqExact(question_id) FROM robustream.active_questions WHERE " + where + " GROUP BY doc_id ORDER BY doc_id")
	}

	out := eval("dir:" + src)
	expectVersions(out, "3 new document version(s), 0 unchanged")
	docID := func(title string) string {
		return q("SELECT doc_id FROM robustream.documents WHERE title = '" + title + "'")
	}
	bank, globex, initech := docID("Northwind Bank"), docID("globex"), docID("initech")
	before := asked("1")
	if n := strings.Count(before, "\n") + 1; before == "" || n != 3 {
		t.Fatalf("questions per document after the first run:\n%s\nwant questions for each of the 3 documents", before)
	}
	globexQuestions := asked("doc_id = '" + globex + "'")
	others := asked("doc_id != '" + globex + "'")

	if err := os.Remove(filepath.Join(src, "globex.txt")); err != nil {
		t.Fatal(err)
	}
	out = eval("dir:" + src)
	expectVersions(out, "1 new document version(s), 2 unchanged")
	if got := retired(); got != globexQuestions {
		t.Errorf("retired after globex.txt was removed: %q, want globex's questions %q and nothing else", got, globexQuestions)
	}
	if got := asked("1"); got != others {
		t.Errorf("questions asked now: %q, want the other documents' %q untouched", got, others)
	}
	if v := q("SELECT version, length(text) > 0 FROM robustream.documents WHERE doc_id = '" + globex + "' ORDER BY version"); v != "1\t1\n2\t0" {
		t.Errorf("globex's versions: %q, want the file's and its deletion (no text)", v)
	}

	out = eval("dir:" + src)
	expectVersions(out, "0 new document version(s), 2 unchanged")
	if got := retired(); got != globexQuestions {
		t.Errorf("retired after an unchanged run: %q, want still only %q", got, globexQuestions)
	}

	// Another folder on the same data dir: its run is not a removal of
	// the first folder's files.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "umbrella.txt"), []byte("Umbrella Corporation sold 12 ships. Umbrella Corporation is based in Raccoon City.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = eval("dir:" + other)
	expectVersions(out, "1 new document version(s), 0 unchanged")
	if got := retired(); got != globexQuestions {
		t.Errorf("retired after a run over another folder: %q, want still only %q", got, globexQuestions)
	}
	out = eval("dir:" + src)
	expectVersions(out, "0 new document version(s), 2 unchanged")

	// Emptied of document files (a file of another format stays): a
	// warning, nothing retired. Gone altogether: an error, nothing retired.
	emptied := t.TempDir()
	for _, name := range []string{"bank.md", "initech.txt"} {
		if err := os.Rename(filepath.Join(src, name), filepath.Join(emptied, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "inventory.csv"), []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// (the binary: in-process runs log to the test's stderr)
	out, err := runBinary(nil, "eval", "--once", "--source", "dir:"+src, "--data-dir", data, "--log-level", "warn")
	if err != nil {
		t.Fatalf("eval over the emptied folder: %v\n%s", err, tail(out, 3000))
	}
	expectVersions(out, "0 new document version(s), 0 unchanged")
	if !strings.Contains(out, "folder has no document files") || !strings.Contains(out, "documents=2") {
		t.Errorf("no warning about the folder without document files:\n%s", tail(out, 3000))
	}
	if got := asked("doc_id IN ('" + bank + "', '" + initech + "')"); got != others {
		t.Errorf("after a run over the emptied folder, asked: %q, want %q", got, others)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	var sout, serr bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "dir:" + gone, "--data-dir", data, "--log-level", "warn"}, &sout, &serr); code == 0 || !strings.Contains(serr.String(), gone) {
		t.Errorf("eval over a missing folder exited %d, want an error naming it:\n%s", code, tail(serr.String(), 2000))
	}
	if got := retired(); got != globexQuestions {
		t.Errorf("retired after the emptied and the missing folder: %q, want still only %q", got, globexQuestions)
	}

	// Back: the two files unchanged, globex.txt as a new version.
	for _, name := range []string{"bank.md", "initech.txt"} {
		if err := os.Rename(filepath.Join(emptied, name), filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "globex.txt"), []byte(files["globex.txt"]), 0o644); err != nil {
		t.Fatal(err)
	}
	out = eval("dir:" + src)
	expectVersions(out, "1 new document version(s), 2 unchanged")
	if v := q("SELECT version, length(text) > 0 FROM robustream.documents WHERE doc_id = '" + globex + "' ORDER BY version"); v != "1\t1\n2\t0\n3\t1" {
		t.Errorf("globex's versions after it was put back: %q, want 1 (text), 2 (deletion), 3 (text)", v)
	}
}

// TestRunRestartRetiresFileRemovedWhileStopped: a file removed from the
// folder while `run` was stopped retires exactly its document's questions
// once `run` starts again (its first scan compares the folder with the
// files it emitted before); the other document's questions stay.
func TestRunRestartRetiresFileRemovedWhileStopped(t *testing.T) {
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
	q := func(query string) string { return strings.TrimSpace(robustream(t, "sql", "--data-dir", data, query)) }
	// is asks while the engine may still be starting: its SQL API is not
	// up yet, and the data dir's chDB is the engine's, so a failed query
	// is "not yet", not a failure.
	is := func(query, want string) func() bool {
		return func() bool {
			out, err := exec.Command(binary, "sql", "--data-dir", data, query).Output()
			return err == nil && strings.TrimSpace(string(out)) == want
		}
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Minute); !ok(); time.Sleep(time.Second) {
			if time.Now().After(deadline) {
				t.Fatalf("still waiting for %s", what)
			}
		}
	}
	start := func() (*exec.Cmd, *syncBuffer) {
		return startEngineProcess(t, fmt.Sprintf("127.0.0.1:%d", freePort(t)), nil, "--data-dir", data, "--source", "dir:"+src)
	}
	eng, out := start()
	waitFor("questions of both documents", is("SELECT uniqExact(doc_id) FROM robustream.questions", "2"))
	if err := eng.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if st := waitExit(t, eng, time.Minute, out); !st.Success() {
		t.Fatalf("engine: %v\n%s", st, tail(out.String(), 3000))
	}
	globex := q("SELECT doc_id FROM robustream.documents WHERE title = 'globex'")
	n := q("SELECT uniqExact(question_id) FROM robustream.questions WHERE doc_id = '" + globex + "'")
	if err := os.Remove(filepath.Join(src, "globex.txt")); err != nil {
		t.Fatal(err)
	}
	start()
	waitFor("globex's questions retired", is("SELECT uniqExact(question_id) FROM robustream.question_retirements", n))
	if got := q("SELECT doc_id, uniqExact(question_id) FROM robustream.question_retirements GROUP BY doc_id"); got != globex+"\t"+n {
		t.Errorf("retired: %q, want %s questions of %s and nothing else", got, n, globex)
	}
	if v := q("SELECT version, length(text) > 0 FROM robustream.documents WHERE doc_id = '" + globex + "' ORDER BY version"); v != "1\t1\n2\t0" {
		t.Errorf("globex's versions: %q, want the file's and its deletion (no text)", v)
	}
}
