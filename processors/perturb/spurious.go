package perturb

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"slices"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
)

// The rule-based spurious features of SURE (§3.2, Appendix B): the same
// facts presented differently. Each kind is made twice per question, on the
// question's golden contexts (the chunks that hold the answer) and on a
// noise context (related text that holds none), so SURE's Known/Unknown ×
// Golden/Noise split (§4.2, Table 1) has all four cells. Every kind starts
// from the same plain rendering of a context (its title line without
// markup, then its body); that rendering is also SURE's original instance
// (the clean kinds), so C = Y(original) − Y(perturbed) isolates the feature.
const (
	KindFormatJSON         = "format_json"
	KindFormatHTML         = "format_html"
	KindFormatYAML         = "format_yaml"
	KindFormatMarkdown     = "format_markdown"
	KindLogicReverse       = "logic_reverse"
	KindLogicRandom        = "logic_random"
	KindMetaTimestampPre   = "meta_timestamp_pre"
	KindMetaTimestampPost  = "meta_timestamp_post"
	KindMetaSourceWiki     = "meta_source_wiki"
	KindMetaSourceTwitter  = "meta_source_twitter"
	KindSUREClean          = "clean"
	SURENoiseSuffix        = "_noise"
	DefaultSURECells       = 4
	defaultKnowledgeCutoff = "2024-01-01"
)

// SUREKinds are the rule-based spurious kinds, in emission order.
var SUREKinds = []string{
	KindFormatJSON, KindFormatHTML, KindFormatYAML, KindFormatMarkdown,
	KindLogicReverse, KindLogicRandom,
	KindMetaTimestampPre, KindMetaTimestampPost, KindMetaSourceWiki, KindMetaSourceTwitter,
}

// KnowledgeCutoff is the model knowledge cut-off the timestamp kinds date
// their contexts against (SURE §3.2: "pre" and "post" are relative to it).
// One date for every model: the variant must be the same for all of them,
// so that their outcomes compare.
var KnowledgeCutoff = mustDate(defaultKnowledgeCutoff)

func mustDate(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Errors of the spurious kinds, counted by the stage as skip reasons.
var (
	// ErrNotSampled: the cell is outside the question's SURE sample (SURE
	// multiplies requests; SURECells caps them per question).
	ErrNotSampled = errors.New("outside the question's SURE sample")
	// ErrNoNoiseContext: nothing of the golden contexts is left once every
	// sentence holding an answer is removed, so there is no noise context.
	ErrNoNoiseContext = errors.New("no noise context (every sentence holds the answer)")
	// ErrAnswerGained: a perturbed noise context now holds an accepted
	// answer; SURE §3.4 discards it (the causal feature changed).
	ErrAnswerGained = errors.New("gained_answer: the perturbed noise context gained an accepted answer")
	// ErrSentencesChanged: the variant does not hold the sentences of the
	// context it was made from, each as often (a split or merge).
	ErrSentencesChanged = errors.New("the perturbation changed the context's sentences")
)

// SURECells is how many (kind, golden|noise) cells of the twenty a
// question gets, chosen by a hash of its id (0: all). With every cell a
// question would cost 22 requests per model instead of about 6; four cells
// (plus the two clean ones) keep `eval --once` on the demo feed within
// twice its time while each cell still gets a fifth of the questions.
var SURECells = DefaultSURECells

// SpuriousKinds returns the SURE kinds to register: the two clean cells,
// then each spurious kind on the golden contexts and on the noise context.
func SpuriousKinds() []Kind {
	sure := []string{schemas.FamilySURE}
	ks := []Kind{
		{Axis: schemas.AxisSpurious, Name: KindSUREClean, Families: sure, Make: func(_ *Perturber, in *Input) (Made, error) {
			return makeSURE(in, KindSUREClean, false)
		}},
		{Axis: schemas.AxisSpurious, Name: KindSUREClean + SURENoiseSuffix, Families: sure, Make: func(_ *Perturber, in *Input) (Made, error) {
			return makeSURE(in, KindSUREClean, true)
		}},
	}
	for _, name := range SUREKinds {
		for _, noise := range []bool{false, true} {
			slot := name
			if noise {
				slot += SURENoiseSuffix
			}
			ks = append(ks, Kind{Axis: schemas.AxisSpurious, Name: slot, Families: sure, Make: func(_ *Perturber, in *Input) (Made, error) {
				return makeSURE(in, name, noise)
			}})
		}
	}
	return ks
}

// sureCell names a sampled cell: the kind, with SURENoiseSuffix on the noise
// context.
func sureCell(kind string, noise bool) string {
	if noise {
		return kind + SURENoiseSuffix
	}
	return kind
}

// sampled reports whether cell is among the question's SURECells cells:
// those with the smallest hashes of (question id, cell), so the sample is
// the same on every run and independent of the order kinds are made in.
func sampled(questionID, cell string) bool {
	return sampledFrom(SUREKinds, SURECells, questionID, cell)
}

// sampledFrom reports whether cell is among the limit cells of pool (its
// kinds, each on golden and noise contexts) with the smallest hashes for
// the question; limit <= 0 samples them all. The rule kinds and the LLM
// kinds (spurious_llm.go) are sampled apart, each pool with its own cap,
// so that a generator's presence does not change which rule cells a
// question gets.
func sampledFrom(pool []string, limit int, questionID, cell string) bool {
	return sampledBy(pool, limit, cell, func(c string) uint64 { return cellHash(questionID, c) })
}

// sampledBy is sampledFrom with the question's cell hashes given by hash.
func sampledBy(pool []string, limit int, cell string, hash func(cell string) uint64) bool {
	if limit <= 0 || limit >= 2*len(pool) {
		return true
	}
	mine := hash(cell)
	smaller := 0
	for _, k := range pool {
		for _, noise := range []bool{false, true} {
			if c := sureCell(k, noise); c != cell && hash(c) < mine {
				smaller++
			}
		}
	}
	return smaller < limit
}

// anySampled reports whether any cell on this context type is sampled: the
// clean cell is only worth a request when some kind is compared with it.
// The LLM kinds' cells count when they can be made (withLLM: registered,
// and the stage has a generator), and so do source_self's (withSelf: its
// producer is registered, and the stage has a generator).
func anySampled(questionID string, noise, withLLM, withSelf bool) bool {
	return anySampledBy(func(c string) uint64 { return cellHash(questionID, c) }, noise, withLLM, withSelf)
}

// anySampledBy is anySampled with the question's cell hashes given by hash.
func anySampledBy(hash func(cell string) uint64, noise, withLLM, withSelf bool) bool {
	for _, k := range SUREKinds {
		if sampledBy(SUREKinds, SURECells, sureCell(k, noise), hash) {
			return true
		}
	}
	if withLLM {
		for _, k := range SURELLMKinds {
			if sampledBy(SURELLMKinds, SURELLMCells, sureCell(k, noise), hash) {
				return true
			}
		}
	}
	return withSelf && sampledBy(selfPool, SURELLMCells, sureCell(KindSourceSelf, noise), hash)
}

func cellHash(questionID, cell string) uint64 {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d:%s|sure|%s", len(questionID), questionID, cell)))
	return binary.BigEndian.Uint64(sum[:8])
}

// makeSURE makes the variant of kind on the golden contexts or on the noise
// context: the original query, the rendered contexts, and the causal checks
// of SURE §3.4 (a golden context keeps an accepted answer, a noise context
// gains none, and the sentences are those of the source).
func makeSURE(in *Input, kind string, noise bool) (Made, error) {
	q := in.Question
	if kind == KindSUREClean {
		if !anySampled(q.QuestionID, noise, in.sureLLM, in.selfSource) {
			return Made{}, ErrNotSampled
		}
	} else if !sampled(q.QuestionID, sureCell(kind, noise)) {
		return Made{}, ErrNotSampled
	}
	sources := q.GTChunks
	if noise {
		var err error
		if sources, err = NoiseContexts(q.GTChunks, in.Answers); err != nil {
			return Made{}, err
		}
	}
	out := make([]string, len(sources))
	changed := 0
	for i, c := range sources {
		d := splitTitle(c)
		r, err := renderSURE(kind, d, q.QuestionID, i)
		if err != nil && len(sources) > 1 && errors.Is(err, ErrUnchanged) {
			// One short context of several stays plain; the kind still
			// perturbs the others.
			r, err = d.plain(), nil
		} else if err == nil {
			changed++
		}
		if err != nil {
			return Made{}, err
		}
		out[i] = r
	}
	if changed == 0 {
		return Made{}, fmt.Errorf("%w: no context could be perturbed", ErrUnchanged)
	}
	covered := in.Answers.Covered(strings.Join(out, "\n"))
	switch {
	case !noise && !covered:
		return Made{}, ErrAnswerLost
	case noise && covered:
		return Made{}, ErrAnswerGained
	}
	return Made{Query: q.Question, Contexts: out, AnswerAvailable: !noise}, nil
}

// NoiseContexts returns the noise context of a question: its golden
// contexts with every sentence that holds an accepted answer removed. It is
// related text (the same document, the same entities and period) that
// holds no answer, which is what SURE's noise documents are (§4.2: the
// retrieved documents without a ground truth); the question carries no
// other chunk, and this one is the same on every run.
func NoiseContexts(golden []string, answers *text.Answers) ([]string, error) {
	out, err := removeAnswer(golden, answers)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoNoiseContext, err)
	}
	return out, nil
}

// sureDoc is a context split as SURE's templates take it: a title and a
// document.
type sureDoc struct {
	Title string
	Body  string
}

// splitTitle takes a leading Markdown heading line as the title; a context
// without one has no title.
func splitTitle(c string) sureDoc {
	c = strings.TrimSpace(c)
	first, rest, _ := strings.Cut(c, "\n")
	if t := strings.TrimSpace(first); strings.HasPrefix(t, "#") {
		return sureDoc{Title: strings.TrimSpace(strings.TrimLeft(t, "#")), Body: strings.TrimSpace(rest)}
	}
	return sureDoc{Body: c}
}

// plain is the clean rendering: the title on a line of its own, then the
// body.
func (d sureDoc) plain() string {
	if d.Title == "" {
		return d.Body
	}
	return d.Title + "\n\n" + d.Body
}

// BodySentences are the trimmed sentences of a body, as the causal check
// counts them.
func BodySentences(body string) []string {
	ss := text.Sentences(body, text.SentenceOptions{Layout: text.Wrapped})
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Text
	}
	return out
}

// renderSURE renders d as kind presents it; i is the context's index among
// the question's, for the seeded kinds.
func renderSURE(kind string, d sureDoc, questionID string, i int) (string, error) {
	switch kind {
	case KindSUREClean:
		return d.plain(), nil
	case KindFormatJSON:
		return formatJSON(d)
	case KindFormatHTML:
		return formatHTML(d, ""), nil
	case KindFormatYAML:
		return formatYAML(d)
	case KindFormatMarkdown:
		if d.Title == "" {
			// Without a title the Markdown template is the plain text.
			return "", fmt.Errorf("%w: no title to mark up", ErrUnchanged)
		}
		return "# " + d.Title + "\n\n" + d.Body, nil
	case KindLogicReverse, KindLogicRandom:
		return reorder(kind, d, questionID, i)
	case KindMetaTimestampPre, KindMetaTimestampPost:
		return formatHTML(d, metaLine("timestamp", timestamp(kind, questionID))), nil
	case KindMetaSourceWiki, KindMetaSourceTwitter:
		return formatHTML(d, metaLine("datasource", datasource(kind, d.Title, questionID))), nil
	}
	return "", fmt.Errorf("%w: %s", ErrUnknownKind, kind)
}

// formatJSON is SURE's JSON template: an object with "title" and "text".
// HTML characters are left as they are, so "&" and "<" stay readable.
func formatJSON(d sureDoc) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Title string `json:"title"`
		Text  string `json:"text"`
	}{d.Title, d.Body}); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// formatYAML is SURE's YAML template, Title and Text keys; a multi-line
// text is a literal block, so the document reads as it was.
func formatYAML(d sureDoc) (string, error) {
	b, err := yaml.Marshal(&struct {
		Title string `yaml:"Title"`
		Text  string `yaml:"Text"`
	}{d.Title, d.Body})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// formatHTML is SURE's HTML page: a UTF-8 meta (and the metadata kinds'
// meta line) and the title in the head, the document's paragraphs in the
// body. Text is escaped, as a page holds it.
func formatHTML(d sureDoc, meta string) string {
	var b strings.Builder
	b.WriteString("<html lang=\"en\">\n<head>\n  <meta charset=\"UTF-8\">\n")
	if meta != "" {
		b.WriteString("  " + meta + "\n")
	}
	if d.Title != "" {
		b.WriteString("  <title>" + escapeText.Replace(d.Title) + "</title>\n")
	}
	b.WriteString("</head>\n<body>\n")
	for _, p := range paragraphs(d.Body) {
		b.WriteString("<p>" + escapeText.Replace(p) + "</p>\n")
	}
	b.WriteString("</body>\n</html>")
	return b.String()
}

// escapeText escapes what HTML text must: quotes need no escaping outside
// attributes, and leaving them keeps "Acme's" as the reader sees it.
var escapeText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func metaLine(name, content string) string {
	return "<meta name=\"" + name + "\" content=\"" + html.EscapeString(content) + "\">"
}

// paragraphs splits a body at blank lines.
func paragraphs(body string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// timestamp dates a context before or after KnowledgeCutoff: 30 days to two
// years before it, or 30 days to a year after, chosen by the question's id
// so that every model sees the same date.
func timestamp(kind, questionID string) string {
	h := cellHash(questionID, kind)
	if kind == KindMetaTimestampPre {
		return KnowledgeCutoff.AddDate(0, 0, -30-int(h%700)).Format(time.DateOnly)
	}
	return KnowledgeCutoff.AddDate(0, 0, 30+int(h%335)).Format(time.DateOnly)
}

// datasource is a plausible URL on the kind's site: a Wikipedia article
// named after the title, or a post of an account named after its first
// words.
func datasource(kind, title, questionID string) string {
	if title == "" {
		title = "News"
	}
	if kind == KindMetaSourceWiki {
		return "https://en.wikipedia.org/wiki/" + strings.ReplaceAll(strings.Join(strings.Fields(title), "_"), "?", "%3F")
	}
	var handle strings.Builder
	for _, r := range title {
		if handle.Len() >= 12 {
			break
		}
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			handle.WriteRune(unicode.ToLower(r))
		}
	}
	id := cellHash(questionID, kind)%9e18 + 1e18 // a 19-digit post id
	return fmt.Sprintf("https://twitter.com/%snews/status/%d", handle.String(), id)
}

// reorder is the logic kinds (SURE §3.2): the body's sentences in reverse
// or in a seeded random order, one per line under the title; the sentences
// themselves are untouched, and the result is checked to split into the
// same sentences.
func reorder(kind string, d sureDoc, questionID string, i int) (string, error) {
	ss := BodySentences(d.Body)
	if len(ss) < 2 {
		return "", fmt.Errorf("%w: fewer than two sentences to reorder", ErrUnchanged)
	}
	out := slices.Clone(ss)
	if kind == KindLogicReverse {
		slices.Reverse(out)
	} else {
		r := NewRand(questionID, fmt.Sprintf("%s#%d", kind, i))
		for try := 0; try < 8 && slices.Equal(out, ss); try++ {
			r.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
		}
		if slices.Equal(out, ss) {
			out = append(out[1:], out[0]) // identical sentences throughout
		}
	}
	if slices.Equal(out, ss) {
		return "", fmt.Errorf("%w: the order is the same", ErrUnchanged)
	}
	body := strings.Join(out, "\n")
	got, want := BodySentences(body), slices.Clone(ss)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return "", ErrSentencesChanged
	}
	return sureDoc{Title: d.Title, Body: body}.plain(), nil
}

// InSample reports whether kind (a registered kind's name) is made for the
// question at all as far as SURE's sampling goes: a SURE cell only for the
// questions whose sample holds it (SURECells, SURELLMCells), a clean cell
// for those with any sampled cell on its context type; every other kind
// for every question. withGenerator says whether the kinds that need a
// generator can be made, which decides the clean cells' samples.
func InSample(kind, questionID string, withGenerator bool) bool {
	return SampleOf(questionID, withGenerator)(kind)
}

// SampleOf is InSample for one question and every kind, hashing each of
// its cells once (a report asks it of every question and kind).
func SampleOf(questionID string, withGenerator bool) func(kind string) bool {
	hashes := map[string]uint64{}
	hash := func(c string) uint64 {
		h, ok := hashes[c]
		if !ok {
			h = cellHash(questionID, c)
			hashes[c] = h
		}
		return h
	}
	return func(kind string) bool {
		noise := strings.HasSuffix(kind, SURENoiseSuffix)
		base := strings.TrimSuffix(kind, SURENoiseSuffix)
		switch {
		case base == KindSUREClean:
			return anySampledBy(hash, noise, withGenerator, withGenerator)
		case slices.Contains(SUREKinds, base):
			return sampledBy(SUREKinds, SURECells, kind, hash)
		case slices.Contains(SURELLMKinds, base):
			return sampledBy(SURELLMKinds, SURELLMCells, kind, hash)
		case base == KindSourceSelf:
			return sampledBy(selfPool, SURELLMCells, kind, hash)
		}
		return true
	}
}
