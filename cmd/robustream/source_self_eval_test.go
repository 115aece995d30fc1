package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider/simserver"
)

// TestEvalOnceSourceSelf: eval --once on the demo feed with a built-in
// reader, a remote model under test and a generator, all on simulated
// servers. The remote model is asked to write the sampled contexts in its
// own words (its recorded rewrite keeps no figure, so the golden cells are
// refused as lost_answer and the noise cells are made); the generator
// judges entailment. SURE outcomes of source_self exist for the remote
// model and none for the reader, whose sets close on their markers; no
// pairing stays open.
func TestEvalOnceSourceSelf(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	// Every other prompt (the models check's probes, the questions, the
	// other LLM kinds' rewrites) gets one short reply: green.
	anyPrompt := simserver.RecordedEntry{Name: "any", Regexp: "(?s).", Responses: []simserver.RecordedResponse{{Body: "green"}}}
	fast := simserver.Config{PrefillPerToken: time.Nanosecond, CachedPrefillPerToken: time.Nanosecond, DecodePerToken: time.Microsecond, MaxNumSeqs: 16}
	modelCfg := fast
	modelCfg.Recorded = &simserver.Recording{Entries: []simserver.RecordedEntry{{Name: "own-words",
		Match: "write your own text", Responses: []simserver.RecordedResponse{{Body: "In its own words: the organisation described what it did during the period and what it plans next."}}},
		anyPrompt}}
	model, err := simserver.Start(modelCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	genCfg := fast
	genCfg.Recorded = &simserver.Recording{Entries: []simserver.RecordedEntry{{Name: "nli",
		Match: "You judge whether one text follows", Responses: []simserver.RecordedResponse{{Body: "entailment"}}}, anyPrompt}}
	gen, err := simserver.Start(genCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	models := filepath.Join(t.TempDir(), "models.yaml")
	yaml := fmt.Sprintf("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: remote-sim, kind: openai, base_url: %q, model: %s, timeout: 10s}\n"+
		"generator: {base_url: %q, model: %s, timeout: 10s}\n", model.BaseURL(), simserver.DefaultModel, gen.BaseURL(), simserver.DefaultModel)
	if err := os.WriteFile(models, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	out := robustreamWithStderr(t, "eval", "--once", "--source", "demo", "--demo-periods", "1", "--data-dir", data, "--models", models, "--log-level", "warn")
	if !strings.Contains(out, "open pairings 0") {
		t.Errorf("pairings left open:\n%s", tail(out, 3000))
	}
	q := func(sql string) int64 { return sqlCount(t, sql, "--data-dir", data) }
	rewrites := int64(model.Played("own-words"))
	if rewrites == 0 {
		t.Fatalf("the remote model was never asked to rewrite a context\n%s", tail(out, 3000))
	}
	made := q("SELECT count() FROM robustream.variants WHERE kind = 'source_self_noise'")
	if made == 0 {
		t.Errorf("no source_self_noise variant stored (%d rewrites asked)", rewrites)
	}
	if n := q("SELECT count() FROM robustream.variants WHERE kind = 'source_self'"); n != 0 {
		t.Errorf("%d golden source_self variants stored; the rewrite keeps no answer, so each must be refused", n)
	}
	if n := q("SELECT count() FROM robustream.outcomes WHERE family = 'sure' AND kind = 'source_self' AND model_id = 'remote-sim' AND golden = 0 AND metric = 'c'"); n == 0 {
		t.Error("no SURE outcome of source_self for the remote model")
	}
	if n := q("SELECT count() FROM robustream.outcomes WHERE kind = 'source_self' AND model_id = 'builtin:lexical'"); n != 0 {
		t.Errorf("%d source_self outcomes for the built-in reader", n)
	}
	// The reader's sets closed on markers saying why.
	if n := q("SELECT count() FROM robustream.eval_results WHERE model_id = 'builtin:lexical' AND kind LIKE 'source_self%' AND error LIKE '%cannot rewrite%'"); n == 0 {
		t.Error("no marker result for the built-in reader's source_self cells")
	}
	// Each cell's rewrite is asked once per context, whatever the retries.
	if n := q("SELECT count() FROM robustream.eval_results WHERE model_id = 'remote-sim' AND kind LIKE 'source_self%'"); n == 0 || rewrites > 4*n {
		t.Errorf("%d rewrites asked for %d source_self cells of the remote model", rewrites, n)
	}
	t.Logf("%d rewrites asked, %d source_self_noise variants made", rewrites, made)
}
