package perturb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the perturb stage.
const StageName = "perturb"

// Config configures the perturb stage.
type Config struct {
	// WordNet is the synonym dictionary. Nil: one reading WordNetDir.
	WordNet *WordNet `yaml:"-"`
	// WordNetDir is the dictionary directory used when WordNet is nil.
	// Empty: DefaultWordNetDir.
	WordNetDir string `yaml:"wordnet_dir" help:"WordNet dictionary directory (default: Debian's wordnet-base)"`
	// Logger receives one warning per unavailable kind. Nil: slog.Default().
	Logger *slog.Logger `yaml:"-"`
	// Kinds are the perturbation kinds to run, in order (the registry of
	// cmd/robustream). Nil: DefaultKinds().
	Kinds []Kind `yaml:"-"`
	// MaxCrossCells caps the cross cells (perturbed query × perturbed
	// context) made per question; 0 makes them all. A capped question gets
	// a sample chosen by its id, recorded on its variants (CrossSample).
	MaxCrossCells int `yaml:"max_cross_cells" help:"cap on perturbed-query × perturbed-context cells per question (0: all)"`
	// Pivot is the language back_translation goes through. Empty:
	// DefaultPivot.
	Pivot string `yaml:"back_translation_pivot" help:"language back_translation translates through (default German)"`
	// Seed enters the random draws of the perturbations (SeedKey): 0, the
	// default, keys them to the question id alone; another seed draws
	// other edits from the same questions.
	Seed int64 `yaml:"seed" flag:"seed" help:"seed of the perturbations' random draws (char, qwerty and wordnet edits, cross-cell samples, placeholder values and noise); 0 keys them to the question id alone"`
	// WordNetSimilarityFloor is the cosine between the embeddings of a
	// question and its wordnet variant below which the variant is dropped,
	// with an embedder (SetEmbedder; docs/methods.md, Query perturbations
	// (RARE §3.1)). 0: DefaultSynonymFloor.
	WordNetSimilarityFloor float64 `yaml:"wordnet_similarity_floor" help:"with an embedder, the cosine between a question and its wordnet variant below which the variant is dropped (default 0.9)"`
}

// SynonymFloor is the similarity floor cfg asks for: DefaultSynonymFloor
// when it sets none.
func (cfg Config) SynonymFloor() float64 {
	if cfg.WordNetSimilarityFloor == 0 {
		return DefaultSynonymFloor
	}
	return cfg.WordNetSimilarityFloor
}

// Stage is the "perturb" stage: rs.questions → rs.variants, keyed by
// question id. For each question it emits the original variant, every
// rule-based variant it could make and their cross cells. It owns the question's manifest
// (schemas/manifest.go): the slots it filled plus those of kinds another
// stage produces, carried on every variant, so fan-out and pairing know
// when the set is complete.
type Stage struct {
	perturber  Perturber
	kinds      []Kind
	maxCross   int
	log        *slog.Logger
	pivot      string
	seed       int64
	llm        atomic.Pointer[llm] // nil: no generator, the LLM kinds are skipped
	sureLLM    bool                // SURE's LLM kinds are registered (spurious_llm.go)
	selfSource bool                // source_self's producer is registered (self.go)

	mu      sync.Mutex
	skipped map[string]*atomic.Int64
	reasons map[string]map[string]int64 // kind → skipReason → count, under mu
	warned  map[string]bool
}

// NewStage validates cfg and returns the perturb stage. The WordNet
// dictionary starts loading in the background here (about 0.1 s), so that
// the first question rarely waits for it; a missing dictionary never stops
// the engine: the wordnet kind is then skipped and counted. Invalid kinds (a
// wiring mistake in the registry, not input) panic.
func NewStage(cfg Config) (*Stage, error) {
	if cfg.MaxCrossCells < 0 {
		return nil, fmt.Errorf("perturb: max_cross_cells must be >= 0, got %d", cfg.MaxCrossCells)
	}
	if f := cfg.WordNetSimilarityFloor; f < 0 || f > 1 || f != f {
		return nil, fmt.Errorf("perturb: wordnet_similarity_floor must be a cosine between 0 and 1, got %v", f)
	}
	if cfg.Kinds == nil {
		cfg.Kinds = DefaultKinds()
	}
	if err := checkKinds(cfg.Kinds); err != nil {
		panic(err)
	}
	if cfg.WordNet == nil {
		cfg.WordNet = sharedWordNet(cfg.WordNetDir)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Pivot == "" {
		cfg.Pivot = DefaultPivot
	}
	s := &Stage{
		pivot:     cfg.Pivot,
		seed:      cfg.Seed,
		perturber: Perturber{WordNet: cfg.WordNet, notes: &prgbNotes{}},
		kinds:     cfg.Kinds,
		maxCross:  cfg.MaxCrossCells,
		log:       cfg.Logger,
		skipped:   make(map[string]*atomic.Int64),
		reasons:   make(map[string]map[string]int64),
		warned:    make(map[string]bool),
	}
	for _, k := range cfg.Kinds {
		s.skipped[k.Name] = new(atomic.Int64)
		if k.Axis == schemas.AxisSpurious && k.NeedsLLM {
			s.sureLLM = true
		}
		if k.Producer == SelfStageName {
			s.selfSource = true
		}
	}
	go cfg.WordNet.Available() // the error is reported on first use
	return s, nil
}

var (
	wordnetsMu sync.Mutex
	wordnets   = map[string]*WordNet{}
)

// sharedWordNet returns one WordNet per directory for the whole process: the
// dictionary is immutable and takes ~0.1 s and tens of MB to load, so stages
// built again (a restart of the stage, a benchmark) must not reload it.
func sharedWordNet(dir string) *WordNet {
	wordnetsMu.Lock()
	defer wordnetsMu.Unlock()
	if w, ok := wordnets[dir]; ok {
		return w
	}
	w := NewWordNet(dir)
	wordnets[dir] = w
	return w
}

// SetGenerator gives the stage the generator LLM of models.yaml's
// generator:, which makes the LLM kinds (llm.go), with cache keeping its
// replies (nil: none kept, every question asks again). A nil g takes it
// away: the LLM kinds are then skipped and counted as needing a generator.
func (s *Stage) SetGenerator(g provider.Generator, cache ReplyCache) {
	if g == nil {
		s.llm.Store(nil)
		return
	}
	s.llm.Store(&llm{g: g, cache: cache, pivot: s.pivot})
}

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// Skipped returns, per kind, how many variants could not be made since the
// stage started (no eligible word, dictionary missing, answer would leak or
// survive). Metrics coverage reads it to show which kinds are missing.
// Replayed questions are counted again.
func (s *Stage) Skipped() map[string]int64 {
	out := make(map[string]int64, len(s.skipped))
	for k, c := range s.skipped {
		out[k] = c.Load()
	}
	return out
}

// SkipReasons returns, per kind, why its variants could not be made and how
// often, since the stage started: "no eligible word to perturb",
// "perturbation leaks the answer into the query", "perturbation kind
// unavailable: the WordNet dictionary is missing"… (skipReason).
func (s *Stage) SkipReasons() map[string]map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]map[string]int64, len(s.reasons))
	for kind, rs := range s.reasons {
		out[kind] = maps.Clone(rs)
	}
	// PRGB's noise shortfalls are not skips (the variant is made): see
	// Shortfalls.
	return out
}

// skipReason names why a variant could not be made, from a small fixed set
// (a label, not a message): the errors of the kinds, and "other".
func skipReason(err error) string {
	for _, known := range []error{ErrNotSampled, ErrCannotRewrite, ErrNoSelfModel, ErrNoNoiseContext, ErrAnswerGained, ErrSentencesChanged, ErrNoCandidate, ErrAnswerLeak, ErrAnswerNotFound, ErrAnswerRemains, ErrEmptyContext, ErrUnknownKind,
		ErrEntityLost, ErrUnchanged, ErrAnswerLost, ErrNotEntailed, ErrGeneratorOutput, ErrGeneratorRefused, errGeneratorFailed} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	switch {
	case errors.Is(err, errNoGenerator):
		return errNoGenerator.Error()
	case errors.Is(err, ErrUnavailable) && strings.Contains(strings.ToLower(err.Error()), "wordnet"):
		return ErrUnavailable.Error() + ": the WordNet dictionary is missing"
	case errors.Is(err, ErrUnavailable):
		return ErrUnavailable.Error()
	case prgbSkipReason(err) != "":
		return prgbSkipReason(err)
	}
	return "other"
}

// errGeneratorFailed is the skip reason of an LLM kind whose generator
// failed transiently when no runner is there to retry (Variants).
var errGeneratorFailed = errors.New("the generator failed (transient)")

// Process implements streams.Processor. A payload that is not a valid
// question (bad JSON, unknown schema version, no id, question or answer) is
// a permanent error. A transient generator failure (rate limited,
// unavailable, timed out) is returned as it is, for the runner's middleware
// to retry the question: the replies already received are cached, so the
// retry pays only for what failed.
func (s *Stage) Process(ctx context.Context, m streams.Message) ([]streams.Record, error) {
	var q schemas.Question
	if err := schemas.Decode(m.Value, &q); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode question: %w", err))
	}
	if q.QuestionID == "" || q.Question == "" || q.Answer == "" {
		return nil, streams.Permanent(fmt.Errorf("question %q lacks id, text or answer", q.QuestionID))
	}
	if q.Retired != "" {
		return nil, nil // a retired question is evaluated no more
	}
	vs, err := s.variants(ctx, &q)
	if err != nil {
		return nil, err
	}
	recs := make([]streams.Record, 0, len(vs))
	for _, v := range vs {
		b, err := schemas.Encode(v)
		if err != nil {
			return nil, fmt.Errorf("cannot encode variant %s: %w", v.VariantID, err)
		}
		recs = append(recs, streams.Record{Topic: streams.TopicVariants, Key: []byte(v.Key()), Value: b})
	}
	return recs, nil
}

// Variants builds the variant set of q: the original, then one variant per
// configured kind (by default query/char, query/qwerty, query/wordnet, each
// with the ground-truth contexts, and document/answer_removed with the
// original query), leaving out those that cannot be made and counting them
// in Skipped, then the cross cells: every query variant made here over the
// contexts of every document variant made here (cross.go), up to
// MaxCrossCells of them. Kinds with a Producer are not made here, only
// declared, and are not crossed. Every variant carries the manifest (the
// slots made here and those declared) and the cross sample, and is stamped
// with its id, schemas.VariantID(question_id, axis, kind, query, contexts),
// and q's id as lineage. LLM kinds are made when the stage has a generator
// (SetGenerator); a transient generator failure skips the kind here, with
// the reason errGeneratorFailed (Process returns it instead, to retry).
func (s *Stage) Variants(q *schemas.Question) []*schemas.Variant {
	vs, _ := s.variantsOf(context.Background(), q, true)
	return vs
}

// variants is Variants returning a transient generator failure instead of
// skipping the kind.
func (s *Stage) variants(ctx context.Context, q *schemas.Question) ([]*schemas.Variant, error) {
	return s.variantsOf(ctx, q, false)
}

func (s *Stage) variantsOf(ctx context.Context, q *schemas.Question, tolerant bool) ([]*schemas.Variant, error) {
	accepted := q.Accepted()
	answers := text.NewAnswers(accepted) // shared by every kind
	in := &Input{Question: q, Answers: answers, words: newQueryWords(q.Question, answers, accepted), ctx: ctx, llm: s.llm.Load(),
		seed: SeedKey(q.QuestionID, s.seed)}
	in.sureLLM = s.sureLLM && in.llm != nil
	in.selfSource = s.selfSource && in.llm != nil
	// Skips are counted once the set is made: a question retried after a
	// generator failure must not count its other kinds' skips twice.
	type skipped struct {
		kind string
		err  error
	}
	var skips []skipped
	vs := []*schemas.Variant{newVariant(q, schemas.AxisOriginal, KindOriginal, q.Question, q.GTChunks, true)}
	var elsewhere []string                    // slots another stage fills
	var queries, documents []*schemas.Variant // what the cross cells cross
	for _, k := range s.kinds {
		if k.Producer != "" {
			if k.Declare != nil {
				if err := k.Declare(in); err != nil {
					skips = append(skips, skipped{k.Name, err})
					continue
				}
			}
			elsewhere = append(elsewhere, k.Slot())
			continue
		}
		if k.NeedsLLM && in.llm == nil {
			// No generator: such kinds are counted as skipped and
			// reported once, never silently missing.
			skips = append(skips, skipped{k.Name, errNoGenerator})
			continue
		}
		made, err := k.Make(&s.perturber, in)
		var transient *generatorError
		if errors.As(err, &transient) {
			if !tolerant {
				return nil, fmt.Errorf("perturbation %s: %w", k.Name, err)
			}
			err = fmt.Errorf("%w: %w", errGeneratorFailed, err)
		}
		if err != nil {
			skips = append(skips, skipped{k.Name, err})
			continue
		}
		v := newVariant(q, k.Axis, k.Name, made.Query, made.Contexts, made.AnswerAvailable)
		if made.Expected != "" {
			v.ExpectedAnswer, v.Aliases = made.Expected, nil
		}
		vs = append(vs, v)
		switch k.Axis {
		case schemas.AxisQuery:
			queries = append(queries, v)
		case schemas.AxisDocument:
			documents = append(documents, v)
		}
	}
	for _, sk := range skips {
		s.skip(sk.kind, sk.err)
	}
	cross, sample := crossCells(q, SeedKey(q.QuestionID, s.seed), queries, documents, s.maxCross)
	vs = append(vs, cross...)
	lineage := q.ID
	if lineage == "" {
		lineage = q.QuestionID
	}
	slots := elsewhere
	for _, v := range vs {
		slots = append(slots, v.Slot())
	}
	manifest := schemas.NewManifest(slots...)
	for _, v := range vs {
		v.Manifest, v.SetSize, v.CrossSample = manifest, len(manifest), sample
		schemas.Stamp(v, v.VariantID, lineage)
	}
	return vs, nil
}

func newVariant(q *schemas.Question, axis, kind, query string, contexts []string, available bool) *schemas.Variant {
	return &schemas.Variant{
		QuestionRef:     q.Ref(),
		VariantID:       schemas.VariantID(q.QuestionID, axis, kind, query, contexts),
		Axis:            axis,
		Kind:            kind,
		Query:           query,
		Contexts:        contexts,
		ExpectedAnswer:  q.Answer,
		Aliases:         q.Aliases,
		AnswerAvailable: available,
	}
}

// skip counts a variant that could not be made and, the first time a kind
// is unavailable, says so in the log: degrading is fine, silently is not.
func (s *Stage) skip(kind string, err error) {
	s.skipped[kind].Add(1)
	reason := skipReason(err)
	s.mu.Lock()
	if s.reasons[kind] == nil {
		s.reasons[kind] = map[string]int64{}
	}
	s.reasons[kind][reason]++
	// Every LLM kind misses the same generator: one warning names them
	// all, rather than a line per kind (thirteen with SURE's).
	key := kind
	if errors.Is(err, errNoGenerator) {
		key = "\x00generator"
	}
	first := errors.Is(err, ErrUnavailable) && !s.warned[key]
	if first {
		s.warned[key] = true
	}
	s.mu.Unlock()
	switch {
	case first && key != kind:
		var llmKinds []string
		for _, k := range s.kinds {
			if k.NeedsLLM {
				llmKinds = append(llmKinds, k.Name)
			}
		}
		s.log.Warn("perturbation kinds unavailable; their variants are skipped", "stage", StageName, "kinds", strings.Join(llmKinds, ","), "err", err)
	case first:
		s.log.Warn("perturbation kind unavailable; its variants are skipped", "stage", StageName, "kind", kind, "err", err)
	}
}
