package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHelpGroups: `run -h` shows the common flags first, the other
// configuration flags after them and the stage flags only behind
// `-h stages`; together the two list every flag once.
func TestHelpGroups(t *testing.T) {
	out, err := runBinary(nil, "run", "-h")
	if err != nil {
		t.Fatalf("run -h: %v\n%s", err, out)
	}
	common, rest, ok := strings.Cut(out, "Other configuration flags")
	if !ok || !strings.HasPrefix(out, "Usage: robustream run") {
		t.Fatalf("run -h is not grouped:\n%s", out)
	}
	for _, f := range []string{"--config", "--dry-run", "--data-dir", "--source", "--models", "--http", "--kafka-brokers", "--skip-models-check"} {
		if !strings.Contains(common, "  "+f+"\n") && !strings.Contains(common, "  "+f+" ") {
			t.Errorf("run -h: %s is not among the common flags", f)
		}
	}
	if strings.Contains(out, "--stages-infer-") {
		t.Errorf("run -h lists stage flags; they belong behind -h stages")
	}
	if !strings.Contains(rest, "robustream run -h stages") || !strings.Contains(rest, "--sql-timeout") {
		t.Errorf("run -h does not point at -h stages or lacks the other flags:\n%s", rest)
	}
	stages, err := runBinary(nil, "run", "-h", "stages")
	if err != nil {
		t.Fatalf("run -h stages: %v", err)
	}
	for _, f := range []string{"--stages-infer-judge-method", "--stages-perturb-wordnet-dir", "--stages-chunk-profile"} {
		if !strings.Contains(stages, "  "+f+"\n") {
			t.Errorf("run -h stages lacks %s", f)
		}
	}
	// Every flag shows in one of the two, once.
	seen := map[string]int{}
	for _, text := range []string{out, stages} {
		for _, line := range strings.Split(text, "\n") {
			if f, ok := strings.CutPrefix(line, "  --"); ok {
				seen[strings.Fields(f)[0]]++
			}
		}
	}
	for f, n := range seen {
		if n != 1 {
			t.Errorf("--%s shows %d times", f, n)
		}
	}
	if len(seen) < 100 {
		t.Errorf("only %d flags in run -h and run -h stages together", len(seen))
	}
	if n := strings.Count(out, "\n"); n > 150 {
		t.Errorf("run -h is %d lines", n)
	}
}

// TestFlagsSuggest: an unknown flag is refused with the nearest known name.
func TestFlagsSuggest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--dataa-dir", "x"}, "did you mean --data-dir?"},
		{[]string{"run", "--kafka-broker", "x"}, "did you mean --kafka-brokers?"},
		{[]string{"eval", "--stages-infer-judge-mehtod", "x"}, "did you mean --stages-infer-judge-method?"},
		{[]string{"report", "--data-dri", "x"}, "did you mean --data-dir?"},
	} {
		out, err := runBinary(nil, c.args...)
		if err == nil || !strings.Contains(out, "unknown flag --"+strings.TrimLeft(c.args[1], "-")) || !strings.Contains(out, c.want) {
			t.Errorf("%v: %v\n%s", c.args, err, out)
		}
	}
	out, err := runBinary(nil, "run", "--zzzzzzzz")
	if err == nil || strings.Contains(out, "did you mean") {
		t.Errorf("a flag near nothing got a suggestion: %s", out)
	}
	if got := nearestNames("sorce", []string{"source", "sql-timeout", "stages"}); !slices.Equal(got, []string{"source"}) {
		t.Errorf("nearestNames(sorce) = %v", got)
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance(kitten, sitting) = %d, want 3", d)
	}
}

// TestDryRunOnePass: --dry-run lists every error at once: a missing source
// folder, a WordNet directory without the dictionary, an off-loopback
// address without a token, a stage's bad option and a broken model, each
// with its key, in one run.
func TestDryRunOnePass(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(models, []byte("models:\n  - {id: gpt, kind: openai, base_url: http://x:8000/v1, model: m, api_key_env: NOT_SET_ANYWHERE_123}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runBinary([]string{"NOT_SET_ANYWHERE_123="}, "run", "--dry-run", "--data-dir", dir, "--source", "dir:"+filepath.Join(dir, "missing"),
		"--http", "0.0.0.0:8080", "--stages-perturb-wordnet-dir", dir, "--stages-infer-judge-method", "bogus", "--models", models)
	if err == nil {
		t.Fatalf("--dry-run passed:\n%s", out)
	}
	for _, want := range []string{
		"source: dir:" + filepath.Join(dir, "missing") + ": no such file or directory",
		"stages.perturb.wordnet_dir: " + dir + " holds no WordNet dictionary",
		"http: 0.0.0.0:8080 is not a loopback address",
		"stages.infer.judge_method",
		"api_key_env: environment variable NOT_SET_ANYWHERE_123 is not set",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--dry-run does not say %q:\n%s", want, out)
		}
	}
	// A file where a folder is wanted, and the Kafka secrets.
	out, _ = runBinary([]string{"KAFKA_PW_UNSET_123="}, "run", "--dry-run", "--data-dir", dir, "--source", "dir:"+models,
		"--kafka-brokers", "k:9092", "--kafka-sasl-mechanism", "plain", "--kafka-sasl-user", "u", "--kafka-sasl-password-env", "KAFKA_PW_UNSET_123",
		"--kafka-tls", "true", "--kafka-tls-ca-file", models)
	for _, want := range []string{"is not a directory", "kafka.sasl_password_env: environment variable KAFKA_PW_UNSET_123 is not set", "kafka.tls_ca_file: " + models + " holds no PEM certificate"} {
		if !strings.Contains(out, want) {
			t.Errorf("--dry-run does not say %q:\n%s", want, out)
		}
	}
	// And a valid configuration passes.
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o700); err != nil {
		t.Fatal(err)
	}
	out, err = runBinary(nil, "run", "--dry-run", "--data-dir", dir, "--source", "dir:"+filepath.Join(dir, "docs"))
	if err != nil || !strings.Contains(out, "configuration is valid") {
		t.Errorf("a valid configuration: %v\n%s", err, out)
	}
}
