package retrieve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName is the name of the retrieve stage.
const StageName = "retrieve"

// BM25Name is the name of the built-in BM25 retriever.
const BM25Name = "bm25"

// DefaultK is a retriever's top-k unless configured (RARE uses top-3).
const DefaultK = 3

// Inputs are the topics the stage reads: chunks (the corpus; a document
// version without text, a deletion, arrives as one empty chunk) and
// variants (the questions' original variants, the queries).
var Inputs = []string{streams.TopicChunks, streams.TopicVariants}

// Config configures the retrieve stage.
type Config struct {
	// TopK is each retriever's k, by retriever name ("bm25",
	// "emb_<embedder id>"); absent: DefaultK.
	TopK map[string]int `yaml:"top_k" help:"top-k per retriever name, e.g. {bm25: 3, emb_e5: 5} (default 3)"`
	// Logger receives the stage's warnings. Nil: slog.Default().
	Logger *slog.Logger `yaml:"-"`
}

// K returns the top-k of retriever name.
func (c Config) K(name string) int {
	if k, ok := c.TopK[name]; ok && k > 0 {
		return k
	}
	return DefaultK
}

// Check reports top_k entries that name no configured retriever (names:
// "bm25", "emb_<embedder id>") or ask for fewer than one chunk.
func (c Config) Check(names []string) error {
	var bad []string
	keys := make([]string, 0, len(c.TopK))
	for name := range c.TopK {
		keys = append(keys, name)
	}
	slices.Sort(keys)
	for _, name := range keys {
		switch {
		case !slices.Contains(names, name):
			bad = append(bad, fmt.Sprintf("%s: no such retriever (have %s)", name, strings.Join(names, ", ")))
		case c.TopK[name] < 1:
			bad = append(bad, fmt.Sprintf("%s: %d, want at least 1", name, c.TopK[name]))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return errors.New("top_k: " + strings.Join(bad, "; "))
}

// KindName is the kind of a retriever's variants: "<retriever>_top<k>".
func KindName(retriever string, k int) string { return fmt.Sprintf("%s_top%d", retriever, k) }

// retriever is one configured retriever: BM25 (emb nil) or an embedding
// retriever.
type retriever struct {
	name string
	k    int
	emb  *Dense
}

func (r retriever) kind() string { return KindName(r.name, r.k) }

// Stage is the "retrieve" stage: it keeps the corpus of active chunks
// (rs.chunks, every partition: it is a singleton, since a
// question must see every document's chunks whatever its key) and, for
// each question's original variant on rs.variants, writes one variant per
// retriever to rs.variants: slot retrieval/<retriever>_top<k>, the
// original query, the top-k chunks' texts as contexts, answer_available
// computed from them (docs/methods.md, Retrievers and the retrieval axis).
//
// The BM25 index lives in memory; its chunks, with their terms, are kept in
// the stage's changelogged state ("c/<chunk id>", and "d/<doc id>" for a
// document's current version), from which Restored rebuilds the index at
// start without tokenising anything again. Embedding retrievers keep their
// vectors in ClickHouse (Dense).
type Stage struct {
	cfg        Config
	state      *streams.State
	log        *slog.Logger
	retrievers []retriever
	up         *Upstream
	// unavailable are retrieval kinds declared but not runnable here (an
	// embedder without ClickHouse), by kind: their slots get a not-made
	// marker with the reason, so no pairing set waits for them.
	unavailable map[string]string

	mu  sync.Mutex // guards idx and the dense retrievers
	idx *Index

	progMu   sync.Mutex
	progress map[string]map[int]int64 // topic → partition → next offset handled
}

const (
	keyChunk = "c/"
	keyDoc   = "d/"
	// keyAnswered marks an original variant answered ("a/<variant id>"):
	// a redelivery is a duplicate and yields nothing, rather than a
	// second retrieval over a corpus that may have changed since.
	keyAnswered = "a/"
)

// NewStage returns the stage with the BM25 retriever and one embedding
// retriever per dense (none: BM25 alone). state may be nil (tests of the
// core): nothing is then kept.
func NewStage(cfg Config, state *streams.State, dense ...*Dense) *Stage {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Stage{cfg: cfg, state: state, log: cfg.Logger, idx: NewIndex(), progress: map[string]map[int]int64{}}
	s.retrievers = append(s.retrievers, retriever{name: BM25Name, k: cfg.K(BM25Name)})
	for _, d := range dense {
		s.retrievers = append(s.retrievers, retriever{name: d.Name(), k: cfg.K(d.Name()), emb: d})
	}
	return s
}

// Kinds returns the kinds of the stage's variants, in emission order
// ("bm25_top3", "emb_e5_top3").
func (s *Stage) Kinds() []string {
	out := make([]string, len(s.retrievers))
	for i, r := range s.retrievers {
		out[i] = r.kind()
	}
	return out
}

// Unavailable declares a retrieval kind this stage cannot make, and why:
// questions get a not-made marker in its slot.
func (s *Stage) Unavailable(kind, reason string) {
	if s.unavailable == nil {
		s.unavailable = map[string]string{}
	}
	s.unavailable[kind] = reason
}

// SetUpstream makes the stage wait, before answering a question, until the
// corpus written so far is indexed (Upstream); nil: answer at once.
func (s *Stage) SetUpstream(u *Upstream) { s.up = u }

// Name implements streams.Processor.
func (s *Stage) Name() string { return StageName }

// Len returns the number of active chunks indexed.
func (s *Stage) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.idx.Len()
}

// Restored implements streams.Restorer: the index is rebuilt from the
// restored state (chunks with their terms; no tokenising), and each
// embedding retriever learns which chunks it already holds and queues the
// others.
func (s *Stage) Restored(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idx = NewIndex()
	if s.state == nil {
		return nil
	}
	type kv struct {
		key string
		val []byte
	}
	var docs, chunks []kv
	s.state.Range(func(key string, v []byte) bool {
		switch {
		case strings.HasPrefix(key, keyDoc):
			docs = append(docs, kv{key, v})
		case strings.HasPrefix(key, keyChunk):
			chunks = append(chunks, kv{key, v})
		}
		return true
	})
	for _, d := range docs {
		var v uint32
		if err := json.Unmarshal(d.val, &v); err != nil {
			return fmt.Errorf("retrieve: state %s: %w", d.key, err)
		}
		s.idx.SetVersion(d.key[len(keyDoc):], v)
	}
	for _, c := range chunks {
		ch := new(Chunk)
		if err := json.Unmarshal(c.val, ch); err != nil {
			return fmt.Errorf("retrieve: state %s: %w", c.key, err)
		}
		s.idx.Add(ch)
	}
	for _, r := range s.retrievers {
		if r.emb != nil {
			if err := r.emb.Restored(ctx, s.idx); err != nil {
				return err
			}
		}
	}
	return nil
}

// Process implements streams.Processor.
func (s *Stage) Process(ctx context.Context, m streams.Message) ([]streams.Record, error) {
	var recs []streams.Record
	var err error
	switch topicOf(m) {
	case streams.TopicChunks:
		err = s.chunk(ctx, m)
	case streams.TopicVariants:
		recs, err = s.variant(ctx, m)
	default:
		return nil, streams.Permanent(fmt.Errorf("retrieve: a message on %s that is neither a chunk nor a variant", m.Topic))
	}
	if err == nil || streams.IsPermanent(err) {
		s.handled(m)
	}
	return recs, err
}

// topicOf is the input topic m belongs to: its topic, or, for a message
// read from elsewhere (a benchmark's copy of the inputs on one topic), the
// topic its event type is written to, told by its identifying field.
func topicOf(m streams.Message) string {
	switch m.Topic {
	case streams.TopicChunks, streams.TopicVariants:
		return m.Topic
	}
	var probe struct {
		ChunkID   string `json:"chunk_id"`
		VariantID string `json:"variant_id"`
	}
	if json.Unmarshal(m.Value, &probe) != nil {
		return ""
	}
	switch {
	case probe.ChunkID != "":
		return streams.TopicChunks
	case probe.VariantID != "":
		return streams.TopicVariants
	}
	return ""
}

func (s *Stage) handled(m streams.Message) {
	s.progMu.Lock()
	defer s.progMu.Unlock()
	if s.progress[m.Topic] == nil {
		s.progress[m.Topic] = map[int]int64{}
	}
	s.progress[m.Topic][m.Partition] = max(s.progress[m.Topic][m.Partition], m.Offset+1)
}

// handledUpTo returns the next offset handled on each partition of topic in
// this process's life.
func (s *Stage) handledUpTo(topic string) map[int]int64 {
	s.progMu.Lock()
	defer s.progMu.Unlock()
	out := map[int]int64{}
	for p, o := range s.progress[topic] {
		out[p] = o
	}
	return out
}

// chunk indexes a chunk of the current version of its document. A chunk of
// a newer version first retires the older version's chunks; a chunk with
// no terms (the empty chunk of a deleted or emptied document) only does
// that.
func (s *Stage) chunk(ctx context.Context, m streams.Message) error {
	var c schemas.Chunk
	if err := schemas.Decode(m.Value, &c); err != nil {
		return streams.Permanent(fmt.Errorf("cannot decode chunk: %w", err))
	}
	if c.DocID == "" || c.ChunkID == "" || c.DocVersion == 0 {
		return streams.Permanent(fmt.Errorf("chunk %q lacks chunk_id, doc_id or doc_version", c.ChunkID))
	}
	if c.Text == "" && c.Chunks == 0 {
		// The chunk stage's empty chunk (a deleted or emptied version)
		// says its version has one chunk; an event without text or count
		// is not a chunk.
		return streams.Permanent(fmt.Errorf("chunk %q has no text and no chunk count", c.ChunkID))
	}
	ch := NewChunk(c.ChunkID, c.DocID, c.DocVersion, c.Text) // tokenised outside the lock
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(ch.Terms) == 0 {
		before, seen := s.idx.Version(c.DocID)
		retired := s.idx.SetVersion(c.DocID, c.DocVersion)
		if seen && c.DocVersion <= before {
			return nil
		}
		return s.save(ctx, c.DocID, nil, retired)
	}
	added, retired := s.idx.Add(ch)
	if !added && len(retired) == 0 {
		return nil // a replay, or a stale version
	}
	if !added {
		ch = nil
	}
	if err := s.save(ctx, c.DocID, ch, retired); err != nil {
		return err
	}
	if added {
		for _, r := range s.retrievers {
			if r.emb != nil {
				r.emb.Queue(ch.ID)
				r.emb.maybeFlush(ctx, s.idx)
			}
		}
	}
	return nil
}

// save writes a document's change to the state: its version, the chunk
// added, the chunks retired.
func (s *Stage) save(ctx context.Context, docID string, added *Chunk, retired []*Chunk) error {
	if s.state == nil {
		return nil
	}
	v, _ := s.idx.Version(docID)
	b, _ := json.Marshal(v)
	if err := s.state.Put(ctx, keyDoc+docID, b); err != nil {
		return err
	}
	for _, c := range retired {
		if added != nil && c.ID == added.ID {
			continue // the same paragraph again in the new version
		}
		if err := s.state.Delete(ctx, keyChunk+c.ID); err != nil {
			return err
		}
	}
	if added != nil {
		b, err := json.Marshal(added)
		if err != nil {
			return err
		}
		if err := s.state.Put(ctx, keyChunk+added.ID, b); err != nil {
			return err
		}
	}
	return nil
}

// variant answers a question's original variant with one variant per
// retriever; every other variant (the stage's own among them) is ignored.
func (s *Stage) variant(ctx context.Context, m streams.Message) ([]streams.Record, error) {
	var v schemas.Variant
	if err := schemas.Decode(m.Value, &v); err != nil {
		return nil, streams.Permanent(fmt.Errorf("cannot decode variant: %w", err))
	}
	if v.VariantID == "" || v.QuestionID == "" || v.SetSize < 1 {
		return nil, streams.Permanent(fmt.Errorf("variant %q lacks variant_id, question_id or set_size", v.VariantID))
	}
	if v.Axis != schemas.AxisOriginal || v.NotMadeReason != "" {
		return nil, nil
	}
	if v.Query == "" {
		return nil, streams.Permanent(fmt.Errorf("original variant %q has no query", v.VariantID))
	}
	if s.state != nil {
		if _, dup := s.state.Get(keyAnswered + v.VariantID); dup {
			return nil, nil
		}
	}
	// The wait follows this stage's progress on rs.chunks: a copy of the
	// inputs read from elsewhere (a benchmark) has none to follow.
	if s.up != nil && m.Topic == streams.TopicVariants {
		if err := s.up.Wait(ctx, s); err != nil {
			return nil, err
		}
	}
	vs, err := s.Variants(ctx, &v)
	if err != nil {
		return nil, err
	}
	recs := make([]streams.Record, 0, len(vs))
	for _, d := range vs {
		b, err := schemas.Encode(d)
		if err != nil {
			return nil, fmt.Errorf("cannot encode variant %s: %w", d.VariantID, err)
		}
		recs = append(recs, streams.Record{Topic: streams.TopicVariants, Key: []byte(d.Key()), Value: b})
	}
	if s.state != nil {
		if err := s.state.Put(ctx, keyAnswered+v.VariantID, []byte{1}); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// Variants returns the retrieval variants of an original variant, one per
// retriever declared in its manifest, in retriever order: the top-k chunks
// of the corpus now indexed for the original query, or a not-made marker
// when no chunk matches. A retriever whose slot the manifest does not
// declare (configured after the question was perturbed) is skipped: fan-out
// would dead-letter its variant.
func (s *Stage) Variants(ctx context.Context, v *schemas.Variant) ([]*schemas.Variant, error) {
	answers := text.NewAnswers(v.Accepted())
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*schemas.Variant
	for _, r := range s.retrievers {
		kind := r.kind()
		if len(v.Manifest) > 0 && !schemas.InManifest(v.Manifest, schemas.Slot(schemas.AxisRetrieval, kind)) {
			continue
		}
		var hits []Hit
		if r.emb == nil {
			hits = s.idx.Search(v.Query, r.k)
		} else {
			var err error
			if hits, err = r.emb.Search(ctx, s.idx, v.Query, r.k); err != nil {
				return nil, fmt.Errorf("retriever %s: %w", r.name, err)
			}
		}
		if len(hits) == 0 {
			out = append(out, v.NotMade(schemas.AxisRetrieval, kind, "no indexed chunk matches the query"))
			continue
		}
		contexts := make([]string, len(hits))
		available := false
		for i, h := range hits {
			contexts[i] = h.Chunk.Text
			available = available || answers.TokenSeq(h.Chunk.Text)
		}
		out = append(out, v.Derive(schemas.AxisRetrieval, kind, v.Query, contexts, available))
	}
	for _, d := range out {
		// Produced with the original, so that a replay or a second run
		// encodes the variant byte for byte the same.
		d.ProducedAt = v.ProducedAt
	}
	kinds := make([]string, 0, len(s.unavailable))
	for k := range s.unavailable {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		if schemas.InManifest(v.Manifest, schemas.Slot(schemas.AxisRetrieval, kind)) {
			d := v.NotMade(schemas.AxisRetrieval, kind, s.unavailable[kind])
			d.ProducedAt = v.ProducedAt
			out = append(out, d)
		}
	}
	return out, nil
}

// Retrieve returns retriever name's top-k for query over the chunks now
// indexed (the bench and tests).
func (s *Stage) Retrieve(ctx context.Context, name, query string) ([]Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.retrievers, func(r retriever) bool { return r.name == name })
	if i < 0 {
		return nil, fmt.Errorf("retrieve: no retriever %q", name)
	}
	r := s.retrievers[i]
	if r.emb == nil {
		return s.idx.Search(query, r.k), nil
	}
	return r.emb.Search(ctx, s.idx, query, r.k)
}

// RankVector ranks the stored vectors of d against the query vector qv over
// the chunks now indexed (Dense.Rank under the stage's lock): the bench's
// measure of the ClickHouse part of an embedding retriever.
func (s *Stage) RankVector(ctx context.Context, d *Dense, qv []float32, k int) ([]Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return d.Rank(ctx, s.idx, qv, k)
}
