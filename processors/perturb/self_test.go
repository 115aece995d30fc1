package perturb

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// modelServer starts the simulated server playing a model under test's
// recording and returns the model's client.
func modelServer(t *testing.T, recording, id string) (*simserver.Server, *provider.OpenAI) {
	t.Helper()
	rec, err := simserver.LoadRecording(filepath.Join("testdata", recording))
	if err != nil {
		t.Fatal(err)
	}
	s, err := simserver.Start(simserver.Config{Recorded: rec, PrefillPerToken: time.Nanosecond,
		CachedPrefillPerToken: time.Nanosecond, DecodePerToken: time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m, err := provider.NewOpenAI(id, provider.OpenAIOptions{BaseURL: s.BaseURL(), Model: simserver.DefaultModel})
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

// mapStore is pairing's state in a map.
type mapStore map[string][]byte

func (m mapStore) Get(key string) ([]byte, bool) { b, ok := m[key]; return b, ok }
func (m mapStore) Put(_ context.Context, key string, value []byte) error {
	m[key] = value
	return nil
}
func (m mapStore) Delete(_ context.Context, key string) error { delete(m, key); return nil }

// selfRun is what one pass of a question through perturb, source_self's
// producer, fan-out and pairing gave.
type selfRun struct {
	variants []*schemas.Variant
	requests []*schemas.EvalRequest
	outcomes []schemas.Outcome
	skips    map[string]map[string]int64
}

// runSelf passes q through perturb (SURE's rule kinds and source_self),
// the producer, fan-out (two remote models, a built-in reader, a RAG
// service) and pairing. Each request is answered here, as the infer stage
// would mark it (a not-made marker as an error result): correct, except
// that m-a's reading of its own golden rewrite is wrong and no model knows
// the answer closed-book, so every instance is Unknown.
func runSelf(t *testing.T, q *schemas.Question, judge provider.Generator, models []SelfModel, cachePath string) selfRun {
	t.Helper()
	ctx := t.Context()
	cache, err := provider.OpenDiskCache(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	st, err := NewStage(Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Kinds: slices.Concat(SpuriousKinds(), SelfSourceKinds())})
	if err != nil {
		t.Fatal(err)
	}
	st.SetGenerator(judge, cache)
	self := NewSelfStage(models, judge, cache, st)
	var ids, rag []string
	for _, m := range models {
		ids = append(ids, m.ID)
		if m.Retrieves {
			rag = append(rag, m.ID)
		}
	}
	fo, err := fanout.NewStage(fanout.Config{Models: ids, Retrieving: rag, Prompt: fanout.StyleSURE})
	if err != nil {
		t.Fatal(err)
	}
	ps := pair.NewStage(mapStore{}, pair.RARE, pair.SURE)

	var run selfRun
	recs, err := st.Process(ctx, encodeQuestion(t, q))
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		// The producer reads every variant on rs.variants, its own too.
		more, err := self.Process(ctx, streams.Message{Topic: streams.TopicVariants, Key: rec.Key, Value: rec.Value})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, more...)
	}
	for _, rec := range recs {
		var v schemas.Variant
		if err := schemas.Decode(rec.Value, &v); err != nil {
			t.Fatal(err)
		}
		run.variants = append(run.variants, &v)
		reqs, err := fo.Process(ctx, streams.Message{Topic: streams.TopicVariants, Value: rec.Value})
		if err != nil {
			t.Fatal(err)
		}
		for _, rr := range reqs {
			var r schemas.EvalRequest
			if err := schemas.Decode(rr.Value, &r); err != nil {
				t.Fatal(err)
			}
			run.requests = append(run.requests, &r)
		}
	}
	for _, r := range run.requests {
		res := &schemas.EvalResult{QuestionRef: r.QuestionRef, RequestID: r.RequestID, ModelID: r.ModelID, VariantID: r.VariantID,
			ClosedBook: r.ClosedBook, Axis: r.Axis, Kind: r.Kind, AnswerAvailable: r.AnswerAvailable, Manifest: r.Manifest,
			Expected: r.Expected, Retrieves: r.Retrieves, Error: r.NotMadeReason, EvaluatedAt: time.Unix(0, 0).UTC()}
		if res.Error == "" {
			res.Answer, res.Correct = "$412 million", !r.ClosedBook && !(r.ModelID == "m-a" && r.Kind == KindSourceSelf)
		}
		schemas.Stamp(res, schemas.ID("result", r.ID))
		b, err := schemas.Encode(res)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := ps.Process(ctx, streams.Message{Topic: streams.TopicEvalResults, Value: b})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			var oc schemas.Outcome
			if err := schemas.Decode(o.Value, &oc); err != nil {
				t.Fatal(err)
			}
			run.outcomes = append(run.outcomes, oc)
		}
	}
	run.skips = st.SkipReasons()
	return run
}

// TestSourceSelfThroughPairing: source_self end to end, against simulated
// servers in recorded mode. Each remote model under test rewrites the
// Northwind context itself (golden and noise: asked once each); m-b's
// golden rewrite loses the answer and is refused as lost_answer; the
// built-in reader cannot rewrite and gets a marker counted under its own
// reason; the RAG service gets nothing. Fan-out asks each variant of its
// model alone, every (model, question) set closes, and pairing writes
// SURE outcomes for source_self per remote model and none for the reader.
// A second run over the same disk cache (a restart) asks no model and no
// judge again and makes the same variants.
func TestSourceSelfThroughPairing(t *testing.T) {
	old := SURELLMCells
	SURELLMCells = 0
	t.Cleanup(func() { SURELLMCells = old })
	judgeSrv, judge := sureLLMServer(t)
	aSrv, a := modelServer(t, "source_self_model_a.yaml", "m-a")
	bSrv, b := modelServer(t, "source_self_model_b.yaml", "m-b")
	models := []SelfModel{{ID: "builtin:lexical"}, {ID: "m-a", Writer: a}, {ID: "m-b", Writer: b}, {ID: "rag", Retrieves: true}}
	cachePath := filepath.Join(t.TempDir(), "replies.jsonl")

	run := runSelf(t, sNorthwind, judge, models, cachePath)
	answers := text.NewAnswers(sNorthwind.Accepted())

	// The variants: one per (cell, model) but the RAG service's.
	got := map[string]*schemas.Variant{} // "<kind> <model>"
	for _, v := range run.variants {
		if strings.HasPrefix(v.Kind, KindSourceSelf) {
			if v.Model == "" {
				t.Errorf("%s variant %s names no model", v.Kind, v.VariantID)
			}
			got[v.Kind+" "+v.Model] = v
		}
	}
	if len(got) != 6 {
		t.Errorf("%d source_self variants, want 6 (2 cells × 3 models): %v", len(got), slices.Sorted(func(yield func(string) bool) {
			for k := range got {
				yield(k)
			}
		}))
	}
	for key, want := range map[string]string{
		KindSourceSelf + " builtin:lexical":                   ErrCannotRewrite.Error(),
		KindSourceSelf + SURENoiseSuffix + " builtin:lexical": ErrCannotRewrite.Error(),
		KindSourceSelf + " m-b":                               "lost_answer",
		KindSourceSelf + " m-a":                               "",
		KindSourceSelf + SURENoiseSuffix + " m-a":             "",
		KindSourceSelf + SURENoiseSuffix + " m-b":             "",
	} {
		v := got[key]
		switch {
		case v == nil:
			t.Errorf("%s: no variant", key)
		case want != "" && !strings.HasPrefix(v.NotMadeReason, want):
			t.Errorf("%s: not made %q, want %q", key, v.NotMadeReason, want)
		case want == "" && v.NotMadeReason != "":
			t.Errorf("%s: not made: %s", key, v.NotMadeReason)
		case want == "":
			noise := strings.HasSuffix(v.Kind, SURENoiseSuffix)
			c := strings.Join(v.Contexts, "\n")
			if !strings.HasPrefix(c, "Northwind Robotics results\n\n") || answers.Covered(c) == noise || v.AnswerAvailable == noise || strings.Contains(c, "Here is my text") {
				t.Errorf("%s: contexts %q, answer available %v", key, c, v.AnswerAvailable)
			}
		}
	}
	if a, b := got[KindSourceSelf+SURENoiseSuffix+" m-a"], got[KindSourceSelf+SURENoiseSuffix+" m-b"]; a != nil && b != nil && slices.Equal(a.Contexts, b.Contexts) {
		t.Error("m-a and m-b got the same rewrite")
	}

	// Each model was asked its own rewrite once per context, and nothing
	// else; the judge was asked entailment both ways for the three
	// rewrites that passed the string checks.
	for _, c := range []struct {
		srv     *simserver.Server
		entries []string
	}{{aSrv, []string{"self-a-golden", "self-a-noise"}}, {bSrv, []string{"self-b-golden-loses-answer", "self-b-noise"}}} {
		for _, e := range c.entries {
			if n := c.srv.Played(e); n != 1 {
				t.Errorf("%s played %d times, want 1", e, n)
			}
		}
		if n := c.srv.Stats().Requests; n != 2 {
			t.Errorf("a model under test received %d requests, want its 2 rewrites", n)
		}
	}
	if n := judgeSrv.Stats().Requests; n != 6 {
		t.Errorf("the judge received %d requests, want 6 (two directions × three rewrites)", n)
	}

	// Fan-out: a variant of one model is asked of that model alone.
	for _, r := range run.requests {
		if strings.HasPrefix(r.Kind, KindSourceSelf) {
			if v := got[r.Kind+" "+r.ModelID]; v == nil || v.VariantID != r.VariantID {
				t.Errorf("model %s asked source_self variant %s, not its own", r.ModelID, r.VariantID)
			}
		}
	}

	// Pairing: every set closed (each model has outcomes), SURE's
	// source_self outcomes for m-a on both cells and m-b on the noise one
	// (its golden rewrite was refused), none for the reader.
	sets, selfOut := map[string]bool{}, map[string]float64{}
	for _, o := range run.outcomes {
		sets[o.ModelID] = true
		if o.Family == schemas.FamilyRARE && o.Axis == schemas.AxisSpurious {
			t.Errorf("a RARE outcome on the spurious axis: %+v", o)
		}
		if o.Kind == KindSourceSelf && o.Metric == pair.MetricC {
			selfOut[fmt.Sprintf("%s golden=%v", o.ModelID, o.Golden)] = o.Value
		}
	}
	for _, m := range []string{"builtin:lexical", "m-a", "m-b", "rag"} {
		if !sets[m] {
			t.Errorf("no outcome for %s: its set never closed", m)
		}
	}
	want := map[string]float64{"m-a golden=true": 1, "m-a golden=false": 0, "m-b golden=false": 0}
	if fmt.Sprint(selfOut) != fmt.Sprint(want) {
		t.Errorf("source_self outcomes c %v, want %v", selfOut, want)
	}

	// Skips, with the other kinds' in coverage.
	if r := run.skips[KindSourceSelf]; r[ErrCannotRewrite.Error()] != 1 || len(r) != 2 {
		t.Errorf("source_self skips %v, want the reader once and m-b's lost answer once", r)
	}
	if r := run.skips[KindSourceSelf+SURENoiseSuffix]; r[ErrCannotRewrite.Error()] != 1 || len(r) != 1 {
		t.Errorf("source_self_noise skips %v, want the reader once", r)
	}

	// A restart: the same variants from the disk cache, no call paid twice.
	before := aSrv.Stats().Requests + bSrv.Stats().Requests + judgeSrv.Stats().Requests
	again := runSelf(t, sNorthwind, judge, models, cachePath)
	if after := aSrv.Stats().Requests + bSrv.Stats().Requests + judgeSrv.Stats().Requests; after != before {
		t.Errorf("the second run made %d calls, want 0", after-before)
	}
	ids := func(vs []*schemas.Variant) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.VariantID+" "+strings.Join(v.Contexts, "|")+" "+v.NotMadeReason)
		}
		return out
	}
	if !slices.Equal(ids(run.variants), ids(again.variants)) {
		t.Error("the second run made other variants")
	}
}

// TestSourceSelfDeclaredWhenSampled: perturb declares source_self's slots
// only for the questions whose cells are sampled (about a fifth of them
// per cell with SURELLMCells = 2), makes the clean cell they compare with,
// counts the others as not sampled, and without a generator declares none.
func TestSourceSelfDeclaredWhenSampled(t *testing.T) {
	_, judge := sureLLMServer(t)
	st, err := NewStage(Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Kinds: slices.Concat(SpuriousKinds(), SelfSourceKinds())})
	if err != nil {
		t.Fatal(err)
	}
	noGen, err := NewStage(Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Kinds: slices.Concat(SpuriousKinds(), SelfSourceKinds())})
	if err != nil {
		t.Fatal(err)
	}
	st.SetGenerator(judge, nil)
	qs := sureQuestions(t, 200)
	declared := map[string]int{}
	for _, q := range qs {
		vs := st.Variants(q)
		m := vs[0].Manifest
		for _, noise := range []bool{false, true} {
			cell := sureCell(KindSourceSelf, noise)
			slot := schemas.Slot(schemas.AxisSpurious, cell)
			if schemas.InManifest(m, slot) != (sampledSelf(q.QuestionID, cell) && (!noise || hasNoise(q))) {
				t.Fatalf("%s: %s declared %v", q.QuestionID, slot, schemas.InManifest(m, slot))
			}
			if schemas.InManifest(m, slot) {
				declared[cell]++
				if clean := schemas.Slot(schemas.AxisSpurious, sureCell(KindSUREClean, noise)); !schemas.InManifest(m, clean) {
					t.Errorf("%s: %s declared without %s", q.QuestionID, slot, clean)
				}
			}
		}
		for _, v := range noGen.Variants(q) {
			if slices.ContainsFunc(v.Manifest, func(s string) bool { return strings.Contains(s, KindSourceSelf) }) {
				t.Fatalf("%s: source_self declared without a generator", q.QuestionID)
			}
		}
	}
	// 200 questions × 2 of 10 cells: about 40 per cell.
	for _, cell := range []string{KindSourceSelf, KindSourceSelf + SURENoiseSuffix} {
		if n := declared[cell]; n < 15 || n > 70 {
			t.Errorf("%s declared for %d of 200 questions, want about 40", cell, n)
		}
		if n := st.SkipReasons()[cell][ErrNotSampled.Error()]; n == 0 {
			t.Errorf("%s: unsampled questions not counted: %v", cell, st.SkipReasons()[cell])
		}
	}
}

func hasNoise(q *schemas.Question) bool {
	_, err := NoiseContexts(q.GTChunks, text.NewAnswers(q.Accepted()))
	return err == nil
}

// TestSourceSelfSetModels: a model added to the line-up while the stage
// runs gets its variant (or marker) from the next original on.
func TestSourceSelfSetModels(t *testing.T) {
	old := SURELLMCells
	SURELLMCells = 0
	t.Cleanup(func() { SURELLMCells = old })
	_, judge := sureLLMServer(t)
	_, a := modelServer(t, "source_self_model_a.yaml", "m-a")
	st, err := NewStage(Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Kinds: SelfSourceKinds()})
	if err != nil {
		t.Fatal(err)
	}
	st.SetGenerator(judge, nil)
	self := NewSelfStage([]SelfModel{{ID: "builtin:lexical"}}, judge, nil, nil)
	orig := st.Variants(sNorthwind)[0]
	models := func() []string {
		vs, err := self.Variants(t.Context(), orig)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range vs {
			out = append(out, v.Kind+" "+v.Model)
		}
		return out
	}
	if got := models(); !slices.Equal(got, []string{"source_self builtin:lexical", "source_self_noise builtin:lexical"}) {
		t.Errorf("before: %q", got)
	}
	self.SetModels([]SelfModel{{ID: "builtin:lexical"}, {ID: "m-a", Writer: a}})
	if got := models(); !slices.Equal(got, []string{"source_self builtin:lexical", "source_self m-a", "source_self_noise builtin:lexical", "source_self_noise m-a"}) {
		t.Errorf("after: %q", got)
	}
	if r := self.SkipReasons()[KindSourceSelf][ErrCannotRewrite.Error()]; r != 2 {
		t.Errorf("the reader's skips counted %d times, want 2 (no counter: the stage's own)", r)
	}
}
