package perturb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
)

// The LLM kinds (RARE §3.1 advanced query perturbations, §3.2 lexically
// different documents): made by the generator LLM of models.yaml, each with
// its own prompt (GrammarPrompt, IrrelevantPrompt, TranslatePrompt).
const (
	// KindLLMGrammar rewrites the query's grammar, keeping what it asks.
	KindLLMGrammar = "llm_grammar"
	// KindLLMIrrelevant adds information that has nothing to do with what
	// the query asks.
	KindLLMIrrelevant = "llm_irrelevant"
	// KindBackTranslation translates the ground-truth contexts to a pivot
	// language and back: other words, the same facts.
	KindBackTranslation = "back_translation"
)

// DefaultPivot is the language back-translation goes through. A language
// far enough from English that the words come back different, and one
// every general-purpose model translates well.
const DefaultPivot = "German"

// Why an LLM rewrite is refused. Each is a skip reason of its own
// (SkipReasons), so a generator that keeps leaking answers or dropping
// names shows as such.
var (
	// ErrEntityLost: a query rewrite drops a name or number of the
	// question: it no longer asks the same thing. Both kinds must keep
	// every entity the question needs (docs/methods.md, Query perturbations (RARE §3.1)).
	ErrEntityLost = errors.New("the rewrite drops a name or number the question needs")
	// ErrUnchanged: the rewrite is the text it was given.
	ErrUnchanged = errors.New("the rewrite left the text unchanged")
	// ErrAnswerLost: the back-translated contexts, or a SURE variant of
	// golden contexts, hold no accepted answer any more (a kind that keeps
	// the answer must keep it).
	ErrAnswerLost = errors.New("lost_answer: the perturbed context holds no accepted answer any more")
	// ErrGeneratorOutput: the reply is empty once cleaned. Asking again at
	// temperature zero gives the same reply, so it is a skip, not a retry.
	ErrGeneratorOutput = errors.New("unusable generator reply")
	// ErrGeneratorRefused: the generator refused the request itself
	// (provider.ErrRejected: a wrong model name or key, a prompt it will
	// not take). Retrying cannot help.
	ErrGeneratorRefused = errors.New("the generator refused the request")
)

// LLM kinds as registry entries. They are skipped, counted, with the reason
// "needs a generator", until the stage is given one (Stage.SetGenerator).
var (
	LLMGrammar = Kind{Axis: schemas.AxisQuery, Name: KindLLMGrammar, NeedsLLM: true, Families: rareOnly,
		Make: func(_ *Perturber, in *Input) (Made, error) {
			return in.llm.rewriteQuery(in, GrammarPrompt(in.Question.Question))
		}}
	LLMIrrelevant = Kind{Axis: schemas.AxisQuery, Name: KindLLMIrrelevant, NeedsLLM: true, Families: rareOnly,
		Make: func(_ *Perturber, in *Input) (Made, error) {
			return in.llm.rewriteQuery(in, IrrelevantPrompt(in.Question.Question))
		}}
	BackTranslation = Kind{Axis: schemas.AxisDocument, Name: KindBackTranslation, NeedsLLM: true, Families: rareOnly,
		Make: func(_ *Perturber, in *Input) (Made, error) { return in.llm.backTranslate(in) }}
)

// LLMKinds are the LLM kinds, in the order the registry lists them.
func LLMKinds() []Kind { return []Kind{LLMGrammar, LLMIrrelevant, BackTranslation} }

// ReplyCache keeps generator replies by provider.CacheKey. The engine
// gives the stage a provider.DiskCache, so that no reply is paid for twice,
// restarts included.
type ReplyCache interface {
	Get(key string) (string, bool)
	Put(key, value string) error
}

// queryMaxTokens caps a rewritten question: a question plus an added
// clause is well under a hundred tokens; the margin keeps a verbose model
// from being cut.
const queryMaxTokens = 256

// llm asks the generator for the LLM kinds' rewrites, through the cache.
type llm struct {
	g     provider.Generator
	cache ReplyCache
	pivot string
}

// generatorError is a generator failure worth retrying (rate limited,
// unavailable, timed out): the stage returns it from Process so that the
// runner's middleware retries the question, instead of skipping the kind.
type generatorError struct{ err error }

func (e *generatorError) Error() string { return "generator: " + e.err.Error() }
func (e *generatorError) Unwrap() error { return e.err }

// ask returns the reply to prompt, from the cache or the generator, at
// temperature zero so that the same prompt gives the same rewrite. A reply
// is cached as soon as it arrives, before any check: a refused rewrite is
// refused again from the cache, without paying for it again.
func (l *llm) ask(ctx context.Context, prompt string, maxTokens int) (string, error) {
	opts := provider.GenerateOptions{Temperature: 0, MaxTokens: maxTokens}
	key := provider.CacheKey(l.g, opts, prompt)
	if l.cache != nil {
		if r, ok := l.cache.Get(key); ok {
			return r, nil
		}
	}
	reply, err := l.g.Generate(ctx, prompt, opts)
	switch {
	case err == nil:
	case errors.Is(err, provider.ErrRejected):
		return "", fmt.Errorf("%w: %w", ErrGeneratorRefused, err)
	default:
		return "", &generatorError{err}
	}
	if l.cache != nil {
		// A cache that cannot write costs money on the next run, not
		// correctness now: the reply is used either way.
		_ = l.cache.Put(key, reply)
	}
	return reply, nil
}

// GrammarPrompt is the prompt of llm_grammar for question.
func GrammarPrompt(question string) string {
	var b strings.Builder
	b.WriteString("We test how well a question-answering system copes with questions written carelessly.\n")
	b.WriteString("Rewrite the question below as a hurried, non-native writer might type it: make its grammar wrong or clumsy ")
	b.WriteString("(word order, agreement, a dropped article or auxiliary, a wrong tense), while it still asks exactly the same thing.\n")
	b.WriteString("Rules:\n")
	b.WriteString("- Keep every name, number, date and amount exactly as written.\n")
	b.WriteString("- Do not answer the question, and add no fact of your own.\n")
	b.WriteString("- Reply with the rewritten question alone, on one line, without quotes.\n")
	fmt.Fprintf(&b, "\nQuestion: %s\n", strings.TrimSpace(question))
	return b.String()
}

// IrrelevantPrompt is the prompt of llm_irrelevant for question.
func IrrelevantPrompt(question string) string {
	var b strings.Builder
	b.WriteString("We test how well a question-answering system copes with questions that carry noise.\n")
	b.WriteString("Rewrite the question below with one or two pieces of information added that have nothing to do with what it asks ")
	b.WriteString("(why the writer is asking, a remark about their day, a detail about something unrelated), so that it is longer ")
	b.WriteString("but asks exactly the same thing.\n")
	b.WriteString("Rules:\n")
	b.WriteString("- Keep every name, number, date and amount of the question exactly as written.\n")
	b.WriteString("- The added information must not answer the question or hint at the answer.\n")
	b.WriteString("- Reply with the rewritten question alone, on one line, without quotes.\n")
	fmt.Fprintf(&b, "\nQuestion: %s\n", strings.TrimSpace(question))
	return b.String()
}

// TranslatePrompt is the prompt of one leg of back_translation: passage,
// written in from, translated into to.
func TranslatePrompt(passage, from, to string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Translate the %s passage below into %s.\n", from, to)
	b.WriteString("Translate every sentence, leaving nothing out and adding nothing. ")
	b.WriteString("Keep names, numbers, dates, amounts and units as they are written.\n")
	b.WriteString("Reply with the translation alone.\n")
	fmt.Fprintf(&b, "\nPassage:\n%s\n", strings.TrimSpace(passage))
	return b.String()
}

// rewriteQuery asks for a query rewrite and checks it: not empty, not the
// question itself, every name and number kept, and no accepted answer the
// question did not already hold. Its contexts are the ground-truth ones.
func (l *llm) rewriteQuery(in *Input, prompt string) (Made, error) {
	reply, err := l.ask(in.ctx, prompt, queryMaxTokens)
	if err != nil {
		return Made{}, err
	}
	q := cleanReply(reply, true)
	orig := in.Question.Question
	switch {
	case q == "":
		return Made{}, ErrGeneratorOutput
	case text.Normalize(q) == text.Normalize(orig):
		return Made{}, ErrUnchanged
	case in.Answers.TokenSeq(q) && !in.words.hasAnswer():
		return Made{}, ErrAnswerLeak
	}
	if missing := missingEntities(orig, q); len(missing) > 0 {
		return Made{}, fmt.Errorf("%w: %s", ErrEntityLost, strings.Join(missing, ", "))
	}
	return Made{Query: q, Contexts: in.Question.GTChunks, AnswerAvailable: true}, nil
}

// backTranslate sends every ground-truth context to the pivot language and
// back, and keeps the result only when an accepted answer survives. A
// question whose contexts hold no answer to begin with costs no call.
func (l *llm) backTranslate(in *Input) (Made, error) {
	ctxs := in.Question.GTChunks
	if len(ctxs) == 0 {
		return Made{}, ErrEmptyContext
	}
	if !in.Answers.Covered(strings.Join(ctxs, "\n")) {
		return Made{}, ErrAnswerNotFound
	}
	out := make([]string, 0, len(ctxs))
	for _, c := range ctxs {
		// The budget grows with the passage: about a token per four
		// characters, doubled for a wordier language, within bounds.
		tokens := min(max(len(c)/2, 512), 8192)
		there, err := l.ask(in.ctx, TranslatePrompt(c, "English", l.pivot), tokens)
		if err != nil {
			return Made{}, err
		}
		if there = cleanReply(there, false); there == "" {
			return Made{}, ErrGeneratorOutput
		}
		back, err := l.ask(in.ctx, TranslatePrompt(there, l.pivot, "English"), tokens)
		if err != nil {
			return Made{}, err
		}
		if back = cleanReply(back, false); back == "" {
			return Made{}, ErrGeneratorOutput
		}
		out = append(out, back)
	}
	if slices.Equal(out, ctxs) {
		return Made{}, ErrUnchanged
	}
	if !in.Answers.Covered(strings.Join(out, "\n")) {
		return Made{}, ErrAnswerLost
	}
	return Made{Query: in.Question.Question, Contexts: out, AnswerAvailable: true}, nil
}

// cleanReply strips what models wrap a rewrite in: a code fence, a label
// ("Rewritten question:"), surrounding quotes. oneLine keeps the first
// non-empty line only (a question; models sometimes add a note after it).
func cleanReply(s string, oneLine bool) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:] // the fence's language tag
		}
		if i := strings.LastIndex(s, "```"); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
	}
	if oneLine {
		for _, line := range strings.Split(s, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				s = line
				break
			}
		}
		if i := strings.Index(s, ":"); i > 0 && i < 30 && !strings.ContainsFunc(s[:i], unicode.IsDigit) &&
			strings.Contains(strings.ToLower(s[:i]), "question") {
			s = strings.TrimSpace(s[i+1:])
		}
	}
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}} {
		if len(s) >= 2 && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			s = strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
		}
	}
	return s
}

// missingEntities returns the names and numbers of question absent from
// rewrite: the words with a digit, and the capitalized words after the
// first (names; the first word of a question is capitalized anyway).
// Words are compared by their normalized tokens, so "Acme's" keeps "Acme"
// and "4.2" keeps "$4.2".
func missingEntities(question, rewrite string) []string {
	have := map[string]bool{}
	for _, t := range text.Tokens(rewrite) {
		// Normalize drops the apostrophe of a possessive ("Acme's" is
		// "acmes"): the name without the s counts as kept.
		have[t], have[strings.TrimSuffix(t, "s")] = true, true
	}
	var missing []string
	for i, w := range strings.Fields(question) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if w == "" || !(hasDigit(w) || (i > 0 && unicode.IsUpper([]rune(w)[0]))) {
			continue
		}
		for _, t := range text.Tokens(w) {
			if !have[t] {
				missing = append(missing, w)
				break
			}
		}
	}
	return missing
}
