package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDocumentPutBackIsAskedAgain: a file removed from a watched folder
// retires its questions; put back unchanged, its questions are asked again
// (robustream.active_questions holds them) under new ids, since a
// retirement is final for an id. Each step is its own eval --once, so the
// retirement counts are also restored from the state across runs.
func TestDocumentPutBackIsAskedAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline three times")
	}
	dir, data := writeCorpus(t), t.TempDir()
	eval := func(step string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run([]string{"eval", "--once", "--source", "dir:" + dir, "--data-dir", data, "--log-level", "error"}, &out, &errb); code != 0 {
			t.Fatalf("%s: eval --once exited %d\n%s\n%s", step, code, out.String(), tail(errb.String(), 3000))
		}
	}
	active := func() (questions, ids []string) {
		t.Helper()
		out := strings.TrimSpace(robustream(t, "sql", "--data-dir", data,
			"SELECT question, question_id FROM robustream.active_questions ORDER BY question"))
		for _, line := range strings.Split(out, "\n") {
			if q, id, ok := strings.Cut(line, "\t"); ok {
				questions, ids = append(questions, q), append(ids, id)
			}
		}
		return questions, ids
	}
	eval("first run")
	before, firstIDs := active()
	if len(before) == 0 {
		t.Fatal("no active questions after the first run")
	}
	notes := filepath.Join(dir, "notes.txt")
	text, err := os.ReadFile(notes)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	eval("after the removal")
	during, _ := active()
	if len(during) >= len(before) {
		t.Fatalf("removing notes.txt retired nothing: %d active questions, %d before", len(during), len(before))
	}
	if err := os.WriteFile(notes, text, 0o644); err != nil {
		t.Fatal(err)
	}
	eval("after putting it back")
	after, afterIDs := active()
	if !slices.Equal(after, before) {
		t.Errorf("active questions after putting notes.txt back:\n%s\nwant, as before its removal:\n%s",
			strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
	retired := strings.TrimSpace(robustream(t, "sql", "--data-dir", data,
		"SELECT count() FROM robustream.question_retirements WHERE question_id IN (SELECT question_id FROM robustream.active_questions)"))
	if retired != "0" {
		t.Errorf("%s active questions have a retirement", retired)
	}
	renewed := 0
	for _, id := range afterIDs {
		if !slices.Contains(firstIDs, id) {
			renewed++
		}
	}
	if renewed != len(before)-len(during) {
		t.Errorf("%d questions asked under a new id, want the %d that were retired", renewed, len(before)-len(during))
	}
	t.Logf("%d active, %d while notes.txt was gone, %d after; %d under new ids", len(before), len(during), len(after), renewed)
}
