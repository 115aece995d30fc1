package reader

import (
	"context"
	"fmt"
	"math"

	"github.com/robustream/robustream/processors/provider"
)

// MethodEmbedding is the judge method of a verdict the embedding judge
// turned to correct: the lexical judge did not match, but the answer's
// embedding is within the threshold of an accepted answer's.
const MethodEmbedding = "embedding"

// DefaultEmbeddingThreshold is the cosine similarity at or above which the
// embedding judge accepts an answer.
const DefaultEmbeddingThreshold = 0.9

// embeddingJudge gives a second chance to answers the lexical judge did not
// match and that are not refusals: an answer worded differently from every
// accepted answer ("four point two billion dollars") is correct when its
// embedding is close enough to one of theirs. It returns the best cosine
// similarity and whether it reaches the threshold.
func embeddingJudge(ctx context.Context, e provider.Embedder, threshold float64, answer string, accepted []string) (float64, bool, error) {
	vecs, err := e.Embed(ctx, append([]string{answer}, accepted...))
	if err != nil {
		return 0, false, fmt.Errorf("embedding judge: %w", err)
	}
	if len(vecs) != len(accepted)+1 {
		return 0, false, fmt.Errorf("embedding judge: %d vectors for %d texts", len(vecs), len(accepted)+1)
	}
	best := 0.0
	for _, v := range vecs[1:] {
		best = math.Max(best, provider.Cosine(vecs[0], v))
	}
	return best, best >= threshold, nil
}
