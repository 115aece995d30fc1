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
//     (Builtins, NewLexical) ship with the binary; OpenAI (NewOpenAI) asks
//     any OpenAI-compatible server (vLLM, SGLang, TGI, llama.cpp, Ollama,
//     OpenAI) through its chat or completions endpoint, coalescing
//     concurrent calls into batched completions requests when asked to;
//     RAGEndpoint (NewRAGEndpoint) asks a whole RAG service the question
//     alone and reads back its answer and retrieved contexts.
//   - Generator, an LLM that completes a prompt (OpenAI is one), for the
//     steps that need one:
//     triplet extraction (processors/triplet), question generation and
//     quality scoring (processors/question), the llm_grammar, llm_irrelevant
//     and back_translation perturbations (processors/perturb), and the LLM
//     judge.
//   - Embedder turns texts into vectors (OpenAI is one, through
//     {base_url}/embeddings): the retrieval difficulty D_r of
//     processors/question, the embedding-similarity judge, and the dense
//     Retrievers.
//   - Retriever returns the top-k passages for a query: the retrieval axis
//     of processors/perturb (RARE §3.3.4, each retriever's top-k).
//
// The remote clients classify every failure into one of three sentinels
// (httperr.go): ErrRateLimited (HTTP 429; the *CallError carries the
// server's Retry-After), ErrUnavailable (transport errors, timeouts, 408,
// 5xx, malformed replies: worth retrying) and ErrRejected (other 4xx: the
// same request will be refused again). Errors name the model and the
// endpoint, never a key or a header value. A client's dispatch limits
// (in flight, requests and tokens per second) are data it reports
// (Limits, LimitsOf), and its decoding parameters a string that goes into
// request ids (DecodingOf).
//
// What this package must not do: talk to Kafka, read or write events, or
// hold stage logic (prompts, judging, pairing). It imports nothing of this
// module but processors/text, and no stage package; processors/imports_test.go
// enforces both. It does not retry, and it does not pace calls: a client
// times out each call and classifies its failure, while retries (honouring
// Retry-After) and dispatch limits belong to the stage that calls it,
// which alone knows what a failed call means for a message (retry, dead
// letter, error result) and how many calls are waiting.
package provider
