package perturb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// SURE's self-generated source (§3.2, Source: Self-generated): the context
// rewritten by the model under test itself, so that its variant is per
// model (docs/methods.md, SURE's LLM kinds). Perturb only declares the
// slots source_self and source_self_noise, for the questions whose cells
// are sampled; the producer stage below reads each original variant from
// rs.variants, asks every model under test that can write (a remote LLM)
// the source_llm prompt for each context, checks the rewrite as the other
// SURE LLM kinds are checked (entailment judged by the generator), and
// emits, per model, a variant naming that model (schemas.Variant.ForModel)
// or a not-made marker naming it. Fan-out asks a variant naming a model of
// that model alone, so each (model, question) set gets exactly one result
// for the slot.

// SelfStageName is the name of source_self's producer stage.
const SelfStageName = "source_self"

// ErrCannotRewrite: the model under test is an extractive reader, not a
// writer: it has no rewrite of its own to give. Its sets get a not-made
// marker for the slot, counted under this reason.
var ErrCannotRewrite = errors.New("the model under test cannot rewrite a context (a built-in reader)")

// SelfSourceKinds returns source_self on the golden contexts and on the
// noise context, made by the producer stage (SelfStage) and declared by
// perturb only for the questions whose cells are sampled (sampledSelf)
// and, on the noise context, that have one. They need the generator, which
// judges entailment: without one they are skipped as needing it.
func SelfSourceKinds() []Kind {
	sure := []string{schemas.FamilySURE}
	var ks []Kind
	for _, noise := range []bool{false, true} {
		ks = append(ks, Kind{Axis: schemas.AxisSpurious, Name: sureCell(KindSourceSelf, noise), Families: sure, NeedsLLM: true,
			Producer: SelfStageName, Declare: func(in *Input) error { return declareSelf(in, noise) }})
	}
	return ks
}

// selfPool is the pool source_self's cells are sampled from: SURE's LLM
// kinds and source_self, with SURELLMCells cells per question. Each
// source_self cell thus gets about the share of questions an LLM cell
// gets, and the LLM kinds' own sample (their pool without source_self) is
// the same whether source_self runs or not.
var selfPool = append(slices.Clone(SURELLMKinds), KindSourceSelf)

// sampledSelf reports whether a source_self cell is among the question's
// sampled cells.
func sampledSelf(questionID, cell string) bool {
	return sampledFrom(selfPool, SURELLMCells, questionID, cell)
}

// declareSelf says whether a question gets source_self's slot: the stage
// has a generator (to judge entailment), the cell is sampled and, on the
// noise context, the question has one.
func declareSelf(in *Input, noise bool) error {
	if in.llm == nil {
		return errNoGenerator
	}
	if !sampledSelf(in.Question.QuestionID, sureCell(KindSourceSelf, noise)) {
		return ErrNotSampled
	}
	if noise {
		if _, err := NoiseContexts(in.Question.GTChunks, in.Answers); err != nil {
			return err
		}
	}
	return nil
}

// SelfModel is one model under test as source_self's producer sees it.
type SelfModel struct {
	ID string
	// Writer is the model's client as a generator: nil for a model that
	// cannot write (a built-in reader), whose sets get a not-made marker.
	Writer provider.Generator
	// Retrieves: a RAG service, asked the question alone; fan-out sends
	// it no spurious variant, so it gets none.
	Retrieves bool
}

// SkipCounter counts a variant that could not be made (Stage.CountSkip),
// so that source_self's skips show with the other kinds' in coverage.
type SkipCounter interface {
	CountSkip(kind string, err error)
}

// SelfStage is the producer of source_self: rs.variants (the originals) →
// rs.variants (one variant or marker per model and declared cell).
type SelfStage struct {
	models  atomic.Pointer[[]SelfModel]
	judge   provider.Generator
	cache   ReplyCache
	counter SkipCounter

	mu    sync.Mutex
	skips map[string]map[string]int64 // kind → reason → count, when no counter
}

// NewSelfStage returns the producer for models (in line-up order), with
// judge, the generator of models.yaml, judging entailment (nil: every
// declared cell is marked as needing a generator), cache keeping every
// reply of the models and the judge (nil: none kept), and counter counting
// the cells not made (nil: SkipReasons counts them).
func NewSelfStage(models []SelfModel, judge provider.Generator, cache ReplyCache, counter SkipCounter) *SelfStage {
	s := &SelfStage{judge: judge, cache: cache, counter: counter, skips: map[string]map[string]int64{}}
	s.SetModels(models)
	return s
}

// SetModels makes models the line-up from the next original variant on
// (models.yaml reloaded while running), so that a model added gets its
// variant or marker and its sets do not wait for ever on the slot.
func (s *SelfStage) SetModels(models []SelfModel) {
	ms := slices.Clone(models)
	s.models.Store(&ms)
}

// Name implements streams.Processor.
func (s *SelfStage) Name() string { return SelfStageName }

// SkipReasons returns, per cell, why variants were not made and how often,
// when the stage has no counter.
func (s *SelfStage) SkipReasons() map[string]map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]map[string]int64{}
	for k, rs := range s.skips {
		out[k] = map[string]int64{}
		for r, n := range rs {
			out[k][r] = n
		}
	}
	return out
}

func (s *SelfStage) skip(kind string, err error) {
	if s.counter != nil {
		s.counter.CountSkip(kind, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.skips[kind] == nil {
		s.skips[kind] = map[string]int64{}
	}
	s.skips[kind][skipReason(err)]++
}

// Process implements streams.Processor: an original variant whose manifest
// declares a source_self slot yields its per-model variants; any other
// variant on rs.variants (this stage's own output included) yields
// nothing. A payload that is not a variant (no ids or set size) is a
// permanent error, as at fan-out.
// A transient failure of a model or of the judge is returned for the
// runner to retry; the replies already received are cached, so the retry
// pays only for what failed.
func (s *SelfStage) Process(ctx context.Context, m streams.Message) ([]streams.Record, error) {
	var v schemas.Variant
	if err := schemas.Decode(m.Value, &v); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode variant: %w", err))
	}
	if v.QuestionID == "" || v.VariantID == "" || v.SetSize < 1 {
		return nil, streams.Permanent(fmt.Errorf("variant %q of question %q: missing ids or set size %d", v.VariantID, v.QuestionID, v.SetSize))
	}
	vs, err := s.Variants(ctx, &v)
	if err != nil {
		return nil, err
	}
	recs := make([]streams.Record, 0, len(vs))
	for _, d := range vs {
		b, err := schemas.Encode(d)
		if err != nil {
			return nil, fmt.Errorf("cannot encode variant %s: %w", d.VariantID, err)
		}
		recs = append(recs, streams.Record{Topic: streams.TopicVariants, Key: []byte(d.Key()), Value: b})
	}
	return recs, nil
}

// Variants returns source_self's variants of the original v: for each
// declared cell (golden, then noise) and each model in line-up order but
// the RAG services, the model's rewrite or a marker saying why there is
// none. Skips are counted once the whole set is made, so a retried
// original does not count twice.
func (s *SelfStage) Variants(ctx context.Context, v *schemas.Variant) ([]*schemas.Variant, error) {
	if v.Axis != schemas.AxisOriginal || v.NotMadeReason != "" || v.QuestionID == "" {
		return nil, nil
	}
	q := &schemas.Question{QuestionID: v.QuestionID, Question: v.Query, Answer: v.ExpectedAnswer, Aliases: v.Aliases, GTChunks: v.Contexts}
	accepted := q.Accepted()
	var judge *llm
	if s.judge != nil {
		judge = &llm{g: s.judge, cache: s.cache}
	}
	in := &Input{Question: q, Answers: text.NewAnswers(accepted), ctx: ctx, llm: judge}
	type skipped struct {
		kind string
		err  error
	}
	var out []*schemas.Variant
	var skips []skipped
	for _, noise := range []bool{false, true} {
		kind := sureCell(KindSourceSelf, noise)
		if !schemas.InManifest(v.Manifest, schemas.Slot(schemas.AxisSpurious, kind)) {
			continue
		}
		for _, model := range *s.models.Load() {
			if model.Retrieves {
				continue
			}
			made, err := s.make(in, model, noise)
			var transient *generatorError
			if errors.As(err, &transient) {
				return nil, fmt.Errorf("source_self of %s: %w", model.ID, err)
			}
			if err != nil {
				skips = append(skips, skipped{kind, err})
				out = append(out, v.ForModel(v.NotMade(schemas.AxisSpurious, kind, skipReason(err)), model.ID))
				continue
			}
			out = append(out, v.ForModel(v.Derive(schemas.AxisSpurious, kind, made.Query, made.Contexts, made.AnswerAvailable), model.ID))
		}
	}
	for _, sk := range skips {
		s.skip(sk.kind, sk.err)
	}
	return out, nil
}

// make is model's source_self variant of in on the golden contexts or the
// noise context: each context rewritten by the model with source_llm's
// prompt, through the cache, then the checks of rewriteCell.
func (s *SelfStage) make(in *Input, model SelfModel, noise bool) (Made, error) {
	switch {
	case model.Writer == nil:
		return Made{}, ErrCannotRewrite
	case in.llm == nil:
		return Made{}, errNoGenerator
	}
	writer := &llm{g: model.Writer, cache: s.cache}
	return rewriteCell(in, noise, func(body string) (string, error) { return writer.rewriteSURE(in, KindSourceLLM, body) })
}

// CountSkip implements SkipCounter: a cell of a registered kind that
// another stage could not make, counted with the kind's own skips.
func (s *Stage) CountSkip(kind string, err error) {
	if _, ok := s.skipped[kind]; ok {
		s.skip(kind, err)
	}
}
