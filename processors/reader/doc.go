// Package reader holds the models under test that ship with the binary and
// runs the "infer" stage, rs.eval.requests → rs.eval.results (ARCHITECTURE
// §6 "builtin kind", §7 "Judge").
//
// The built-in model is a deterministic lexical extractive reader: it picks
// the context sentence that best overlaps the question and returns the part
// of it the question does not already say, or refuses with "no such info".
// It is a baseline, not an LLM, and is labelled so wherever it appears. It is
// deliberately not perfectly robust (typos and synonyms weaken its word
// overlap), so the robustness metrics have something to measure offline.
//
// The stage calls a Model with the request's query and contexts, judges the
// answer with package judge and emits the result. It must not talk to remote
// providers itself: an OpenAI-compatible client is another Model
// implementation, with its own retries and rate limits outside this package.
package reader
