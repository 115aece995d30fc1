package provider

import (
	"context"
	"fmt"
)

// Model is a model under test: it answers a question from contexts (none for
// a closed-book request).
type Model interface {
	// ID is the model id recorded on requests and results.
	ID() string
	// Answer answers q. An error means the model could not answer at all
	// (timeout, transport, malformed output) and is retried by the runner;
	// a refusal is an Answer, not an error.
	Answer(ctx context.Context, q Query) (Answer, error)
}

// Query is what a model is asked: the question, its contexts (none for a
// closed-book request) and the prompt rendered from them. LLM endpoints
// send the prompt; extractive readers read the question and contexts, to
// which the prompt's instructions mean nothing; a RAG service gets the
// question alone and retrieves its own contexts.
type Query struct {
	Question string
	Contexts []string
	Prompt   string
	// System is the system message of the model's own prompt, "" for
	// none: a chat endpoint sends it as the system message, a completions
	// endpoint puts it before the prompt.
	System string
}

// Answer is a model's reply.
type Answer struct {
	// Text is the answer as the model gave it.
	Text string
	// TokensIn and TokensOut are the prompt and completion sizes, in the
	// model's own tokens (whitespace words for the built-ins).
	TokensIn, TokensOut int
	// Contexts are the passages a RAG service says it retrieved and
	// answered from; nil for models that are given their contexts.
	Contexts []string
	// ContextSources and ContextScores are the passages' sources and
	// retrieval scores where the service gives them: nil, or one per
	// passage of Contexts.
	ContextSources []string
	ContextScores  []float64
}

// RefusalText is the refusal our prompts ask for and the built-in readers
// give (RARE Table 2: "returning 'no such info'").
const RefusalText = "no such info"

// Ids of the built-in models.
const (
	// IDLexical is the lexical reader with the default threshold.
	IDLexical = "builtin:lexical"
	// IDLexicalStrict is the lexical reader with a higher threshold: it
	// refuses more and hallucinates less.
	IDLexicalStrict = "builtin:lexical-strict"
)

// StrictThreshold is the overlap threshold of IDLexicalStrict.
const StrictThreshold = 0.85

// Builtins returns the built-in models by id: IDLexical (threshold
// DefaultThreshold) and IDLexicalStrict (threshold StrictThreshold). Both
// are baselines.
func Builtins() map[string]Model {
	out := make(map[string]Model, 2)
	for id, th := range map[string]float64{IDLexical: DefaultThreshold, IDLexicalStrict: StrictThreshold} {
		m, err := NewLexical(id, LexicalOptions{Threshold: th})
		if err != nil {
			panic(fmt.Sprintf("provider: built-in %s: %v", id, err)) // constants above are valid
		}
		out[id] = m
	}
	return out
}

// IsBaseline reports whether m is a built-in baseline rather than a model
// under test proper, so that reports and the dashboard can label it as one
// wherever it appears (docs/methods.md, Fan-out and prompts).
func IsBaseline(m Model) bool {
	b, ok := m.(interface{ Baseline() bool })
	return ok && b.Baseline()
}
