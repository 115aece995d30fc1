// Package question synthesises single-hop questions with known answers from
// triplets, the template generator of RARE-Get for offline runs (RARE §4.4),
// with rule quality checks (docs/methods.md, Question synthesis and QA
// checks) and the retrieval difficulty D_r of GRADE §3.3 (eq. 1) over a
// lexical similarity (docs/methods.md, Difficulty D_r).
//
// The answer of every question is its triplet's tail; a question is emitted
// only when the answer occurs in the ground-truth chunk and the question does
// not give the answer away. Multi-hop patterns (chain, star, inverted star,
// paths) need the knowledge graph and belong to the stage built on it.
//
// It must not call models, must not keep state between messages (the
// triplet carries its chunk text), and must not import sources, sinks or
// other processors (processors/text, the shared text handling, excepted).
package question
