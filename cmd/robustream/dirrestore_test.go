package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEvalOnceRestoredFileAskedAgain: a file removed from a dir: folder
// retires its document's questions; put back unchanged, the document's
// questions are asked again under the same ids, active again, evaluated
// again, and their new outcomes are the current ones (the old ones stay in
// history), while the other documents' questions and outcomes are
// untouched.
func TestEvalOnceRestoredFileAskedAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline")
	}
	src := t.TempDir()
	files := map[string]string{
		"bank.md":    "# Northwind Bank\n\nNorthwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 12 new branches.\n",
		"globex.txt": "Globex Industries hired 450 engineers. Globex Industries is based in Springfield.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	eval := func(want string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run([]string{"eval", "--once", "--source", "dir:" + src, "--data-dir", data, "--log-level", "warn"}, &out, &errb); code != 0 {
			t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
		}
		if !strings.Contains(out.String(), want) {
			t.Fatalf("eval summary does not say %q:\n%s", want, out.String())
		}
	}
	q := func(query string) string { return strings.TrimSpace(robustream(t, "sql", "--data-dir", data, query)) }

	eval("2 new document version(s), 0 unchanged")
	globex := q("SELECT doc_id FROM robustream.documents WHERE title = 'globex'")
	bank := q("SELECT doc_id FROM robustream.documents WHERE title = 'Northwind Bank'")
	questionsOf := func(view, doc string) string {
		return q("SELECT DISTINCT question_id FROM robustream." + view + " WHERE doc_id = '" + doc + "' ORDER BY question_id")
	}
	// outcomesOf counts doc's outcomes in table (outcomes or
	// current_outcomes): rows, and distinct (model, question, variant,
	// family, metric) cells.
	outcomesOf := func(table, doc string) string {
		return q("SELECT count(), uniqExact(model_id, question_id, variant_id, family, metric) FROM robustream." + table +
			" WHERE question_id IN (SELECT question_id FROM robustream.questions WHERE doc_id = '" + doc + "')")
	}
	globexQuestions := questionsOf("active_questions", globex)
	bankQuestions := questionsOf("active_questions", bank)
	if globexQuestions == "" || bankQuestions == "" {
		t.Fatalf("questions after the first run: globex %q, bank %q; want some for each", globexQuestions, bankQuestions)
	}
	globexOutcomes := outcomesOf("current_outcomes", globex)
	bankOutcomes := outcomesOf("current_outcomes", bank)
	if strings.HasPrefix(globexOutcomes, "0\t") || strings.HasPrefix(bankOutcomes, "0\t") {
		t.Fatalf("outcomes after the first run: globex %q, bank %q; want some for each", globexOutcomes, bankOutcomes)
	}
	reportBefore := robustream(t, "report", "--data-dir", data)

	if err := os.Remove(filepath.Join(src, "globex.txt")); err != nil {
		t.Fatal(err)
	}
	eval("1 new document version(s), 1 unchanged")
	if got := q("SELECT DISTINCT question_id FROM robustream.retired_questions WHERE question_id IN (SELECT question_id FROM robustream.questions WHERE doc_id = '" + globex + "') ORDER BY question_id"); got != globexQuestions {
		t.Fatalf("retired after globex.txt was removed: %q, want its questions %q", got, globexQuestions)
	}
	if got := questionsOf("active_questions", globex); got != "" {
		t.Errorf("globex's questions still asked after its removal: %q", got)
	}
	if got := outcomesOf("current_outcomes", globex); got != "0\t0" {
		t.Errorf("globex's current outcomes after its removal: %q, want none", got)
	}

	if err := os.WriteFile(filepath.Join(src, "globex.txt"), []byte(files["globex.txt"]), 0o644); err != nil {
		t.Fatal(err)
	}
	eval("1 new document version(s), 1 unchanged")
	if v := q("SELECT version, length(text) > 0 FROM robustream.documents WHERE doc_id = '" + globex + "' ORDER BY version"); v != "1\t1\n2\t0\n3\t1" {
		t.Errorf("globex's versions: %q, want the file's, its deletion, and the file's again", v)
	}
	if got := questionsOf("active_questions", globex); got != globexQuestions {
		t.Errorf("globex's questions after it was put back: %q, want the same questions asked again %q", got, globexQuestions)
	}
	if got := q("SELECT count() FROM robustream.retired_questions WHERE question_id IN (SELECT question_id FROM robustream.questions WHERE doc_id = '" + globex + "')"); got != "0" {
		t.Errorf("%s of globex's questions still retired after it was put back", got)
	}
	if got := questionsOf("active_questions", bank); got != bankQuestions {
		t.Errorf("bank's questions: %q, want them untouched %q", got, bankQuestions)
	}
	// Evaluated again: every cell once in the current outcomes, and
	// history holding both evaluations.
	if got := outcomesOf("current_outcomes", globex); got != globexOutcomes {
		t.Errorf("globex's current outcomes after it was put back: %q, want one per cell as at first %q", got, globexOutcomes)
	}
	cells := strings.Split(globexOutcomes, "\t")[1]
	if got, want := outcomesOf("outcomes", globex), strings.Split(globexOutcomes, "\t")[0]; got != twice(t, want)+"\t"+cells {
		t.Errorf("globex's outcomes in history: %q, want both evaluations (%s rows each) over %s cells", got, want, cells)
	}
	if got := q("SELECT count() FROM robustream.current_outcomes WHERE produced_at < (SELECT max(produced_at) FROM robustream.question_retirements) AND question_id IN (SELECT question_id FROM robustream.questions WHERE doc_id = '" + globex + "')"); got != "0" {
		t.Errorf("%s of globex's current outcomes are from before its removal", got)
	}
	if got := outcomesOf("current_outcomes", bank); got != bankOutcomes {
		t.Errorf("bank's current outcomes: %q, want them untouched %q", got, bankOutcomes)
	}
	// The report (all time) counts the second evaluation's RARE outcomes
	// beside the first's, over the same questions.
	reportAfter := robustream(t, "report", "--data-dir", data)
	outBefore, questionsBefore := rareCounts(t, reportBefore)
	outAfter, questionsAfter := rareCounts(t, reportAfter)
	if outAfter <= outBefore || questionsAfter != questionsBefore {
		t.Errorf("report's RARE row: %d outcomes over %d questions before, %d over %d after; want more outcomes over the same questions\n%s",
			outBefore, questionsBefore, outAfter, questionsAfter, reportAfter)
	}
}

// rareCounts reads the outcomes and questions of the first model's row of
// the report's RARE table.
func rareCounts(t *testing.T, report string) (outcomes, questions int) {
	t.Helper()
	_, rare, ok := strings.Cut(report, "RARE robustness")
	if !ok {
		t.Fatalf("no RARE table in the report:\n%s", report)
	}
	for _, line := range strings.Split(rare, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "builtin:") || f[1] != "(baseline)" {
			continue
		}
		o, err1 := strconv.Atoi(f[2])
		q, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("RARE row %q: want outcomes and questions after the model", line)
		}
		return o, q
	}
	t.Fatalf("no model row in the report's RARE table:\n%s", report)
	return 0, 0
}

// twice is the decimal n doubled.
func twice(t *testing.T, n string) string {
	t.Helper()
	v, err := strconv.Atoi(n)
	if err != nil {
		t.Fatalf("not a count: %q", n)
	}
	return strconv.Itoa(2 * v)
}
