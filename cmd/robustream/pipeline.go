package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

// stageSpec is one entry of the stage registry: its inputs and how to build
// it. The registry is explicit (no init side effects): this table is the
// pipeline.
type stageSpec struct {
	name   string
	inputs []string
	build  func(e *engine) (streams.Stage, error)
}

func processorStage(name, input string, build func(e *engine) (streams.Processor, error)) stageSpec {
	return stageSpec{name: name, inputs: []string{input}, build: func(e *engine) (streams.Stage, error) {
		p, err := build(e)
		if err != nil {
			return streams.Stage{}, fmt.Errorf("stage %s: %w", name, err)
		}
		return streams.Stage{Name: name, Inputs: []string{input}, Processor: p}, nil
	}}
}

func sinkStage(topic string) stageSpec {
	table := clickhouse.TableForTopic(topic)
	name := "sink." + table
	return stageSpec{name: name, inputs: []string{topic}, build: func(e *engine) (streams.Stage, error) {
		s, err := clickhouse.NewSink(e.ch, table, e.log)
		if err != nil {
			return streams.Stage{}, fmt.Errorf("stage %s: %w", name, err)
		}
		return streams.Stage{Name: name, Inputs: []string{topic}, Sink: s, BatchSize: 5000, Linger: 50e6}, nil
	}}
}

// registry lists every stage in pipeline order.
func registry() []stageSpec {
	specs := []stageSpec{
		processorStage(chunk.StageName, streams.TopicDocuments, func(*engine) (streams.Processor, error) {
			return chunk.NewStage(chunk.Config{})
		}),
		processorStage(triplet.StageName, streams.TopicChunks, func(*engine) (streams.Processor, error) {
			return triplet.NewStage(triplet.Config{})
		}),
		processorStage(question.StageName, streams.TopicTriplets, func(*engine) (streams.Processor, error) {
			return question.NewStage(question.Config{})
		}),
		processorStage(perturb.StageName, streams.TopicQuestions, func(e *engine) (streams.Processor, error) {
			st := perturb.NewStage(perturb.Config{Logger: e.log})
			e.exposeSkipped(st)
			return st, nil
		}),
		processorStage(fanout.StageName, streams.TopicVariants, func(e *engine) (streams.Processor, error) {
			return fanout.NewStage(fanout.Config{Models: e.models.ids()})
		}),
		processorStage(reader.StageName, streams.TopicEvalRequests, func(e *engine) (streams.Processor, error) {
			return reader.NewStage(reader.Config{Models: e.models.byID})
		}),
		{name: pair.StageName, inputs: []string{streams.TopicEvalResults}, build: func(e *engine) (streams.Stage, error) {
			st := streams.NewState(e.kafka, pair.StageName)
			e.pairState = st
			return streams.Stage{Name: pair.StageName, Inputs: []string{streams.TopicEvalResults}, Processor: pair.NewStage(st), State: st}, nil
		}},
	}
	for _, t := range clickhouse.Topics() {
		specs = append(specs, sinkStage(t))
	}
	return specs
}

func stageNames() []string {
	var out []string
	for _, s := range registry() {
		out = append(out, s.name)
	}
	return out
}

func knownStage(name string) bool {
	for _, s := range registry() {
		if s.name == name || (name == "sinks" && strings.HasPrefix(s.name, "sink.")) {
			return true
		}
	}
	return name == "sinks" || name == "source"
}

// selectStages returns the specs named (all when names is empty); "sinks"
// selects every ClickHouse sink.
func selectStages(names []string) []stageSpec {
	all := registry()
	if len(names) == 0 {
		return all
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []stageSpec
	for _, s := range all {
		if want[s.name] || (want["sinks"] && strings.HasPrefix(s.name, "sink.")) {
			out = append(out, s)
		}
	}
	return out
}

// modelSet is the set of models under test.
type modelSet struct {
	byID map[string]reader.Model
}

func (m modelSet) ids() []string {
	ids := make([]string, 0, len(m.byID))
	for id := range m.byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// modelsFile is the models.yaml format.
type modelsFile struct {
	Models []struct {
		ID   string `yaml:"id"`
		Kind string `yaml:"kind"`
	} `yaml:"models"`
}

// loadModels reads models.yaml, or returns the built-in readers.
func loadModels(path string) (modelSet, error) {
	builtins := reader.Builtins()
	if path == "" {
		return modelSet{byID: builtins}, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return modelSet{}, fmt.Errorf("models: %w", err)
	}
	var f modelsFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		return modelSet{}, fmt.Errorf("models %s: %w", path, err)
	}
	set := modelSet{byID: map[string]reader.Model{}}
	var errs []string
	for i, m := range f.Models {
		switch m.Kind {
		case "builtin":
			bm, ok := builtins[m.ID]
			if !ok {
				errs = append(errs, fmt.Sprintf("models[%d].id: no built-in model %q (have %s)", i, m.ID, strings.Join(modelSet{byID: builtins}.ids(), ", ")))
				continue
			}
			set.byID[m.ID] = bm
		case "openai", "rag-endpoint":
			errs = append(errs, fmt.Sprintf("models[%d].kind: %q endpoints are not supported by this build yet (only builtin)", i, m.Kind))
		default:
			errs = append(errs, fmt.Sprintf("models[%d].kind: unknown kind %q", i, m.Kind))
		}
	}
	if len(errs) > 0 {
		return modelSet{}, fmt.Errorf("models %s:\n  %s", path, strings.Join(errs, "\n  "))
	}
	if len(set.byID) == 0 {
		return modelSet{}, fmt.Errorf("models %s: no models", path)
	}
	return set, nil
}
