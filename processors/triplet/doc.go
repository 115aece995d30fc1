// Package triplet extracts knowledge-graph edges (head, relation, tail) from
// chunks, the second step of RARE-Get (RARE §4.2).
//
// This is the rule extractor for offline runs: the strict sentence split of
// processors/text (aware of Markdown, decimals, abbreviations and quotes),
// and a subject–verb–object pattern over a small part-of-speech lexicon of
// our own (verbs, function words), with the shapes of documentation prose
// on top (docprose.go: appositions that define a name, paths and addresses
// as values, "This package" standing for the one package a chunk presents).
// It prefers precision to recall: a sentence it cannot read confidently
// (negations, modals, conditionals, reported speech, pronoun subjects it
// cannot resolve) yields nothing.
//
// Guarantees, enforced by the "triplets" stage: the source sentence is a
// verbatim substring of its chunk and the tail a verbatim substring of the
// sentence; a triplet breaking either is rejected (docs/methods.md, Triplet
// extraction).
//
// It must not generate questions (processors/question), must not merge
// entities across documents (the knowledge-graph stage), must not call models,
// and must not import sources, sinks or other processors (processors/text,
// the shared text handling, excepted).
package triplet
