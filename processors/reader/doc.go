// Package reader holds the judge of the models' answers and the "infer"
// stage, rs.eval.requests → rs.eval.results (docs/architecture.md, Stages;
// docs/methods.md, Answer matching and refusal detection, for the judge).
//
// The models under test are not here: they are provider.Model values from
// processors/provider, which holds the built-in lexical readers and, later,
// the clients of remote models, because other stages need the same
// providers and stage packages import no other stage package.
//
// The stage calls a Model with the request's query and contexts, judges the
// answer (Judge: a lexical matcher of processors/text plus refusal
// detection) and emits the result. The judge lives here because the infer
// stage is what judges, and stage packages import no other stage package.
// The package must not talk to remote providers itself: an
// OpenAI-compatible client is another provider.Model, with its own retries
// and rate limits in processors/provider. Judge is pure (no I/O, no clock,
// no randomness) and must stay lexical: embedding or LLM judges need
// providers and belong in a stage of their own.
package reader
