package fanout

import (
	"fmt"
	"strings"
)

// The prompts ask for a short span, because the judge matches spans, and
// name the refusal "no such info", because RARE's judge f (Table 2) rewards
// exactly that refusal when the context lacks the answer.
const (
	ragInstructions = "Answer the question using only the numbered contexts below.\n" +
		"Reply with the shortest span of text that answers it, nothing else.\n" +
		"If the contexts do not contain the answer, reply exactly: no such info\n"
	closedBookInstructions = "Answer the question from your own knowledge.\n" +
		"Reply with the shortest span of text that answers it, nothing else.\n" +
		"If you do not know the answer, reply exactly: no such info\n"
)

// Prompt renders the retrieval-augmented prompt: instructions, the contexts
// numbered from 1, then the question. With no contexts it renders the
// closed-book prompt instead, which does not mention contexts at all.
func Prompt(query string, contexts []string) string {
	var b strings.Builder
	if len(contexts) == 0 {
		b.WriteString(closedBookInstructions)
	} else {
		b.WriteString(ragInstructions)
		for i, c := range contexts {
			fmt.Fprintf(&b, "\nContext [%d]:\n%s\n", i+1, strings.TrimSpace(c))
		}
	}
	fmt.Fprintf(&b, "\nQuestion: %s\nAnswer:", strings.TrimSpace(query))
	return b.String()
}
