package perturb

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/robustream/robustream/schemas"
)

// SURE's LLM-made spurious features (§3.2, Appendix B): the generator
// rewrites a context in another readability style, writes it anew as an
// LLM-authored text, or puts its sentences in another coherent order. Like
// the rule kinds (spurious.go) each is made on the golden contexts and, as
// <kind>_noise, on the noise context, and compared with the same clean
// cell. Causal features are kept as for the rule kinds (a golden variant
// keeps an accepted answer, a noise variant gains none) and, since a
// rewrite may change what the text says, both directions of entailment are
// asked of the generator (docs/methods.md, SURE's LLM kinds).
const (
	// KindStyleSimple: basic words and short, simple sentences.
	KindStyleSimple = "style_simple"
	// KindStyleComplex: specialist vocabulary and a formal, academic tone.
	KindStyleComplex = "style_complex"
	// KindSourceLLM: the passage written anew by the generator, as a text
	// an LLM would author from the same facts.
	KindSourceLLM = "source_llm"
	// KindSourceSelf: the passage written anew by the model under test
	// itself, so the variant is per model: made by the producer stage of
	// self.go (SelfSourceKinds), one variant per model.
	KindSourceSelf = "source_self"
	// KindLogicLLMRerank: the passage's sentences, unchanged, in another
	// order that the generator finds logically coherent.
	KindLogicLLMRerank = "logic_llm_rerank"
	// DefaultSURELLMCells is SURELLMCells' default.
	DefaultSURELLMCells = 2
)

// SURELLMKinds are the SURE kinds the generator makes, in emission order.
var SURELLMKinds = []string{KindStyleSimple, KindStyleComplex, KindSourceLLM, KindLogicLLMRerank}

// SURELLMCells is how many of the eight (LLM kind, golden|noise) cells a
// question gets, chosen by a hash of its id as for the rule kinds (0: all).
// A cell costs generator calls (a rewrite and two entailment checks per
// context) on top of the requests to the models under test; two cells
// per question keep that to about six calls per context.
var SURELLMCells = DefaultSURELLMCells

var (
	// ErrNotEntailed: the rewrite and the context it was made from do not
	// entail each other, as the generator judges them; the rewrite may
	// have changed what the text says (SURE §3.4 keeps a pair only when
	// both directions are entailment).
	ErrNotEntailed = errors.New("not_entailed: the rewrite and its source do not entail each other")
	// ErrNoSelfModel is why source_self is skipped when no model under
	// test can rewrite a context (built-in readers and RAG services only):
	// the kinds of SpuriousLLMKinds stand in for SelfSourceKinds then.
	ErrNoSelfModel = errors.New("no model under test can rewrite its context (source_self needs a remote LLM under test; built-in readers and RAG services cannot)")
)

// SpuriousLLMKinds returns SURE's LLM kinds to register: each on the golden
// contexts and on the noise context, then source_self on both, skipped as
// ErrNoSelfModel: a line-up with a model that rewrites registers
// SelfSourceKinds in their place (the registry of cmd). All need the
// generator (source_self too: its checks ask the generator), so without
// one they are skipped and counted as needing it.
func SpuriousLLMKinds() []Kind {
	sure := []string{schemas.FamilySURE}
	var ks []Kind
	for _, name := range SURELLMKinds {
		for _, noise := range []bool{false, true} {
			ks = append(ks, Kind{Axis: schemas.AxisSpurious, Name: sureCell(name, noise), Families: sure, NeedsLLM: true,
				Make: func(_ *Perturber, in *Input) (Made, error) { return makeSURELLM(in, name, noise) }})
		}
	}
	for _, noise := range []bool{false, true} {
		ks = append(ks, Kind{Axis: schemas.AxisSpurious, Name: sureCell(KindSourceSelf, noise), Families: sure, NeedsLLM: true,
			Make: func(*Perturber, *Input) (Made, error) { return Made{}, ErrNoSelfModel }})
	}
	return ks
}

// sampledLLM reports whether an LLM cell is among the question's
// SURELLMCells.
func sampledLLM(questionID, cell string) bool {
	return sampledFrom(SURELLMKinds, SURELLMCells, questionID, cell)
}

// makeSURELLM makes the LLM kind's variant on the golden contexts or on the
// noise context: every context rewritten (a title line is kept as it is,
// so the variant differs from the clean cell by the body alone), then the
// string checks, then entailment, the only check that costs calls.
func makeSURELLM(in *Input, kind string, noise bool) (Made, error) {
	q := in.Question
	if !sampledLLM(q.QuestionID, sureCell(kind, noise)) {
		return Made{}, ErrNotSampled
	}
	return rewriteCell(in, noise, func(body string) (string, error) { return in.llm.rewriteSURE(in, kind, body) })
}

// rewriteCell makes a SURE LLM cell with rewrite: every golden context, or
// the noise context, rewritten body by body, then the string checks, then
// bidirectional entailment, asked of in's generator.
func rewriteCell(in *Input, noise bool, rewrite func(body string) (string, error)) (Made, error) {
	q := in.Question
	sources := q.GTChunks
	if noise {
		var err error
		if sources, err = NoiseContexts(q.GTChunks, in.Answers); err != nil {
			return Made{}, err
		}
	}
	if len(sources) == 0 {
		return Made{}, ErrEmptyContext
	}
	out := make([]string, len(sources))
	var pairs [][2]string // (source body, rewritten body) of every changed context
	for i, c := range sources {
		d := splitTitle(c)
		body, err := rewrite(d.Body)
		if err != nil && len(sources) > 1 && (errors.Is(err, ErrUnchanged) || errors.Is(err, ErrEmptyContext)) {
			// As for the rule kinds: one short (or title-only) context of
			// several stays plain, the others carry the feature.
			out[i] = d.plain()
			continue
		}
		if err != nil {
			return Made{}, err
		}
		out[i] = sureDoc{Title: d.Title, Body: body}.plain()
		pairs = append(pairs, [2]string{d.Body, body})
	}
	if len(pairs) == 0 {
		return Made{}, fmt.Errorf("%w: no context could be rewritten", ErrUnchanged)
	}
	covered := in.Answers.Covered(strings.Join(out, "\n"))
	switch {
	case !noise && !covered:
		return Made{}, ErrAnswerLost
	case noise && covered:
		return Made{}, ErrAnswerGained
	}
	for _, p := range pairs {
		if err := in.llm.equivalent(in, p[0], p[1]); err != nil {
			return Made{}, err
		}
	}
	return Made{Query: q.Question, Contexts: out, AnswerAvailable: !noise}, nil
}

// rewriteSURE returns body as kind presents it.
func (l *llm) rewriteSURE(in *Input, kind, body string) (string, error) {
	body = strings.TrimSpace(body)
	if body == "" {
		return "", ErrEmptyContext
	}
	if kind == KindLogicLLMRerank {
		return l.rerank(in, body)
	}
	var prompt string
	switch kind {
	case KindStyleSimple:
		prompt = StyleSimplePrompt(body)
	case KindStyleComplex:
		prompt = StyleComplexPrompt(body)
	case KindSourceLLM:
		prompt = SourceLLMPrompt(body)
	default:
		return "", fmt.Errorf("%w: %s", ErrUnknownKind, kind)
	}
	reply, err := l.ask(in.ctx, prompt, passageTokens(body))
	if err != nil {
		return "", err
	}
	r := dropPreamble(cleanReply(reply, false))
	switch {
	case r == "":
		return "", ErrGeneratorOutput
	case normalizeSpace(r) == normalizeSpace(body):
		return "", ErrUnchanged
	}
	return r, nil
}

// dropPreamble removes a line that introduces the rewrite rather than
// belonging to it ("Sure! Here is the passage in plain words:"): a short
// first line ending with a colon that speaks of the text itself, followed
// by more text. Such a line would otherwise become part of the variant's
// context. A passage's own line ending with a colon ("The board approved
// three measures:") names none of those words and stays.
func dropPreamble(s string) string {
	first, rest, ok := strings.Cut(s, "\n")
	first = strings.TrimSpace(first)
	if !ok || len(first) > 100 || !strings.HasSuffix(first, ":") || strings.TrimSpace(rest) == "" {
		return s
	}
	lower := strings.ToLower(first)
	for _, w := range []string{"here is", "here's", "passage", "rewrit", "version", "text"} {
		if strings.Contains(lower, w) {
			return cleanReply(rest, false)
		}
	}
	return s
}

// passageTokens is the reply budget of a rewritten passage: about a token
// per four characters, doubled for a wordier style, within bounds.
func passageTokens(body string) int { return min(max(len(body)/2, 512), 8192) }

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// rerank asks the generator for another coherent order of body's
// sentences, by their numbers, and puts the sentences, word for word, in
// that order: the variant holds exactly the source's sentences (as the
// rule logic kinds do), and the generator cannot alter one by the way.
func (l *llm) rerank(in *Input, body string) (string, error) {
	ss := BodySentences(body)
	if len(ss) < 2 {
		return "", fmt.Errorf("%w: fewer than two sentences to reorder", ErrUnchanged)
	}
	reply, err := l.ask(in.ctx, RerankPrompt(ss), 64+8*len(ss))
	if err != nil {
		return "", err
	}
	order, err := parseOrder(reply, len(ss))
	if err != nil {
		return "", err
	}
	out := make([]string, len(ss))
	for i, n := range order {
		out[i] = ss[n-1]
	}
	if slices.Equal(out, ss) {
		return "", fmt.Errorf("%w: the order is the same", ErrUnchanged)
	}
	reordered := strings.Join(out, "\n")
	got, want := BodySentences(reordered), slices.Clone(ss)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return "", ErrSentencesChanged // two sentences merge once reordered
	}
	return reordered, nil
}

// parseOrder reads a permutation of 1..n from a reply: the numbers in it,
// in order ("3, 1, 2", "Order: 3 1 2", "[3,1,2]"). Anything else — a
// number missing, repeated or out of range — is an unusable reply.
func parseOrder(reply string, n int) ([]int, error) {
	fields := strings.FieldsFunc(reply, func(r rune) bool { return !unicode.IsDigit(r) })
	if len(fields) != n {
		return nil, fmt.Errorf("%w: %d numbers for %d sentences", ErrGeneratorOutput, len(fields), n)
	}
	seen := make([]bool, n+1)
	order := make([]int, n)
	for i, f := range fields {
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 || k > n || seen[k] {
			return nil, fmt.Errorf("%w: %q is not an order of 1..%d", ErrGeneratorOutput, strings.TrimSpace(reply), n)
		}
		seen[k], order[i] = true, k
	}
	return order, nil
}

// equivalent asks the generator whether source entails rewrite and rewrite
// entails source (SURE's bidirectional entailment); either answer other
// than entailment rejects the rewrite. The replies are cached like the
// rewrites, so a rerun pays for neither.
func (l *llm) equivalent(in *Input, source, rewrite string) error {
	for _, dir := range [][2]string{{source, rewrite}, {rewrite, source}} {
		reply, err := l.ask(in.ctx, EntailmentPrompt(dir[0], dir[1]), 16)
		if err != nil {
			return err
		}
		switch nliLabel(reply) {
		case nliEntailment:
		case "":
			return fmt.Errorf("%w: no entailment label in %q", ErrGeneratorOutput, strings.TrimSpace(reply))
		default:
			return ErrNotEntailed
		}
	}
	return nil
}

const (
	nliEntailment    = "entailment"
	nliNeutral       = "neutral"
	nliContradiction = "contradiction"
)

// negatedEntailment is a reply that denies entailment in words ("not
// entailment", "no entailment", "non-entailment"): neutral, not the label
// it names.
var negatedEntailment = regexp.MustCompile(`\b(not|no|non)[\s-]+entail`)

// nliLabel is the label a reply gives: the first of the three labels in it
// (models add a period, quotes, or a sentence around the word), or "".
func nliLabel(reply string) string {
	r := strings.ToLower(reply)
	if negatedEntailment.MatchString(r) {
		return nliNeutral
	}
	best, at := "", len(r)+1
	for _, l := range []string{nliEntailment, nliNeutral, nliContradiction} {
		if i := strings.Index(r, l); i >= 0 && i < at {
			best, at = l, i
		}
	}
	return best
}

// passageRules are what every SURE rewrite must respect: the facts of the
// passage, all of them and no other.
const passageRules = "Rules:\n" +
	"- Keep every fact of the passage, and add none: no explanation, example or opinion of your own.\n" +
	"- Keep names, numbers, dates, amounts and units exactly as they are written.\n" +
	"- Reply with the rewritten passage alone: no title, no note, no quotes.\n"

// StyleSimplePrompt is style_simple's prompt for a passage.
func StyleSimplePrompt(passage string) string {
	var b strings.Builder
	b.WriteString("Rewrite the passage below so that a young reader or a beginner in English reads it easily: ")
	b.WriteString("everyday words instead of technical or rare ones, short sentences with one idea each, ")
	b.WriteString("and an active, direct voice.\n")
	b.WriteString(passageRules)
	fmt.Fprintf(&b, "\nPassage:\n%s\n", strings.TrimSpace(passage))
	return b.String()
}

// StyleComplexPrompt is style_complex's prompt for a passage.
func StyleComplexPrompt(passage string) string {
	var b strings.Builder
	b.WriteString("Rewrite the passage below as it would appear in a scholarly journal or a formal expert report: ")
	b.WriteString("specialist vocabulary, long sentences with subordinate clauses, and an impersonal, academic tone.\n")
	b.WriteString(passageRules)
	fmt.Fprintf(&b, "\nPassage:\n%s\n", strings.TrimSpace(passage))
	return b.String()
}

// SourceLLMPrompt is source_llm's prompt for a passage: the facts retold in
// the generator's own words and manner, so that the text reads as one an
// assistant wrote rather than a person.
func SourceLLMPrompt(passage string) string {
	var b strings.Builder
	b.WriteString("Read the passage below, then write your own text that conveys the same information, ")
	b.WriteString("in your usual words, structure and manner of writing, as you would if someone asked you to describe these facts. ")
	b.WriteString("Do not follow the passage's wording or sentence order.\n")
	b.WriteString(passageRules)
	fmt.Fprintf(&b, "\nPassage:\n%s\n", strings.TrimSpace(passage))
	return b.String()
}

// RerankPrompt is logic_llm_rerank's prompt: the numbered sentences, and a
// request for another order that still reads coherently.
func RerankPrompt(sentences []string) string {
	var b strings.Builder
	b.WriteString("The numbered sentences below make up a passage. Arrange them in a different order that still reads as a ")
	b.WriteString("logical, coherent passage (for instance the conclusion first, or grouped by topic), and not in the order given.\n")
	b.WriteString("Reply with the sentence numbers alone, in your order, separated by commas, each number exactly once.\n\n")
	for i, s := range sentences {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	return b.String()
}

// EntailmentPrompt is the natural-language-inference prompt of the
// bidirectional check: does premise entail hypothesis?
func EntailmentPrompt(premise, hypothesis string) string {
	var b strings.Builder
	b.WriteString("You judge whether one text follows from another.\n")
	b.WriteString("Text A and text B may differ in wording, style, format and sentence order; that does not matter. ")
	b.WriteString("Decide from what they state:\n")
	b.WriteString("- entailment: everything text B states is also stated or implied by text A;\n")
	b.WriteString("- contradiction: text B states something that text A rules out;\n")
	b.WriteString("- neutral: otherwise (text B states something that text A does not support).\n")
	b.WriteString("Reply with one word: entailment, neutral or contradiction.\n")
	fmt.Fprintf(&b, "\nText A:\n%s\n\nText B:\n%s\n", strings.TrimSpace(premise), strings.TrimSpace(hypothesis))
	return b.String()
}
