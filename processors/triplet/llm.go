package triplet

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// The Extractor values of the LLM path: ExtractorLLM marks a triplet the
// generator LLM extracted; ExtractorBoth is the stage setting that runs
// both extractors on every chunk.
const (
	ExtractorLLM  = "llm"
	ExtractorBoth = "both"
)

// ErrLLMOutput is wrapped by the errors of an LLM reply that holds no
// usable JSON array, even after repair. Asking again with the same prompt
// at temperature zero gives the same reply, so the stage dead-letters the
// chunk (streams.Permanent) with the reason.
var ErrLLMOutput = errors.New("unusable LLM reply")

// llmMaxTokens caps an extraction reply: 20 facts with their sentences
// take about 1,500 tokens; the margin keeps a verbose model from being cut
// off (a cut reply is repaired, losing its last fact).
const llmMaxTokens = 4096

// LLMTriple is one fact the LLM extracted and validation accepted. Tail and
// Sentence are verbatim substrings of Sentence and of the chunk (ChunkID)
// respectively; Head and Relation are the model's words.
type LLMTriple struct {
	Head, Relation, Tail string
	ChunkID              string
	Sentence             string
	// Kind is "table" for a fact of a table chunk, "copula" for a bare
	// form of "to be" ("is", "was"), otherwise "verb".
	Kind string
}

// Rejection is an object of the reply that validation refused.
type Rejection struct {
	// Index is the object's position in the reply's array, from 0.
	Index int
	// Reason is one of the Reject* values; Detail says more.
	Reason, Detail string
}

// The reasons of a Rejection.
const (
	RejectNotObject    = "not an object"
	RejectMissingField = "missing field"
	RejectUnknownChunk = "unknown chunk id"
	RejectContextChunk = "context chunk"
	RejectNotVerbatim  = "sentence not verbatim"
	RejectTailMissing  = "entity_2 not in sentence"
	RejectDuplicate    = "duplicate"
)

// LLMResult is what one extraction call yielded.
type LLMResult struct {
	Triples  []LLMTriple
	Rejected []Rejection
	// Repairs lists what had to be fixed to read the reply ("code fence",
	// "trailing comma", "truncated", "wrapped in an object", "smart
	// quotes", "surrounding text"); empty for clean JSON.
	Repairs []string
	// Cached is true when the reply came from the cache, not the LLM.
	Cached bool
}

// LLMExtractor extracts triplets with a generator LLM, our prompt (see
// Prompt), and validates every fact against the chunk text. Replies that
// parse are kept in a bounded cache keyed by the prompt and the generator
// (provider.CacheKey), so an unchanged window is not sent twice.
type LLMExtractor struct {
	g     provider.Generator
	cache *provider.ResponseCache
}

// NewLLMExtractor returns an extractor asking g, with its own cache of
// the default bounds (provider.DefaultCacheEntries replies,
// provider.DefaultCacheBytes bytes).
func NewLLMExtractor(g provider.Generator) *LLMExtractor {
	return NewLLMExtractorCache(g, provider.NewResponseCache(0, 0))
}

// NewLLMExtractorCache returns an extractor asking g and caching in cache
// (shared, say, across SetGenerator calls; nil: no cache).
func NewLLMExtractorCache(g provider.Generator, cache *provider.ResponseCache) *LLMExtractor {
	return &LLMExtractor{g: g, cache: cache}
}

// label is how chunk i (from 0) of a window is named in the prompt. Short
// labels are copied back more reliably than 32-hex chunk ids and cost a
// few tokens instead of a dozen; the reply may use either.
func label(i int) string { return "c" + strconv.Itoa(i+1) }

// Prompt returns the extraction prompt for target with the chunks before
// it (oldest first, same document) as context. Only target's facts are
// asked for: the context is there to name things ("the company" of the
// target is the one an earlier chunk named), so that every fact is
// attributed to exactly one chunk and no output is spent on facts another
// window will extract.
func Prompt(before []schemas.Chunk, target schemas.Chunk) string {
	var b strings.Builder
	t := label(len(before))
	b.WriteString("You turn company and industry reports into a knowledge graph. ")
	fmt.Fprintf(&b, "List 15 to 20 facts stated in chunk %s below as JSON objects with these fields:\n", t)
	b.WriteString(`- "entity_1": the subject, a short noun phrase naming one specific thing (a company, person, product, site, figure). Never a pronoun or a vague phrase such as "the company": write the name.
- "relation": a short verb phrase of one to four words, such as "acquired", "is headquartered in", "reported revenue of". Keep dates and amounts out of it.
- "entity_2": the object, a short noun phrase written exactly as it appears in the source sentence.
`)
	fmt.Fprintf(&b, "- \"answer_chunk_id\": the id of the chunk the fact is stated in, as shown (%q).\n", t)
	b.WriteString(`- "source_sentence": the one sentence that states the fact, copied character for character from that chunk. Do not shorten, correct or reword it.

Prefer facts that carry numbers, dates, amounts and names. Spell each entity the same way every time. State only what the text says.
`)
	if len(before) > 0 {
		fmt.Fprintf(&b, "The earlier chunks are context: use them to name what chunk %s refers to, but take every fact and every source sentence from chunk %s.\n", t, t)
	}
	b.WriteString("Reply with the JSON array only. If the chunk states no facts, reply [].\n")
	if title := target.Title; title != "" {
		fmt.Fprintf(&b, "\nDocument: %s\n", title)
	}
	if len(before) > 0 {
		b.WriteString("\nContext (earlier chunks of the same document, for reference only):\n")
		for i, c := range before {
			writeChunk(&b, label(i), c.Text)
		}
	}
	b.WriteString("\nChunk to extract facts from:\n")
	writeChunk(&b, t, target.Text)
	return b.String()
}

func writeChunk(b *strings.Builder, id, text string) {
	fmt.Fprintf(b, "<chunk id=%q>\n%s\n</chunk>\n", id, strings.TrimSpace(text))
}

// Extract asks the LLM for the facts of target, with before (the chunks
// preceding it in its document, oldest first; may be empty) as context,
// and validates them. Errors: the generator's own, wrapped with %w so that
// its class (provider.ErrRateLimited with its RetryAfter,
// provider.ErrUnavailable, provider.ErrRejected) and context errors stay
// visible; or ErrLLMOutput when the reply has no JSON array even after
// repair. Objects that fail validation are not errors: they are listed in
// the result's Rejected.
func (x *LLMExtractor) Extract(ctx context.Context, before []schemas.Chunk, target schemas.Chunk) (*LLMResult, error) {
	prompt := Prompt(before, target)
	opts := provider.GenerateOptions{MaxTokens: llmMaxTokens}
	key := provider.CacheKey(x.g, opts, prompt)
	reply, cached := "", false
	if x.cache != nil {
		reply, cached = x.cache.Get(key)
	}
	if !cached {
		var err error
		if reply, err = x.g.Generate(ctx, prompt, opts); err != nil {
			return nil, fmt.Errorf("LLM triplet extraction: %w", err)
		}
	}
	items, repairs, err := ParseArray(reply)
	if err != nil {
		return nil, fmt.Errorf("LLM triplet extraction: %w", err)
	}
	if x.cache != nil && !cached {
		x.cache.Put(key, reply)
	}
	res := validate(items, before, target)
	res.Repairs, res.Cached = repairs, cached
	return res, nil
}

// validate checks every object of a reply against the window.
func validate(items []json.RawMessage, before []schemas.Chunk, target schemas.Chunk) *LLMResult {
	res := &LLMResult{}
	tl := label(len(before))
	isContext := map[string]bool{}
	for i, c := range before {
		isContext[label(i)] = true
		if c.ChunkID != "" {
			isContext[c.ChunkID] = true
		}
	}
	seen := map[string]bool{}
	for i, raw := range items {
		reject := func(reason, format string, args ...any) {
			res.Rejected = append(res.Rejected, Rejection{Index: i, Reason: reason, Detail: fmt.Sprintf(format, args...)})
		}
		f, ok := readFact(raw)
		if !ok {
			reject(RejectNotObject, "%.80s", string(raw))
			continue
		}
		if missing := f.missing(); missing != "" {
			reject(RejectMissingField, "%s is empty or absent", missing)
			continue
		}
		switch {
		case f.chunk == tl || (target.ChunkID != "" && f.chunk == target.ChunkID):
		case isContext[f.chunk]:
			reject(RejectContextChunk, "answer_chunk_id %q is a context chunk; facts are taken from %s only", f.chunk, tl)
			continue
		default:
			reject(RejectUnknownChunk, "answer_chunk_id %q is not in the window", f.chunk)
			continue
		}
		sentence, ok := locate(target.Text, f.sentence, false)
		if !ok {
			reject(RejectNotVerbatim, "%q is not in chunk %s", f.sentence, tl)
			continue
		}
		tail, ok := locate(sentence, f.tail, true)
		if !ok {
			reject(RejectTailMissing, "%q is not in %q", f.tail, sentence)
			continue
		}
		id := strings.ToLower(f.head + "\x00" + f.relation + "\x00" + tail)
		if seen[id] {
			reject(RejectDuplicate, "(%s, %s, %s) already extracted", f.head, f.relation, tail)
			continue
		}
		seen[id] = true
		res.Triples = append(res.Triples, LLMTriple{Head: f.head, Relation: f.relation, Tail: tail,
			ChunkID: target.ChunkID, Sentence: sentence, Kind: kindOf(f.relation, target.Kind)})
	}
	return res
}

// fact is an object of the reply, its fields trimmed.
type fact struct{ head, relation, tail, chunk, sentence string }

func (f fact) missing() string {
	for _, p := range []struct{ name, v string }{{"entity_1", f.head}, {"relation", f.relation}, {"entity_2", f.tail}, {"answer_chunk_id", f.chunk}, {"source_sentence", f.sentence}} {
		if p.v == "" {
			return p.name
		}
	}
	return ""
}

// readFact reads an object, matching keys loosely ("Entity 1", "entity1",
// "entity_1" are one key) and taking a number as its decimal text (a
// chunk id of 2).
func readFact(raw json.RawMessage) (fact, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return fact{}, false
	}
	fields := map[string]string{}
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) != nil {
			var n json.Number
			if json.Unmarshal(v, &n) != nil {
				continue
			}
			s = n.String()
		}
		fields[provider.LooseKey(k)] = strings.TrimSpace(s)
	}
	return fact{head: fields["entity1"], relation: fields["relation"], tail: fields["entity2"],
		chunk: fields["answerchunkid"], sentence: fields["sourcesentence"]}, true
}

// locate finds needle in haystack where the two may differ only in
// whitespace (a run of spaces or a line break in one is any run of
// whitespace in the other), and, if fold, in letter case; it returns
// haystack's own text of the match, so that the result is verbatim.
func locate(haystack, needle string, fold bool) (string, bool) {
	if needle == "" {
		return "", false
	}
	if strings.Contains(haystack, needle) {
		return needle, true
	}
	words := strings.Fields(needle)
	if len(words) == 0 {
		return "", false
	}
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	expr := strings.Join(words, `\s+`)
	if fold {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", false
	}
	loc := re.FindStringIndex(haystack)
	if loc == nil {
		return "", false
	}
	return haystack[loc[0]:loc[1]], true
}

// kindOf tells how a fact was stated from what the reply gives: a table
// chunk's facts are "table"; a relation that is only a form of "to be" is
// "copula"; anything else "verb".
func kindOf(relation, chunkKind string) string {
	if chunkKind == "table" {
		return "table"
	}
	switch strings.ToLower(relation) {
	case "is", "are", "was", "were", "is a", "is an", "is the", "was a", "was the", "became", "remains", "remained":
		return "copula"
	}
	return "verb"
}

// ParseArray reads the JSON array of an LLM reply, repairing what models
// commonly get wrong, and returns its elements and the repairs made:
//
//   - text around the JSON, including a Markdown code fence, is dropped;
//   - an object wrapping the array ({"triplets": [...]}) is unwrapped: the
//     field named triplets, facts, items, results or data, else the only
//     array-valued field;
//   - a comma before a closing bracket or brace is dropped;
//   - typographic quotes around an object key ("“entity_1”:") become
//     straight quotes (inside values they are text and are kept);
//   - a reply cut off before its end (max tokens) is closed after its last
//     complete element; the cut element is lost.
//
// A reply with no array even after repair is an ErrLLMOutput error saying
// why.
func ParseArray(reply string) ([]json.RawMessage, []string, error) {
	s, repairs := provider.Unfence(reply)
	if fixed := provider.SmartKey.ReplaceAllString(s, `"$1"$2`); fixed != s {
		s = fixed
		repairs = append(repairs, "smart quotes")
	}
	start := strings.IndexAny(s, "[{")
	if start < 0 {
		return nil, repairs, fmt.Errorf("%w: no JSON array in the reply (%s)", ErrLLMOutput, provider.Excerpt(reply))
	}
	if strings.TrimSpace(s[:start]) != "" && !containsRepair(repairs, "surrounding text") {
		repairs = append(repairs, "surrounding text")
	}
	clean, rest, fixes := provider.ScanJSON(s[start:])
	repairs = append(repairs, fixes...)
	if strings.TrimSpace(rest) != "" && !containsRepair(repairs, "surrounding text") {
		repairs = append(repairs, "surrounding text")
	}
	if clean[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal([]byte(clean), &items); err != nil {
			return nil, repairs, fmt.Errorf("%w: the reply's array is not valid JSON after repair: %v (%s)", ErrLLMOutput, err, provider.Excerpt(reply))
		}
		return items, repairs, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(clean), &obj); err != nil {
		return nil, repairs, fmt.Errorf("%w: the reply's JSON is not valid after repair: %v (%s)", ErrLLMOutput, err, provider.Excerpt(reply))
	}
	arrays := map[string][]json.RawMessage{}
	for k, v := range obj {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) == nil && items != nil {
			arrays[provider.LooseKey(k)] = items
		}
	}
	repairs = append(repairs, "wrapped in an object")
	for _, k := range []string{"triplets", "triples", "facts", "items", "results", "data"} {
		if items, ok := arrays[k]; ok {
			return items, repairs, nil
		}
	}
	if len(arrays) == 1 {
		for _, items := range arrays {
			return items, repairs, nil
		}
	}
	return nil, repairs, fmt.Errorf("%w: the reply is a JSON object with %d array fields, not an array (%s)", ErrLLMOutput, len(arrays), provider.Excerpt(reply))
}

func containsRepair(repairs []string, r string) bool { return slices.Contains(repairs, r) }

// The LLM path of the stage: Config.Extractor, Config.Window,
// SetGenerator, Degraded and LLMRejected. Process calls llmRecords first.

// DefaultWindow is the default Config.Window: the chunk and the one before
// it, enough to resolve "the company" or "she" at the top of a chunk at
// the cost of one more chunk of prompt.
const DefaultWindow = 2

// maxWindow bounds Config.Window: each context chunk is up to ~600 more
// prompt tokens per call.
const maxWindow = 8

// recentDocs bounds the documents whose last chunks (Window of them) the
// stage keeps for windows; the least recently seen is forgotten first.
// With ~600-token chunks and the default window, that is about 2 MB.
const recentDocs = 256

// llmStage is the stage's LLM state.
type llmStage struct {
	extractor string // ExtractorRule, ExtractorLLM or ExtractorBoth
	window    int
	log       *slog.Logger
	cache     *provider.ResponseCache // kept across SetGenerator calls

	mu       sync.Mutex
	x        *LLMExtractor // nil: no generator
	warned   bool          // the missing generator was logged
	recent   *list.List    // of *recentDoc, most recent first
	byDoc    map[string]*list.Element
	rejected map[string]int64
}

// recentDoc is the last chunks seen of one document version.
type recentDoc struct {
	key    string
	chunks []schemas.Chunk // by arrival; at most window
}

// initLLM validates the LLM settings of cfg.
func (s *Stage) initLLM(cfg Config) error {
	l := &s.llm
	switch cfg.Extractor {
	case "", ExtractorRule:
		l.extractor = ExtractorRule
	case ExtractorLLM, ExtractorBoth:
		l.extractor = cfg.Extractor
	default:
		return fmt.Errorf("triplets: extractor: %q is not rule, llm or both", cfg.Extractor)
	}
	switch {
	case cfg.Window == 0:
		l.window = DefaultWindow
	case cfg.Window < 1 || cfg.Window > maxWindow:
		return fmt.Errorf("triplets: window: %d is not in 1..%d", cfg.Window, maxWindow)
	default:
		l.window = cfg.Window
	}
	l.log = cfg.Logger
	if l.log == nil {
		l.log = slog.Default()
	}
	l.cache = provider.NewResponseCache(0, 0)
	l.recent = list.New()
	l.byDoc = map[string]*list.Element{}
	l.rejected = map[string]int64{}
	return nil
}

// SetGenerator gives the stage the generator LLM of models.yaml's
// generator:, used when Config.Extractor is llm or both; nil takes it
// away. Without one, such a stage runs the rule extractor and says so
// (Degraded, one warning in the log).
func (s *Stage) SetGenerator(g provider.Generator) {
	l := &s.llm
	l.mu.Lock()
	defer l.mu.Unlock()
	if g == nil {
		l.x = nil
		l.warnLocked()
		return
	}
	l.x = NewLLMExtractorCache(g, l.cache)
	l.warned = false
}

// Degraded says why the stage does not run the extractor it was
// configured with: empty when it does, else the reason (extractor llm or
// both without a generator: the rule extractor runs instead). The engine
// reports it beside the stage.
func (s *Stage) Degraded() string {
	l := &s.llm
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.extractor == ExtractorRule || l.x != nil {
		return ""
	}
	return fmt.Sprintf("extractor %s needs a generator LLM (generator: in models.yaml); the rule extractor runs instead", l.extractor)
}

// warnLocked logs the missing generator once. l.mu is held.
func (l *llmStage) warnLocked() {
	if l.extractor == ExtractorRule || l.warned {
		return
	}
	l.warned = true
	l.log.Warn("LLM triplet extractor unavailable: no generator configured; using the rule extractor",
		"stage", StageName, "extractor", l.extractor)
}

// LLMRejected returns how many objects of LLM replies validation refused
// since the stage started, by reason (the Reject* values). A chunk
// processed again (a redelivery, served from the cache) counts again.
func (s *Stage) LLMRejected() map[string]int64 {
	l := &s.llm
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.rejected)
}

// llmRecords runs the LLM extractor on c when the stage is configured for
// it and has a generator, with the window's earlier chunks as context, and
// returns its records (ids recorded in seen) and whether the rule
// extractor should run too. Errors: a reply with no usable JSON and a
// request the service refuses (provider.ErrRejected) are permanent (the
// chunk is dead-lettered with the reason); rate limits, unavailability and
// timeouts are returned as they are, for the runner to retry after the
// server's Retry-After.
func (s *Stage) llmRecords(ctx context.Context, c *schemas.Chunk, seen map[string]bool) ([]streams.Record, bool, error) {
	l := &s.llm
	l.mu.Lock()
	x := l.x
	if l.extractor == ExtractorRule {
		l.mu.Unlock()
		return nil, true, nil
	}
	if x == nil {
		l.warnLocked()
		l.mu.Unlock()
		return nil, true, nil
	}
	before := l.beforeLocked(c)
	l.rememberLocked(c)
	l.mu.Unlock()

	res, err := x.Extract(ctx, before, *c)
	switch {
	case err == nil:
	case errors.Is(err, ErrLLMOutput), errors.Is(err, provider.ErrRejected):
		return nil, false, streams.Permanent(err)
	default:
		return nil, false, err
	}
	l.mu.Lock()
	for _, r := range res.Rejected {
		l.rejected[r.Reason]++
	}
	l.mu.Unlock()
	var out []streams.Record
	for _, x := range res.Triples {
		r, ok, err := tripletRecord(c, seen, x.Head, x.Relation, x.Tail, x.Kind, x.Sentence, ExtractorLLM)
		if err != nil {
			return nil, false, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, l.extractor == ExtractorBoth, nil
}

func docKey(c *schemas.Chunk) string {
	return c.DocID + "\x00" + strconv.FormatUint(uint64(c.DocVersion), 10)
}

// beforeLocked returns the chunks of c's document version seen recently
// whose ordinals are the window-1 before c's, in order. Chunks missing
// (never seen, forgotten, or seen by another instance) leave the window
// shorter, so a window's prompt, and its cache key, can differ between a
// first run and a replay.
func (l *llmStage) beforeLocked(c *schemas.Chunk) []schemas.Chunk {
	e, ok := l.byDoc[docKey(c)]
	if !ok || l.window < 2 {
		return nil
	}
	var out []schemas.Chunk
	for _, p := range e.Value.(*recentDoc).chunks {
		if p.Ordinal < c.Ordinal && c.Ordinal-p.Ordinal < uint32(l.window) && p.ChunkID != c.ChunkID {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b schemas.Chunk) int { return int(a.Ordinal) - int(b.Ordinal) })
	return out
}

// rememberLocked keeps c (its text, not its envelope) for the windows of
// the chunks after it.
func (l *llmStage) rememberLocked(c *schemas.Chunk) {
	if l.window < 2 {
		return
	}
	key := docKey(c)
	e, ok := l.byDoc[key]
	if !ok {
		e = l.recent.PushFront(&recentDoc{key: key})
		l.byDoc[key] = e
		for l.recent.Len() > recentDocs {
			old := l.recent.Remove(l.recent.Back()).(*recentDoc)
			delete(l.byDoc, old.key)
		}
	}
	l.recent.MoveToFront(e)
	d := e.Value.(*recentDoc)
	d.chunks = slices.DeleteFunc(d.chunks, func(p schemas.Chunk) bool { return p.Ordinal == c.Ordinal })
	d.chunks = append(d.chunks, schemas.Chunk{ChunkID: c.ChunkID, DocID: c.DocID, DocVersion: c.DocVersion,
		Ordinal: c.Ordinal, Text: c.Text, Kind: c.Kind, Title: c.Title})
	// window chunks, not window-1: a retry of the newest chunk must still
	// find the ones before it.
	if n := len(d.chunks) - l.window; n > 0 {
		d.chunks = slices.Delete(d.chunks, 0, n)
	}
}
