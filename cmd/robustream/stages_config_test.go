package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/schemas"
)

// TestStagesConfigDryRun: per-stage options are checked with their paths,
// five errors in three stages all listed at once; the list form still
// selects stages; keys are strict; flags and env reach them.
func TestStagesConfigDryRun(t *testing.T) {
	write := func(yaml string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "robustream.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dryRun(t, []string{"--config", write(`stages:
  chunk: {max_tokens: -5, batch_size: -1}
  infer: {judge_method: fuzzy, retry: {max_attempts: 1000}}
  fanout: {concurrency: -3}
`)}, "5 configuration error(s)",
		"stages.chunk.batch_size: -1", "stages.chunk.max_tokens must be >= 0",
		"stages.infer.judge_method: unknown \"fuzzy\"", "stages.infer.retry.max_attempts: 1000",
		"stages.fanout.concurrency: -3")
	dryRun(t, []string{"--config", write("stages: [chunk, triplets]\n")})
	dryRun(t, []string{"--config", write("stages: [chunk, nope]\n")}, `unknown stage "nope"`)
	dryRun(t, []string{"--config", write("stages:\n  chunk: {max_tokns: 3}\n")}, "line 2: stages.chunk.max_tokns: unknown key")
	// Sections by name are checked too, and the knowledge stages' own keys.
	dryRun(t, []string{"--config", write("stages:\n  chunk:\n    sources:\n      dir: {profile: grade, max_tokns: 3}\n")},
		"line 4: stages.chunk.sources.dir.max_tokns: unknown key")
	dryRun(t, []string{"--config", write("stages:\n  chunk: {profile: gradual}\n")}, `unknown profile "gradual"`)
	dryRun(t, []string{"--config", write("stages:\n  questions: {writer: poet, patterns: {max_hops: 9, single_hop: loose}}\n  triplets: {extractor: magic}\n")},
		"stages.questions.writer", "max_hops: 9 is out of range", "single_hop", "magic")
	dryRun(t, []string{"--config", write("stages:\n  chunk: {profile: grade, sources: {rss: {profile: rare}}}\n  questions: {writer: llm, llm_checks: true, patterns: {single_hop: rare}}\n  triplets: {extractor: both, window: 3}\n")})
	dryRun(t, []string{"--config", write("stages:\n  run: [chunk]\n  chunk: {max_tokens: 300, retry: {max_attempts: 2}}\n  sinks: {batch_size: 10000}\n")})
	dryRun(t, []string{"--stages-chunk-max-tokens", "-1"}, "stages.chunk.max_tokens must be >= 0")
	dryRun(t, []string{"--stages-infer-judge-method", "exact", "--stages", "infer"})
	t.Setenv("ROBUSTREAM_STAGES", "chunk,bogus")
	dryRun(t, nil, `unknown stage "bogus"`)
}

// TestStagesChunkMaxTokens: stages.chunk.max_tokens changes the chunks a
// run produces.
func TestStagesChunkMaxTokens(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two pipelines")
	}
	corpus := t.TempDir()
	var b strings.Builder
	// Forty lenders, each with facts of its own: a run that asks no
	// question fails eval --once's gate, and one subject with forty values
	// of one fact is never asked (its chunk names no single answer).
	prefixes := []string{"Northwind", "Eastgate", "Silverline", "Redfield", "Bluewater", "Greenhill", "Stonebridge", "Oakmont"}
	suffixes := []string{"Bank", "Credit Union", "Savings", "Trust", "Capital"}
	for i := 0; i < 40; i++ {
		name := prefixes[i%len(prefixes)] + " " + suffixes[i/len(prefixes)]
		b.WriteString(name + " opened " + strconv.Itoa(i+3) + " branches in the northern region during 2026, and its deposits grew by " + strconv.Itoa(i%9+2) + " percent. ")
	}
	if err := os.WriteFile(filepath.Join(corpus, "report.md"), []byte("# Northwind\n\n"+b.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	chunks := func(yaml string) (n, maxTokens int64) {
		t.Helper()
		cfg := filepath.Join(t.TempDir(), "robustream.yaml")
		if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		data := t.TempDir()
		robustream(t, "eval", "--once", "--source", "dir:"+corpus, "--data-dir", data, "--config", cfg)
		return sqlCount(t, "SELECT count() FROM robustream.chunks", "--data-dir", data),
			sqlCount(t, "SELECT max(tokens) FROM robustream.chunks", "--data-dir", data)
	}
	n1, max1 := chunks("log: {level: error}\n")
	n2, max2 := chunks("log: {level: error}\nstages:\n  chunk: {max_tokens: 120}\n")
	t.Logf("default: %d chunks of at most %d tokens; max_tokens 120: %d chunks of at most %d", n1, max1, n2, max2)
	if max2 > 120 || n2 <= n1 || max1 <= 120 {
		t.Errorf("max_tokens 120 gave %d chunks of at most %d tokens; the default %d of at most %d", n2, max2, n1, max1)
	}
}

// TestFanoutPromptStyle: stages.fanout.prompt picks the prompt family
// (SURE's asks for at most five words or NO-RES); an unknown style is a
// --dry-run error with its path.
func TestFanoutPromptStyle(t *testing.T) {
	p := filepath.Join(t.TempDir(), "robustream.yaml")
	if err := os.WriteFile(p, []byte("stages:\n  fanout:\n    prompt: sure\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dryRun(t, []string{"--config", p})
	set, _ := loadModels("")
	cfg := defaultConfig()
	cfg.Stages.Fanout.Prompt = fanout.StyleSURE
	st, err := fanout.NewStage(fanoutConfigOf(cfg.Stages.Fanout.Config, set))
	if err != nil {
		t.Fatal(err)
	}
	v := &schemas.Variant{QuestionRef: schemas.QuestionRef{QuestionID: "q"}, VariantID: "v", Axis: schemas.AxisOriginal, Kind: "original",
		Query: "Who?", Contexts: []string{"Maria Lopez."}, ExpectedAnswer: "Maria Lopez", SetSize: 1}
	for _, r := range st.Requests(v) {
		if !strings.Contains(r.Prompt, "NO-RES") || !strings.Contains(r.Prompt, "at most five words") {
			t.Errorf("%s prompt is not SURE's:\n%s", r.Axis, r.Prompt)
		}
	}
	if err := os.WriteFile(p, []byte("stages:\n  fanout:\n    prompt: sura\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dryRun(t, []string{"--config", p}, "stages.fanout.prompt: unknown style \"sura\"")
}
