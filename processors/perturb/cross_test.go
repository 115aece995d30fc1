package perturb

import (
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/robustream/robustream/schemas"
)

// reordered is a document kind defined for these tests: the ground-truth
// contexts in reverse order, answer kept.
var reordered = Kind{Axis: schemas.AxisDocument, Name: "reordered",
	Make: func(_ *Perturber, in *Input) (Made, error) {
		ctxs := slices.Clone(in.Question.GTChunks)
		slices.Reverse(ctxs)
		return Made{Query: in.Question.Question, Contexts: ctxs, AnswerAvailable: true}, nil
	}}

// crossStage makes char and qwerty queries and two document kinds: four
// possible cross cells per question.
func crossStage(t *testing.T, limit int) *Stage {
	t.Helper()
	return mustStage(t, Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Kinds: []Kind{Char, QWERTY, AnswerRemoved, reordered}, MaxCrossCells: limit})
}

func crossQuestion(id string) *schemas.Question {
	q := testQuestion()
	q.QuestionID = id
	q.GTChunks = append(q.GTChunks, "Acme Corp is based in Springfield.")
	return q
}

// cells returns the cross cells of vs by kind.
func cells(vs []*schemas.Variant) map[string]*schemas.Variant {
	out := map[string]*schemas.Variant{}
	for _, v := range vs {
		if v.Axis == AxisCross {
			out[v.Kind] = v
		}
	}
	return out
}

// TestCrossCells: every perturbed query is crossed with every perturbed
// context, answering as the context does; the cells are declared in the
// manifest like any slot and the sample is on every variant.
func TestCrossCells(t *testing.T) {
	q := crossQuestion("q-cross")
	vs := crossStage(t, 0).Variants(q)
	byKind := map[string]*schemas.Variant{}
	for _, v := range vs {
		byKind[v.Slot()] = v
		if v.CrossSample != "4/4" || v.SetSize != 9 || !schemas.InManifest(v.Manifest, v.Slot()) {
			t.Errorf("%s: cross sample %q, set size %d, manifest %q", v.Slot(), v.CrossSample, v.SetSize, v.Manifest)
		}
	}
	if len(vs) != 9 { // original, 2 queries, 2 documents, 2 × 2 cells
		t.Fatalf("%d variants, want 9", len(vs))
	}
	for _, qk := range []string{KindChar, KindQWERTY} {
		for _, dk := range []string{KindAnswerRemoved, reordered.Name} {
			c := byKind[schemas.Slot(AxisCross, CrossKind(qk, dk))]
			qv, dv := byKind[schemas.Slot(schemas.AxisQuery, qk)], byKind[schemas.Slot(schemas.AxisDocument, dk)]
			if c == nil {
				t.Fatalf("no cross cell %s × %s", qk, dk)
			}
			if c.Query != qv.Query || !slices.Equal(c.Contexts, dv.Contexts) || c.AnswerAvailable != dv.AnswerAvailable {
				t.Errorf("%s: query %q contexts %q available %v; want %q, %q, %v",
					c.Kind, c.Query, c.Contexts, c.AnswerAvailable, qv.Query, dv.Contexts, dv.AnswerAvailable)
			}
			if want := schemas.VariantID(q.QuestionID, AxisCross, c.Kind, c.Query, c.Contexts); c.VariantID != want || c.ID != want {
				t.Errorf("%s: ids %s/%s, want %s", c.Kind, c.VariantID, c.ID, want)
			}
		}
	}
}

// TestCrossCellsCapped: max_cross_cells keeps that many cells, chosen by the
// question id: the same on a replay, not the same for every question, with
// the ids of the uncapped run; the sample says kept/possible.
func TestCrossCellsCapped(t *testing.T) {
	all, capped := crossStage(t, 0), crossStage(t, 2)
	chosen := map[string]bool{}
	for i := range 12 {
		q := crossQuestion(strings.Repeat("q", i+1))
		full := cells(all.Variants(q))
		vs := capped.Variants(q)
		got := cells(vs)
		if len(got) != 2 || len(vs) != 7 {
			t.Fatalf("%s: %d cells of %d variants, want 2 of 7", q.QuestionID, len(got), len(vs))
		}
		var kinds []string
		for k, c := range got {
			kinds = append(kinds, k)
			if f := full[k]; f == nil || f.VariantID != c.VariantID {
				t.Errorf("%s: cell %s differs from the uncapped run", q.QuestionID, k)
			}
		}
		slices.Sort(kinds)
		chosen[strings.Join(kinds, ",")] = true
		for _, v := range vs {
			if v.CrossSample != "2/4" || v.SetSize != 7 {
				t.Errorf("%s %s: cross sample %q set size %d, want 2/4 and 7", q.QuestionID, v.Slot(), v.CrossSample, v.SetSize)
			}
		}
		again := cells(capped.Variants(q))
		for k := range got {
			if again[k] == nil {
				t.Errorf("%s: a replay chose other cells", q.QuestionID)
			}
		}
	}
	if len(chosen) < 2 {
		t.Errorf("12 questions all kept the same cells %v: the sample must depend on the question", chosen)
	}

	// A cap above the product keeps every cell.
	if vs := crossStage(t, 5).Variants(crossQuestion("q")); len(cells(vs)) != 4 || vs[0].CrossSample != "4/4" {
		t.Errorf("cap 5: %d cells, sample %q", len(cells(vs)), vs[0].CrossSample)
	}
	if _, err := NewStage(Config{MaxCrossCells: -1}); err == nil || !strings.Contains(err.Error(), "max_cross_cells") {
		t.Errorf("max_cross_cells -1: err = %v", err)
	}
	if err := checkKinds([]Kind{{Axis: AxisCross, Name: "x", Make: Char.Make}}); err == nil {
		t.Error("a registered kind on the cross axis was accepted")
	}
}
