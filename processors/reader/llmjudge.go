package reader

import (
	"context"
	"fmt"
	"strings"

	"github.com/robustream/robustream/processors/provider"
)

// MethodLLM is the judge method of a verdict the LLM judge turned to
// correct.
const MethodLLM = "llm"

// llmJudgePrompt asks the generator whether a candidate answer says the
// same as the reference. It asks for one word so that the reply can be
// read without a parser of free text.
const llmJudgePrompt = `You grade answers to questions about documents.
Question: %s
Reference answer: %s
Candidate answer: %s
Does the candidate answer give the same fact as the reference answer? Numbers, dates and names must agree; extra words are fine; a different or partial fact is not.
Reply with one word: yes or no.`

// llmJudge asks the generator whether answer states one of the accepted
// answers. A reply that is neither yes nor no leaves the verdict as it was
// (ok false) rather than guess.
func llmJudge(ctx context.Context, g provider.Generator, question, answer string, accepted []string) (ok bool, err error) {
	reply, err := g.Generate(ctx, fmt.Sprintf(llmJudgePrompt, question, strings.Join(accepted, " / "), answer), provider.GenerateOptions{MaxTokens: 3})
	if err != nil {
		return false, fmt.Errorf("LLM judge: %w", err)
	}
	word := strings.ToLower(strings.Trim(strings.TrimSpace(reply), ".!\"' "))
	if f := strings.Fields(word); len(f) > 0 {
		word = strings.Trim(f[0], ".,!\"'")
	}
	return word == "yes", nil
}
