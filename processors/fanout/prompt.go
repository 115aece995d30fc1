package fanout

import (
	"errors"
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

// Template is a model's own prompt (models.yaml, prompt: of an openai
// entry): a system part and user parts in which {context} stands for the
// numbered contexts and {question} for the query. A part left empty takes
// the default of the request's style (RARE's, or SURE's on the spurious
// axis): no system message, the built-in retrieval-augmented prompt for
// User, the built-in closed-book prompt for ClosedBook. System, when set,
// goes with every request of the model, closed-book ones included. The
// judge still recognises "no such info" and NO-RES as refusals, so a
// template that names another refusal has its refusals judged as wrong
// answers.
type Template struct {
	System     string `yaml:"system" json:"system,omitempty"`
	User       string `yaml:"user" json:"user,omitempty"`
	ClosedBook string `yaml:"closed_book" json:"closed_book,omitempty"`
}

// Template placeholders.
const (
	PlaceholderContext  = "context"
	PlaceholderQuestion = "question"
)

// IsZero reports whether t sets nothing (the built-in prompts).
func (t Template) IsZero() bool { return t.System == "" && t.User == "" && t.ClosedBook == "" }

// Check reports every problem of t, each naming its key: an unknown
// placeholder, a user part without {question} or with {context} nowhere, a
// closed-book part without {question} or with {context} (a closed-book
// request has no contexts), a system part with placeholders beside the
// default user part (the contexts and the question would be sent twice).
func (t Template) Check() error {
	var errs []error
	parts := []struct{ key, text string }{{"system", t.System}, {"user", t.User}, {"closed_book", t.ClosedBook}}
	has := map[string]map[string]bool{}
	for _, p := range parts {
		has[p.key] = map[string]bool{}
		for _, name := range placeholders(p.text) {
			switch name {
			case PlaceholderContext, PlaceholderQuestion:
				has[p.key][name] = true
			default:
				errs = append(errs, fmt.Errorf("prompt.%s: unknown placeholder {%s} (the placeholders are {context} and {question})", p.key, name))
			}
		}
	}
	if t.IsZero() {
		errs = append(errs, errors.New("prompt: empty (give system, user or closed_book, or leave prompt out for the built-in prompts)"))
	}
	if t.User != "" {
		if !has["user"][PlaceholderQuestion] {
			errs = append(errs, errors.New("prompt.user: has no {question}"))
		}
		if !has["user"][PlaceholderContext] && !has["system"][PlaceholderContext] {
			errs = append(errs, errors.New("prompt.user: has no {context} (nor has prompt.system): the model would never see the passages"))
		}
	} else if has["system"][PlaceholderContext] || has["system"][PlaceholderQuestion] {
		errs = append(errs, errors.New("prompt.system: {context} and {question} need prompt.user set (the built-in user prompt already holds both)"))
	}
	if t.ClosedBook != "" {
		if !has["closed_book"][PlaceholderQuestion] {
			errs = append(errs, errors.New("prompt.closed_book: has no {question}"))
		}
		if has["closed_book"][PlaceholderContext] {
			errs = append(errs, errors.New("prompt.closed_book: has {context}, but a closed-book request has no contexts"))
		}
	}
	return errors.Join(errs...)
}

// placeholders lists the {name} of s whose name is a word (letters, digits,
// underscores, not starting with a digit); other braces are text (a JSON
// example in a prompt, say).
func placeholders(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		if n := wordAt(s, i+1); n > 0 && i+1+n < len(s) && s[i+1+n] == '}' {
			out = append(out, s[i+1:i+1+n])
			i += n + 1
		}
	}
	return out
}

// wordAt is the length of the placeholder name starting at s[i] (0: none).
func wordAt(s string, i int) int {
	n := 0
	for ; i+n < len(s); n++ {
		c := s[i+n]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && !(n > 0 && c >= '0' && c <= '9') {
			break
		}
	}
	return n
}

// fill replaces {context} and {question} in s in one pass, so that a
// context that itself holds "{question}" stays as it is.
func fill(s, context, question string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '{' {
			if n := wordAt(s, i+1); n > 0 && i+1+n < len(s) && s[i+1+n] == '}' {
				switch s[i+1 : i+1+n] {
				case PlaceholderContext:
					b.WriteString(context)
					i += n + 1
					continue
				case PlaceholderQuestion:
					b.WriteString(question)
					i += n + 1
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// numbered renders contexts as the built-in prompt does: "Context [1]:"
// and the passage, blocks separated by a blank line.
func numbered(contexts []string) string {
	blocks := make([]string, len(contexts))
	for i, c := range contexts {
		blocks[i] = fmt.Sprintf("Context [%d]:\n%s", i+1, strings.TrimSpace(c))
	}
	return strings.Join(blocks, "\n\n")
}

// Render renders a request's prompt under t in style: the system message
// ("" for none) and the user prompt. A request without contexts is
// closed-book. The zero Template renders PromptIn's prompt and no system
// message.
func (t Template) Render(style, query string, contexts []string) (system, user string) {
	query = strings.TrimSpace(query)
	ctx := numbered(contexts)
	system = fill(t.System, ctx, query)
	switch {
	case len(contexts) == 0 && t.ClosedBook != "":
		user = fill(t.ClosedBook, "", query)
	case len(contexts) > 0 && t.User != "":
		user = fill(t.User, ctx, query)
	default:
		user = PromptIn(style, query, contexts)
	}
	return system, user
}
