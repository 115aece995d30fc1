package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// TestEvalOnceCallsPerQuestion runs eval --once with RARE capped at two
// cells per question and checks the summary's calls per question per model,
// family by family, against what eval_results holds, and the cap against
// the stored results.
func TestEvalOnceCallsPerQuestion(t *testing.T) {
	corpus := writeCorpus(t)
	data := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "robustream.yaml")
	if err := os.WriteFile(cfg, []byte("stages:\n  fanout:\n    families:\n      rare: {max_cells_per_question: 2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := robustream(t, "eval", "--once", "--config", cfg, "--source", "dir:"+corpus, "--data-dir", data)
	if !strings.Contains(out, "open pairings 0") {
		t.Errorf("a capped-out cell held a pairing set open:\n%s", out)
	}
	if !strings.Contains(out, "rare capped at 2 cell(s) per question") {
		t.Errorf("summary does not say RARE is capped:\n%s", out)
	}

	// Calls per question per model, from the stored results: the requests
	// a model answered (not-made markers, answered by no model, left out),
	// over the questions asked, each axis under the family that scores it.
	questions := sqlCount(t, "SELECT uniqExact(question_id) FROM robustream.eval_results", "--data-dir", data)
	if questions == 0 {
		t.Fatal("no question was asked")
	}
	rows := robustream(t, "sql", "--data-dir", data, `SELECT model_id, axis, uniqExact(question_id, variant_id)
FROM robustream.eval_results WHERE error = '' GROUP BY model_id, axis ORDER BY model_id, axis`)
	byAxis := axisFamilies(metricFamilies)
	want := map[string]map[string]int64{}
	for _, r := range strings.Split(strings.TrimSpace(rows), "\n") {
		var model, axis string
		var n int64
		if _, err := fmt.Sscanf(strings.ReplaceAll(r, "\t", " "), "%s %s %d", &model, &axis, &n); err != nil {
			t.Fatalf("row %q: %v", r, err)
		}
		family := strings.Join(slices.Sorted(slices.Values(byAxis[axis])), "+")
		if axis == schemas.AxisOriginal || axis == schemas.AxisClosedBook {
			family = fanout.FamilyBaseline
		}
		if want[model] == nil {
			want[model] = map[string]int64{}
		}
		want[model][family] += n
	}
	if len(want) == 0 {
		t.Fatal("no results")
	}
	for model, fams := range want {
		var total int64
		for f, n := range fams {
			total += n
			if fig := fmt.Sprintf("%s %.1f", f, float64(n)/float64(questions)); !strings.Contains(summaryLine(out, model), fig) {
				t.Errorf("%s: summary lacks %q (from eval_results: %d calls over %d questions):\n%s", model, fig, n, questions, out)
			}
		}
		if fig := fmt.Sprintf("total %.1f", float64(total)/float64(questions)); !strings.Contains(summaryLine(out, model), fig) {
			t.Errorf("%s: summary lacks %q:\n%s", model, fig, out)
		}
		// Two RARE cells at most per question, the cap; with four RARE
		// kinds and their cross cells, it bites.
		if got := float64(fams[schemas.FamilyRARE]) / float64(questions); got > 2 || got < 1 {
			t.Errorf("%s: %.2f RARE cells per question, want between 1 and the cap 2", model, got)
		}
	}
	var rareCells []string // RARE's axes but the original, which is never capped
	for axis, fs := range byAxis {
		if axis != schemas.AxisOriginal && slices.Contains(fs, schemas.FamilyRARE) {
			rareCells = append(rareCells, "'"+axis+"'")
		}
	}
	over := sqlCount(t, `SELECT count() FROM (SELECT model_id, question_id, count() AS n FROM robustream.eval_results
WHERE axis IN (`+strings.Join(rareCells, ", ")+`) AND error = '' GROUP BY model_id, question_id HAVING n > 2)`, "--data-dir", data)
	if over != 0 {
		t.Errorf("%d (model, question) sets asked more than the 2 capped cells", over)
	}
}

// summaryLine is the summary's calls line of model.
func summaryLine(out, model string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  "+model+": ") {
			return l
		}
	}
	return ""
}

// TestFanoutCallsMetrics: /metrics (the engine's registry) exposes the
// requests fan-out sent per model and family, the questions asked and the
// cells a cap kept back, as the stage counted them.
func TestFanoutCallsMetrics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(path, []byte("models:\n  - {id: builtin:lexical, kind: builtin}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := loadModels(path)
	if err != nil {
		t.Fatal(err)
	}
	base := fanout.Config{Families: map[string]fanout.FamilyConfig{schemas.FamilyRARE: {MaxCellsPerQuestion: 1}}}
	st, err := fanout.NewStage(fanoutConfigOf(base, set))
	if err != nil {
		t.Fatal(err)
	}
	e := &engine{reg: prometheus.NewRegistry(), fanout: st}
	e.exposeCalls()
	slots := [][2]string{{schemas.AxisOriginal, "original"}, {schemas.AxisQuery, "char"}, {schemas.AxisQuery, "qwerty"}, {schemas.AxisDocument, "answer_removed"}}
	var names []string
	for _, s := range slots {
		names = append(names, schemas.Slot(s[0], s[1]))
	}
	for _, s := range slots {
		v := &schemas.Variant{QuestionRef: schemas.QuestionRef{QuestionID: "q1"}, Axis: s[0], Kind: s[1], Query: "Who?", Contexts: []string{"Ann."},
			ExpectedAnswer: "Ann", Manifest: schemas.NewManifest(names...), SetSize: len(names)}
		v.VariantID = schemas.VariantID("q1", s[0], s[1], v.Query, v.Contexts)
		schemas.Stamp(v, v.VariantID)
		b, err := schemas.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Process(t.Context(), streams.Message{Topic: streams.TopicVariants, Value: b}); err != nil {
			t.Fatal(err)
		}
	}
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			got[key] = m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{
		"robustream_fanout_requests_total,family=baseline,model=builtin:lexical": 2, // original + closed-book
		"robustream_fanout_requests_total,family=rare,model=builtin:lexical":     1, // the cap
		"robustream_fanout_questions_total":                                      1,
		"robustream_fanout_capped_cells_total,family=rare":                       2,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
}
