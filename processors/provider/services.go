package provider

import (
	"context"
	"math"
)

// The interfaces below are declared ahead of their implementations, so that
// the stages and the clients that will satisfy them agree on one shape. Each
// is one method: a stage asks for exactly what it uses, and a test can stand
// in for any provider with a few lines.

// Generator is an LLM that completes a prompt. The triplet, question and
// perturb stages and the LLM judge will consume it.
type Generator interface {
	// Generate returns the completion of prompt. An error means no usable
	// completion (timeout, transport, rate limit exhausted, empty output);
	// what to do about it is the caller's decision.
	Generate(ctx context.Context, prompt string, opts GenerateOptions) (string, error)
}

// GenerateOptions are the per-call settings of a Generator. The zero value
// asks for the provider's defaults at temperature zero.
type GenerateOptions struct {
	// Temperature is the sampling temperature. Zero, the default, asks for
	// the most likely completion, so that a rerun over the same input
	// derives the same test set as far as the provider allows.
	Temperature float64
	// MaxTokens caps the completion, in the provider's tokens. Zero: the
	// provider's default.
	MaxTokens int
}

// Embedder turns texts into vectors. The question stage (the retrieval
// difficulty D_r), the embedding-similarity judge and the dense Retrievers
// will consume it.
type Embedder interface {
	// Embed returns one vector per text, in the order of texts, all of
	// the same dimension. Taking a batch lets remote embedders amortize a
	// round trip; a caller with one text passes a slice of one.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Retriever returns the passages of a corpus that best match a query. The
// perturb stage's retrieval axis (RARE §3.3.4: each retriever's top-k with
// the original query) will consume it.
type Retriever interface {
	// Retrieve returns at most k passages for query, best first.
	Retrieve(ctx context.Context, query string, k int) ([]Passage, error)
}

// Passage is a retrieved piece of text.
type Passage struct {
	// ChunkID is the id of the chunk the passage is, so that a caller can
	// tell whether the ground-truth chunks were retrieved.
	ChunkID string
	// Text is the passage as retrieved.
	Text string
	// Score is the retriever's relevance score: higher is more relevant,
	// comparable only among the passages of one call.
	Score float64
}

// Cosine is the cosine similarity of two embeddings, 0 when they differ in
// length or one is all zeros.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
