package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/streams"
)

// downModel is an inference server that is down: every call fails for good.
type downModel struct{ id string }

func (m downModel) ID() string { return m.id }
func (m downModel) Answer(context.Context, provider.Query) (provider.Answer, error) {
	return provider.Answer{}, streams.Permanent(errors.New("503 Service Unavailable: the inference server is down"))
}

var downKind = modelKind{name: "down", entry: func() any { return new(builtinModel) },
	build: func(_ string, e any, _ map[string]provider.Model) (provider.Model, error) {
		return downModel{id: e.(*builtinModel).ID}, nil
	}}

// TestFailingModelClosesPairings: with a model whose every request fails,
// every pairing set still closes (the infer stage emits an error result for
// each request it gives up on), the failed cells are marked, and eval --once
// reports zero open pairings and the failures, then fails its gate naming
// the model (a model whose every request failed always fails the run).
func TestFailingModelClosesPairings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	defer func(k []modelKind) { modelKinds = k }(modelKinds)
	modelKinds = append(modelKinds, downKind)
	models := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(models, []byte("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: gpu-down, kind: down}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "dir:" + writeCorpus(t), "--data-dir", data, "--models", models,
		"--log-level", "error"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "model gpu-down: every request failed") ||
		!strings.Contains(errb.String(), "the inference server is down") || strings.Contains(errb.String(), "model builtin:lexical:") {
		t.Fatalf("eval --once exited %d, and stderr does not name gpu-down alone\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	summary := out.String()
	if !strings.Contains(summary, "open pairings 0") {
		t.Errorf("pairings left open:\n%s", summary)
	}
	m := regexp.MustCompile(`\((\d+) failed\)`).FindStringSubmatch(summary)
	if m == nil || m[1] == "0" {
		t.Fatalf("the summary does not count the failures:\n%s", summary)
	}
	// Every request of the broken model ended as a marked error result,
	// and only its requests.
	failed := sqlCount(t, "SELECT countIf(error != '') FROM robustream.eval_results", "--data-dir", data)
	down := sqlCount(t, "SELECT countIf(error != '' AND model_id = 'gpu-down') FROM robustream.eval_results", "--data-dir", data)
	requests := sqlCount(t, "SELECT count() FROM robustream.eval_results WHERE model_id = 'gpu-down'", "--data-dir", data)
	if failed == 0 || down != failed || requests != failed || m[1] != strings.TrimSpace(sqlOut(t, data, "SELECT countIf(error != '') FROM robustream.eval_results")) {
		t.Errorf("error results: %d failed, %d of the broken model, %d of its results; summary says %s", failed, down, requests, m[1])
	}
	// Its cells are left out of every metric; the working model is scored.
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes WHERE model_id = 'gpu-down'", "--data-dir", data); n != 0 {
		t.Errorf("%d outcomes for a model that never answered", n)
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes WHERE model_id = 'builtin:lexical'", "--data-dir", data); n == 0 {
		t.Error("no outcomes for the working model")
	}
}

func sqlOut(t *testing.T, data, q string) string {
	t.Helper()
	return robustream(t, "sql", "--data-dir", data, q)
}
