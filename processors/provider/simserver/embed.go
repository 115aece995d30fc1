package simserver

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EmbeddingDim is the dimension of the embeddings the server returns.
const EmbeddingDim = 64

// embed returns a deterministic unit vector for text: a hashed bag of its
// lowercased words, each adding +1 or -1 (by a bit of its hash) to the
// component its hash picks. Texts sharing words point the same way, enough
// for tests of an embedder's plumbing and of cosine ranking; it knows no
// synonyms. A text without words gets the first unit vector.
func embed(text string) []float32 {
	var v [EmbeddingDim]float64
	for _, t := range tokenize(text) {
		w := text[t.start:t.end]
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue // punctuation
		}
		h := fnv1a(fnvOffset, strings.ToLower(w))
		sign := 1.0
		if h>>63 == 1 {
			sign = -1
		}
		v[h%EmbeddingDim] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, EmbeddingDim)
	if norm == 0 {
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}
