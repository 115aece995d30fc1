package fanout

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the fan-out stage.
const StageName = "fanout"

// KindClosedBook is the kind recorded on closed-book requests; their axis is
// schemas.AxisClosedBook.
const KindClosedBook = schemas.KindClosedBook

// DefaultDecoding is the canonical decoding-parameter string of a model that
// has none configured: greedy decoding, so reruns are comparable.
const DefaultDecoding = "temperature=0"

// Config configures the fan-out stage.
type Config struct {
	// Models are the ids of the models under test. Required, no duplicates.
	Models []string `yaml:"-"`
	// Decoding maps a model id to its canonical decoding parameters (e.g.
	// "max_tokens=64,temperature=0"), part of the request id so that changing
	// them makes new requests. Missing: DefaultDecoding.
	Decoding map[string]string `yaml:"-"`
	// Prompts maps a model id to its own prompt (models.yaml prompt:),
	// rendered into its requests and so part of their ids. Missing: the
	// built-in prompt of the style.
	Prompts map[string]Template `yaml:"-"`
	// Prompt is the prompt style: StyleRARE (default) or StyleSURE. It is
	// part of every prompt, hence of every request id.
	Prompt string `yaml:"prompt" help:"prompt style: rare (the shortest span, or \"no such info\"; default) or sure (an extractive span of at most five words, or NO-RES)"`
	// Retrieving are the models that retrieve their own contexts (RAG
	// services): they are asked the question alone, so they get the
	// original and the query-axis variants only, and no closed-book
	// request (they cannot answer without their retrieval).
	Retrieving []string `yaml:"-"`
	// Families caps, per metric family, the cells asked per question
	// (stages.fanout.families.<name>), so that a family's cost stays
	// bounded whatever kinds it gains.
	Families map[string]FamilyConfig `yaml:"families"`
	// AxisFamilies maps a variant axis to the metric families that score
	// it (the pairing registry, wired in cmd): it says which family a
	// request's cell belongs to, for the caps and the call counts.
	AxisFamilies map[string][]string `yaml:"-"`
}

// Stage is the "fanout" stage: rs.variants → rs.eval.requests, keyed by
// question id. Its models can be replaced while it runs (SetModels).
type Stage struct {
	cur    atomic.Pointer[lineup]
	counts counters
}

// lineup is the models a stage fans out to.
type lineup struct {
	style      string
	models     []string
	decoding   map[string]string
	prompts    map[string]Template
	retrieving map[string]bool
	// caps and axisFamilies are Config.Families and Config.AxisFamilies.
	caps         map[string]int
	axisFamilies map[string][]string
}

// NewStage validates cfg and returns the stage.
func NewStage(cfg Config) (*Stage, error) {
	s := &Stage{}
	if err := s.SetModels(cfg); err != nil {
		return nil, err
	}
	return s, nil
}

// SetModels validates cfg and makes its models the ones fanned out to from
// the next variant on (models.yaml reloaded while running). On error the
// models in use are kept.
func (s *Stage) SetModels(cfg Config) error {
	var errs []error
	if len(cfg.Models) == 0 {
		errs = append(errs, errors.New("fanout: models: none configured"))
	}
	seen := map[string]bool{}
	for i, m := range cfg.Models {
		switch {
		case m == "":
			errs = append(errs, fmt.Errorf("fanout: models[%d]: empty id", i))
		case seen[m]:
			errs = append(errs, fmt.Errorf("fanout: models[%d]: duplicate %q", i, m))
		}
		seen[m] = true
	}
	for m := range cfg.Decoding {
		if !seen[m] {
			errs = append(errs, fmt.Errorf("fanout: decoding.%s: not a configured model", m))
		}
	}
	for _, m := range slices.Sorted(maps.Keys(cfg.Prompts)) {
		if !seen[m] {
			errs = append(errs, fmt.Errorf("fanout: prompts.%s: not a configured model", m))
		} else if err := cfg.Prompts[m].Check(); err != nil {
			errs = append(errs, fmt.Errorf("fanout: model %s: %w", m, err))
		}
	}
	switch cfg.Prompt {
	case "", StyleRARE, StyleSURE:
	default:
		errs = append(errs, fmt.Errorf("fanout: prompt: unknown style %q (rare or sure)", cfg.Prompt))
	}
	l := &lineup{style: cfg.Prompt, models: append([]string(nil), cfg.Models...), decoding: make(map[string]string, len(cfg.Models)), prompts: map[string]Template{}, retrieving: map[string]bool{},
		caps: map[string]int{}, axisFamilies: map[string][]string{}}
	known := map[string]bool{}
	for axis, fs := range cfg.AxisFamilies {
		l.axisFamilies[axis] = slices.Sorted(slices.Values(fs))
		for _, f := range fs {
			known[f] = true
		}
	}
	for _, f := range slices.Sorted(maps.Keys(cfg.Families)) {
		c := cfg.Families[f]
		switch {
		case !known[f]:
			errs = append(errs, fmt.Errorf("fanout: families.%s: not a registered metric family (registered: %s)", f, strings.Join(slices.Sorted(maps.Keys(known)), ", ")))
		case c.MaxCellsPerQuestion < 0:
			errs = append(errs, fmt.Errorf("fanout: families.%s.max_cells_per_question: must be >= 0, got %d", f, c.MaxCellsPerQuestion))
		}
		l.caps[f] = c.MaxCellsPerQuestion
	}
	for _, m := range cfg.Retrieving {
		if !seen[m] {
			errs = append(errs, fmt.Errorf("fanout: retrieving: %s is not a configured model", m))
		}
		l.retrieving[m] = true
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, m := range cfg.Models {
		l.decoding[m] = DefaultDecoding
		if d, ok := cfg.Decoding[m]; ok {
			l.decoding[m] = d
		}
		if t, ok := cfg.Prompts[m]; ok && !t.IsZero() {
			l.prompts[m] = t
		}
	}
	s.cur.Store(l)
	return nil
}

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// RequestID is the id of a request: a hash of model, prompt and decoding
// parameters (docs/architecture.md, Topics and events), so identical requests
// can be answered once.
func RequestID(model, prompt, decoding string) string {
	return schemas.ID(model, prompt, decoding)
}

// RequestIDWith is RequestID for a request with a system message: the
// system text is hashed too, so a changed system prompt is a new request.
// With no system message it is RequestID.
func RequestIDWith(model, system, prompt, decoding string) string {
	if system == "" {
		return RequestID(model, prompt, decoding)
	}
	return schemas.ID(model, prompt, decoding, "system", system)
}

// ClosedBookVariantID is the variant id of a question's closed-book request.
func ClosedBookVariantID(questionID string) string {
	return schemas.ID(questionID, schemas.AxisClosedBook)
}

// Process implements streams.Processor: one request per configured model for
// the variant and, for the original variant, one closed-book request per
// model. Every request carries the variant's manifest, less the slots a
// family's cap left out (cap.go: a capped-out variant yields no request);
// Expected is its length + 1 (the closed-book one). A payload that is not a valid variant is a
// permanent error, and so is a variant whose slot its manifest does not
// declare: pairing could close its sets without it.
func (s *Stage) Process(_ context.Context, m streams.Message) ([]streams.Record, error) {
	var v schemas.Variant
	if err := schemas.Decode(m.Value, &v); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode variant: %w", err))
	}
	if err := check(&v); err != nil {
		return nil, streams.Permanent(err)
	}
	l := s.cur.Load()
	p := l.planOf(&v)
	if p.dropped[v.Slot()] {
		// Capped out: not asked of any model, and left out of the
		// manifest every request of the question carries.
		s.counts.capOut(l.familiesOf(v.Axis))
		return nil, nil
	}
	reqs := l.requests(&v, p)
	originals := int64(0)
	if v.Axis == schemas.AxisOriginal {
		originals = 1
	}
	s.counts.count(originals, reqs, l.label)
	recs := make([]streams.Record, 0, len(reqs))
	for _, r := range reqs {
		b, err := schemas.Encode(r)
		if err != nil {
			return nil, fmt.Errorf("cannot encode request %s: %w", r.RequestID, err)
		}
		recs = append(recs, streams.Record{Topic: streams.TopicEvalRequests, Key: []byte(r.Key()), Value: b})
	}
	return recs, nil
}

// check reports why v cannot be fanned out.
func check(v *schemas.Variant) error {
	switch {
	case v.QuestionID == "" || v.VariantID == "" || v.SetSize < 1:
		return fmt.Errorf("variant %q of question %q: missing ids or set size %d", v.VariantID, v.QuestionID, v.SetSize)
	case len(v.Manifest) > 0 && !schemas.InManifest(v.Manifest, v.Slot()):
		return fmt.Errorf("variant %s of question %s: slot %s is not in the question's manifest %v (its kind must be registered with perturb, with its producer)",
			v.VariantID, v.QuestionID, v.Slot(), v.Manifest)
	case v.NotMadeReason != "" && v.Axis == schemas.AxisOriginal:
		return fmt.Errorf("variant %s of question %s: the original variant is always made", v.VariantID, v.QuestionID)
	}
	return nil
}

// Requests builds the requests of one variant, model by model: the
// variant's request, then (original variant only) the closed-book one. A
// variant naming a model (schemas.Variant.Model) goes to that model alone,
// and to none when it is not in the line-up. Each
// is stamped with an event id unique per (request, question, variant) —
// two variants with identical prompts share a request id but need a result
// each — and the variant's event id as lineage.
func (s *Stage) Requests(v *schemas.Variant) []*schemas.EvalRequest {
	l := s.cur.Load()
	p := l.planOf(v)
	if p.dropped[v.Slot()] {
		return nil
	}
	return l.requests(v, p)
}

// requests builds the requests of v under its question's plan.
func (l *lineup) requests(v *schemas.Variant, p plan) []*schemas.EvalRequest {
	lineage := v.ID
	if lineage == "" {
		lineage = v.VariantID
	}
	var out []*schemas.EvalRequest
	for _, model := range l.models {
		if v.Model != "" && v.Model != model {
			// A variant made for one model (SURE's source_self: its
			// context is that model's own rewrite) is asked of it alone;
			// the other models' sets get their own variant of the slot.
			continue
		}
		if l.retrieving[model] {
			if r := l.retrievalRequest(model, v, p); r != nil {
				out = append(out, r)
			}
			continue
		}
		out = append(out, l.request(model, v, p, v.VariantID, v.Axis, v.Kind, v.Contexts, v.AnswerAvailable, false))
		if v.Axis == schemas.AxisOriginal {
			out = append(out, l.request(model, v, p, ClosedBookVariantID(v.QuestionID), schemas.AxisClosedBook, KindClosedBook, nil, false, true))
		}
	}
	for _, r := range out {
		schemas.Stamp(r, schemas.ID("request", r.RequestID, r.QuestionID, r.VariantID), lineage)
	}
	return out
}

// retrievalRequest is the request of v to a model that retrieves its own
// contexts, or nil when v's axis does not apply to it (only the original
// and the perturbed queries do: the service is asked the question alone).
// Its prompt is the question, which is what is sent; its contexts are the
// ground truth its retrieval is judged against. Its manifest keeps the
// slots that apply, and pairing expects no closed-book result.
func (l *lineup) retrievalRequest(model string, v *schemas.Variant, p plan) *schemas.EvalRequest {
	if v.Axis != schemas.AxisOriginal && v.Axis != schemas.AxisQuery {
		return nil
	}
	r := l.request(model, v, p, v.VariantID, v.Axis, v.Kind, v.Contexts, v.AnswerAvailable, false)
	if v.NotMadeReason == "" {
		r.Prompt = strings.TrimSpace(v.Query)
		r.RequestID = RequestID(model, r.Prompt, l.decoding[model])
	}
	var slots []string
	for _, slot := range p.manifest {
		if strings.HasPrefix(slot, schemas.AxisOriginal+"/") || strings.HasPrefix(slot, schemas.AxisQuery+"/") {
			slots = append(slots, slot)
		}
	}
	r.Manifest, r.Expected, r.Retrieves = slots, max(len(slots), 1), true
	return r
}

func (l *lineup) request(model string, v *schemas.Variant, p plan, variantID, axis, kind string, contexts []string, available, closedBook bool) *schemas.EvalRequest {
	system, prompt := l.prompts[model].Render(StyleFor(l.style, axis), v.Query, contexts)
	id := RequestIDWith(model, system, prompt, l.decoding[model])
	if v.NotMadeReason != "" {
		// Nothing to ask: the request only carries the marker to the infer
		// stage, which answers it with an error result.
		system, prompt, id = "", "", schemas.ID("not made", model, v.VariantID)
	}
	return &schemas.EvalRequest{
		QuestionRef:     v.QuestionRef,
		RequestID:       id,
		ModelID:         model,
		VariantID:       variantID,
		ClosedBook:      closedBook,
		System:          system,
		Prompt:          prompt,
		Query:           v.Query,
		Contexts:        contexts,
		Accepted:        v.Accepted(),
		Axis:            axis,
		Kind:            kind,
		AnswerAvailable: available,
		Manifest:        p.manifest,
		Expected:        expected(v, p),
		NotMadeReason:   v.NotMadeReason,
		CrossSample:     v.CrossSample,
		// A built-in retriever's passages are judged against these.
		GroundTruth:      v.GroundTruth,
		RetrievedSources: v.RetrievedSources,
		RetrievedScores:  v.RetrievedScores,
		FamilySample:     p.sample,
	}
}

// expected is Expected of v's requests: the slots asked plus the
// closed-book request. SetSize counts the manifest's slots, so a capped
// plan takes off the slots it dropped.
func expected(v *schemas.Variant, p plan) int {
	if len(p.dropped) > 0 {
		return len(p.manifest) + 1
	}
	return v.SetSize + 1
}
