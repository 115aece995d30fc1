package simserver

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/robustream/robustream/processors/provider"
)

// newAnswerer returns the default answerer: the built-in lexical reader
// (provider.IDLexical) on the contexts and question parsed out of the
// engine's prompt. A prompt without contexts (closed book, or not in the
// engine's format) gets provider.RefusalText: the reader knows nothing of
// its own.
func newAnswerer() func(prompt string) string {
	reader, err := provider.NewLexical(provider.IDLexical, provider.LexicalOptions{})
	if err != nil {
		panic(fmt.Sprintf("simserver: the built-in reader: %v", err)) // its defaults are valid
	}
	return func(prompt string) string {
		question, contexts := parsePrompt(prompt)
		if len(contexts) == 0 || question == "" {
			return provider.RefusalText
		}
		a, err := reader.Answer(context.Background(), provider.Query{Question: question, Contexts: contexts, Prompt: prompt})
		if err != nil || strings.TrimSpace(a.Text) == "" {
			return provider.RefusalText // the reader fails only on a cancelled context
		}
		return a.Text
	}
}

// contextHeader is the line that opens a numbered context in the engine's
// prompt (processors/fanout, Prompt): "Context [n]:".
var contextHeader = regexp.MustCompile(`(?m)^Context \[\d+\]:[ \t]*\r?$`)

// parsePrompt reads the engine's prompt: the contexts are the texts after
// each "Context [n]:" line, the question the text after the last
// "Question:" line up to "Answer:". The instructions before the first
// context are skipped. A prompt without a "Question:" line is all
// question, with no context.
func parsePrompt(prompt string) (question string, contexts []string) {
	at := strings.LastIndex(prompt, "\nQuestion:") + 1 // past the newline
	if at == 0 && !strings.HasPrefix(prompt, "Question:") {
		return strings.TrimSpace(prompt), nil
	}
	body, tail := prompt[:at], prompt[at+len("Question:"):]
	if end := strings.LastIndex(tail, "\nAnswer:"); end >= 0 {
		tail = tail[:end]
	}
	question = strings.TrimSpace(tail)
	heads := contextHeader.FindAllStringIndex(body, -1)
	for i, h := range heads {
		end := len(body)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		if c := strings.TrimSpace(body[h[1]:end]); c != "" {
			contexts = append(contexts, c)
		}
	}
	return question, contexts
}
