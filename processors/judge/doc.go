// Package judge decides whether a model's answer matches an accepted answer
// and whether the model refused (METHODS "Answer matching"; ARCHITECTURE §7
// "Judge").
//
// It offers three lexical matchers over a SQuAD-style normalization: exact,
// covered (substring) and token sequence (the default, which does not let
// "art" match "party"), plus refusal detection, which is a verdict of its own
// because RARE's judge f (Table 2) rewards a refusal when the context lacks
// the answer and the model does not know it.
//
// The package is pure: no I/O, no clock, no randomness. It must not grow
// embedding or LLM judges; those need providers and belong in a stage.
package judge
