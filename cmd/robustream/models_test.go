package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/provider"
)

// writeModels writes a models.yaml into a fresh temporary directory.
func writeModels(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// dryRun runs `robustream run --dry-run args…` in-process and checks the
// verdict: valid when wantErrs is empty, else exit 1 with every wantErrs
// substring in the error output.
func dryRun(t *testing.T, args []string, wantErrs ...string) {
	t.Helper()
	var out, errb strings.Builder
	code := run(append([]string{"run", "--dry-run"}, args...), &out, &errb)
	if len(wantErrs) == 0 {
		if code != 0 || !strings.Contains(out.String(), "configuration is valid") {
			t.Errorf("%v: exit %d, want a valid configuration\nstdout: %s\nstderr: %s", args, code, out.String(), errb.String())
		}
		return
	}
	if code != 1 {
		t.Errorf("%v: exit %d, want 1\nstdout: %s\nstderr: %s", args, code, out.String(), errb.String())
	}
	if strings.Contains(out.String(), "valid") {
		t.Errorf("%v: dry-run says valid:\n%s", args, out.String())
	}
	for _, want := range wantErrs {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("%v: error output lacks %q:\n%s", args, want, errb.String())
		}
	}
}

// TestDryRunModels checks that --dry-run reads and validates the models file
// itself rather than only checking that it exists.
func TestDryRunModels(t *testing.T) {
	f := func(args []string, wantErrs ...string) {
		t.Helper()
		dryRun(t, args, wantErrs...)
	}
	models := func(content string) []string { return []string{"--models", writeModels(t, content)} }

	// Today's valid files stay valid.
	f(models("models:\n  - {id: builtin:lexical, kind: builtin}\n"))
	f(models("models:\n  - id: builtin:lexical\n    kind: builtin\n  - id: builtin:lexical-strict\n    kind: builtin\n"))

	f(models("models:\n  - {id: builtin:lexical, kind: llama}\n"),
		`models[0].kind: unknown kind "llama"; known kinds: builtin, openai, rag-endpoint (line 2)`)
	f(models("models:\n  - {id: builtin:lexical}\n"),
		"models[0].kind: missing; known kinds: builtin, openai, rag-endpoint")
	f(models("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: builtin:lexical-strict, kind: builtin, temprature: 0.2}\n"),
		`models[1]: unknown key "temprature" (line 3)`)
	f(models("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: builtin:lexical-strict, kind: builtin}\n  - {id: builtin:lexical, kind: builtin}\n"),
		`models[2].id: duplicate id "builtin:lexical", also models[0].id (line 4)`)
	f(models("models:\n  - {id: builtin:lexical, kind: builtin, base_url: http://localhost:8000}\n"),
		"models[0]: key base_url does not apply to kind builtin, whose keys are id, kind (line 2)")
	f(models("models:\n  - {kind: builtin}\n"), "models[0].id: missing (line 2)")
	f(models("models:\n  - {id: builtin:nope, kind: builtin}\n"), `models[0].id: no built-in model "builtin:nope"`)
	f(models("models: []\n"), "no models listed")
	f(models(""), "no models listed")
	f(models("models:\n  - builtin:lexical\n"), "models[0]: want a mapping")
	f(models("modelz:\n  - {id: builtin:lexical, kind: builtin}\n"), "line 1: field modelz not found")
	// The remote kinds are built, without a call: the servers need not be
	// up for --dry-run (TestModelsRemoteKinds checks their errors).
	f(models("models:\n  - {id: gpt, kind: openai, base_url: http://localhost:8000/v1, model: m, temperature: 0}\n"))
	f(models("models:\n  - {id: rag, kind: rag-endpoint, url: http://localhost:9000/ask, question_field: q}\n"))
	f(models("models:\n  - {id: rag, kind: rag-endpoint, url: http://x, temperature: 0}\n"),
		"models[0]: key temperature does not apply to kind rag-endpoint")
	f(models("models:\n  - id: gpt\n    kind: openai\n    timeout: soon\n"),
		"models[0]: line 4: cannot unmarshal !!str `soon` into time.Duration")

	// Every error at once, each with its path.
	f(models("models:\n  - {id: builtin:lexical, kind: builtin, base_url: x}\n  - {id: builtin:lexical, kind: llama, temprature: 1}\n  - {kind: builtin}\n"),
		"5 configuration error(s)",
		"models[0]: key base_url does not apply to kind builtin",
		`models[1].kind: unknown kind "llama"`,
		`models[1]: unknown key "temprature"`,
		`models[1].id: duplicate id "builtin:lexical", also models[0].id`,
		"models[2].id: missing")

	// The models key of a configuration file is validated the same way, and
	// names the file.
	bad := writeModels(t, "models:\n  - {id: builtin:lexical, kind: builtin, temprature: 0}\n")
	conf := filepath.Join(t.TempDir(), "robustream.yaml")
	if err := os.WriteFile(conf, []byte("models: "+bad+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f([]string{"--config", conf}, "models "+bad+`: models[0]: unknown key "temprature"`)
	f([]string{"--models", filepath.Join(t.TempDir(), "absent.yaml")}, "models: open ", "no such file")
}

// TestLoadModels checks the engine's path: the same strict reading, one
// error listing every problem, and the built-in readers without a file.
func TestLoadModels(t *testing.T) {
	set, err := loadModels("")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := set.ids(), []string{"builtin:lexical", "builtin:lexical-strict"}; !reflect.DeepEqual(got, want) {
		t.Errorf("no file: models %v, want %v", got, want)
	}

	set, err = loadModels(writeModels(t, "models:\n  - {id: builtin:lexical-strict, kind: builtin}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := set.ids(), []string{"builtin:lexical-strict"}; !reflect.DeepEqual(got, want) {
		t.Errorf("one entry: models %v, want %v", got, want)
	}

	_, err = loadModels(writeModels(t, "models:\n  - {id: builtin:lexical, kind: builtin, temprature: 0}\n  - {id: builtin:lexical, kind: builtin}\n"))
	if err == nil {
		t.Fatal("unknown key and duplicate id accepted")
	}
	for _, want := range []string{`models[0]: unknown key "temprature"`, `models[1].id: duplicate id "builtin:lexical"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestModelsRemoteKinds checks the openai and rag-endpoint entries: every
// error of an entry at once, each under its path, no secret in any output,
// and the limits and decoding parameters the engine passes on.
func TestModelsRemoteKinds(t *testing.T) {
	const secret = "sk-models-test-secret"
	t.Setenv("ROBUSTREAM_TEST_OPENAI_KEY", secret)
	t.Setenv("ROBUSTREAM_TEST_RAG_TOKEN", secret)
	f := func(content string, wantErrs ...string) {
		t.Helper()
		dryRun(t, []string{"--models", writeModels(t, content)}, wantErrs...)
	}

	f(`models:
  - id: vllm-qwen
    kind: openai
    base_url: http://gpu-box:8000/v1
    model: Qwen/Qwen2.5-7B-Instruct
    api_key_env: ROBUSTREAM_TEST_OPENAI_KEY
    endpoint: completions
    max_in_flight: auto
    requests_per_second: 5
    tokens_per_second: 20000
    timeout: 30s
    temperature: 0.2
    max_tokens: 32
    batch_size: 16
  - id: support-bot
    kind: rag-endpoint
    url: https://rag.internal/api/ask
    method: POST
    headers: {Authorization: "Bearer ${ROBUSTREAM_TEST_RAG_TOKEN}", X-Team: eval}
    question_field: input.query
    answer_field: data.answer
    contexts_field: data.sources
    timeout: 2m
    max_in_flight: 8
  - {id: builtin:lexical, kind: builtin}
`)

	// Every problem of an entry is listed, each under its own path.
	f(`models:
  - id: gpt
    kind: openai
    base_url: localhost:8000
    endpoint: responses
    api_key_env: ROBUSTREAM_TEST_NO_SUCH_KEY
    temperature: -1
    batch_size: 4
    timeout: -5s
  - {id: rag, kind: rag-endpoint, method: PUT, headers: {Authorization: "Bearer ${ROBUSTREAM_TEST_NO_TOKEN}"}, answer_field: "data..answer"}
  - {id: slow, kind: rag-endpoint, url: http://rag/ask, max_in_flight: 0}
  - {id: fast, kind: openai, base_url: http://h/v1, model: m, max_in_flight: lots, requests_per_second: -1}
  - {id: key, kind: openai, base_url: "http://h/v1?api_key=abc", model: m, headers: {}}
`,
		"15 configuration error(s)",
		`models[0].base_url: "localhost:8000" is not an http or https URL`,
		"models[0].model: missing",
		`models[0].endpoint: "responses" is not chat or completions`,
		"models[0].api_key_env: environment variable ROBUSTREAM_TEST_NO_SUCH_KEY is not set",
		"models[0].temperature: -1 is not a temperature",
		"models[0].batch_size: batching needs endpoint: completions",
		"models[0].timeout: -5s is negative",
		"models[1].url: missing",
		`models[1].method: "PUT" is not POST or GET`,
		"models[1].headers.Authorization: environment variable ROBUSTREAM_TEST_NO_TOKEN is not set",
		`models[1].answer_field: "data..answer" has an empty segment`,
		`models[2]: line 11: max_in_flight: want a number of calls (1 or more) or auto, not "0"`,
		`models[3]: line 12: max_in_flight: want a number of calls (1 or more) or auto, not "lots"`,
		"models[4]: key headers does not apply to kind openai",
		`models[4].base_url: "http://h/v1" must not have a query`)

	// The engine's path: the limits and decoding strings the dispatcher
	// and the fan-out stage read.
	set, err := loadModels(writeModels(t, `models:
  - {id: auto, kind: openai, base_url: http://h/v1, model: m, max_in_flight: auto, requests_per_second: 2.5}
  - {id: eight, kind: openai, base_url: http://h/v1, model: m, max_in_flight: 8, temperature: 0.7, max_tokens: 16, api_key_env: ROBUSTREAM_TEST_OPENAI_KEY}
  - {id: rag, kind: rag-endpoint, url: http://rag/ask, max_in_flight: 3, headers: {X-Key: "${ROBUSTREAM_TEST_RAG_TOKEN}"}}
  - {id: defaults, kind: openai, base_url: http://h/v1, model: m}
  - {id: builtin:lexical, kind: builtin}
`))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]provider.Limits{
		"auto":            {MaxInFlight: 0, RequestsPerSecond: 2.5},
		"eight":           {MaxInFlight: 8},
		"rag":             {MaxInFlight: 3},
		"defaults":        {},
		"builtin:lexical": {},
		"absent":          {},
	} {
		if got := set.limits(id); got != want {
			t.Errorf("limits(%s) = %+v, want %+v", id, got, want)
		}
	}
	wantDec := map[string]string{
		"auto":     "max_tokens=64,temperature=0",
		"eight":    "max_tokens=16,temperature=0.7",
		"defaults": "max_tokens=64,temperature=0",
	}
	if got := set.decodings(); !reflect.DeepEqual(got, wantDec) {
		t.Errorf("decodings() = %v, want %v", got, wantDec)
	}
	if s := fmt.Sprintf("%v %+v", set.byID, set.byID); strings.Contains(s, secret) {
		t.Errorf("printed models hold the secret: %s", s)
	}
}

// TestModelsServices: models.yaml's top-level generator: and embedder: take
// the keys of an openai entry and become the services the stages use;
// their errors are reported under their own names.
func TestModelsServices(t *testing.T) {
	set, errs := readModels(writeModels(t, "models:\n  - {id: builtin:lexical, kind: builtin}\n"+
		"generator: {base_url: http://gpu:8000/v1, model: qwen}\nembedder: {base_url: http://gpu:8001/v1, model: e5}\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if set.generator == nil || set.embedder == nil {
		t.Fatalf("generator %v, embedder %v", set.generator, set.embedder)
	}
	if g, ok := set.generator.(*provider.OpenAI); !ok || g.ID() != "generator" {
		t.Errorf("generator: %v", set.generator)
	}
	_, errs = readModels(writeModels(t, "models:\n  - {id: builtin:lexical, kind: builtin}\nembedder: {model: e5, colour: blue}\n"))
	msg := fmt.Sprint(errs)
	if !strings.Contains(msg, "embedder.base_url: missing") || !strings.Contains(msg, "colour") {
		t.Errorf("errors %s: want the missing base_url under embedder and the unknown key", msg)
	}
}
