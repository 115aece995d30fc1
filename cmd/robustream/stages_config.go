package main

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"gopkg.in/yaml.v3"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/streams"
)

// StagesConfig selects the stages a process runs (stages.run, or the list
// form `stages: [chunk, triplets]`) and configures each one: the runner's
// options (batch size, concurrency, retry) for every stage, and the
// stage's own options, typed by its package's Config.
type StagesConfig struct {
	Run       []string             `yaml:"run" flag:"stages" env:"ROBUSTREAM_STAGES" help:"stages to run (default: all); e.g. chunk,triplets"`
	Chunk     ChunkStageConfig     `yaml:"chunk"`
	Triplets  TripletsStageConfig  `yaml:"triplets"`
	Questions QuestionsStageConfig `yaml:"questions"`
	Perturb   PerturbStageConfig   `yaml:"perturb"`
	Retrieve  RetrieveStageConfig  `yaml:"retrieve"`
	Fanout    FanoutStageConfig    `yaml:"fanout"`
	Infer     InferStageConfig     `yaml:"infer"`
	Pair      streams.StageOptions `yaml:"pair"`
	// Sinks configures every ClickHouse sink.
	Sinks streams.StageOptions `yaml:"sinks"`
}

// ChunkStageConfig is stages.chunk.
type ChunkStageConfig struct {
	streams.StageOptions `yaml:",inline"`
	chunk.Config         `yaml:",inline"`
}

// TripletsStageConfig is stages.triplets.
type TripletsStageConfig struct {
	streams.StageOptions `yaml:",inline"`
	triplet.Config       `yaml:",inline"`
}

// QuestionsStageConfig is stages.questions.
type QuestionsStageConfig struct {
	streams.StageOptions `yaml:",inline"`
	question.Config      `yaml:",inline"`
}

// PerturbStageConfig is stages.perturb.
type PerturbStageConfig struct {
	streams.StageOptions `yaml:",inline"`
	perturb.Config       `yaml:",inline"`
}

// FanoutStageConfig is stages.fanout.
type FanoutStageConfig struct {
	streams.StageOptions `yaml:",inline"`
	fanout.Config        `yaml:",inline"`
}

// InferStageConfig is stages.infer.
type InferStageConfig struct {
	streams.StageOptions `yaml:",inline"`
	reader.Config        `yaml:",inline"`
	// BudgetAmount is the run's budget for the priced models
	// (reader.Budget; cost.go).
	BudgetAmount float64 `yaml:"budget" flag:"budget" help:"most the answers of priced models (models.yaml price_per_1k_input/output) may cost per infer process; beyond, their requests end as 'budget exhausted' error results (0: no budget)"`
}

// options returns the runner options of the stage named name.
func (c *StagesConfig) options(name string) (streams.StageOptions, string) {
	switch {
	case name == chunk.StageName:
		return c.Chunk.StageOptions, "stages.chunk"
	case name == perturb.StageName:
		return c.Perturb.StageOptions, "stages.perturb"
	case name == "retrieve":
		return c.Retrieve.StageOptions, "stages.retrieve"
	case name == reader.StageName:
		return c.Infer.StageOptions, "stages.infer"
	case name == fanout.StageName:
		return c.Fanout.StageOptions, "stages.fanout"
	case strings.HasPrefix(name, "sink."):
		return c.Sinks, "stages.sinks"
	}
	v := reflect.ValueOf(c).Elem()
	for i := 0; i < v.NumField(); i++ {
		if yamlName(v.Type().Field(i)) == name {
			if o, ok := v.Field(i).Interface().(streams.StageOptions); ok {
				return o, "stages." + name
			}
		}
	}
	return streams.StageOptions{}, "stages." + name
}

// validate checks the options of every stage, with their paths.
func (c *StagesConfig) validate() []error {
	var errs []error
	v := reflect.ValueOf(c).Elem()
	for i := 0; i < v.NumField(); i++ {
		name := yamlName(v.Type().Field(i))
		if name == "run" {
			continue
		}
		o, _ := c.options(name)
		errs = append(errs, o.Validate("stages."+name)...)
	}
	// The stages' own options are checked by their constructors, at start-up
	// and by --dry-run (dryBuild).
	return errs
}

// UnmarshalYAML accepts the list form (`stages: [chunk, triplets]`, the
// stages to run) and the mapping form, whose keys are checked strictly here
// because a Node's Decode does not inherit the decoder's KnownFields.
func (c *StagesConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		return n.Decode(&c.Run)
	}
	if err := strictKeys(n, reflect.TypeOf(*c), "stages"); err != nil {
		return err
	}
	type plain StagesConfig
	return n.Decode((*plain)(c))
}

// strictKeys reports every mapping key under n that t (a struct, its inline
// structs included) has no field for.
func strictKeys(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.MappingNode && t.Kind() == reflect.Map {
		// A map of sections (stages.chunk.sources.<name>): each value is
		// checked as its section.
		var errs []error
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := strictKeys(n.Content[i+1], t.Elem(), path+"."+n.Content[i].Value); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return nil
	}
	fields := map[string]reflect.Type{}
	var collect func(t reflect.Type)
	collect = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if isInline(f) {
				collect(f.Type)
			} else if name := yamlName(f); name != "" && name != "-" {
				fields[name] = f.Type
			}
		}
	}
	collect(t)
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		ft, ok := fields[key]
		if !ok {
			known := make([]string, 0, len(fields))
			for k := range fields {
				known = append(known, k)
			}
			slices.Sort(known)
			errs = append(errs, fmt.Errorf("line %d: %s.%s: unknown key (known: %s)", n.Content[i].Line, path, key, strings.Join(known, ", ")))
			continue
		}
		if err := strictKeys(n.Content[i+1], ft, path+"."+key); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func yamlName(f reflect.StructField) string { return strings.Split(f.Tag.Get("yaml"), ",")[0] }

func isInline(f reflect.StructField) bool {
	return slices.Contains(strings.Split(f.Tag.Get("yaml"), ",")[1:], "inline")
}

// dryBuild builds, without starting anything, every selected processor
// stage, so that --dry-run reports what their constructors refuse, each
// error with its stage's path. Sinks need a ClickHouse and are left out.
func dryBuild(cfg *Config) []error {
	// Validate reported the models' errors; the stages are built with the
	// models that are valid (the built-in readers when none is), so that
	// one pass lists the stages' errors too.
	models, _ := readModels(cfg.Models)
	if models.byID == nil {
		models = modelSet{byID: provider.Builtins()}
	}
	e := &engine{cfg: cfg, log: slog.New(slog.DiscardHandler), reg: prometheus.NewRegistry(), models: models}
	var errs []error
	for _, spec := range selectStages(cfg.Stages.Run) {
		if strings.HasPrefix(spec.name, "sink.") {
			continue
		}
		if _, err := spec.build(e); err != nil {
			errs = append(errs, stageError(cfg, spec.name, err))
		}
	}
	return errs
}

// optionKey matches a constructor error that starts with the option's key.
var optionKey = regexp.MustCompile(`^[a-z_]+[: ]`)

// stageError puts a constructor's error under its stage's path:
// "infer: judge_method: unknown" becomes "stages.infer.judge_method: unknown".
func stageError(cfg *Config, stage string, err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		err = inner // processorStage's "stage NAME: " wrapper
	}
	_, path := cfg.Stages.options(stage)
	msg := err.Error()
	for _, prefix := range []string{stage + ": ", strings.TrimPrefix(path, "stages.") + ": "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	if optionKey.MatchString(msg) {
		return fmt.Errorf("%s.%s", path, msg)
	}
	return fmt.Errorf("%s: %s", path, msg)
}
