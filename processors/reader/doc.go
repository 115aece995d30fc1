// Package reader holds the models under test that ship with the binary, the
// judge of their answers, and the "infer" stage, rs.eval.requests →
// rs.eval.results (docs/architecture.md, Stages; docs/methods.md, Fan-out and
// prompts, for the built-in models; docs/methods.md, Answer matching and
// refusal detection, for the judge).
//
// The built-in model is a deterministic lexical extractive reader: it picks
// the context sentence that best overlaps the question and returns the part
// of it the question does not already say, or refuses with "no such info".
// It is a baseline, not an LLM, and is labelled so wherever it appears. It is
// deliberately not perfectly robust (typos and synonyms weaken its word
// overlap), so the robustness metrics have something to measure offline.
//
// The stage calls a Model with the request's query and contexts, judges the
// answer (Judge: a lexical matcher of processors/text plus refusal
// detection) and emits the result. The judge lives here because the infer
// stage is what judges, and stage packages import no other stage package.
// The package must not talk to remote providers itself: an
// OpenAI-compatible client is another Model implementation, with its own
// retries and rate limits outside this package. Judge is pure (no I/O, no
// clock, no randomness) and must stay lexical: embedding or LLM judges need
// providers and belong in a stage of their own.
package reader
