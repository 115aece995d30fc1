package perturb

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/robustream/robustream/processors/provider"
)

// DefaultSynonymFloor is the cosine similarity between the embeddings of
// the original and the perturbed question below which a wordnet variant is
// dropped, when an embedder is configured (docs/methods.md, Query
// perturbations). A one-word synonym swap in a question of ten to twenty
// words keeps the sentence embedding very close; a swap that changes what
// is asked moves it further. The rules of synonym.go do the main work; the
// floor catches what they cannot see, such as a sense the documents use
// that WordNet does not rank first.
const DefaultSynonymFloor = 0.9

// synonymFloor is the embedding check of the wordnet kind.
type synonymFloor struct {
	e     provider.Embedder
	floor float64
}

// SetEmbedder gives the wordnet kind an embedder: each variant must then
// stay at least floor (cosine, ≤ 0: DefaultSynonymFloor) from its
// question, or it is dropped and counted as having no eligible word. Call
// it before the stage runs; nil removes the check (the rules alone).
func (s *Stage) SetEmbedder(e provider.Embedder, floor float64) {
	s.perturber.SetEmbedder(e, floor)
}

// SetEmbedder is Stage.SetEmbedder for a Perturber used on its own.
func (p *Perturber) SetEmbedder(e provider.Embedder, floor float64) {
	if e == nil {
		p.similarity = nil
		return
	}
	if floor <= 0 {
		floor = DefaultSynonymFloor
	}
	p.similarity = &synonymFloor{e: e, floor: floor}
}

// ErrBelowFloor: the wordnet variant's embedding is too far from the
// question's. It wraps ErrNoCandidate, so that coverage counts it with the
// questions no safe synonym was found for.
var ErrBelowFloor = fmt.Errorf("%w: the synonym swap falls below the similarity floor", ErrNoCandidate)

// check returns nil when variant stays within the floor of question,
// ErrBelowFloor when it does not, a retryable error when the embedder is
// unreachable (the runner retries the question, as for the generator) and
// a skip when it refuses the input.
func (f *synonymFloor) check(ctx context.Context, question, variant string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	vs, err := f.e.Embed(ctx, []string{question, variant})
	switch {
	case errors.Is(err, provider.ErrRejected):
		return fmt.Errorf("%w: embedder refused the question: %w", ErrNoCandidate, err)
	case err != nil:
		return &generatorError{fmt.Errorf("embedder: %w", err)}
	case len(vs) != 2 || len(vs[0]) == 0 || len(vs[0]) != len(vs[1]):
		return &generatorError{fmt.Errorf("embedder: %d vectors for 2 texts", len(vs))}
	}
	sim := cosine(vs[0], vs[1])
	if math.IsNaN(sim) || sim < f.floor {
		return fmt.Errorf("%w (%.3f < %.2f)", ErrBelowFloor, sim, f.floor)
	}
	return nil
}

// cosine is the cosine similarity of a and b (same length); NaN when one
// is all zeros.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	return dot / math.Sqrt(na*nb)
}

// synonymKind is the wordnet kind: the rule-based swap of synonym.go, then,
// with an embedder, the similarity floor.
func synonymKind() Kind {
	k := queryKind(KindWordNet)
	rules := k.Make
	k.Make = func(p *Perturber, in *Input) (Made, error) {
		m, err := rules(p, in)
		if err != nil || p.similarity == nil {
			return m, err
		}
		if err := p.similarity.check(in.ctx, in.Question.Question, m.Query); err != nil {
			return Made{}, err
		}
		return m, nil
	}
	return k
}
