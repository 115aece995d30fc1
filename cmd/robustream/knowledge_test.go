package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// copyCorpus copies a corpus of testdata/corpora into a fresh folder.
func copyCorpus(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "corpora", name, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus %s: %v", name, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Editing one fact of one document, end to end: the questions resting on
// the old fact are retired, the new ones asked and evaluated, and nothing
// else is recomputed — asserted by counts in ClickHouse.
func TestEvalEditOneFact(t *testing.T) {
	corpus := copyCorpus(t, "reports")
	data := t.TempDir()
	robustream(t, "eval", "--once", "--source", "dir:"+corpus, "--data-dir", data)
	count := func(q string) int64 { return sqlCount(t, q, "--data-dir", data) }
	questions := count("SELECT count() FROM robustream.questions")
	active := count("SELECT count() FROM robustream.active_questions")
	variants := count("SELECT count() FROM robustream.variants")
	outcomes := count("SELECT count() FROM robustream.outcomes")
	if questions == 0 || active != questions || count("SELECT count() FROM robustream.question_retirements") != 0 {
		t.Fatalf("first run: %d questions, %d active", questions, active)
	}
	if n := count("SELECT count() FROM robustream.questions WHERE pattern != 'single' AND length(gt_chunk_ids) >= 2"); n == 0 {
		t.Error("no multi-hop question over two chunks")
	}

	path := filepath.Join(corpus, "01-fjordline-ceo-appointment.md")
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "1,150 people") {
		t.Fatalf("the fact to edit is not in %s (%v)", path, err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), "1,150 people", "1,180 people", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	robustream(t, "eval", "--once", "--source", "dir:"+corpus, "--data-dir", data)

	retired := count("SELECT count() FROM robustream.question_retirements")
	added := count("SELECT count() FROM robustream.questions") - questions
	if retired == 0 || added == 0 {
		t.Fatalf("after the edit: %d retired, %d new questions; want both > 0", retired, added)
	}
	before := map[string]bool{}
	for _, id := range lines(t, data, "SELECT question_id FROM robustream.questions ORDER BY produced_at LIMIT "+strconv.FormatInt(questions, 10)) {
		before[id] = true
	}
	// What was retired rests on the old fact, what is new on the new one,
	// but for a question that takes the place of another under the
	// per-fact cap (same pattern and answer).
	type row struct{ id, pattern, question, answer string }
	read := func(q string) []row {
		var out []row
		for _, l := range lines(t, data, q) {
			f := strings.Split(l, "\t")
			out = append(out, row{f[0], f[1], f[2], f[3]})
		}
		return out
	}
	var fresh []row
	swapped := map[string]bool{}
	for _, r := range read("SELECT question_id, pattern, question, answer FROM robustream.questions") {
		if !before[r.id] {
			fresh = append(fresh, r)
			swapped[r.pattern+"|"+r.answer] = true
		}
	}
	gone := read(`SELECT question_id, pattern, question, answer FROM robustream.questions
		WHERE question_id IN (SELECT question_id FROM robustream.question_retirements)`)
	for _, r := range gone {
		if !strings.Contains(r.question+r.answer, "1,150") && !swapped[r.pattern+"|"+r.answer] {
			t.Errorf("retired %q → %q, which does not rest on the edited fact", r.question, r.answer)
		}
		swapped[r.pattern+"|"+r.answer] = true
	}
	for _, r := range fresh {
		if !strings.Contains(r.question+r.answer, "1,180") && !swapped[r.pattern+"|"+r.answer] {
			t.Errorf("asked %q → %q, which does not rest on the edited fact", r.question, r.answer)
		}
	}
	if n := count("SELECT count() FROM robustream.active_questions WHERE position(concat(question, ' ', answer), '1,150') > 0"); n != 0 {
		t.Errorf("%d questions on the old fact are still active", n)
	}
	if n := count("SELECT count() FROM robustream.active_questions WHERE position(concat(question, ' ', answer), '1,180') > 0"); n == 0 {
		t.Error("no active question on the new fact")
	}
	if got := count("SELECT count() FROM robustream.active_questions"); got != active-retired+added {
		t.Errorf("active questions %d, want %d - %d + %d", got, active, retired, added)
	}
	// Only the new questions were perturbed and evaluated.
	dv := count("SELECT count() FROM robustream.variants") - variants
	vNew := int64(0)
	for _, id := range lines(t, data, "SELECT question_id FROM robustream.variants") {
		if !before[id] {
			vNew++
		}
	}
	if dv == 0 || vNew != dv {
		t.Errorf("%d new variants, %d of them of new questions; want all", dv, vNew)
	}
	newOutcomes := count("SELECT count() FROM robustream.outcomes") - outcomes
	onNew := int64(0)
	for _, id := range lines(t, data, "SELECT question_id FROM robustream.outcomes") {
		if !before[id] {
			onNew++
		}
	}
	if newOutcomes == 0 || onNew != newOutcomes {
		t.Errorf("%d new outcomes, %d of them on new questions; want all", newOutcomes, onNew)
	}
	t.Logf("edit: %d questions before, %d retired, %d new; %d new variants, %d new outcomes", questions, retired, added,
		count("SELECT count() FROM robustream.variants")-variants, newOutcomes)
}

// lines runs a query and returns its output lines.
func lines(t *testing.T, data, query string) []string {
	t.Helper()
	out := strings.TrimSpace(robustream(t, "sql", "--data-dir", data, query))
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}
