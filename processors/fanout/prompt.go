package fanout

import (
	"fmt"
	"strings"

	"github.com/robustream/robustream/schemas"
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

// SURE asks for an extractive answer of at most five tokens and names its
// refusal NO-RES (SURE §3.5), so that SURE's Y(·) compares like with like.
const (
	sureInstructions = "Answer the question using only the numbered contexts below.\n" +
		"Copy the answer from the contexts: at most five words, nothing else.\n" +
		"If the contexts do not contain the answer, reply exactly: NO-RES\n"
	sureClosedBookInstructions = "Answer the question from your own knowledge.\n" +
		"Reply with the answer only: at most five words, nothing else.\n" +
		"If you do not know the answer, reply exactly: NO-RES\n"
)

// Prompt styles (Config.Prompt).
const (
	// StyleRARE asks for the shortest span or "no such info" (the default).
	StyleRARE = "rare"
	// StyleSURE asks for an extractive span of at most five tokens or
	// NO-RES.
	StyleSURE = "sure"
)

// Prompt renders the retrieval-augmented prompt in RARE's style:
// instructions, the contexts numbered from 1, then the question. With no
// contexts it renders the closed-book prompt instead, which does not
// mention contexts at all.
func Prompt(query string, contexts []string) string { return PromptIn(StyleRARE, query, contexts) }

// PromptIn renders the prompt in the given style (StyleRARE or StyleSURE;
// anything else is RARE's).
func PromptIn(style, query string, contexts []string) string {
	rag, closed := ragInstructions, closedBookInstructions
	if style == StyleSURE {
		rag, closed = sureInstructions, sureClosedBookInstructions
	}
	var b strings.Builder
	if len(contexts) == 0 {
		b.WriteString(closed)
	} else {
		b.WriteString(rag)
		for i, c := range contexts {
			fmt.Fprintf(&b, "\nContext [%d]:\n%s\n", i+1, strings.TrimSpace(c))
		}
	}
	fmt.Fprintf(&b, "\nQuestion: %s\nAnswer:", strings.TrimSpace(query))
	return b.String()
}

// StyleFor is the prompt style of a request on axis: SURE's spurious
// features are always asked in SURE's style (at most five words, or NO-RES;
// SURE Appendix D), whatever the configured style, because their original
// instances (the clean kinds, on the same axis) are too: Y(original) and
// Y(perturbed) must come from the same instruction. Every other axis,
// closed-book requests included, keeps the configured style.
func StyleFor(style, axis string) string {
	if axis == schemas.AxisSpurious {
		return StyleSURE
	}
	return style
}
