package pair

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// The kinds of other families, as a new family's author would add them with
// one registry line each: a SURE spurious feature (the golden context as a
// JSON object), a PRGB placeholder (the answer swapped for another value)
// and a PRGB noise document (an unrelated sentence beside the context).
// Test-only: the real kinds come with SURE and PRGB.
var (
	formatJSON = perturb.Kind{Axis: schemas.AxisSpurious, Name: "format_json", Families: []string{schemas.FamilySURE},
		Make: func(_ *perturb.Perturber, in *perturb.Input) (perturb.Made, error) {
			ctxs := make([]string, len(in.Question.GTChunks))
			for i, c := range in.Question.GTChunks {
				b, _ := json.Marshal(map[string]string{"text": c})
				ctxs[i] = string(b)
			}
			return perturb.Made{Query: in.Question.Question, Contexts: ctxs, AnswerAvailable: true}, nil
		}}
	placeholder = perturb.Kind{Axis: schemas.AxisPlaceholder, Name: "value_swap", Families: []string{schemas.FamilyPRGB},
		Make: func(_ *perturb.Perturber, in *perturb.Input) (perturb.Made, error) {
			ctxs := make([]string, len(in.Question.GTChunks))
			for i, c := range in.Question.GTChunks {
				ctxs[i] = strings.ReplaceAll(c, in.Question.Answer, "Zed Quill")
			}
			return perturb.Made{Query: in.Question.Question, Contexts: ctxs, AnswerAvailable: false}, nil
		}}
	noise = perturb.Kind{Axis: schemas.AxisNoise, Name: "weak", Families: []string{schemas.FamilyPRGB},
		Make: func(_ *perturb.Perturber, in *perturb.Input) (perturb.Made, error) {
			ctxs := append(slices.Clone(in.Question.GTChunks), "The Danube flows into the Black Sea.")
			return perturb.Made{Query: in.Question.Question, Contexts: ctxs, AnswerAvailable: true}, nil
		}}
	otherFamiliesKinds = []perturb.Kind{formatJSON, placeholder, noise}
)

// foreignAxes are the axes RARE must never score.
var foreignAxes = []string{schemas.AxisSpurious, schemas.AxisPlaceholder, schemas.AxisNoise}

// TestAxisCrossName: pair spells the cross cells' axis itself (it does not
// import perturb); it must be the axis perturb records.
func TestAxisCrossName(t *testing.T) {
	if AxisCross != perturb.AxisCross {
		t.Fatalf("pair.AxisCross %q, perturb.AxisCross %q", AxisCross, perturb.AxisCross)
	}
}

// TestRAREScoresOnlyItsAxes: a set holding, besides RARE's cells, results on
// the spurious, placeholder and noise axes gives RARE exactly the outcomes
// of the set without them, through the stage and through Outcomes called
// on the whole set. On the code before families declared axes, each of
// those results became a RARE f outcome (three more rows here, two of them
// 0: the model answers the placeholder context with the true value).
func TestRAREScoresOnlyItsAxes(t *testing.T) {
	on := func(r schemas.EvalResult, axis, kind string) schemas.EvalResult {
		r.Axis, r.Kind = axis, kind
		return r
	}
	rare := []schemas.EvalResult{
		result("cb", true, false, wrong, 7, 0),
		result("original", false, true, correct, 7, time.Second),
		result("typo", false, true, correct, 7, time.Second),
		result("removed", false, false, refused, 7, time.Second),
	}
	foreign := []schemas.EvalResult{
		on(result("sp", false, true, correct, 7, time.Second), schemas.AxisSpurious, "format_json"),
		on(result("ph", false, false, wrong, 7, time.Second), schemas.AxisPlaceholder, "value_swap"),
		on(result("nz", false, true, wrong, 7, time.Second), schemas.AxisNoise, "weak"),
	}
	// The set without the foreign results completes at 4.
	alone := make([]schemas.EvalResult, len(rare))
	for i, r := range rare {
		r.Expected = len(rare)
		alone[i] = r
	}
	want := outcomesOf(t, NewStage(&mapStore{m: map[string][]byte{}}, RARE), alone...)
	if len(want) != 3 {
		t.Fatalf("%d outcomes without the foreign results, want 3", len(want))
	}
	got := outcomesOf(t, NewStage(&mapStore{m: map[string][]byte{}}, RARE), append(slices.Clone(rare), foreign...)...)
	if len(got) != len(want) {
		t.Fatalf("%d RARE outcomes with the foreign results, want %d: %+v", len(got), len(want), got)
	}
	for i := range got {
		g, w := got[i], want[i]
		g.ProducedAt, w.ProducedAt = time.Time{}, time.Time{}
		if g.OutcomeID != w.OutcomeID || g.Value != w.Value || g.Axis != w.Axis || g.Known != w.Known || g.Golden != w.Golden {
			t.Errorf("outcome %d: %+v, want %+v", i, g, w)
		}
	}
	// Outcomes on the whole set, bypassing the stage, holds the same line.
	var s Set
	for _, r := range append(slices.Clone(rare), foreign...) {
		s.Add(r)
	}
	for _, o := range Outcomes(&s) {
		if slices.Contains(foreignAxes, o.Axis) {
			t.Errorf("Outcomes scored axis %s as RARE", o.Axis)
		}
	}
}

// TestSpuriousKindLeavesRAREUnchanged: the fixture pipeline with a SURE
// spurious kind and PRGB placeholder and noise kinds registered beside
// RARE's (their variants are made, asked of every model and paired) gives
// exactly the hand-computed RARE scores, and no RARE outcome is on their
// axes. Before, the format_json variant alone moved the guesser's overall
// score from 8/16 to 10/18.
func TestSpuriousKindLeavesRAREUnchanged(t *testing.T) {
	recs, _ := runFixtures(t, otherFamiliesKinds...)
	checkNoForeignRARE(t, recs)
	got, _ := scoresOf(t, recs)
	if !equalScores(got, wantScores) {
		t.Errorf("RARE scores with other families' kinds\n got %v\nwant %v", got, wantScores)
	}
}

// TestSpuriousKindRAREView: the same through ClickHouse, and with RARE rows
// on foreign axes written straight to outcomes, as a data dir written by
// the code before this change holds them: rare_scores counts only RARE's
// axes, so every figure (overall, query, document, retrieval, n) is the
// hand-computed one.
func TestSpuriousKindRAREView(t *testing.T) {
	if testing.Short() {
		t.Skip("opens chDB")
	}
	recs, _ := runFixtures(t, otherFamiliesKinds...)
	checkNoForeignRARE(t, recs)
	// Forge the old code's rows: a RARE f outcome, value 0, per foreign
	// axis for every model and question.
	var forged []streams.Record
	for _, rec := range recs {
		var o schemas.Outcome
		if err := schemas.Decode(rec.Value, &o); err != nil {
			t.Fatal(err)
		}
		if o.Axis != schemas.AxisOriginal {
			continue
		}
		for _, axis := range foreignAxes {
			f := o
			f.Axis, f.Kind, f.Value = axis, "old_"+axis, 0
			f.VariantID = schemas.ID(o.VariantID, axis)
			f.OutcomeID = schemas.ID(o.ModelID, o.QuestionID, f.VariantID, schemas.FamilyRARE, MetricF)
			schemas.Stamp(&f, f.OutcomeID)
			b, err := schemas.Encode(&f)
			if err != nil {
				t.Fatal(err)
			}
			forged = append(forged, streams.Record{Topic: streams.TopicOutcomes, Key: []byte(f.Key()), Value: b})
		}
	}
	if len(forged) == 0 {
		t.Fatal("no original outcomes to forge from")
	}
	if got, want := rareScoresView(t, append(recs, forged...)), wantRAREScoresView(); got != want {
		t.Errorf("rare_scores with other families' kinds and old RARE rows on their axes:\n got %q\nwant %q", got, want)
	}
}

func checkNoForeignRARE(t *testing.T, recs []streams.Record) {
	t.Helper()
	for _, rec := range recs {
		var o schemas.Outcome
		if err := schemas.Decode(rec.Value, &o); err != nil {
			t.Fatal(err)
		}
		if o.Family == schemas.FamilyRARE && slices.Contains(foreignAxes, o.Axis) {
			t.Errorf("RARE outcome on axis %s: %s/%s for %s", o.Axis, o.Axis, o.Kind, o.ModelID)
		}
	}
}

func equalScores(a, b map[string]scores) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestRAREWhereInSQL: the views and the example queries select RARE's rows
// with RAREWhere's text, so they count exactly the axes pairing scores.
func TestRAREWhereInSQL(t *testing.T) {
	want := RAREWhere()
	if !strings.Contains(want, "'cross')") || strings.Contains(want, schemas.AxisSpurious) {
		t.Fatalf("RAREWhere() = %q", want)
	}
	for _, path := range []string{"../../schemas/sql/030_score_views.sql", "../../docs/queries.sql"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sql := string(b)
		// Every selection of RARE's f rows goes through the shared text.
		if n, all := strings.Count(sql, want), strings.Count(sql, "family = 'rare' AND metric = 'f'"); n == 0 || n != all {
			t.Errorf("%s: %d of %d selections of RARE's f rows use %q", path, n, all, want)
		}
	}
}
