package perturb

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
)

// sureLLMServer starts the simulated server playing
// testdata/sure_llm_recording.yaml and returns a generator client for it.
func sureLLMServer(t *testing.T) (*simserver.Server, provider.Generator) {
	t.Helper()
	rec, err := simserver.LoadRecording(filepath.Join("testdata", "sure_llm_recording.yaml"))
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

// sureLLMStage is a perturb stage running SURE's LLM kinds on every cell
// (SURELLMCells = 0, restored when the test ends).
func sureLLMStage(t *testing.T) *Stage {
	t.Helper()
	old := SURELLMCells
	SURELLMCells = 0
	t.Cleanup(func() { SURELLMCells = old })
	st, err := NewStage(Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Kinds: SpuriousLLMKinds()})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var (
	sNorthwind = llmQuestion("s-northwind", "What revenue did Northwind Robotics report for the first quarter of 2026?", "$412 million",
		"# Northwind Robotics results\nNorthwind Robotics reported revenue of $412 million for the first quarter of 2026. "+
			"The company opened a plant in Tampere in March. Its chief executive, Maria Lind, expects orders to grow.")
	sHarbor = llmQuestion("s-harbor", "How many people does Harbor Keel Logistics employ?", "1,950",
		"Harbor Keel Logistics employs 1,950 people across nine depots. The firm was founded in Gdańsk in 1998. "+
			"It moved its head office to Rotterdam in 2015.")
)

// TestSURELLMKindsMade: with a generator, each of the four LLM kinds is made
// on the golden contexts and on the noise context from the recorded
// replies; the title line stays as it was, golden variants hold the
// answer and noise variants none, the reranked variant holds the source's
// sentences word for word in the generator's order, and each cell cost a
// rewrite and two entailment checks. source_self (no model under test
// that rewrites here) is skipped with its own reason, never silently
// missing.
func TestSURELLMKindsMade(t *testing.T) {
	s, g := sureLLMServer(t)
	st := sureLLMStage(t)
	st.SetGenerator(g, nil)
	vs, err := process(t, st, sNorthwind)
	if err != nil {
		t.Fatal(err)
	}
	k := byKind(vs)
	answers := text.NewAnswers(sNorthwind.Accepted())
	for _, name := range SURELLMKinds {
		for _, noise := range []bool{false, true} {
			cell := sureCell(name, noise)
			v := k[cell]
			if v == nil {
				t.Errorf("%s not made: skips %v", cell, st.SkipReasons()[cell])
				continue
			}
			c := strings.Join(v.Contexts, "\n")
			if v.Axis != schemas.AxisSpurious || v.Query != sNorthwind.Question || v.AnswerAvailable == noise ||
				answers.Covered(c) == noise || !strings.HasPrefix(c, "Northwind Robotics results\n\n") {
				t.Errorf("%s: %+v", cell, v)
			}
			if !schemas.InManifest(v.Manifest, schemas.Slot(schemas.AxisSpurious, cell)) {
				t.Errorf("%s: manifest %v lacks its slot", cell, v.Manifest)
			}
		}
	}
	if v := k[KindStyleSimple]; v != nil && !strings.Contains(v.Contexts[0], "made $412 million in sales") {
		t.Errorf("style_simple: %q", v.Contexts[0])
	}
	if v := k[KindSourceLLM]; v != nil && v.Contexts[0] != "Northwind Robotics results\n\nNorthwind Robotics posted $412 million in revenue in the first quarter of 2026. "+
		"In March, it also opened a plant in Tampere, and chief executive Maria Lind expects orders to keep growing." {
		t.Errorf("source_llm not cleaned of its fence and preamble: %q", v.Contexts[0])
	}
	want := "Northwind Robotics results\n\nIts chief executive, Maria Lind, expects orders to grow.\n" +
		"Northwind Robotics reported revenue of $412 million for the first quarter of 2026.\nThe company opened a plant in Tampere in March."
	if v := k[KindLogicLLMRerank]; v != nil && v.Contexts[0] != want {
		t.Errorf("logic_llm_rerank (order 3, 1, 2):\n%s\nwant\n%s", v.Contexts[0], want)
	}
	if v := k[KindLogicLLMRerank+SURENoiseSuffix]; v != nil && !strings.HasSuffix(v.Contexts[0], "\n\nIts chief executive, Maria Lind, expects orders to grow.\nThe company opened a plant in Tampere in March.") {
		t.Errorf("logic_llm_rerank_noise (order 2 1): %q", v.Contexts[0])
	}
	if n := s.Stats().Requests; n != 8*3 {
		t.Errorf("%d generator requests, want 24 (8 cells × a rewrite and two entailment checks)", n)
	}
	for _, cell := range []string{KindSourceSelf, KindSourceSelf + SURENoiseSuffix} {
		if k[cell] != nil || st.SkipReasons()[cell][ErrNoSelfModel.Error()] != 1 {
			t.Errorf("%s: made %v, skips %v; want skipped as no model under test can rewrite", cell, k[cell] != nil, st.SkipReasons()[cell])
		}
	}
}

// TestSURELLMKindsRejected: a golden rewrite that loses the answer, a noise
// rewrite that gains it, a rewrite that adds a fact (the generator judges
// it neutral), a reordering whose pronoun loses its referent (neutral) and
// a reply that is no order are refused, each counted under its reason;
// the rewrites that pass every check are made. A refusal stops the cell's
// calls: the entailment check comes after the free string checks.
func TestSURELLMKindsRejected(t *testing.T) {
	s, g := sureLLMServer(t)
	st := sureLLMStage(t)
	st.SetGenerator(g, nil)
	vs, err := process(t, st, sHarbor)
	if err != nil {
		t.Fatal(err)
	}
	k := byKind(vs)
	want := map[string]string{
		KindStyleSimple:                      "lost_answer",
		KindStyleSimple + SURENoiseSuffix:    "gained_answer",
		KindStyleComplex:                     "not_entailed",
		KindLogicLLMRerank:                   ErrGeneratorOutput.Error(),
		KindLogicLLMRerank + SURENoiseSuffix: "not_entailed",
		KindStyleComplex + SURENoiseSuffix:   "",
		KindSourceLLM:                        "",
		KindSourceLLM + SURENoiseSuffix:      "",
		KindSourceSelf:                       ErrNoSelfModel.Error(),
		KindSourceSelf + SURENoiseSuffix:     ErrNoSelfModel.Error(),
	}
	reasons := st.SkipReasons()
	for cell, reason := range want {
		if reason == "" {
			if k[cell] == nil || len(reasons[cell]) != 0 {
				t.Errorf("%s: not made (skips %v)", cell, reasons[cell])
			}
			continue
		}
		if k[cell] != nil || st.Skipped()[cell] != 1 || len(reasons[cell]) != 1 {
			t.Errorf("%s: made %v, skips %v; want one skip, %q", cell, k[cell] != nil, reasons[cell], reason)
			continue
		}
		for r := range reasons[cell] {
			if !strings.HasPrefix(r, reason) {
				t.Errorf("%s: skip reason %q, want %q", cell, r, reason)
			}
		}
	}
	// 1 + 1 + 2 (rewrite, one neutral check) + 3 + 3 + 3 + 1 + 2.
	if n := s.Stats().Requests; n != 16 {
		t.Errorf("%d generator requests, want 16", n)
	}
}

// TestSURELLMNeedsGenerator: without a generator every SURE LLM kind
// (source_self included) is skipped, counted under "needs a generator" for
// every question, the server is never asked, and the log says so once.
func TestSURELLMNeedsGenerator(t *testing.T) {
	s, _ := sureLLMServer(t)
	var logs bytes.Buffer
	st, err := NewStage(Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&logs, nil)), Kinds: SpuriousLLMKinds()})
	if err != nil {
		t.Fatal(err)
	}
	var vs []*schemas.Variant
	for range 2 {
		if vs, err = process(t, st, sNorthwind); err != nil {
			t.Fatal(err)
		}
	}
	// One warning names every kind the missing generator stops, once.
	if lines := strings.Split(strings.TrimSpace(logs.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "needs a generator") ||
		!strings.Contains(lines[0], KindStyleSimple+","+KindStyleSimple+SURENoiseSuffix) || !strings.Contains(lines[0], KindSourceSelf+SURENoiseSuffix) {
		t.Errorf("log:\n%s\nwant one warning naming every LLM kind", logs.String())
	}
	if len(vs) != 1 || vs[0].Kind != KindOriginal {
		t.Errorf("%d variants, want the original alone", len(vs))
	}
	kinds := SpuriousLLMKinds()
	if len(kinds) != 2*(len(SURELLMKinds)+1) {
		t.Fatalf("%d SURE LLM kinds registered", len(kinds))
	}
	for _, k := range kinds {
		rs := st.SkipReasons()[k.Name]
		if !k.NeedsLLM || st.Skipped()[k.Name] != 2 || len(rs) != 1 || rs[errNoGenerator.Error()] != 2 ||
			!strings.Contains(errNoGenerator.Error(), "needs a generator") {
			t.Errorf("%s: needs LLM %v, skipped %d, reasons %v", k.Name, k.NeedsLLM, st.Skipped()[k.Name], rs)
		}
	}
	if n := s.Stats().Requests; n != 0 {
		t.Errorf("%d generator requests without a generator", n)
	}
}

// TestSURELLMCachePersists: the rewrites and entailment judgements are
// cached on disk: a second run, after reopening the cache file (an engine
// restarted), makes no generator call and gives byte-identical variants
// and the same skips.
func TestSURELLMCachePersists(t *testing.T) {
	s, g := sureLLMServer(t)
	path := filepath.Join(t.TempDir(), "replies.jsonl")
	run := func() (string, int) {
		t.Helper()
		cache, err := provider.OpenDiskCache(path)
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Close()
		st := sureLLMStage(t)
		st.SetGenerator(g, cache)
		before := s.Stats().Requests
		var out strings.Builder
		for _, q := range []*schemas.Question{sNorthwind, sHarbor} {
			vs, err := process(t, st, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				out.WriteString(v.VariantID + "\t" + v.Kind + "\t" + strings.Join(v.Contexts, "|") + "\n")
			}
		}
		for _, k := range SpuriousLLMKinds() {
			for _, r := range slices.Sorted(func(yield func(string) bool) {
				for r := range st.SkipReasons()[k.Name] {
					if !yield(r) {
						return
					}
				}
			}) {
				out.WriteString(k.Name + " skipped: " + r + "\n")
			}
		}
		return out.String(), s.Stats().Requests - before
	}
	first, paid := run()
	if paid != 24+16 {
		t.Errorf("first run: %d requests, want 40", paid)
	}
	again, paid := run()
	if paid != 0 {
		t.Errorf("second run after reopening the cache: %d requests, want 0", paid)
	}
	if again != first {
		t.Errorf("the second run differs:\n%s\nvs\n%s", first, again)
	}
}

// TestSURELLMSample: with the default cap each question gets
// SURELLMCells of the eight LLM cells, chosen apart from the rule cells
// (whose sample a generator does not change), and the clean cells count
// the LLM cells only when those can be made.
func TestSURELLMSample(t *testing.T) {
	perCell := map[string]int{}
	onlyLLMNoise := 0
	for _, q := range sureQuestions(t, 400) {
		n := 0
		for _, k := range SURELLMKinds {
			for _, nz := range []bool{false, true} {
				if sampledLLM(q.QuestionID, sureCell(k, nz)) {
					n++
					perCell[sureCell(k, nz)]++
				}
			}
		}
		if n != DefaultSURELLMCells {
			t.Fatalf("%s: %d LLM cells sampled, want %d", q.QuestionID, n, DefaultSURELLMCells)
		}
		for _, nz := range []bool{false, true} {
			rule, withLLM := anySampled(q.QuestionID, nz, false, false), anySampled(q.QuestionID, nz, true, false)
			if rule && !withLLM {
				t.Fatalf("%s: the LLM cells took a rule cell's clean cell away", q.QuestionID)
			}
			if nz && withLLM && !rule {
				onlyLLMNoise++
			}
		}
	}
	if onlyLLMNoise == 0 {
		t.Error("no question has its clean noise cell for an LLM cell alone: the case is not exercised")
	}
	// 400 × 2 / 8 = 100 per cell.
	for cell, n := range perCell {
		if n < 50 || n > 160 {
			t.Errorf("cell %s sampled for %d of 400 questions, want about 100", cell, n)
		}
	}
	if len(perCell) != 2*len(SURELLMKinds) {
		t.Errorf("cells sampled: %v", perCell)
	}
}

func TestDropPreamble(t *testing.T) {
	for in, want := range map[string]string{
		"Sure! Here is the passage in plain words:\n\nAcme sold 40 anvils.": "Acme sold 40 anvils.",
		"Rewritten text:\n\"Acme sold 40 anvils.\"":                         "Acme sold 40 anvils.",
		"The board approved three measures:\nA levy, a fund and a cap.":     "The board approved three measures:\nA levy, a fund and a cap.",
		"Acme sold 40 anvils.": "Acme sold 40 anvils.",
		"Here is the passage:": "Here is the passage:",
	} {
		if got := dropPreamble(in); got != want {
			t.Errorf("dropPreamble(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseOrderAndNLILabel(t *testing.T) {
	for reply, want := range map[string][]int{"3, 1, 2": {3, 1, 2}, "Order: 2 1 3": {2, 1, 3}, "[1,3,2]": {1, 3, 2}} {
		if got, err := parseOrder(reply, 3); err != nil || !slices.Equal(got, want) {
			t.Errorf("parseOrder(%q) = %v, %v", reply, got, err)
		}
	}
	for _, reply := range []string{"1, 2", "1, 2, 2", "0, 1, 2", "4, 1, 2", "1, 2, 3, 4", "none"} {
		if got, err := parseOrder(reply, 3); err == nil {
			t.Errorf("parseOrder(%q) = %v, want an error", reply, got)
		}
	}
	for reply, want := range map[string]string{
		"Entailment.": nliEntailment, "NEUTRAL": nliNeutral, "contradiction — B denies it": nliContradiction,
		"neutral, not entailment": nliNeutral, "The answer is entailment": nliEntailment, "yes": "",
		"Not entailment.": nliNeutral, "non-entailment": nliNeutral, "There is no entailment here": nliNeutral,
	} {
		if got := nliLabel(reply); got != want {
			t.Errorf("nliLabel(%q) = %q, want %q", reply, got, want)
		}
	}
}

// TestSURELLMPrompts keeps the SURE LLM prompts in testdata/prompt_*.golden,
// so that a change of wording shows in review (-update rewrites them).
func TestSURELLMPrompts(t *testing.T) {
	body := splitTitle(sNorthwind.GTChunks[0]).Body
	for name, p := range map[string]string{
		"prompt_style_simple.golden":     StyleSimplePrompt(body),
		"prompt_style_complex.golden":    StyleComplexPrompt(body),
		"prompt_source_llm.golden":       SourceLLMPrompt(body),
		"prompt_logic_llm_rerank.golden": RerankPrompt(BodySentences(body)),
		"prompt_sure_entailment.golden":  EntailmentPrompt(body, "Northwind Robotics made $412 million in sales in the first quarter of 2026."),
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
