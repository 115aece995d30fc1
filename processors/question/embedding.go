package question

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/robustream/robustream/processors/provider"
)

// SimEmbeddingCosine names the similarity of D_r when an embedder is
// configured: the cosine of the question's and the chunk's embeddings
// (GRADE §3.3).
const SimEmbeddingCosine = "embedding_cosine"

// embeddingSim computes D_r with an embedder, remembering the vectors of
// recent texts (the same chunks serve many questions).
type embeddingSim struct {
	e       provider.Embedder
	vectors *memo[[]float32]
	llm     *llmQA // for the retry policy
	// down is until when the embedder is not asked after a failure: the
	// graph re-evaluates many questions per document, and each would wait
	// out the retries again.
	down time.Time
}

// embedderPause is how long a failed embedder is left alone.
const embedderPause = time.Minute

func newEmbeddingSim(e provider.Embedder) *embeddingSim {
	return &embeddingSim{e: e, vectors: newMemo[[]float32](1 << 14),
		llm: &llmQA{attempts: 4, backoff: 250 * time.Millisecond, timeout: time.Minute}}
}

// similarities returns cos(question, chunk) for every chunk.
func (s *embeddingSim) similarities(question string, chunks []string) ([]float64, error) {
	texts := append([]string{question}, chunks...)
	vecs := make([][]float32, len(texts))
	var missing []string
	var at []int
	for i, t := range texts {
		if v, ok := s.vectors.get(memoKey(t)); ok {
			vecs[i] = v
		} else {
			missing = append(missing, t)
			at = append(at, i)
		}
	}
	if len(missing) > 0 && time.Now().Before(s.down) {
		return nil, errors.New("embedder paused after a failure")
	}
	if len(missing) > 0 {
		var got [][]float32
		err := s.llm.call(func(ctx context.Context) error {
			var err error
			got, err = s.e.Embed(ctx, missing)
			return err
		})
		if err == nil && len(got) != len(missing) {
			err = fmt.Errorf("embedder returned %d vectors for %d texts", len(got), len(missing))
		}
		if err != nil {
			s.down = time.Now().Add(embedderPause)
			return nil, err
		}
		for j, i := range at {
			vecs[i] = got[j]
			s.vectors.put(memoKey(texts[i]), got[j])
		}
	}
	sims := make([]float64, len(chunks))
	for i, v := range vecs[1:] {
		sims[i] = provider.Cosine(vecs[0], v)
	}
	return sims, nil
}

// Aggregations of a question's chunk similarities into D_r (GRADE §3.3,
// Table 3): the minimum (GRADE's definition, the D_r of a question), the
// mean, and the power mean with p = −2, which leans towards the least
// similar chunk without ignoring the others. Each D_r is 1 − the
// aggregate. Recorded in qa_scores as dr_mean and dr_power_mean.
func drAggregates(sims []float64) (drMin, drMean, drPower float64) {
	if len(sims) == 0 {
		return 1, 1, 1
	}
	lo, sum, inv := 1.0, 0.0, 0.0
	zero := false
	for _, x := range sims {
		x = math.Max(0, math.Min(1, x))
		lo = math.Min(lo, x)
		sum += x
		if x == 0 {
			zero = true
		} else {
			inv += 1 / (x * x)
		}
	}
	n := float64(len(sims))
	power := 0.0 // a chunk with nothing in common drives the power mean to 0
	if !zero {
		power = math.Pow(inv/n, -0.5)
	}
	return 1 - lo, 1 - sum/n, 1 - power
}
