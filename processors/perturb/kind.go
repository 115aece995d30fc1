package perturb

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
)

// Kind is one perturbation kind: the axis it perturbs, whether it needs the
// generator LLM, and how it makes its variant. The stage runs the kinds it
// is configured with (Config.Kinds, wired in cmd/), in order; adding a kind
// is a Kind value and one line in that list.
type Kind struct {
	// Axis is schemas.AxisQuery, AxisDocument, ….
	Axis string
	// Name is the short snake_case kind recorded on variants and outcomes.
	Name string
	// Families are the metric families that score this kind's variants
	// (schemas.FamilyRARE, …): RARE for the query and document kinds,
	// SURE for the spurious features, PRGB for placeholders and noise.
	// Pairing writes a family's outcomes only on the axes it declares
	// (pair.Family.Axes); cmd checks at start-up that the two declarations
	// agree, so a kind cannot silently feed a family it was not made for.
	Families []string
	// NeedsLLM kinds are skipped, counted and reported once, when no
	// generator LLM is configured.
	NeedsLLM bool
	// Make returns the variant of in, or an error when it cannot be made
	// (no eligible word, the answer would leak; ErrUnavailable when a
	// resource is missing). Nil for a kind another stage produces.
	Make func(p *Perturber, in *Input) (Made, error)
	// Producer, when set, is the stage that makes this kind's variants
	// instead of perturb: it reads the original variant from rs.variants
	// and emits the variant (schemas.Variant.Derive) or a not-made marker
	// (schemas.Variant.NotMade) for the slot. Perturb declares the slot in
	// every question's manifest, so pairing waits for it.
	Producer string
	// Declare, for a Producer kind, says whether the question gets the
	// slot: nil declares it in every question's manifest; an error leaves
	// it out and is counted as the kind's skip reason (ErrNotSampled: a
	// sampled kind's producer would otherwise make a not-made marker, and
	// an error row per model, for every unsampled question).
	Declare func(in *Input) error
}

// Slot is the manifest slot of k's variants.
func (k Kind) Slot() string { return schemas.Slot(k.Axis, k.Name) }

// Made is a variant's content as a kind makes it.
type Made struct {
	Query    string
	Contexts []string
	// AnswerAvailable says whether Contexts still hold the answer.
	AnswerAvailable bool
	// Expected, when set, replaces the question's answer and aliases as
	// the variant's expected answer (PRGB's placeholders swap the value).
	Expected string
}

// Input is what every kind perturbs: one question, with the analysis the
// kinds share done once.
type Input struct {
	Question *schemas.Question
	// Answers are the question's accepted answers, compiled for matching.
	Answers *text.Answers
	words   *queryWords
	// ctx and llm serve the LLM kinds (llm.go): nil llm without a generator.
	ctx context.Context
	llm *llm
	// sureLLM: SURE's LLM kinds are registered and can be made (a
	// generator is there), so their sampled cells need the clean cells.
	// selfSource: so is source_self's producer (self.go).
	sureLLM, selfSource bool
	// seed keys the kinds' random draws (SeedKey); "" is the question id.
	seed string
}

// SeedKey is what a question's perturbations are seeded by: its id, and
// the configured seed when it is not 0 (Config.Seed). Samplings other
// stages must agree on (SURE's cells, the fan-out's family caps) stay
// keyed to the question id alone.
func SeedKey(questionID string, seed int64) string {
	if seed == 0 {
		return questionID
	}
	return questionID + "#seed=" + strconv.FormatInt(seed, 10)
}

// seedKey is in's seed key (the question id when none was set).
func (in *Input) seedKey() string {
	if in.seed == "" {
		return in.Question.QuestionID
	}
	return in.seed
}

// The built-in kinds (RARE §3.1, §3.2), in the order the stage emits them.
var (
	Char          = queryKind(KindChar)
	QWERTY        = queryKind(KindQWERTY)
	Synonym       = synonymKind() // rules, then the embedding floor (synonym_floor.go)
	AnswerRemoved = Kind{Axis: schemas.AxisDocument, Name: KindAnswerRemoved, Families: rareOnly,
		Make: func(_ *Perturber, in *Input) (Made, error) {
			ctxs, err := removeAnswer(in.Question.GTChunks, in.Answers)
			return Made{Query: in.Question.Question, Contexts: ctxs}, err
		}}
)

// rareOnly is the Families of RARE's query and document kinds.
var rareOnly = []string{schemas.FamilyRARE}

// DefaultKinds are the kinds of a stage configured with none.
func DefaultKinds() []Kind { return []Kind{Char, QWERTY, Synonym, AnswerRemoved} }

// queryKind is a rule-based query perturbation with the ground-truth
// contexts.
func queryKind(name string) Kind {
	return Kind{Axis: schemas.AxisQuery, Name: name, Families: rareOnly, Make: func(p *Perturber, in *Input) (Made, error) {
		q, err := p.query(name, in.seedKey(), in.words)
		return Made{Query: q, Contexts: in.Question.GTChunks, AnswerAvailable: true}, err
	}}
}

// errNoGenerator is why an LLM kind is skipped when the engine has no
// generator: its label is what coverage shows.
var errNoGenerator = fmt.Errorf("%w: needs a generator (none configured: generator: in models.yaml)", ErrUnavailable)

func checkKinds(kinds []Kind) error {
	seen := map[string]bool{}
	var errs []error
	for i, k := range kinds {
		switch {
		case k.Name == "" || k.Axis == "":
			errs = append(errs, fmt.Errorf("perturb: kinds[%d]: needs an axis and a name", i))
		case (k.Make == nil) == (k.Producer == ""):
			errs = append(errs, fmt.Errorf("perturb: kinds[%d] %s: needs either Make or a Producer stage, not both", i, k.Name))
		case k.Declare != nil && k.Producer == "":
			errs = append(errs, fmt.Errorf("perturb: kinds[%d] %s: Declare is for kinds another stage produces", i, k.Name))
		case k.Producer == StageName:
			errs = append(errs, fmt.Errorf("perturb: kinds[%d] %s: Producer names another stage; perturb's own kinds have Make", i, k.Name))
		case k.Axis == schemas.AxisOriginal:
			errs = append(errs, fmt.Errorf("perturb: kinds[%d] %s: the original variant is always made", i, k.Name))
		case k.Axis == AxisCross:
			errs = append(errs, fmt.Errorf("perturb: kinds[%d] %s: cross cells are made from the query and document kinds, not registered", i, k.Name))
		case seen[k.Slot()]:
			errs = append(errs, fmt.Errorf("perturb: kinds[%d]: %s listed twice", i, k.Slot()))
		}
		seen[k.Slot()] = true
	}
	return errors.Join(errs...)
}
