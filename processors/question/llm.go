package question

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
)

// GeneratorLLM is the Generator value of questions an LLMWriter wrote.
const GeneratorLLM = "llm"

// The errors of the LLM writer and scorer besides the generator's own
// (which keep their class: provider.ErrRateLimited, ErrUnavailable,
// ErrRejected, or a context error; retry the first two).
var (
	// ErrLLMOutput: the reply holds no usable JSON object, or lacks a
	// field, even after repair. Asking again with the same prompt at
	// temperature zero gives the same reply: drop the item and record why.
	ErrLLMOutput = errors.New("unusable LLM reply")
	// ErrQuestionRejected: the reply parsed, but the question fails a
	// check (no question mark, gives the answer away, names the pivot) or
	// the model declined with an empty question.
	ErrQuestionRejected = errors.New("LLM question rejected")
)

// Fact is one triplet a question is written from, with its evidence.
type Fact struct {
	Head, Relation, Tail, Sentence, ChunkID string
}

// The score keys of LLMScorer.Score, as recorded in Question.QAScores.
const (
	ScoreReasonableness = "llm_reasonableness"
	ScoreClarity        = "llm_clarity"
	ScoreCorrectness    = "llm_correctness"
)

// LLMKeepAbove is the quality bar of RARE §4.4: a pair is kept when every
// LLM score is above it.
const LLMKeepAbove = 3

// LLMKeep reports whether scores has all three LLM scores and every one is
// above LLMKeepAbove (RARE §4.4: "scores above 3 across all dimensions").
func LLMKeep(scores map[string]float64) bool {
	for _, k := range []string{ScoreReasonableness, ScoreClarity, ScoreCorrectness} {
		v, ok := scores[k]
		if !ok || !(v > LLMKeepAbove) {
			return false
		}
	}
	return true
}

// Token caps of the replies: one question, or three small numbers. Kept
// generous so that a model that explains itself first is not cut off.
const (
	writerMaxTokens = 512
	scorerMaxTokens = 256
)

// LLMWriter writes a question for a pattern's facts with a generator LLM.
// Replies that pass the checks are cached by prompt and generator, in a
// bounded LRU (provider.ResponseCache with its default bounds), so the
// same facts are not sent twice.
type LLMWriter struct {
	g     provider.Generator
	cache *provider.ResponseCache
}

// NewLLMWriter returns a writer asking g.
func NewLLMWriter(g provider.Generator) *LLMWriter {
	return &LLMWriter{g: g, cache: provider.NewResponseCache(0, 0)}
}

// llmPatternBrief is the pattern-specific part of the writer prompt;
// {pivot} stands for the entities the question must not name.
var llmPatternBrief = map[string]string{
	schemas.PatternSingle: "Single fact. Ask for the object of fact 1 (the answer), naming its subject and what the relation says about it.",
	schemas.PatternChain: "Chain: the object of each fact is the subject of the next. Start from the subject of fact 1 and ask for the answer at the end of the chain. " +
		"Do not name {pivot}: refer to it only through the fact that leads to it (for example \"the company that ...\").",
	schemas.PatternStar: "Star: every fact has the same subject, {pivot}. Ask for the answer, which one of the facts gives. " +
		"Do not name {pivot}: identify it through the other facts.",
	schemas.PatternInvertedStar: "Inverted star: every fact has the same object, {pivot}. Ask for the answer, which one of the facts gives. " +
		"Do not name {pivot}: identify it through the other facts.",
	schemas.PatternPath: "Path: the object of each fact is the subject of the next. Name only the subject of fact 1, " +
		"describe every later entity through the fact that leads to it, and ask for the answer at the end of the path. " +
		"Do not name {pivot}.",
}

// WriterPrompt returns the prompt of Write (exported for documentation and
// for tests that record replies).
func WriterPrompt(pattern string, facts []Fact, answer, pivot, period string) (string, error) {
	brief, ok := llmPatternBrief[pattern]
	if !ok {
		return "", fmt.Errorf("LLM question writer: unknown pattern %q", pattern)
	}
	if len(facts) == 0 || strings.TrimSpace(answer) == "" {
		return "", errors.New("LLM question writer: no facts or no answer")
	}
	hidden := llmHidden(pattern, facts, answer, pivot)
	name := "the linking entity"
	if len(hidden) > 0 {
		quoted := make([]string, len(hidden))
		for i, h := range hidden {
			quoted[i] = strconv.Quote(h)
		}
		name = strings.Join(quoted, " or ")
	}
	var b strings.Builder
	b.WriteString("You write questions for a benchmark that tests whether a retrieval system can find and combine facts from a collection of reports.\n\nFacts (subject | relation | object), each with the sentence it comes from:\n")
	for i, f := range facts {
		fmt.Fprintf(&b, "%d. %s | %s | %s\n   Sentence: %s\n", i+1, f.Head, f.Relation, f.Tail, f.Sentence)
	}
	fmt.Fprintf(&b, "\nAnswer: %s\n", answer)
	if period != "" {
		fmt.Fprintf(&b, "Time frame: %s\n", period)
	}
	fmt.Fprintf(&b, "Question type: %s\n\n", pattern)
	b.WriteString(strings.ReplaceAll(brief, "{pivot}", name))
	b.WriteString(`

Rules:
- The question has exactly the answer above, and no other answer.
- Do not write the answer, or any part of it, in the question.
- Be specific: name the company, product, place or period so that the question fits these reports and no others.`)
	if period != "" {
		fmt.Fprintf(&b, " Anchor it in the time frame (%s).", period)
	}
	b.WriteString(`
- Use only the facts above; add nothing from elsewhere.
- Write one natural question in English, ending with a question mark.

Reply with JSON only: {"question": "..."}. If no specific question with this answer can be written, reply {"question": ""}.
`)
	return b.String(), nil
}

// llmHidden are the entities the question must not name: for chain
// and path, the pivot and every intermediate entity (the subjects of the
// facts after the first); for star and inverted star, the pivot. The
// answer itself is checked apart.
func llmHidden(pattern string, facts []Fact, answer, pivot string) []string {
	var out []string
	add := func(e string) {
		e = strings.TrimSpace(e)
		if e == "" || Normalize(e) == Normalize(answer) {
			return
		}
		for _, x := range out {
			if Normalize(x) == Normalize(e) {
				return
			}
		}
		out = append(out, e)
	}
	switch pattern {
	case schemas.PatternSingle:
		return nil
	case schemas.PatternChain, schemas.PatternPath:
		add(pivot)
		for _, f := range facts[1:] {
			add(f.Head)
		}
	default:
		add(pivot)
	}
	return out
}

// Write asks for one question about facts whose answer is answer, shaped
// by pattern (schemas.PatternSingle, PatternChain, PatternStar,
// PatternInvertedStar, PatternPath); pivot is the linking entity (the
// shared one of a star) and period, when given, the time frame to anchor
// the question in ("April 2026"). The question is checked: it ends with a
// question mark, does not contain the answer (normalized word run, as the
// judge matches), and for multi-hop patterns names neither the pivot nor,
// for chain and path, an intermediate entity. Errors: the generator's
// (wrapped, class kept), ErrLLMOutput, ErrQuestionRejected.
func (w *LLMWriter) Write(ctx context.Context, pattern string, facts []Fact, answer, pivot, period string) (string, error) {
	prompt, err := WriterPrompt(pattern, facts, answer, pivot, period)
	if err != nil {
		return "", err
	}
	reply, cached, err := llmAsk(ctx, w.g, w.cache, prompt, writerMaxTokens)
	if err != nil {
		return "", fmt.Errorf("LLM question writer: %w", err)
	}
	q, err := llmReadQuestion(reply)
	if err != nil {
		return "", fmt.Errorf("LLM question writer: %w", err)
	}
	if err := llmCheckQuestion(q, answer, llmHidden(pattern, facts, answer, pivot)); err != nil {
		return "", fmt.Errorf("LLM question writer: %w", err)
	}
	if !cached {
		w.cache.Put(provider.CacheKey(w.g, provider.GenerateOptions{MaxTokens: writerMaxTokens}, prompt), reply)
	}
	return q, nil
}

// llmAsk returns the cached reply to prompt or asks g. The caller stores a
// reply once it proved usable, so a bad reply is not served again.
func llmAsk(ctx context.Context, g provider.Generator, cache *provider.ResponseCache, prompt string, maxTokens int) (reply string, cached bool, err error) {
	opts := provider.GenerateOptions{MaxTokens: maxTokens}
	if r, ok := cache.Get(provider.CacheKey(g, opts, prompt)); ok {
		return r, true, nil
	}
	r, err := g.Generate(ctx, prompt, opts)
	return r, false, err
}

func llmReadQuestion(reply string) (string, error) {
	obj, err := llmParseObject(reply)
	if err != nil {
		return "", err
	}
	raw, ok := obj["question"]
	if !ok {
		return "", fmt.Errorf("%w: no \"question\" field (%s)", ErrLLMOutput, provider.Excerpt(reply))
	}
	var q string
	if err := json.Unmarshal(raw, &q); err != nil {
		return "", fmt.Errorf("%w: \"question\" is not a string (%s)", ErrLLMOutput, provider.Excerpt(reply))
	}
	return strings.Join(strings.Fields(q), " "), nil
}

// llmCheckQuestion applies the checks of Write.
func llmCheckQuestion(q, answer string, hidden []string) error {
	switch {
	case q == "":
		return fmt.Errorf("%w: the model declined (empty question)", ErrQuestionRejected)
	case !strings.HasSuffix(q, "?"):
		return fmt.Errorf("%w: %q does not end with a question mark", ErrQuestionRejected, q)
	case ContainsAnswer(q, answer):
		return fmt.Errorf("%w: %q gives the answer %q away", ErrQuestionRejected, q, answer)
	}
	for _, h := range hidden {
		if ContainsAnswer(q, h) {
			return fmt.Errorf("%w: %q names %q, which it must refer to indirectly", ErrQuestionRejected, q, h)
		}
	}
	return nil
}

// LLMScorer scores a question–answer pair against its ground-truth chunks
// on RARE §4.4's three criteria with a generator LLM. Replies that parse
// are cached like the writer's.
type LLMScorer struct {
	g     provider.Generator
	cache *provider.ResponseCache
}

// NewLLMScorer returns a scorer asking g.
func NewLLMScorer(g provider.Generator) *LLMScorer {
	return &LLMScorer{g: g, cache: provider.NewResponseCache(0, 0)}
}

// ScorerPrompt returns the prompt of Score.
func ScorerPrompt(question, answer string, chunks []string) string {
	var b strings.Builder
	b.WriteString("You review question–answer pairs written for a benchmark of retrieval-augmented generation. Judge the pair against the source passages only.\n\nPassages:\n")
	for i, c := range chunks {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, strings.TrimSpace(c))
	}
	fmt.Fprintf(&b, "\nQuestion: %s\nAnswer: %s\n", question, answer)
	b.WriteString(`
Give each criterion a whole score from 1 (worst) to 5 (best):
- reasonableness: would someone working in this field plausibly ask this, and is every passage it draws on needed? 5: natural, every step needed. 3: sensible but contrived, or one passage answers it with assumptions. 1: nonsensical or irrelevant.
- clarity: is the question unambiguous, with a single answer, and is the answer stated plainly? 5: clear. 3: some vagueness, but the meaning can be recovered. 1: unclear or contradictory.
- correctness: is the answer right and fully supported by the passages? 5: fully supported, nothing missing. 3: partly supported, one slip. 1: contradicted or unsupported.

Reply with JSON only: {"reasonableness": <1-5>, "clarity": <1-5>, "correctness": <1-5>}
`)
	return b.String()
}

// Score returns the three scores of a pair, keyed ScoreReasonableness,
// ScoreClarity and ScoreCorrectness. The reply may nest them (under
// "dimension_scores" or "scores"), give them as strings ("4", "4/5"), or
// wrap the JSON in text and a code fence. A score within half a point
// outside 1–5 is clamped into it; further out, or missing, is an
// ErrLLMOutput error (a model scoring on 1–10 must not pass the bar by
// accident). Generator errors are wrapped with their class kept.
func (s *LLMScorer) Score(ctx context.Context, question, answer string, chunks []string) (map[string]float64, error) {
	prompt := ScorerPrompt(question, answer, chunks)
	reply, cached, err := llmAsk(ctx, s.g, s.cache, prompt, scorerMaxTokens)
	if err != nil {
		return nil, fmt.Errorf("LLM QA scorer: %w", err)
	}
	scores, err := llmReadScores(reply)
	if err != nil {
		return nil, fmt.Errorf("LLM QA scorer: %w", err)
	}
	if !cached {
		s.cache.Put(provider.CacheKey(s.g, provider.GenerateOptions{MaxTokens: scorerMaxTokens}, prompt), reply)
	}
	return scores, nil
}

func llmReadScores(reply string) (map[string]float64, error) {
	obj, err := llmParseObject(reply)
	if err != nil {
		return nil, err
	}
	fields := map[string]json.RawMessage{}
	for k, v := range obj {
		fields[provider.LooseKey(k)] = v
	}
	for _, nest := range []string{"dimensionscores", "scores"} {
		var inner map[string]json.RawMessage
		if raw, ok := fields[nest]; ok && json.Unmarshal(raw, &inner) == nil {
			for k, v := range inner {
				fields[provider.LooseKey(k)] = v
			}
		}
	}
	out := map[string]float64{}
	for key, name := range map[string]string{ScoreReasonableness: "reasonableness", ScoreClarity: "clarity", ScoreCorrectness: "correctness"} {
		raw, ok := fields[name]
		if !ok {
			return nil, fmt.Errorf("%w: no %s score (%s)", ErrLLMOutput, name, provider.Excerpt(reply))
		}
		v, ok := llmScoreValue(raw)
		if !ok {
			return nil, fmt.Errorf("%w: %s score %s is not a number (%s)", ErrLLMOutput, name, raw, provider.Excerpt(reply))
		}
		if v < 0.5 || v > 5.5 {
			return nil, fmt.Errorf("%w: %s score %g is not on the 1–5 scale (%s)", ErrLLMOutput, name, v, provider.Excerpt(reply))
		}
		out[key] = math.Min(5, math.Max(1, v))
	}
	return out, nil
}

// llmScoreValue reads 4, 4.5, "4", "4/5" or "4 out of 5".
func llmScoreValue(raw json.RawMessage) (float64, bool) {
	var v float64
	if json.Unmarshal(raw, &v) == nil {
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	m := llmLeadingNumber.FindString(strings.TrimSpace(s))
	if m == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(m, 64)
	return v, err == nil
}

var llmLeadingNumber = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?`)

// llmParseObject reads the JSON object of an LLM reply, repairing what models
// commonly get wrong: text and a Markdown code fence around it, a comma
// before a closing brace or bracket, typographic quotes around a key. (The
// triplet extractor's repair also handles arrays and cut-off replies; this
// one reads a single small object, which a cut-off cannot leave usable.)
func llmParseObject(reply string) (map[string]json.RawMessage, error) {
	s, _ := provider.Unfence(reply)
	s = provider.SmartKey.ReplaceAllString(s, `"$1"$2`)
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return nil, fmt.Errorf("%w: no JSON object in the reply (%s)", ErrLLMOutput, provider.Excerpt(reply))
	}
	clean, _, repairs := provider.ScanJSON(s[start:])
	if slices.Contains(repairs, provider.RepairTruncated) {
		return nil, fmt.Errorf("%w: the reply's JSON object is not closed (%s)", ErrLLMOutput, provider.Excerpt(reply))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(clean), &obj); err != nil {
		return nil, fmt.Errorf("%w: the reply's JSON is not valid after repair: %v (%s)", ErrLLMOutput, err, provider.Excerpt(reply))
	}
	return obj, nil
}
