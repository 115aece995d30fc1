package perturb

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

func testQuestion() *schemas.Question {
	q := &schemas.Question{
		QuestionID: "q-acme-rev",
		Question:   "What was Acme Corp's revenue in Q3 2025?",
		Answer:     "$4.2 billion",
		Aliases:    []string{"4.2 billion dollars"},
		Pattern:    schemas.PatternSingle,
		Hops:       1,
		GTChunkIDs: []string{"c1"},
		GTChunks: []string{"Acme Corp published its quarterly report on Monday. " +
			"Acme Corp's revenue in Q3 2025 was $4.2 billion. Its operating margin was 18%."},
		Domain:      "finance",
		PublishedAt: time.Date(2025, 10, 20, 0, 0, 0, 0, time.UTC),
	}
	schemas.Stamp(q, "ev-q")
	return q
}

func encodeQuestion(t *testing.T, q *schemas.Question) streams.Message {
	t.Helper()
	b, err := schemas.Encode(q)
	if err != nil {
		t.Fatal(err)
	}
	return streams.Message{Topic: streams.TopicQuestions, Key: []byte(q.QuestionID), Value: b}
}

func decodeVariants(t *testing.T, recs []streams.Record) []schemas.Variant {
	t.Helper()
	var vs []schemas.Variant
	for _, r := range recs {
		if r.Topic != streams.TopicVariants {
			t.Errorf("record on topic %q", r.Topic)
		}
		var v schemas.Variant
		if err := schemas.Decode(r.Value, &v); err != nil {
			t.Fatal(err)
		}
		if string(r.Key) != v.QuestionID {
			t.Errorf("key %q, question %q", r.Key, v.QuestionID)
		}
		vs = append(vs, v)
	}
	return vs
}

func TestStageProcess(t *testing.T) {
	wn := wordNetOrSkip(t)
	st := mustStage(t, Config{WordNet: wn})
	q := testQuestion()
	// A question with safe synonyms outside its subject ("large" → "big",
	// "bought" → "purchased"): the meaning-preserving wordnet kind keeps
	// the subject of a "What was …" question whole.
	q.Question = "Which customers bought Acme Corp's large servers in Q3 2025?"
	recs, err := st.Process(context.Background(), encodeQuestion(t, q))
	if err != nil {
		t.Fatal(err)
	}
	vs := decodeVariants(t, recs)
	type shape struct {
		axis, kind string
		available  bool
	}
	want := []shape{
		{schemas.AxisOriginal, KindOriginal, true},
		{schemas.AxisQuery, KindChar, true},
		{schemas.AxisQuery, KindQWERTY, true},
		{schemas.AxisQuery, KindWordNet, true},
		{schemas.AxisDocument, KindAnswerRemoved, false},
		// RARE eq. 1's cells off the first row and column: each perturbed
		// query over the answer-removed contexts.
		{AxisCross, "char+answer_removed", false},
		{AxisCross, "qwerty+answer_removed", false},
		{AxisCross, "wordnet+answer_removed", false},
	}
	if len(vs) != len(want) {
		t.Fatalf("%d variants, want %d", len(vs), len(want))
	}
	for i, v := range vs {
		if got := (shape{v.Axis, v.Kind, v.AnswerAvailable}); got != want[i] {
			t.Errorf("variant %d = %+v, want %+v", i, got, want[i])
		}
		if v.SetSize != len(want) || len(v.Manifest) != len(want) || !schemas.InManifest(v.Manifest, v.Slot()) {
			t.Errorf("%s: SetSize %d, manifest %q", v.Kind, v.SetSize, v.Manifest)
		}
		if v.CrossSample != "3/3" {
			t.Errorf("%s: cross sample %q, want 3/3", v.Kind, v.CrossSample)
		}
		if v.QuestionRef != q.Ref() {
			t.Errorf("%s: QuestionRef %+v", v.Kind, v.QuestionRef)
		}
		if wantID := schemas.ID(append([]string{q.QuestionID, v.Axis, v.Kind, v.Query}, v.Contexts...)...); v.VariantID != wantID || v.ID != wantID {
			t.Errorf("%s: ids %s/%s, want %s", v.Kind, v.VariantID, v.ID, wantID)
		}
		if !slices.Equal(v.Lineage, []string{"ev-q"}) {
			t.Errorf("%s: lineage %q", v.Kind, v.Lineage)
		}
		if !slices.Equal(v.Accepted(), q.Accepted()) {
			t.Errorf("%s: accepted %q", v.Kind, v.Accepted())
		}
		switch v.Axis {
		case schemas.AxisQuery:
			if v.Query == q.Question || !slices.Equal(v.Contexts, q.GTChunks) {
				t.Errorf("%s: query %q, contexts %q", v.Kind, v.Query, v.Contexts)
			}
		case schemas.AxisDocument:
			if v.Query != q.Question || slices.Equal(v.Contexts, q.GTChunks) {
				t.Errorf("%s: query %q, contexts %q", v.Kind, v.Query, v.Contexts)
			}
		case AxisCross:
			// The query of its query variant, the contexts of its
			// document variant.
			if qv := vs[i-4]; v.Query != qv.Query || v.Kind != CrossKind(qv.Kind, KindAnswerRemoved) {
				t.Errorf("%s: query %q, want %s's %q", v.Kind, v.Query, qv.Kind, qv.Query)
			}
			if !slices.Equal(v.Contexts, vs[4].Contexts) {
				t.Errorf("%s: contexts %q, want answer_removed's %q", v.Kind, v.Contexts, vs[4].Contexts)
			}
		}
	}
	// A replay yields the same variants.
	again, err := st.Process(context.Background(), encodeQuestion(t, q))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range decodeVariants(t, again) {
		if v.VariantID != vs[i].VariantID || v.Query != vs[i].Query {
			t.Errorf("replay differs at %d: %q vs %q", i, v.Query, vs[i].Query)
		}
	}
	for k, n := range st.Skipped() {
		if n != 0 {
			t.Errorf("skipped %s = %d", k, n)
		}
	}
}

func TestStageSkips(t *testing.T) {
	st := mustStage(t, Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	q := testQuestion()
	q.GTChunks = []string{"Revenue was $4.2 billion."} // removal would leave nothing
	recs, err := st.Process(context.Background(), encodeQuestion(t, q))
	if err != nil {
		t.Fatal(err)
	}
	vs := decodeVariants(t, recs)
	var kinds []string
	for _, v := range vs {
		kinds = append(kinds, v.Kind)
		if v.SetSize != 3 {
			t.Errorf("%s: SetSize %d, want 3", v.Kind, v.SetSize)
		}
	}
	if !slices.Equal(kinds, []string{KindOriginal, KindChar, KindQWERTY}) {
		t.Errorf("kinds %q", kinds)
	}
	want := map[string]int64{KindChar: 0, KindQWERTY: 0, KindWordNet: 1, KindAnswerRemoved: 1}
	if got := st.Skipped(); !maps.Equal(got, want) {
		t.Errorf("Skipped() = %v, want %v", got, want)
	}
	// And why: no dictionary in the empty directory; nothing left once the
	// answer's only sentence is removed.
	reasons := st.SkipReasons()
	if got := reasons[KindWordNet]; len(got) != 1 || got["perturbation kind unavailable: the WordNet dictionary is missing"] != 1 {
		t.Errorf("wordnet skip reasons %v", got)
	}
	if got := reasons[KindAnswerRemoved]; len(got) != 1 || got[ErrEmptyContext.Error()] != 1 {
		t.Errorf("answer_removed skip reasons %v", got)
	}
	if len(reasons) != 2 {
		t.Errorf("skip reasons of %d kinds: %v", len(reasons), reasons)
	}
}

func TestStageBadInput(t *testing.T) {
	st := mustStage(t, Config{WordNetDir: t.TempDir()})
	noAnswer := testQuestion()
	noAnswer.Answer = ""
	nb, _ := schemas.Encode(noAnswer)
	future, _ := json.Marshal(map[string]any{"schema_version": schemas.Version + 1, "question_id": "q"})
	for name, v := range map[string][]byte{
		"not json":        []byte("{"),
		"unknown version": future,
		"no answer":       nb,
	} {
		_, err := st.Process(context.Background(), streams.Message{Value: v})
		if !streams.IsPermanent(err) {
			t.Errorf("%s: err = %v, want permanent", name, err)
		}
	}
}

// TestStageManifest: every variant carries the question's manifest (the
// slots made here plus those another stage produces); a kind made
// elsewhere is declared, never run; kinds are checked when the stage is
// built.
func TestStageManifest(t *testing.T) {
	para := Kind{Axis: schemas.AxisQuery, Name: "paraphrase", NeedsLLM: true, Producer: "paraphraser"}
	st := mustStage(t, Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Kinds: []Kind{Char, para}})
	vs := decodeVariants(t, mustProcess(t, st, testQuestion()))
	want := []string{"original/original", "query/char", "query/paraphrase"}
	if len(vs) != 2 {
		t.Fatalf("%d variants, want the original and char (paraphrase is made elsewhere)", len(vs))
	}
	for _, v := range vs {
		if !slices.Equal(v.Manifest, want) || v.SetSize != len(want) {
			t.Errorf("%s: manifest %q set size %d, want %q", v.Kind, v.Manifest, v.SetSize, want)
		}
	}
	if n := st.Skipped()["paraphrase"]; n != 0 {
		t.Errorf("a kind made elsewhere counted as skipped here (%d)", n)
	}

	for name, k := range map[string]Kind{
		"both Make and Producer": {Axis: schemas.AxisQuery, Name: "x", Make: Char.Make, Producer: "other"},
		"neither":                {Axis: schemas.AxisQuery, Name: "x"},
		"produced by perturb":    {Axis: schemas.AxisQuery, Name: "x", Producer: StageName},
	} {
		if err := checkKinds([]Kind{k}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func mustProcess(t *testing.T, st *Stage, q *schemas.Question) []streams.Record {
	t.Helper()
	recs, err := st.Process(context.Background(), encodeQuestion(t, q))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func mustStage(tb testing.TB, cfg Config) *Stage {
	tb.Helper()
	st, err := NewStage(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}
