// Package reader holds the judge of the models' answers and the "infer"
// stage, rs.eval.requests → rs.eval.results (docs/architecture.md, Stages;
// docs/methods.md, Answer matching and refusal detection, for the judge).
//
// The models under test are not here: they are provider.Model values from
// processors/provider, which holds the built-in lexical readers and, later,
// the clients of remote models, because other stages need the same
// providers and stage packages import no other stage package.
//
// The stage calls a Model with the request's question, contexts and
// prompt, judges the answer (Judge: a lexical matcher of processors/text
// plus refusal detection) and emits the result. The judge lives here
// because the infer stage is what judges, and stage packages import no
// other stage package.
//
// Each model is called through its own dispatcher (dispatch.go): token
// buckets for requests and tokens per second, a circuit breaker per
// endpoint, and an in-flight window (gate.go) that a freed slot passes on
// at once, sized automatically from the server's own queue when the model
// reports it, and that sends requests sharing their contexts one after
// another for the server's prefix cache. Answers are kept by request id
// (cache.go) and written to the stage's changelog, so that no answered
// prompt is sent twice. Retries with backoff are the runner's (streams
// middleware), so one retry policy, configured per stage, covers every
// model. The HTTP clients themselves are providers (processors/provider):
// this package never speaks a wire protocol. Judge is pure (no I/O, no
// clock, no randomness) and must stay lexical: embedding or LLM judges
// need providers and are wired around it.
package reader
