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

// difficulty returns 1 − min over chunks of cos(question, chunk).
func (s *embeddingSim) difficulty(question string, chunks []string) (float64, error) {
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
		return 0, errors.New("embedder paused after a failure")
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
			return 0, err
		}
		for j, i := range at {
			vecs[i] = got[j]
			s.vectors.put(memoKey(texts[i]), got[j])
		}
	}
	minSim := 1.0
	for _, v := range vecs[1:] {
		minSim = math.Min(minSim, provider.Cosine(vecs[0], v))
	}
	return 1 - minSim, nil
}
