package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	// Kinds this build cannot run are still rejected, after their own keys
	// and types are checked.
	f(models("models:\n  - {id: gpt, kind: openai, base_url: http://localhost:8000/v1, model: m, temperature: 0}\n"),
		`models[0].kind: "openai" endpoints are not supported by this build yet`)
	f(models("models:\n  - {id: rag, kind: rag-endpoint, url: http://localhost:9000/ask, question_field: q}\n"),
		`models[0].kind: "rag-endpoint" endpoints are not supported by this build yet`)
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
