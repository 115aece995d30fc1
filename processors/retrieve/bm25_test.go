package retrieve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The corpus and scores are worked out by hand (k1 = 1.2, b = 0.75):
// c1 "apple banana" (|D| 2), c2 "apple apple cherry" (3), c3 "banana
// cherry date" (3); N = 3, avgdl = 8/3.
//
//	idf(apple) = ln(1 + 1.5/2.5) = ln 1.6 = 0.4700036
//	idf(date)  = ln(1 + 2.5/1.5) = ln(8/3) = 0.9808293
//	c1, apple: 0.4700036 · 2.2 / (1 + 1.2 · (0.25 + 0.75 · 0.75)) = 0.4700036 · 2.2 / 1.975 = 0.5235483
//	c2, apple: 0.4700036 · 2 · 2.2 / (2 + 1.2 · (0.25 + 0.75 · 1.125)) = 0.4700036 · 4.4 / 3.3125 = 0.6243071
//	c3, date:  0.9808293 · 2.2 / (1 + 1.3125) = 0.9331135
func TestBM25HandComputed(t *testing.T) {
	x := NewIndex()
	for _, c := range []*Chunk{
		NewChunk("c1", "d1", 1, "Apple banana."),
		NewChunk("c2", "d2", 1, "apple, APPLE cherry"),
		NewChunk("c3", "d3", 1, "The banana cherry date"), // "the" is dropped as an article
	} {
		if added, _ := x.Add(c); !added {
			t.Fatalf("%s not added", c.ID)
		}
	}
	check := func(query string, k int, want []string, scores []float64) {
		t.Helper()
		hits := x.Search(query, k)
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Chunk.ID)
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("Search(%q, %d) = %v, want %v", query, k, ids, want)
		}
		for i, h := range hits {
			if math.Abs(h.Score-scores[i]) > 1e-6 {
				t.Errorf("Search(%q): %s scores %.7f, want %.7f", query, h.Chunk.ID, h.Score, scores[i])
			}
		}
	}
	check("apple", 3, []string{"c2", "c1"}, []float64{0.6243071, 0.5235483})
	check("Apple? date!", 3, []string{"c3", "c2", "c1"}, []float64{0.9331135, 0.6243071, 0.5235483})
	check("apple date", 2, []string{"c3", "c2"}, []float64{0.9331135, 0.6243071})
	check("apple apple date", 1, []string{"c3"}, []float64{0.9331135}) // a repeated query term counts once
	check("kiwi", 3, nil, nil)
}

// Chunks of equal score come in chunk-id order, whatever the order they
// were added in.
func TestBM25TiesByChunkID(t *testing.T) {
	for _, order := range [][]string{{"b", "a", "c"}, {"c", "b", "a"}, {"a", "c", "b"}} {
		x := NewIndex()
		for _, id := range order {
			x.Add(NewChunk(id, "doc-"+id, 1, "the same words here"))
		}
		var ids []string
		for _, h := range x.Search("same words", 2) {
			ids = append(ids, h.Chunk.ID)
		}
		if !slices.Equal(ids, []string{"a", "b"}) {
			t.Errorf("added %v: top-2 %v, want [a b]", order, ids)
		}
	}
}

// event is one change to the corpus: a chunk of a document version, or a
// document version without chunks (a deletion).
type event struct {
	doc     string
	version uint32
	chunk   *Chunk // nil: the version alone
}

// randomHistory makes documents that get new versions and deletions, in an
// order where each document's versions arrive in order, some stale chunks
// late.
func randomHistory(r *rand.Rand, docs, versions int) []event {
	words := []string{"kafka", "broker", "partition", "offset", "replica", "leader", "topic", "consumer", "group",
		"retention", "segment", "index", "log", "compaction", "schema", "producer", "batch", "linger", "acks", "quota"}
	var out []event
	for d := range docs {
		doc := fmt.Sprintf("doc%02d", d)
		for v := uint32(1); v <= uint32(versions); v++ {
			if r.IntN(5) == 0 {
				out = append(out, event{doc: doc, version: v}) // deleted
				continue
			}
			for i := range 1 + r.IntN(4) {
				var text string
				for range 3 + r.IntN(12) {
					text += words[r.IntN(len(words))] + " "
				}
				if i == 0 && r.IntN(3) == 0 {
					text = "kafka broker partition " // the same paragraph in many versions
				}
				out = append(out, event{doc: doc, version: v, chunk: NewChunk(fmt.Sprintf("%s-%x", doc, text), doc, v, text)})
			}
		}
	}
	// Interleave documents at random, keeping each document's own order.
	perDoc := map[string][]event{}
	var order []string
	for _, e := range out {
		if perDoc[e.doc] == nil {
			order = append(order, e.doc)
		}
		perDoc[e.doc] = append(perDoc[e.doc], e)
	}
	var merged []event
	for len(order) > 0 {
		i := r.IntN(len(order))
		doc := order[i]
		merged = append(merged, perDoc[doc][0])
		perDoc[doc] = perDoc[doc][1:]
		if len(perDoc[doc]) == 0 {
			order = slices.Delete(order, i, i+1)
		}
	}
	return merged
}

func apply(x *Index, e event) {
	if e.chunk == nil {
		x.SetVersion(e.doc, e.version)
		return
	}
	c := *e.chunk
	x.Add(&c)
}

// An index updated incrementally, through new versions and deletions
// (enough of them to compact the postings), answers every query exactly
// as an index built from scratch over the final active chunks.
func TestIncrementalEqualsRebuild(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	hist := randomHistory(r, 60, 40)
	inc := NewIndex()
	for _, e := range hist {
		apply(inc, e)
	}
	// The final corpus, worked out independently: per document, the chunks
	// of its last version (none if that version is a deletion).
	last := map[string]uint32{}
	for _, e := range hist {
		last[e.doc] = max(last[e.doc], e.version)
	}
	rebuilt := NewIndex()
	for _, e := range hist {
		if e.chunk != nil && e.chunk.Version == last[e.doc] {
			apply(rebuilt, e)
		}
	}
	if inc.Len() != rebuilt.Len() || inc.Len() == 0 {
		t.Fatalf("incremental index holds %d chunks, rebuilt %d", inc.Len(), rebuilt.Len())
	}
	if inc.dead > inc.live && inc.dead >= 1024 {
		t.Errorf("dead postings were never compacted: %d dead, %d live", inc.dead, inc.live)
	}
	if removed := len(inc.slots) - inc.live; removed < 2*1024 {
		t.Fatalf("only %d chunks were retired: too few to compact", removed)
	}
	compacted := false
	for _, q := range []string{"kafka broker", "offset retention segment", "leader replica acks quota", "log", "linger batch producer"} {
		a, b := inc.Search(q, 5), rebuilt.Search(q, 5)
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("%q: %d hits incrementally, %d rebuilt", q, len(a), len(b))
		}
		for i := range a {
			if a[i].Chunk.ID != b[i].Chunk.ID || a[i].Score != b[i].Score {
				t.Errorf("%q hit %d: incremental %s %.9f, rebuilt %s %.9f", q, i, a[i].Chunk.ID, a[i].Score, b[i].Chunk.ID, b[i].Score)
			}
		}
	}
	for _, e := range inc.terms {
		if len(e.postings) < e.df {
			t.Fatalf("a term lost live postings")
		}
		compacted = compacted || len(e.postings) > 0
	}
	if !compacted {
		t.Fatal("no postings")
	}
}

// A chunk of an older version arriving after a newer version (or a
// deletion) is not indexed.
func TestStaleChunkIgnored(t *testing.T) {
	x := NewIndex()
	x.Add(NewChunk("a2", "d", 2, "second version text"))
	if added, _ := x.Add(NewChunk("a1", "d", 1, "first version text")); added {
		t.Error("a chunk of version 1 was indexed after version 2")
	}
	if retired := x.SetVersion("d", 3); len(retired) != 1 || retired[0].ID != "a2" {
		t.Errorf("deletion retired %v", retired)
	}
	if x.Len() != 0 || len(x.Search("version text", 3)) != 0 {
		t.Errorf("a deleted document is still retrievable: %d chunks", x.Len())
	}
}
