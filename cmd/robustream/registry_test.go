package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/streams"
)

// echoModel answers with its query: a model kind defined in this file only.
type echoModel struct{ id string }

func (m echoModel) ID() string { return m.id }
func (m echoModel) Answer(_ context.Context, q provider.Query) (provider.Answer, error) {
	return provider.Answer{Text: q.Question}, nil
}

type echoEntry struct {
	ID     string `yaml:"id"`
	Kind   string `yaml:"kind"`
	Prefix string `yaml:"prefix"`
}

var echoKind = modelKind{name: "echo", entry: func() any { return new(echoEntry) },
	build: func(_ string, e any, _ map[string]provider.Model) (provider.Model, error) {
		return echoModel{id: e.(*echoEntry).Prefix + e.(*echoEntry).ID}, nil
	}}

// emptySource emits nothing: a source kind defined in this file only.
type emptySource struct{}

func (emptySource) Name() string { return "empty" }
func (emptySource) Run(context.Context, func(context.Context, ...streams.Record) error) error {
	return nil
}

var emptyKind = sourceKind{name: "empty", usage: "empty", check: func(string) error { return nil },
	build: func(*engine, string, bool) (streams.Source, error) { return emptySource{}, nil }}

// TestRegistriesTakeNewKinds: a model kind and a source kind are added with
// their definition and one registry line each; models.yaml and --source
// then accept them, keys checked per kind.
func TestRegistriesTakeNewKinds(t *testing.T) {
	defer func(m []modelKind, s []sourceKind) { modelKinds, sourceKinds = m, s }(modelKinds, sourceKinds)
	modelKinds = append(modelKinds, echoKind)
	sourceKinds = append(sourceKinds, emptyKind)

	path := filepath.Join(t.TempDir(), "models.yaml")
	yaml := "models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: e1, kind: echo, prefix: 'x-'}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := loadModels(path)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := set.byID["e1"]
	if !ok || m.ID() != "x-e1" {
		t.Fatalf("echo model: %v %v", m, ok)
	}
	if a, err := m.Answer(context.Background(), provider.Query{Question: "why?"}); err != nil || a.Text != "why?" {
		t.Fatalf("echo answer: %+v %v", a, err)
	}
	// Its keys are its own: prefix does not apply to builtin.
	if err := os.WriteFile(path, []byte("models:\n  - {id: builtin:lexical, kind: builtin, prefix: 'x'}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadModels(path); err == nil || !strings.Contains(err.Error(), "prefix does not apply to kind builtin") {
		t.Fatalf("prefix on a builtin entry: %v", err)
	}

	kind, _, err := parseSourceSpec("empty")
	if err != nil || kind.name != "empty" {
		t.Fatalf("--source empty: %v", err)
	}
	if kind, arg, err := parseSourceSpec("goldens:/tmp/g.jsonl"); err != nil || kind.name != "goldens" || arg != "/tmp/g.jsonl" {
		t.Fatalf("goldens:PATH: %v", err)
	}
	if _, _, err := parseSourceSpec("goldens:"); err == nil || !strings.Contains(err.Error(), "goldens:PATH") {
		t.Fatalf("goldens without a path: %v", err)
	}
	if _, _, err := parseSourceSpec("rss:file:///etc/passwd"); err == nil || !strings.Contains(err.Error(), "http") {
		t.Fatalf("a feed that is not http(s): %v", err)
	}
	if _, _, err := parseSourceSpec("ftp:x"); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("an unknown kind's error lists the registered ones: %v", err)
	}
}
