package pair

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// sureCase is one (model, question) set of the hand-computed SURE fixture:
// closed-book verdict, Y of the two clean cells, and Y of each perturbed
// cell by slot kind ("_noise" on the noise context).
type sureCase struct {
	q                     string
	known                 bool
	cleanGolden, cleanNoi bool
	perturbed             map[string]bool
	failed                []string // cells whose request failed: no instance
}

// The 20 instances, C = Y(original) − Y(perturbed) per cell:
//
//	q1 known:   golden json 0, reverse 1, wiki 0 | noise json 0, reverse 1   (html failed)
//	q2 known:   golden json −1, reverse 0, yaml −1 | noise json 0, yaml −1
//	q3 unknown: golden json 0, reverse 1, yaml 1 | noise json 0, reverse −1
//	q4 unknown: golden json 0, reverse 0, wiki 1 | noise json 0, wiki 0
//
// Known-Golden n 6: RR 3/6, WR 2/6, LR 1/6, acc_original 3/6.
// Known-Noise n 4: RR 2/4, WR 1/4, LR 1/4, acc_original 2/4.
// Unknown-Golden n 6: RR 3/6, WR 0, LR 3/6, acc_original 1.
// Unknown-Noise n 4: RR 3/4, WR 1/4, LR 0, acc_original 0.
// All 20: RR 11/20, WR 4/20, LR 5/20. format_json (8): RR 7/8, WR 1/8.
var sureCases = []sureCase{
	{q: "q1", known: true, cleanGolden: true, cleanNoi: true, failed: []string{"format_html"},
		perturbed: map[string]bool{"format_json": true, "logic_reverse": false, "meta_source_wiki": true, "format_json_noise": true, "logic_reverse_noise": false}},
	{q: "q2", known: true, cleanGolden: false, cleanNoi: false,
		perturbed: map[string]bool{"format_json": true, "logic_reverse": false, "format_yaml": true, "format_json_noise": false, "format_yaml_noise": true}},
	{q: "q3", known: false, cleanGolden: true, cleanNoi: false,
		perturbed: map[string]bool{"format_json": true, "logic_reverse": false, "format_yaml": false, "format_json_noise": false, "logic_reverse_noise": true}},
	{q: "q4", known: false, cleanGolden: true, cleanNoi: false,
		perturbed: map[string]bool{"format_json": true, "logic_reverse": true, "meta_source_wiki": false, "format_json_noise": false, "meta_source_wiki_noise": false}},
}

// sureResults are the eval results of the fixture for model m, each set
// with its manifest, and a fifth question whose closed-book request failed
// (unscorable: no SURE outcome).
func sureResults() []schemas.EvalResult {
	var out []schemas.EvalResult
	cases := append(sureCases, sureCase{q: "q5", cleanGolden: true, perturbed: map[string]bool{"format_json": false}})
	for _, c := range cases {
		cells := map[string]bool{SUREClean: c.cleanGolden, SUREClean + SURENoiseSuffix: c.cleanNoi}
		for k, y := range c.perturbed {
			cells[k] = y
		}
		var slots []string
		for k := range cells {
			slots = append(slots, schemas.Slot(schemas.AxisSpurious, k))
		}
		for _, k := range c.failed {
			slots = append(slots, schemas.Slot(schemas.AxisSpurious, k))
		}
		manifest := schemas.NewManifest(slots...)
		ref := schemas.QuestionRef{QuestionID: c.q, Pattern: schemas.PatternSingle, Hops: 1, Domain: "finance", PublishedAt: t0}
		add := func(vid, axis, kind string, closed, correct bool, errText string) {
			r := schemas.EvalResult{QuestionRef: ref, RequestID: "req-" + vid, ModelID: "m", VariantID: vid, ClosedBook: closed,
				Axis: axis, Kind: kind, AnswerAvailable: !strings.HasSuffix(kind, SURENoiseSuffix) && !closed,
				Manifest: manifest, Expected: len(manifest) + 1, Correct: correct, Error: errText, EvaluatedAt: t0}
			schemas.Stamp(&r, "res-"+vid)
			out = append(out, r)
		}
		cbErr := ""
		if c.q == "q5" {
			cbErr = "HTTP 503 after 5 attempts"
		}
		add(c.q+"-cb", schemas.AxisClosedBook, schemas.KindClosedBook, true, c.known, cbErr)
		for k, y := range cells {
			add(c.q+"-"+k, schemas.AxisSpurious, k, false, y, "")
		}
		for _, k := range c.failed {
			add(c.q+"-"+k, schemas.AxisSpurious, k, false, false, "HTTP 500 after 5 attempts")
		}
	}
	return out
}

// TestSURENamesAgree: pair reads the slot names perturb writes.
func TestSURENamesAgree(t *testing.T) {
	if SUREClean != perturb.KindSUREClean || SURENoiseSuffix != perturb.SURENoiseSuffix {
		t.Fatalf("pair's SURE names %q %q differ from perturb's %q %q", SUREClean, SURENoiseSuffix, perturb.KindSUREClean, perturb.SURENoiseSuffix)
	}
	for _, k := range append(perturb.SpuriousKinds(), perturb.SpuriousLLMKinds()...) {
		if !SURE.Scores(k.Axis) || RARE.Scores(k.Axis) || !slices.Equal(k.Families, []string{schemas.FamilySURE}) {
			t.Errorf("%s: scored by SURE %v, by RARE %v", k.Slot(), SURE.Scores(k.Axis), RARE.Scores(k.Axis))
		}
	}
}

// TestSUREFixture: the 20 instances through the pair stage (RARE and SURE
// registered) and the ClickHouse sink into sure_instances, sure_scores and
// sure_kind_scores (chDB), against the hand-computed figures above.
func TestSUREFixture(t *testing.T) {
	ps := NewStage(&mapStore{m: map[string][]byte{}}, RARE, SURE)
	var recs []streams.Record
	for _, r := range sureResults() {
		out, err := ps.Process(t.Context(), message(t, r))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, out...)
	}
	c, y := 0, 0
	for _, rec := range recs {
		var o schemas.Outcome
		if err := schemas.Decode(rec.Value, &o); err != nil {
			t.Fatal(err)
		}
		if o.Family != schemas.FamilySURE || o.Axis != schemas.AxisSpurious || o.QuestionID == "q5" || strings.HasSuffix(o.Kind, SURENoiseSuffix) {
			t.Errorf("unexpected outcome %+v", o)
		}
		switch o.Metric {
		case MetricC:
			c++
		case MetricYOriginal:
			y++
		}
	}
	if c != 20 || y != 20 {
		t.Fatalf("%d c and %d y_original outcomes, want 20 each", c, y)
	}
	if n := ps.Unscorable()[UnscorableKey{schemas.FamilySURE, ReasonClosedBookFailed}]; n != 1 {
		t.Errorf("SURE unscorable (closed book failed) = %d, want 1", n)
	}

	e := outcomesEngine(t, recs)
	query := func(q string) string {
		out, err := e.Query(context.Background(), q, "TabSeparated")
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	split := query(`SELECT known, golden, count(), round(countIf(c = 0) / count(), 4), round(countIf(c = -1) / count(), 4),
		round(countIf(c = 1) / count(), 4), round(avg(y_original), 4), round(avg(y_perturbed), 4)
		FROM robustream.sure_instances GROUP BY known, golden ORDER BY known DESC, golden DESC`)
	// known golden n RR WR LR acc_original acc_perturbed (= acc_original + WR − LR)
	want := "1\t1\t6\t0.5\t0.3333\t0.1667\t0.5\t0.6667\n" +
		"1\t0\t4\t0.5\t0.25\t0.25\t0.5\t0.5\n" +
		"0\t1\t6\t0.5\t0\t0.5\t1\t0.5\n" +
		"0\t0\t4\t0.75\t0.25\t0\t0\t0.25\n"
	if split != want {
		t.Errorf("Known/Unknown × Golden/Noise:\n%s\nwant\n%s", split, want)
	}
	all := query(`SELECT count(), countIf(c = 0) / count(), countIf(c = -1) / count(), countIf(c = 1) / count() FROM robustream.sure_instances`)
	if all != "20\t0.55\t0.2\t0.25\n" {
		t.Errorf("all instances: %q, want 20 0.55 0.2 0.25", all)
	}
	kinds := query(`SELECT kind, n, rr, wr, lr FROM robustream.sure_kind_scores WHERE kind = 'format_json'`)
	if kinds != "format_json\t8\t0.875\t0.125\t0\n" {
		t.Errorf("sure_kind_scores format_json: %q", kinds)
	}
	cell := query(`SELECT kind, known, golden, n, rr, wr, lr, acc_original, acc_perturbed FROM robustream.sure_scores WHERE kind = 'logic_reverse' ORDER BY known, golden`)
	wantCell := "logic_reverse\t0\t0\t1\t0\t1\t0\t0\t1\n" +
		"logic_reverse\t0\t1\t2\t0.5\t0\t0.5\t1\t0.5\n" +
		"logic_reverse\t1\t0\t1\t0\t0\t1\t1\t0\n" +
		"logic_reverse\t1\t1\t2\t0.5\t0\t0.5\t0.5\t0\n"
	if cell != wantCell {
		t.Errorf("sure_scores logic_reverse:\n%s\nwant\n%s", cell, wantCell)
	}
	if rare := query(`SELECT count() FROM robustream.outcomes WHERE family = 'rare'`); rare != "0\n" {
		t.Errorf("RARE outcomes from spurious results: %s", rare)
	}
}

// TestSURELLMKindsScored: SURE's LLM kinds are scored like the rule kinds:
// each cell against the clean cell of its context type, under the kind's
// name without the noise suffix, golden or not by the suffix, and C is
// Y(clean) − Y(cell).
func TestSURELLMKindsScored(t *testing.T) {
	ref := schemas.QuestionRef{QuestionID: "q", Pattern: schemas.PatternSingle, Hops: 1, Domain: "finance", PublishedAt: t0}
	s := &Set{Results: map[string]schemas.EvalResult{}}
	add := func(kind string, closed, correct bool) {
		axis := schemas.AxisSpurious
		if closed {
			axis = schemas.AxisClosedBook
		}
		s.Results["v-"+kind] = schemas.EvalResult{QuestionRef: ref, ModelID: "m", VariantID: "v-" + kind, ClosedBook: closed,
			Axis: axis, Kind: kind, Correct: correct, EvaluatedAt: t0}
	}
	add(schemas.KindClosedBook, true, false)
	add(SUREClean, false, true)                  // Y(original) golden 1
	add(SUREClean+SURENoiseSuffix, false, false) // Y(original) noise 0
	want := map[string]float64{}                 // variant id → c
	for i, k := range perturb.SpuriousLLMKinds() {
		noise := strings.HasSuffix(k.Name, SURENoiseSuffix)
		y := i%4 < 2 // kinds alternately right and wrong on both context types
		add(k.Name, false, y)
		clean := 1.0 // Y(clean), golden
		if noise {
			clean = 0
		}
		want["v-"+k.Name] = clean - b2f(y)
	}
	got := map[string]float64{}
	for _, o := range SUREOutcomes(s) {
		if o.Family != schemas.FamilySURE || o.Axis != schemas.AxisSpurious {
			t.Errorf("outcome %+v", o)
		}
		noise := strings.HasSuffix(strings.TrimPrefix(o.VariantID, "v-"), SURENoiseSuffix)
		if o.Kind != strings.TrimSuffix(strings.TrimPrefix(o.VariantID, "v-"), SURENoiseSuffix) || o.Golden == noise || o.Known {
			t.Errorf("%s: kind %q golden %v known %v", o.VariantID, o.Kind, o.Golden, o.Known)
		}
		if o.Metric == MetricC {
			got[o.VariantID] = o.Value
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d C outcomes, want %d: %v", len(got), len(want), got)
	}
	for id, c := range want {
		if got[id] != c {
			t.Errorf("%s: C %v, want %v", id, got[id], c)
		}
	}
}
