package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
)

// modelSet is the set of models under test.
type modelSet struct {
	byID map[string]provider.Model
	// revisions identify each model's entry as decoded (revisionOf); the
	// built-in readers, without one, are "builtin".
	revisions map[string]string
	// generator and embedder are the optional services of models.yaml's
	// top-level generator: and embedder: (nil when absent).
	generator provider.Generator
	embedder  provider.Embedder
	// prompts are the models' own prompts (an openai entry's prompt:).
	prompts map[string]fanout.Template
	// prices are the priced models' prices (cost.go).
	prices map[string]modelPrice
}

// limits returns the dispatch limits of model id: what its entry says for
// a remote model, the zero Limits (auto, unlimited) for a built-in reader
// or an unknown id.
func (m modelSet) limits(id string) provider.Limits {
	l, _ := provider.LimitsOf(m.byID[id])
	return l
}

// decodings maps the id of each model that has decoding parameters to
// their canonical string, for the fan-out stage's request ids; the others
// get the stage's default.
func (m modelSet) decodings() map[string]string {
	out := map[string]string{}
	for id, model := range m.byID {
		if d, ok := provider.DecodingOf(model); ok {
			out[id] = d
		}
	}
	return out
}

func (m modelSet) ids() []string {
	ids := make([]string, 0, len(m.byID))
	for id := range m.byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// modelsFile is the models.yaml format: a list of entries, each decoded by
// the struct of its kind (see modelKinds), so that each kind has its own key
// set.
type modelsFile struct {
	Models []yaml.Node `yaml:"models"`
	// Generator is the LLM the stages may use (LLM perturbations, the LLM
	// judge); Embedder serves embeddings (the embedding judge). Both take
	// the keys of an openai entry.
	Generator *openaiModel `yaml:"generator"`
	Embedder  *openaiModel `yaml:"embedder"`
}

// builtinModel is an entry of kind builtin: one of provider.Builtins().
type builtinModel struct {
	ID   string `yaml:"id"`
	Kind string `yaml:"kind"`
}

// openaiModel is an entry of kind openai: a model behind an
// OpenAI-compatible API (vLLM, SGLang, TGI, llama.cpp, Ollama, OpenAI). The
// keys map one to one onto provider.OpenAIOptions, whose godoc gives their
// defaults.
type openaiModel struct {
	ID                string        `yaml:"id"`
	Kind              string        `yaml:"kind"`
	BaseURL           string        `yaml:"base_url"`
	Model             string        `yaml:"model"`
	APIKeyEnv         string        `yaml:"api_key_env"`
	Endpoint          string        `yaml:"endpoint"`
	MaxInFlight       inFlight      `yaml:"max_in_flight"`
	MaxInFlightCap    int           `yaml:"max_in_flight_cap"`
	RequestsPerSecond float64       `yaml:"requests_per_second"`
	TokensPerSecond   float64       `yaml:"tokens_per_second"`
	Timeout           time.Duration `yaml:"timeout"`
	Temperature       float64       `yaml:"temperature"`
	MaxTokens         int           `yaml:"max_tokens"`
	BatchSize         int           `yaml:"batch_size"`
	// Prompt is the model's own prompt (fanout.Template); absent: the
	// built-in prompts.
	Prompt *fanout.Template `yaml:"prompt,omitempty" json:"prompt,omitempty"`
	// The prices per 1,000 tokens give the cost of a run and its budget
	// (cost.go). Not part of the revision: a price is not what is measured.
	PricePer1kInput  float64 `yaml:"price_per_1k_input" json:"-"`
	PricePer1kOutput float64 `yaml:"price_per_1k_output" json:"-"`
}

// ragEndpointModel is an entry of kind rag-endpoint: a whole RAG system
// behind an HTTP endpoint, asked the question alone. The keys map onto
// provider.RAGEndpointOptions.
type ragEndpointModel struct {
	ID            string            `yaml:"id"`
	Kind          string            `yaml:"kind"`
	URL           string            `yaml:"url"`
	Method        string            `yaml:"method"`
	Headers       map[string]string `yaml:"headers"`
	QuestionField string            `yaml:"question_field"`
	AnswerField   string            `yaml:"answer_field"`
	ContextsField string            `yaml:"contexts_field"`
	SourceField   string            `yaml:"context_source_field"`
	ScoreField    string            `yaml:"context_score_field"`
	Timeout       time.Duration     `yaml:"timeout"`
	MaxInFlight   inFlight          `yaml:"max_in_flight"`
}

// inFlight is a max_in_flight value: a number of calls at once, or auto
// (0, the default), which leaves the level to the dispatcher.
type inFlight int

// UnmarshalYAML accepts a positive integer or the word auto. Its error is a
// *yaml.TypeError, so that the decode goes on and the entry's other
// errors are reported too.
func (f *inFlight) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		if n.Value == "auto" {
			*f = 0
			return nil
		}
		if v, err := strconv.Atoi(n.Value); err == nil && v > 0 {
			*f = inFlight(v)
			return nil
		}
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: max_in_flight: want a number of calls (1 or more) or auto, not %q", n.Line, n.Value)}}
}

// modelKind is one kind of models.yaml entry.
type modelKind struct {
	name string
	// entry returns a pointer to a new entry struct; its yaml tags are the
	// keys the kind accepts.
	entry func() any
	// build turns a decoded entry into a model; errors are named by at, the
	// entry's path (models[i]).
	build func(at string, entry any, builtins map[string]provider.Model) (provider.Model, error)
}

// modelKinds is the model-kind registry: adding a kind is a file defining
// it and one line here.
var modelKinds = []modelKind{builtinKind, openaiKind, ragEndpointKind}

var builtinKind = modelKind{name: "builtin", entry: func() any { return new(builtinModel) },
	build: func(at string, e any, builtins map[string]provider.Model) (provider.Model, error) {
		id := e.(*builtinModel).ID
		m, ok := builtins[id]
		if !ok {
			return nil, fmt.Errorf("%s.id: no built-in model %q (have %s)", at, id, strings.Join(modelSet{byID: builtins}.ids(), ", "))
		}
		return m, nil
	}}

var openaiKind = modelKind{name: "openai", entry: func() any { return new(openaiModel) },
	build: func(at string, e any, _ map[string]provider.Model) (provider.Model, error) {
		m := e.(*openaiModel)
		if m.Prompt != nil {
			if err := m.Prompt.Check(); err != nil {
				return nil, keyErrors(at, err)
			}
		}
		c, err := provider.NewOpenAI(m.ID, provider.OpenAIOptions{
			BaseURL:   m.BaseURL,
			Model:     m.Model,
			APIKeyEnv: m.APIKeyEnv,
			Endpoint:  m.Endpoint,
			Limits: provider.Limits{
				MaxInFlight:       int(m.MaxInFlight),
				MaxInFlightCap:    m.MaxInFlightCap,
				RequestsPerSecond: m.RequestsPerSecond,
				TokensPerSecond:   m.TokensPerSecond,
			},
			Timeout:     m.Timeout,
			Temperature: m.Temperature,
			MaxTokens:   m.MaxTokens,
			BatchSize:   m.BatchSize,
		})
		if err != nil {
			return nil, keyErrors(at, err)
		}
		return c, nil
	}}

var ragEndpointKind = modelKind{name: "rag-endpoint", entry: func() any { return new(ragEndpointModel) },
	build: func(at string, e any, _ map[string]provider.Model) (provider.Model, error) {
		m := e.(*ragEndpointModel)
		r, err := provider.NewRAGEndpoint(m.ID, provider.RAGEndpointOptions{
			URL:                m.URL,
			Method:             m.Method,
			Headers:            m.Headers,
			QuestionField:      m.QuestionField,
			AnswerField:        m.AnswerField,
			ContextsField:      m.ContextsField,
			ContextSourceField: m.SourceField,
			ContextScoreField:  m.ScoreField,
			Timeout:            m.Timeout,
			MaxInFlight:        int(m.MaxInFlight),
		})
		if err != nil {
			return nil, keyErrors(at, err)
		}
		return r, nil
	}}

// keyErrors puts each of a constructor's errors, which start with their
// key ("base_url: missing"), under the entry's path
// ("models[0].base_url: missing").
func keyErrors(at string, err error) error {
	var errs []error
	for _, e := range splitErrors(err) {
		errs = append(errs, fmt.Errorf("%s.%w", at, e))
	}
	return errors.Join(errs...)
}

// splitErrors returns the errors an errors.Join holds, or err alone.
func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// yamlKeys lists the keys of the struct v points to, from its yaml tags.
func yamlKeys(v any) []string {
	t := reflect.TypeOf(v).Elem()
	keys := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		if k := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]; k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

// revisionOf identifies a model's entry: a hash of its kind and its fields
// as decoded, so a change of endpoint, model name, parameters or limits is
// a new revision and a reformatted file is not. An entry names the
// environment variable of a secret, never its value, so no secret is
// hashed.
func revisionOf(kind string, entry any) string {
	b, err := json.Marshal(entry)
	if err != nil {
		b = []byte(fmt.Sprintf("%#v", entry))
	}
	return schemas.ID("model", kind, string(b))[:12]
}

// revision is model id's revision in m ("builtin" for a built-in reader).
func (m modelSet) revision(id string) string {
	if r, ok := m.revisions[id]; ok {
		return r
	}
	return "builtin"
}

// recordRevisions stores the revision of every model of set in
// robustream.model_revisions, stamped with the engine's clock, for the
// drift evaluator to say that a model changed around a drop. It is
// best-effort: a failure is logged, evaluation goes on.
func (e *engine) recordRevisions(ctx context.Context, set modelSet) {
	if e.ch == nil {
		return
	}
	at := clock().UTC().Unix()
	var rows []string
	for _, id := range set.ids() {
		rows = append(rows, fmt.Sprintf("SELECT %s, %s, toDateTime(%d)", sqlString(id), sqlString(set.revision(id)), at))
	}
	if len(rows) == 0 {
		return
	}
	// INSERT … SELECT, which the server runs whole: an INSERT … VALUES
	// sent as a statement waits for a data block on an 18.16 server.
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := e.ch.Exec(ctx, "INSERT INTO robustream.model_revisions (model_id, revision, seen_at) "+strings.Join(rows, " UNION ALL ")); err != nil {
		e.log.Warn("cannot record the models' revisions; alerts will not say when a model changed", "err", err)
	}
}

// sqlString renders s as a ClickHouse string literal.
func sqlString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// loadModels reads models.yaml, or returns the built-in readers.
func loadModels(path string) (modelSet, error) {
	set, errs := readModels(path)
	if len(errs) > 0 {
		return modelSet{}, errors.Join(errs...)
	}
	return set, nil
}

// readModels reads models.yaml (the built-in readers when path is empty) and
// reports every error in it at once, each prefixed with the file and the
// entry's path, so that --dry-run and the engine say the same thing.
func readModels(path string) (modelSet, []error) {
	builtins := provider.Builtins()
	if path == "" {
		return modelSet{byID: builtins}, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return modelSet{}, []error{fmt.Errorf("models: %w", err)}
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("models %s: "+format, append([]any{path}, args...)...))
	}
	var f modelsFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		// A TypeError still decodes what it can (an unknown top-level key
		// beside a valid list, say): report each of its lines and go on.
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			fail("%v", err)
			return modelSet{}, errs
		}
		for _, e := range te.Errors {
			fail("%s", e)
		}
	}
	if len(f.Models) == 0 && len(errs) == 0 {
		fail("models: no models listed (e.g. - {id: builtin:lexical, kind: builtin})")
	}
	services := map[string]*openaiModel{"generator": f.Generator, "embedder": f.Embedder}
	built := map[string]*provider.OpenAI{}
	for _, key := range []string{"generator", "embedder"} {
		e := services[key]
		if e == nil {
			continue
		}
		if e.ID == "" {
			e.ID = key
		}
		if e.Prompt != nil {
			fail("%s.prompt: the %s's prompts are the stages' own; prompt is for the models under test", key, key)
			continue
		}
		m, err := openaiKind.build(key, e, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("models %s: %w", path, err))
			continue
		}
		built[key] = m.(*provider.OpenAI)
	}

	kinds := modelKinds
	var kindNames []string
	keyKinds := map[string][]string{} // key → kinds that accept it
	for _, k := range kinds {
		kindNames = append(kindNames, k.name)
		for _, key := range yamlKeys(k.entry()) {
			keyKinds[key] = append(keyKinds[key], k.name)
		}
	}
	set := modelSet{byID: map[string]provider.Model{}, revisions: map[string]string{}}
	firstAt := map[string]int{} // id → index of the entry that declared it first
	for i, n := range f.Models {
		at := fmt.Sprintf("models[%d]", i)
		if n.Kind != yaml.MappingNode {
			fail("%s: want a mapping such as {id: builtin:lexical, kind: builtin} (line %d)", at, n.Line)
			continue
		}
		var id, kindName string
		var hasID, hasKind bool
		for j := 0; j+1 < len(n.Content); j += 2 {
			switch n.Content[j].Value {
			case "id":
				id, hasID = n.Content[j+1].Value, true
			case "kind":
				kindName, hasKind = n.Content[j+1].Value, true
			}
		}
		var kind *modelKind
		for k := range kinds {
			if kinds[k].name == kindName {
				kind = &kinds[k]
			}
		}
		switch {
		case !hasKind:
			fail("%s.kind: missing; known kinds: %s (line %d)", at, strings.Join(kindNames, ", "), n.Line)
		case kind == nil:
			fail("%s.kind: unknown kind %q; known kinds: %s (line %d)", at, kindName, strings.Join(kindNames, ", "), n.Line)
		}
		// Keys are checked by hand rather than by a strict decode of the
		// entry so that the message says whether the key belongs to another
		// kind or to none.
		for j := 0; j+1 < len(n.Content); j += 2 {
			key, line := n.Content[j].Value, n.Content[j].Line
			accepted := keyKinds[key]
			switch {
			case len(accepted) == 0:
				fail("%s: unknown key %q (line %d)", at, key, line)
			case kind != nil && !slices.Contains(accepted, kind.name):
				fail("%s: key %s does not apply to kind %s, whose keys are %s (line %d)", at, key, kind.name, strings.Join(yamlKeys(kind.entry()), ", "), line)
			}
		}
		switch {
		case !hasID || id == "":
			fail("%s.id: missing (line %d)", at, n.Line)
		default:
			if first, dup := firstAt[id]; dup {
				fail("%s.id: duplicate id %q, also models[%d].id (line %d)", at, id, first, n.Line)
			} else {
				firstAt[id] = i
			}
		}
		if kind == nil || id == "" {
			continue
		}
		// Decoded and built even after a key error, to report the rest of
		// the entry's errors too (the decode skips the keys reported).
		e := kind.entry()
		if err := n.Decode(e); err != nil {
			// One line per TypeError line (a wrong type carries its line).
			var te *yaml.TypeError
			if !errors.As(err, &te) {
				fail("%s: %v", at, err)
				continue
			}
			for _, msg := range te.Errors {
				fail("%s: %s", at, msg)
			}
			continue
		}
		m, err := kind.build(at, e, builtins)
		if err != nil {
			for _, err := range splitErrors(err) {
				errs = append(errs, fmt.Errorf("models %s: %w", path, err))
			}
			continue
		}
		if o, ok := e.(*openaiModel); ok {
			p, err := priceOf(o)
			if err != nil {
				fail("%s.%v", at, err)
				continue
			}
			if p != (modelPrice{}) {
				if set.prices == nil {
					set.prices = map[string]modelPrice{}
				}
				set.prices[id] = p
			}
		}
		set.byID[id] = m
		set.revisions[id] = revisionOf(kind.name, e)
		if o, ok := e.(*openaiModel); ok && o.Prompt != nil {
			if set.prompts == nil {
				set.prompts = map[string]fanout.Template{}
			}
			set.prompts[id] = *o.Prompt
		}
	}
	if len(errs) > 0 {
		return modelSet{}, errs
	}
	if g := built["generator"]; g != nil {
		set.generator = g
	}
	if e := built["embedder"]; e != nil {
		set.embedder = e
	}
	return set, nil
}
