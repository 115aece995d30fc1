package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/schemas"
)

// TestModelsReload: while the engine runs, a model added to models.yaml
// gets requests from the next variant on and is served by infer; a file
// with errors changes nothing.
func TestModelsReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "models.yaml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("models:\n  - {id: builtin:lexical, kind: builtin}\n")
	set, err := loadModels(path)
	if err != nil {
		t.Fatal(err)
	}
	fo, err := fanout.NewStage(fanoutConfigOf(fanout.Config{}, set))
	if err != nil {
		t.Fatal(err)
	}
	inf, err := reader.NewStage(reader.Config{Models: set.byID})
	if err != nil {
		t.Fatal(err)
	}
	e := &engine{cfg: &Config{}, log: slog.New(slog.DiscardHandler), models: set, fanout: fo, infer: inf}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.watchModels(ctx, path, 10*time.Millisecond)

	v := &schemas.Variant{QuestionRef: schemas.QuestionRef{QuestionID: "q"}, VariantID: "v", Axis: schemas.AxisOriginal, Kind: "original",
		Query: "Who?", Contexts: []string{"Maria Lopez."}, ExpectedAnswer: "Maria Lopez", AnswerAvailable: true, SetSize: 1}
	models := func() map[string]bool {
		out := map[string]bool{}
		for _, r := range fo.Requests(v) {
			out[r.ModelID] = true
		}
		return out
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out: %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	time.Sleep(20 * time.Millisecond) // the watcher has its first stamp
	write("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: builtin:lexical-strict, kind: builtin}\n")
	waitFor("the added model gets requests", func() bool { return models()["builtin:lexical-strict"] })
	if _, ok := inf.Windows()["builtin:lexical-strict"]; !ok {
		t.Error("infer does not serve the added model")
	}
	write("models:\n  - {id: nope, kind: nonsense}\n")
	time.Sleep(100 * time.Millisecond)
	if m := models(); !m["builtin:lexical"] || !m["builtin:lexical-strict"] || len(m) != 2 {
		t.Errorf("a models.yaml with errors changed the models to %v", m)
	}
}
