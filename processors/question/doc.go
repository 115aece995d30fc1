// Package question synthesises single-hop questions with known answers from
// triplets, the template generator of RARE-Get for offline runs (RARE §4.4),
// with the rule quality checks of ARCHITECTURE §5 and the retrieval
// difficulty D_r of GRADE §3.3 (eq. 1) over a lexical similarity.
//
// The answer of every question is its triplet's tail; a question is emitted
// only when the answer occurs in the ground-truth chunk and the question does
// not give the answer away. Multi-hop patterns (chain, star, inverted star,
// paths) need the knowledge graph and belong to the stage built on it.
//
// It must not call models, must not keep state between messages (the
// triplet carries its chunk text), and must not import other sources,
// processors or sinks.
package question
