// Package provider holds the models and services the stages consume, each
// behind a narrow interface, so that a stage depends on what it asks of a
// provider and never on which one answers, and so that every stage that
// needs, say, a generator LLM gets the same one rather than its own copy.
//
// Stage packages may not import one another (processors/imports_test.go),
// which is why the providers cannot live in the first stage that needs
// them. The interfaces and who consumes them (docs/methods.md, the table of
// what is done today and what is planned):
//
//   - Model, a model under test, answers a question from contexts. The
//     infer stage (processors/reader) calls it. The built-in lexical readers
//     (Builtins, NewLexical) are the Models that ship with the binary; the
//     OpenAI-compatible and RAG-endpoint clients will be others.
//   - Generator, an LLM that completes a prompt, for the steps that need one:
//     triplet extraction (processors/triplet), question generation and
//     quality scoring (processors/question), the llm_grammar, llm_irrelevant
//     and back_translation perturbations (processors/perturb), and the LLM
//     judge.
//   - Embedder turns texts into vectors: the retrieval difficulty D_r of
//     processors/question, the embedding-similarity judge, and the dense
//     Retrievers.
//   - Retriever returns the top-k passages for a query: the retrieval axis
//     of processors/perturb (RARE §3.3.4, each retriever's top-k).
//
// What this package must not do: talk to Kafka, read or write events, or
// hold stage logic (prompts, judging, pairing). It imports nothing of this
// module but processors/text, and no stage package; processors/imports_test.go
// enforces both. Retries, rate limits and timeouts of remote providers
// belong to their implementations here; what a failed call means for a
// message (retry, dead letter, error result) is the stage's decision.
package provider
