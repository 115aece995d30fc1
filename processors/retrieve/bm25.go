package retrieve

import (
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/robustream/robustream/processors/text"
)

// BM25's parameters (docs/methods.md, Retrievers and the retrieval axis):
// the usual k1 and b of Okapi BM25, Lucene's and Elasticsearch's defaults.
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// Chunk is one chunk as the index holds it: its identity, the document
// version it belongs to, its text (the retrieved context) and its terms,
// tokenised once when it arrives and kept with it, so that an index
// rebuilt from saved chunks never tokenises them again.
type Chunk struct {
	ID      string `json:"id"`
	DocID   string `json:"doc"`
	Version uint32 `json:"v"`
	Text    string `json:"text"`
	// Terms are the chunk's distinct terms, sorted, and TF their counts
	// in the chunk, in the same order.
	Terms []string `json:"terms"`
	TF    []uint32 `json:"tf"`
	// length caches Len.
	length int
}

// Len is the chunk's length in terms (BM25's |D|).
func (c *Chunk) Len() int {
	if c.length == 0 {
		for _, f := range c.TF {
			c.length += int(f)
		}
	}
	return c.length
}

// Terms tokenises s for BM25: the answer-matching tokens (lowercase,
// punctuation and articles removed, Unicode-aware; package text), as
// distinct sorted terms with their counts. The terms may share memory with
// a normalized copy of s; Index.Add replaces them by its own copies.
func Terms(s string) (terms []string, tf []uint32) {
	toks := text.Tokens(s)
	slices.Sort(toks)
	distinct := 0
	for i, t := range toks {
		if i == 0 || t != toks[i-1] {
			distinct++
		}
	}
	terms, tf = make([]string, 0, distinct), make([]uint32, 0, distinct)
	for i, t := range toks {
		if i > 0 && t == toks[i-1] {
			tf[len(tf)-1]++
			continue
		}
		terms = append(terms, t)
		tf = append(tf, 1)
	}
	return terms, tf
}

// tokenised counts the chunks NewChunk tokenised, so that a test can tell
// that a restart rebuilt the index without tokenising.
var tokenised atomic.Int64

// NewChunk returns the chunk with its terms.
func NewChunk(id, docID string, version uint32, body string) *Chunk {
	tokenised.Add(1)
	c := &Chunk{ID: id, DocID: docID, Version: version, Text: body}
	c.Terms, c.TF = Terms(body)
	return c
}

// posting is one chunk's count of one term. slot names the chunk in the
// index's slot table; slots are never reused, so a posting of a removed
// chunk is recognised by its dead slot and skipped until compaction.
type posting struct {
	slot int32
	tf   uint32
}

type termEntry struct {
	// term is the one copy of the term the index keeps: chunks' Terms
	// point at it.
	term     string
	postings []posting
	// df is the number of live chunks holding the term.
	df int
}

type docEntry struct {
	version uint32
	slots   []int32 // live chunks of the current version
}

// Index is a BM25 index over the active chunks of every document: the
// current version of each, none of a retired one. Adding a chunk costs its
// distinct terms; removing one marks its slot dead (the postings that name
// it are dropped when dead postings outnumber live ones, amortised over the
// removals), so the cost of an update does not grow with the corpus. It is
// not safe for concurrent use: the stage holds its lock.
type Index struct {
	terms map[string]*termEntry
	slots []*Chunk // by slot; nil when removed
	// lens holds each slot's chunk length, -1 when removed: a search reads
	// this dense array rather than every matching chunk.
	lens     []int32
	byID     map[string]int32
	docs     map[string]*docEntry
	live     int
	dead     int // removed slots whose postings are still listed
	totalLen int64

	// scratch accumulates one query's scores by slot.
	scores  []float64
	touched []int32
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{terms: map[string]*termEntry{}, byID: map[string]int32{}, docs: map[string]*docEntry{}}
}

// Len returns the number of active chunks.
func (x *Index) Len() int { return x.live }

// Version returns the current version of a document and whether the index
// has seen it.
func (x *Index) Version(docID string) (uint32, bool) {
	d, ok := x.docs[docID]
	if !ok {
		return 0, false
	}
	return d.version, true
}

// Chunk returns the active chunk id, if any.
func (x *Index) Chunk(id string) (*Chunk, bool) {
	s, ok := x.byID[id]
	if !ok {
		return nil, false
	}
	return x.slots[s], true
}

// SetVersion records that docID is now at version (a new version, or a
// deletion): the chunks of older versions leave the index and are
// returned. An older or equal version changes nothing.
func (x *Index) SetVersion(docID string, version uint32) []*Chunk {
	d := x.docs[docID]
	if d == nil {
		x.docs[docID] = &docEntry{version: version}
		return nil
	}
	if version <= d.version {
		return nil
	}
	out := make([]*Chunk, 0, len(d.slots))
	for _, s := range d.slots {
		out = append(out, x.slots[s])
		x.remove(s)
	}
	d.version, d.slots = version, nil
	x.maybeCompact()
	return out
}

// Add indexes c unless it is stale (its document is at a newer version) or
// already there. A chunk of a newer version first retires the document's
// older chunks, which are returned. added reports whether c was indexed.
func (x *Index) Add(c *Chunk) (added bool, retired []*Chunk) {
	retired = x.SetVersion(c.DocID, c.Version)
	d := x.docs[c.DocID]
	if c.Version < d.version {
		return false, retired
	}
	if _, dup := x.byID[c.ID]; dup {
		return false, retired
	}
	slot := int32(len(x.slots))
	x.slots = append(x.slots, c)
	x.lens = append(x.lens, int32(c.Len()))
	x.byID[c.ID] = slot
	d.slots = append(d.slots, slot)
	for i, t := range c.Terms {
		e := x.terms[t]
		if e == nil {
			// A copy, for the map key too: t is a piece of the chunk's
			// normalized text, which it would keep alive.
			e = &termEntry{term: strings.Clone(t)}
			x.terms[e.term] = e
		}
		c.Terms[i] = e.term
		e.postings = append(e.postings, posting{slot: slot, tf: c.TF[i]})
		e.df++
	}
	x.live++
	x.totalLen += int64(c.Len())
	return true, retired
}

func (x *Index) remove(s int32) {
	c := x.slots[s]
	for _, t := range c.Terms {
		if e := x.terms[t]; e != nil {
			e.df--
		}
	}
	delete(x.byID, c.ID)
	x.slots[s] = nil
	x.lens[s] = -1
	x.live--
	x.dead++
	x.totalLen -= int64(c.Len())
}

// maybeCompact drops the postings of removed chunks once they outnumber the
// live ones: each compaction costs the size of the index and follows at
// least as many removals, so a removal costs O(1) amortised.
func (x *Index) maybeCompact() {
	if x.dead <= x.live || x.dead < 1024 {
		return
	}
	for t, e := range x.terms {
		if e.df == 0 {
			delete(x.terms, t)
			continue
		}
		kept := e.postings[:0]
		for _, p := range e.postings {
			if x.lens[p.slot] >= 0 {
				kept = append(kept, p)
			}
		}
		e.postings = slices.Clip(kept)
	}
	x.dead = 0
}

// Hit is one retrieved chunk and its score.
type Hit struct {
	Chunk *Chunk
	Score float64
}

// Search returns the k active chunks of highest BM25 score for query,
// best first; chunks of equal score come in chunk-id order, so a search is
// deterministic. Chunks sharing no term with the query are never returned.
// Each distinct query term counts once.
//
// score(D, Q) = Σ_{t ∈ Q} idf(t) · f(t, D) · (k1 + 1) / (f(t, D) + k1 · (1 − b + b · |D| / avgdl)),
// idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)).
func (x *Index) Search(query string, k int) []Hit {
	if k <= 0 || x.live == 0 {
		return nil
	}
	qterms, _ := Terms(query) // sorted and distinct: a fixed order of summation
	if cap(x.scores) < len(x.slots) {
		x.scores = make([]float64, len(x.slots), len(x.slots)+len(x.slots)/4+16)
	}
	scores := x.scores[:len(x.slots)]
	x.touched = x.touched[:0]
	n := float64(x.live)
	avgdl := float64(x.totalLen) / n
	lens := x.lens
	for _, t := range qterms {
		e := x.terms[t]
		if e == nil || e.df == 0 {
			continue
		}
		df := float64(e.df)
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range e.postings {
			l := lens[p.slot]
			if l < 0 {
				continue // removed
			}
			if scores[p.slot] == 0 {
				x.touched = append(x.touched, p.slot)
			}
			tf := float64(p.tf)
			scores[p.slot] += idf * tf * (BM25K1 + 1) / (tf + BM25K1*(1-BM25B+BM25B*float64(l)/avgdl))
		}
	}
	top := make([]Hit, 0, k+1)
	for _, s := range x.touched {
		h := Hit{Chunk: x.slots[s], Score: scores[s]}
		scores[s] = 0
		if len(top) == k && !better(h, top[k-1]) {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, h, func(a, b Hit) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, i, h)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// better orders hits: higher score first, then smaller chunk id.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Chunk.ID < b.Chunk.ID
}
