package perturb

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden prompt files of testdata/")

// llmServer starts the simulated OpenAI-compatible server playing
// testdata/llm_recording.yaml, with quick costs, and a generator client.
func llmServer(t *testing.T) (*simserver.Server, provider.Generator) {
	t.Helper()
	rec, err := simserver.LoadRecording(filepath.Join("testdata", "llm_recording.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := simserver.Start(simserver.Config{Recorded: rec, PrefillPerToken: time.Nanosecond,
		CachedPrefillPerToken: time.Nanosecond, DecodePerToken: time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g, err := provider.NewOpenAI("generator", provider.OpenAIOptions{BaseURL: s.BaseURL(), Model: simserver.DefaultModel})
	if err != nil {
		t.Fatal(err)
	}
	return s, g
}

// llmStage is a perturb stage running only the LLM kinds.
func llmStage(t *testing.T) *Stage {
	t.Helper()
	st, err := NewStage(Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Kinds: LLMKinds()})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func llmQuestion(id, question, answer, chunk string) *schemas.Question {
	q := &schemas.Question{QuestionID: id, Question: question, Answer: answer, GTChunks: []string{chunk}}
	schemas.Stamp(q, id)
	return q
}

var (
	qNorthwind = llmQuestion("q-northwind", "What revenue did Northwind Robotics report for the first quarter of 2026?", "$412 million",
		"Northwind Robotics reported revenue of $412 million for the first quarter of 2026, up 18% from a year earlier.")
	qHarbor = llmQuestion("q-harbor", "How many people does Harbor Keel Logistics employ?", "1,950 people",
		"Harbor Keel Logistics employs 1,950 people across nine depots.")
	qOstrava = llmQuestion("q-ostrava", "Which city is Ostrava Photonics' factory in?", "Plzeň",
		"A fire at Ostrava Photonics' Plzeň factory on 9 January 2026 delayed 380 robot deliveries by about three weeks.")
)

func process(t *testing.T, st *Stage, q *schemas.Question) ([]*schemas.Variant, error) {
	t.Helper()
	b, err := schemas.Encode(q)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Process(context.Background(), streams.Message{Value: b})
	var vs []*schemas.Variant
	for _, r := range recs {
		var v schemas.Variant
		if err := schemas.Decode(r.Value, &v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, &v)
	}
	return vs, err
}

func byKind(vs []*schemas.Variant) map[string]*schemas.Variant {
	m := map[string]*schemas.Variant{}
	for _, v := range vs {
		if v.Axis != AxisCross {
			m[v.Kind] = v
		}
	}
	return m
}

// TestLLMKindsMade: with a generator the three LLM kinds are made from the
// recorded replies, cleaned of their label and quotes, declared in the
// manifest and crossed like the rule kinds.
func TestLLMKindsMade(t *testing.T) {
	s, g := llmServer(t)
	st := llmStage(t)
	st.SetGenerator(g, nil)
	vs, err := process(t, st, qNorthwind)
	if err != nil {
		t.Fatal(err)
	}
	k := byKind(vs)
	if v := k[KindLLMGrammar]; v == nil || v.Query != "What revenue Northwind Robotics have reported for first quarter of 2026?" || v.Axis != schemas.AxisQuery {
		t.Errorf("llm_grammar: %+v", v)
	}
	if v := k[KindLLMIrrelevant]; v == nil || !strings.HasPrefix(v.Query, "My manager asked me this over lunch") || strings.Contains(v.Query, `"`) {
		t.Errorf("llm_irrelevant: %+v", v)
	}
	bt := k[KindBackTranslation]
	if bt == nil || bt.Query != qNorthwind.Question || len(bt.Contexts) != 1 || !strings.HasPrefix(bt.Contexts[0], "For the first quarter of 2026") || !bt.AnswerAvailable {
		t.Errorf("back_translation: %+v", bt)
	}
	if bt != nil && !strings.Contains(strings.Join(bt.Manifest, " "), schemas.Slot(schemas.AxisDocument, KindBackTranslation)) {
		t.Errorf("manifest %v lacks back_translation", bt.Manifest)
	}
	cross := 0
	for _, v := range vs {
		if v.Axis == AxisCross {
			cross++
		}
	}
	if cross != 2 { // two query rewrites × one document rewrite
		t.Errorf("%d cross cells, want 2", cross)
	}
	if n := s.Stats().Requests; n != 4 { // two rewrites, two translation legs
		t.Errorf("%d generator requests, want 4", n)
	}
	if sk := st.Skipped(); sk[KindLLMGrammar]+sk[KindLLMIrrelevant]+sk[KindBackTranslation] != 0 {
		t.Errorf("skipped %v, want none", sk)
	}
}

// TestLLMKindsRejected: a rewrite that gives the answer away, one that
// drops the company's name and a back-translation that loses the answer
// are refused, each counted under its reason; a request the generator
// refuses is a skip with its own reason, not a retry.
func TestLLMKindsRejected(t *testing.T) {
	_, g := llmServer(t)
	st := llmStage(t)
	st.SetGenerator(g, nil)
	vs, err := process(t, st, qHarbor)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Kind != KindOriginal {
		t.Errorf("variants %v, want the original alone", byKind(vs))
	}
	want := map[string]string{
		KindLLMGrammar:      ErrAnswerLeak.Error(),
		KindLLMIrrelevant:   ErrEntityLost.Error(),
		KindBackTranslation: ErrAnswerLost.Error(),
	}
	reasons := st.SkipReasons()
	for kind, reason := range want {
		if reasons[kind][reason] != 1 {
			t.Errorf("%s: skip reasons %v, want %q once", kind, reasons[kind], reason)
		}
	}
}

// TestLLMTransientRetried: a 503 from the generator fails the question
// with an error the runner retries (not streams.Permanent), counting no
// skip; the retry pays only for the failed call (the translation legs
// answered before are cached) and makes the variant. A 400 is a skip.
func TestLLMTransientRetried(t *testing.T) {
	s, g := llmServer(t)
	st := llmStage(t)
	cache, err := provider.OpenDiskCache(filepath.Join(t.TempDir(), "replies.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	st.SetGenerator(g, cache)
	_, err = process(t, st, qOstrava)
	if err == nil || streams.IsPermanent(err) || !errors.Is(err, provider.ErrUnavailable) {
		t.Fatalf("err %v, want a transient generator error", err)
	}
	if sk := st.Skipped(); sk[KindLLMGrammar]+sk[KindLLMIrrelevant]+sk[KindBackTranslation] != 0 {
		t.Errorf("skipped %v after a transient failure, want none counted", sk)
	}
	first := s.Stats().Requests
	vs, err := process(t, st, qOstrava)
	if err != nil {
		t.Fatal(err)
	}
	k := byKind(vs)
	if v := k[KindLLMGrammar]; v == nil || v.Query != "Which city Ostrava Photonics factory is in?" {
		t.Errorf("llm_grammar after the retry: %+v", v)
	}
	if k[KindLLMIrrelevant] != nil || st.SkipReasons()[KindLLMIrrelevant][ErrGeneratorRefused.Error()] != 1 {
		t.Errorf("llm_irrelevant: %+v, reasons %v; want a skip as refused", k[KindLLMIrrelevant], st.SkipReasons()[KindLLMIrrelevant])
	}
	if k[KindBackTranslation] == nil {
		t.Error("back_translation not made")
	}
	// The retry asks again for the 503'd rewrite, the refused one (a
	// refusal is not a reply: nothing to cache) and both legs of the
	// translation, which the first attempt never reached.
	if n := s.Stats().Requests - first; n != 4 {
		t.Errorf("%d requests on the retry, want 4", n)
	}
}

// TestLLMCachePersists: a second run over the same questions makes no
// generator call, with the same cache and after reopening its file (an
// engine restarted), and gives byte-identical variants.
func TestLLMCachePersists(t *testing.T) {
	s, g := llmServer(t)
	path := filepath.Join(t.TempDir(), "replies.jsonl")
	run := func() (string, int) {
		t.Helper()
		cache, err := provider.OpenDiskCache(path)
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Close()
		st := llmStage(t)
		st.SetGenerator(g, cache)
		before := s.Stats().Requests
		var out strings.Builder
		for _, q := range []*schemas.Question{qNorthwind, qHarbor} {
			for range 2 { // a redelivery within one run
				vs, err := process(t, st, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range vs {
					out.WriteString(v.VariantID + "\t" + v.Query + "\t" + strings.Join(v.Contexts, "|") + "\n")
				}
			}
		}
		return out.String(), s.Stats().Requests - before
	}
	first, paid := run()
	if paid != 8 { // four calls per question, each once
		t.Errorf("first run: %d requests, want 8", paid)
	}
	again, paid := run()
	if paid != 0 {
		t.Errorf("after reopening the cache: %d requests, want 0", paid)
	}
	if again != first {
		t.Errorf("variants differ after the restart:\n%s\nvs\n%s", first, again)
	}
}

// TestLLMKindsNeedGenerator: without a generator every LLM kind is
// skipped, never asked, and counted under "needs a generator".
func TestLLMKindsNeedGenerator(t *testing.T) {
	st := llmStage(t)
	vs, err := process(t, st, qNorthwind)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 {
		t.Errorf("%d variants, want the original alone", len(vs))
	}
	for _, k := range LLMKinds() {
		rs := st.SkipReasons()[k.Name]
		if st.Skipped()[k.Name] != 1 || len(rs) != 1 || !strings.Contains(errNoGenerator.Error(), "needs a generator") || rs[errNoGenerator.Error()] != 1 {
			t.Errorf("%s: skipped %d, reasons %v", k.Name, st.Skipped()[k.Name], rs)
		}
	}
}

// TestLLMPrompts keeps the prompts in testdata/prompt_*.golden, so that a
// change of wording shows in review (go test -run TestLLMPrompts -update
// rewrites them).
func TestLLMPrompts(t *testing.T) {
	for name, p := range map[string]string{
		"prompt_llm_grammar.golden":           GrammarPrompt(qNorthwind.Question),
		"prompt_llm_irrelevant.golden":        IrrelevantPrompt(qNorthwind.Question),
		"prompt_back_translation_to.golden":   TranslatePrompt(qNorthwind.GTChunks[0], "English", DefaultPivot),
		"prompt_back_translation_back.golden": TranslatePrompt("Northwind Robotics meldete einen Umsatz von $412 million.", DefaultPivot, "English"),
	} {
		path := filepath.Join("testdata", name)
		if *updateGolden {
			if err := os.WriteFile(path, []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != p {
			t.Errorf("%s differs from the prompt:\n%s", name, p)
		}
	}
}

func TestCleanReplyAndEntities(t *testing.T) {
	for in, want := range map[string]string{
		"  Question: “Who runs Acme?”\n\nNote: I kept the name.": "Who runs Acme?",
		"```\nWho runs Acme?\n```":                               "Who runs Acme?",
		`"Who runs Acme?"`:                                       "Who runs Acme?",
	} {
		if got := cleanReply(in, true); got != want {
			t.Errorf("cleanReply(%q) = %q, want %q", in, got, want)
		}
	}
	if m := missingEntities("What was Acme Corp's revenue in Q3 2025?", "Acme Corp revenue in Q3 2025 was what?"); len(m) != 0 {
		t.Errorf("missing %v, want none", m)
	}
	if m := missingEntities("What was Acme Corp's revenue in Q3 2025?", "What was Acme's revenue in the third quarter?"); strings.Join(m, ",") != "Corp,Q3,2025" {
		t.Errorf("missing %v, want Corp, Q3, 2025", m)
	}
}
