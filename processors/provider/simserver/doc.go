// Package simserver is a simulated GPU inference server for tests and
// benchmarks: a real HTTP server on 127.0.0.1 that speaks the OpenAI protocol
// (chat completions, completions, embeddings, models) and reports vLLM's
// Prometheus gauges (or SGLang's, TGI's, llama.cpp server's, or none:
// Config.Metrics), so that the engine's clients and dispatcher can be
// tested against faults, crashes and saturation without a GPU.
//
// What it models is how a vLLM-like server spends its time, not what a model
// answers. At most Config.MaxNumSeqs sequences run at once (vLLM's
// max_num_seqs); the others wait in a FIFO queue. A running sequence holds
// its slot for its prefill (prompt tokens, cheaper when found in the prefix
// cache) plus its decode (output tokens drawn from a long-tailed
// distribution), slept for real, so that the server completes at most
// MaxNumSeqs / mean service time sequences per second, as a GPU with
// continuous batching does. Stats reports that capacity beside what was
// actually served, so "throughput as a share of capacity" measures how well a
// client keeps the server busy. The simplifications are written where they
// are made (the per-token costs do not depend on the batch, the prefix cache
// is separate from the memory of running sequences, tokens are counted
// approximately: CountTokens).
//
// It is not a model of answer quality. The default answerer parses the
// engine's prompt (contexts and question) and runs the built-in lexical
// reader of processors/provider on it, which makes the replies plausible and
// deterministic and nothing more. Benchmarks of quality need real models.
//
// Faults (server errors, hangs, bursts of 429s, truncated bodies, refusals,
// Kill and Restart) are injected from a seeded generator keyed by the prompt
// and how many times it was received before, so a run replays the same
// faults for the same prompts whatever the interleaving of concurrent
// requests; only the rate-limit bursts, which last a wall-clock period,
// depend on timing.
//
// What the package must not be: a dependency of production code. Only tests
// and benchmarks import it. Like every package under processors/ it imports
// nothing of this module but processors/provider and processors/text
// (processors/imports_test.go).
package simserver
