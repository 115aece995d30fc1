package fanout

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/schemas"
)

// capAxes is a registry like the engine's: RARE scores the original and the
// query and document axes, SURE the spurious axis, and both the noise axis
// (a slot two families share).
var capAxes = map[string][]string{
	schemas.AxisOriginal: {schemas.FamilyRARE, schemas.FamilySURE},
	schemas.AxisQuery:    {schemas.FamilyRARE},
	schemas.AxisDocument: {schemas.FamilyRARE},
	schemas.AxisSpurious: {schemas.FamilySURE},
	schemas.AxisNoise:    {schemas.FamilySURE, schemas.FamilyPRGB},
}

// capQuestion is the variant set of question id: the original, 3 query
// kinds, 1 document kind, 8 spurious kinds and 2 noise kinds, each with
// the question's manifest.
func capQuestion(id string) []*schemas.Variant {
	slots := [][2]string{{schemas.AxisOriginal, "original"}, {schemas.AxisQuery, "char"}, {schemas.AxisQuery, "qwerty"},
		{schemas.AxisQuery, "wordnet"}, {schemas.AxisDocument, "answer_removed"}, {schemas.AxisNoise, "weak"}, {schemas.AxisNoise, "hard"}}
	for i := range 8 {
		slots = append(slots, [2]string{schemas.AxisSpurious, fmt.Sprintf("format_%d", i)})
	}
	var names []string
	for _, s := range slots {
		names = append(names, schemas.Slot(s[0], s[1]))
	}
	manifest := schemas.NewManifest(names...)
	var out []*schemas.Variant
	for _, s := range slots {
		v := &schemas.Variant{
			QuestionRef: schemas.QuestionRef{QuestionID: id}, Axis: s[0], Kind: s[1],
			Query: "What was Acme's revenue?", Contexts: []string{"Acme's revenue was $4 billion."}, ExpectedAnswer: "$4 billion",
			AnswerAvailable: true, Manifest: manifest, SetSize: len(manifest),
		}
		v.VariantID = schemas.VariantID(id, s[0], s[1], v.Query, v.Contexts)
		schemas.Stamp(v, v.VariantID)
		out = append(out, v)
	}
	return out
}

func capStage(t *testing.T, caps map[string]int) *Stage {
	t.Helper()
	fams := map[string]FamilyConfig{}
	for f, n := range caps {
		fams[f] = FamilyConfig{MaxCellsPerQuestion: n}
	}
	st, err := NewStage(Config{Models: []string{"m1", "m2"}, Families: fams, AxisFamilies: capAxes})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// askedSlots fans out a question's variants and returns the requests by
// model and the slots asked (closed-book left out).
func askedSlots(t *testing.T, st *Stage, vs []*schemas.Variant) (map[string][]schemas.EvalRequest, []string) {
	t.Helper()
	byModel := map[string][]schemas.EvalRequest{}
	var slots []string
	for _, v := range vs {
		for _, r := range process(t, st, v) {
			byModel[r.ModelID] = append(byModel[r.ModelID], r)
			if !r.ClosedBook && r.ModelID == "m1" {
				slots = append(slots, schemas.Slot(r.Axis, r.Kind))
			}
		}
	}
	slices.Sort(slots)
	return byModel, slots
}

func TestCapRespectedAndRecorded(t *testing.T) {
	st := capStage(t, map[string]int{schemas.FamilySURE: 3})
	byModel, slots := askedSlots(t, st, capQuestion("q1"))
	var spurious, noise, query int
	for _, s := range slots {
		switch {
		case strings.HasPrefix(s, "spurious/"):
			spurious++
		case strings.HasPrefix(s, "noise/"):
			noise++
		case strings.HasPrefix(s, "query/"), strings.HasPrefix(s, "document/"):
			query++
		}
	}
	// SURE's cells are the 8 spurious and the 2 noise slots: 3 of 10 are
	// asked; RARE, uncapped, keeps its 4.
	if spurious+noise != 3 || query != 4 {
		t.Errorf("asked %v: %d SURE cells (want 3), %d RARE cells (want 4)", slots, spurious+noise, query)
	}
	for m, reqs := range byModel {
		// Original, closed-book, 4 RARE cells, 3 SURE cells.
		if len(reqs) != 9 {
			t.Errorf("%s: %d requests, want 9", m, len(reqs))
		}
		for _, r := range reqs {
			if r.FamilySample[schemas.FamilySURE] != "3/10" || r.FamilySample[schemas.FamilyRARE] != "4/4" {
				t.Errorf("%s %s/%s: family_sample %v, want sure 3/10, rare 4/4", m, r.Axis, r.Kind, r.FamilySample)
			}
			if !slices.Equal(r.Manifest, slots) || r.Expected != len(slots)+1 {
				t.Errorf("%s: manifest %v (Expected %d), want the asked slots %v", m, r.Manifest, r.Expected, slots)
			}
		}
	}
	// PRGB shares the noise slots with SURE: its sample shows what SURE's
	// cap left of them.
	if got := byModel["m1"][0].FamilySample[schemas.FamilyPRGB]; got != fmt.Sprintf("%d/2", noise) {
		t.Errorf("prgb sample %q, want %d/2", got, noise)
	}
	if got := st.Capped()[schemas.FamilySURE]; got != 7 {
		t.Errorf("Capped()[sure] = %d, want 7", got)
	}
	calls := st.Calls()
	if calls[CallKey{"m2", schemas.FamilyRARE}] != 4 || calls[CallKey{"m2", FamilyBaseline}] != 2 ||
		calls[CallKey{"m2", schemas.FamilySURE}]+calls[CallKey{"m2", "prgb+sure"}] != 3 || st.Questions() != 1 {
		t.Errorf("Calls() = %v, Questions() = %d", calls, st.Questions())
	}
}

// The sample depends on the question and the slots only: two stages (two
// runs, or two partitions' consumers) pick the same cells, and variants
// arriving in any order agree on it. Different questions get different
// samples, so a kind is not left out everywhere.
func TestCapDeterministic(t *testing.T) {
	seen := map[string]bool{}
	for i := range 20 {
		q := fmt.Sprintf("q%d", i)
		vs := capQuestion(q)
		_, a := askedSlots(t, capStage(t, map[string]int{schemas.FamilySURE: 2}), vs)
		rev := slices.Clone(vs)
		slices.Reverse(rev)
		_, b := askedSlots(t, capStage(t, map[string]int{schemas.FamilySURE: 2}), rev)
		if !slices.Equal(a, b) {
			t.Fatalf("%s: asked %v, then %v in reverse order", q, a, b)
		}
		seen[strings.Join(a, ",")] = true
	}
	if len(seen) < 5 {
		t.Errorf("20 questions got only %d distinct samples: the hash does not spread", len(seen))
	}
}

// Every (model, question) pairing set closes with the results of the asked
// requests alone: a capped-out cell must not hold its set open.
func TestCapSetsComplete(t *testing.T) {
	for _, caps := range []map[string]int{nil, {schemas.FamilySURE: 1}, {schemas.FamilySURE: 4, schemas.FamilyRARE: 2}, {schemas.FamilyPRGB: 1}} {
		byModel, _ := askedSlots(t, capStage(t, caps), capQuestion("q7"))
		for m, reqs := range byModel {
			var set pair.Set
			for i, r := range reqs {
				res := schemas.EvalResult{QuestionRef: r.QuestionRef, RequestID: r.RequestID, ModelID: r.ModelID, VariantID: r.VariantID,
					ClosedBook: r.ClosedBook, Axis: r.Axis, Kind: r.Kind, Manifest: r.Manifest, Expected: r.Expected}
				if done := set.Add(res); done != (i == len(reqs)-1) {
					t.Errorf("caps %v, %s: result %d of %d: complete = %v", caps, m, i+1, len(reqs), done)
				}
			}
		}
	}
}

func TestCapConfigChecked(t *testing.T) {
	for name, fams := range map[string]map[string]FamilyConfig{
		"families.grade: not a registered metric family":     {"grade": {MaxCellsPerQuestion: 1}},
		"families.sure.max_cells_per_question: must be >= 0": {schemas.FamilySURE: {MaxCellsPerQuestion: -1}},
	} {
		_, err := NewStage(Config{Models: []string{"m1"}, Families: fams, AxisFamilies: capAxes})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: error %v, want it to say %q", fams, err, name)
		}
	}
}
