package question

import (
	"maps"
	"slices"
	"strings"

	"github.com/robustream/robustream/schemas"
)

// Pool sizes of PRGB's material per question: perturb draws 4 weak, 4
// moderate and 1 hard noise document per placeholder variant (PRGB
// §"Experimental setup": l1 = l2 = 4, l3 = 1) and resamples them for each
// variant, so the pools hold more than one variant needs. Bounded so a
// question record stays a few kilobytes whatever the graph's size.
const (
	prgbWeakPool       = 12
	prgbModeratePool   = 12
	prgbHardPool       = 4
	prgbCandidatePool  = 16
	prgbNearHops       = 2  // entities within this many hops are not "far" (weak noise)
	prgbExpandMaxEdges = 64 // an entity with more edges is not expanded (a hub like "2024")
	// prgbNeighbourFacts bounds the facts a document version keeps of the
	// documents read before it (its neighbours), the most recent first.
	prgbNeighbourFacts = 96
)

// NoiseFact is a fact of another document as a document version keeps it
// for PRGB's noise (DocVersions.Neighbours): what prgbFacts needs of an
// edge, copied, so that a later version of that document changes nothing.
type NoiseFact struct {
	ID       string `json:"id"`
	Sentence string `json:"sentence"`
	ChunkID  string `json:"chunk_id"`
	DocID    string `json:"doc_id"`
	Rel      string `json:"rel"`
	H        string `json:"h"`
	T        string `json:"t"`
	Period   string `json:"period"`
	// Head and Tail are the fact's entities as written (a candidate value
	// of the answer's class, when the relation is the answer's).
	Head string `json:"head"`
	Tail string `json:"tail"`
}

// docAt is a document version completed at a position of a partition.
type docAt struct {
	pos int64
	doc string
}

// placed records that d's version of doc was completed at its position.
func (k *Knowledge) placed(doc string, d *DocVersions) {
	if k.order == nil {
		k.order = map[int][]docAt{}
	}
	list := k.order[d.Partition]
	if n := len(list); n > 0 && list[n-1].pos > d.Position {
		k.orderSorted = false
	}
	k.order[d.Partition] = append(list, docAt{d.Position, doc})
}

// neighbours are the facts of the documents completed before position on
// partition, in their versions current now, the most recent documents
// first, up to prgbNeighbourFacts. Within a partition of rs.triplets the
// documents arrive in the order the source wrote them (each stage keys
// its output by doc_id), whatever the other partitions do: this set is the
// same on every run over one corpus, where the whole graph at this moment
// is not (docs/methods.md, PRGB).
func (k *Knowledge) neighbours(partition int, position int64, self string) []NoiseFact {
	if !k.orderSorted {
		for p, list := range k.order {
			slices.SortStableFunc(list, func(a, b docAt) int {
				switch {
				case a.pos < b.pos:
					return -1
				case a.pos > b.pos:
					return 1
				}
				return strings.Compare(a.doc, b.doc)
			})
			k.order[p] = list
		}
		k.orderSorted = true
	}
	list := k.order[partition]
	var out []NoiseFact
	seen := map[string]bool{self: true}
	for i := len(list) - 1; i >= 0 && len(out) < prgbNeighbourFacts; i-- {
		at := list[i]
		d := k.docs[at.doc]
		if at.pos >= position || seen[at.doc] || d == nil || d.Position != at.pos || d.Partition != partition {
			continue // later, this document, or a version since replaced
		}
		seen[at.doc] = true
		for _, id := range k.g.DocEdges(at.doc) {
			e := k.g.edges[id]
			if e == nil || strings.TrimSpace(e.Sentence) == "" || len(out) == prgbNeighbourFacts {
				continue
			}
			out = append(out, NoiseFact{ID: e.ID, Sentence: e.Sentence, ChunkID: e.ChunkID, DocID: e.DocID, Rel: e.rel, H: e.h, T: e.t, Period: e.period, Head: e.Head, Tail: e.Tail})
		}
	}
	return out
}

// neighboursOf are the neighbour facts of the documents of in's edges, as
// edges (prgbFacts reads nothing else of them).
func (k *Knowledge) neighboursOf(in *Instance) []*Edge {
	var out []*Edge
	seen := map[string]bool{}
	for _, e := range in.Edges {
		if seen[e.DocID] {
			continue
		}
		seen[e.DocID] = true
		d := k.docs[e.DocID]
		if d == nil {
			continue
		}
		for _, f := range d.Neighbours {
			out = append(out, &Edge{ID: f.ID, Sentence: f.Sentence, ChunkID: f.ChunkID, DocID: f.DocID, Head: f.Head, Tail: f.Tail,
				rel: f.Rel, h: f.H, t: f.T, period: f.Period})
		}
	}
	return out
}

// prgbFacts gathers the noise facts and the answer's class of an
// instance from the graph (schemas.PRGBFacts). PRGB builds its noise from
// the entity hierarchy (§"Multi-level filtering"): weak noise from
// unrelated entities, moderate from siblings (same parent, same
// predicate), hard from the parent's own facts, which state a general
// value that conflicts with the child's. Our graph has no explicit
// hierarchy, so distance stands in for it:
//   - weak: an edge neither of whose entities is within two hops of the
//     question's entities, on another relation;
//   - moderate: an edge of the answer's relation with another subject
//     (the sibling facts);
//   - hard: an edge of the answer's relation whose subject is a neighbour
//     of the question's subject (its parent: the company of a plant, the
//     country of a central bank), or is the subject itself in another
//     period with another value — the same entity's general or earlier
//     figure, which conflicts with the specific one asked about.
//
// The facts are drawn from the documents the question's own facts come
// from, whole versions of which the graph holds when the question is built
// (ChunkDone applies a version at once), and from their neighbours: the
// documents read before each of them on its partition of rs.triplets, as
// they stood when it was completed (Knowledge.neighbours). Drawn from the
// whole graph as it stands, they would depend on which documents of other
// partitions had arrived first, and two runs over one corpus, whose
// partitions interleave differently, would ask different PRGB variants
// (one corpus, one test set); within one partition the order is the
// source's. For the same reason entities are compared by their keys within
// the documents, not by the graph's alias resolution, which later
// documents can change. A level the facts cannot supply is left short, and
// perturb counts the shortfall.
//
// Edges citing a ground-truth chunk of the question are never noise. The
// lists are ordered by a hash of the instance and the edge, so the choice is
// deterministic and differs between questions. It scans the documents'
// edges once.
func (g *Graph) prgbFacts(in *Instance, neighbours []*Edge) *schemas.PRGBFacts {
	ae, tail := in.Answer()
	subject, value := ae.h, ae.t
	if !tail {
		subject, value = value, subject
	}
	golden := map[string]bool{}
	mine := map[string]bool{}
	docs := map[string]bool{}
	var starts []string
	for _, e := range in.Edges {
		golden[e.ChunkID] = true
		mine[e.ID] = true
		docs[e.DocID] = true
		starts = append(starts, e.h, e.t)
	}
	var local []*Edge
	for _, doc := range slices.Sorted(maps.Keys(docs)) {
		for _, id := range g.DocEdges(doc) {
			if e := g.edges[id]; e != nil {
				local = append(local, e)
			}
		}
	}
	// The neighbours: facts of the documents read before the question's
	// on their partitions (Knowledge.neighbours), each once.
	have := map[string]bool{}
	for _, e := range local {
		have[e.ID] = true
	}
	for _, e := range neighbours {
		if !have[e.ID] && !docs[e.DocID] {
			have[e.ID] = true
			local = append(local, e)
		}
	}
	near := localWithin(local, starts, prgbNearHops)
	parents := map[string]bool{}
	for _, e := range local {
		if e.h == subject || e.t == subject {
			for _, n := range []string{e.h, e.t} {
				if n != subject && n != value {
					parents[n] = true
				}
			}
		}
	}
	type pick struct{ key, text string }
	var weak, moderate, hard, cands []pick
	seenCand := map[string]bool{}
	seed := in.ID()
	for _, e := range local {
		id := e.ID
		if mine[id] || golden[e.ChunkID] || strings.TrimSpace(e.Sentence) == "" {
			continue
		}
		eSubject, eValue, eValueText := e.h, e.t, e.Tail
		if !tail {
			eSubject, eValue, eValueText = eValue, eSubject, e.Head
		}
		key := schemas.ID(seed, id)
		p := pick{key, e.Sentence}
		sameRel := e.rel == ae.rel
		switch {
		case sameRel && eValue != value && (parents[eSubject] || (eSubject == subject && e.period != ae.period)):
			hard = append(hard, p)
		case sameRel && eSubject != subject:
			moderate = append(moderate, p)
		case !sameRel && !near[e.h] && !near[e.t]:
			weak = append(weak, p)
		}
		if sameRel && eValue != value && !seenCand[eValue] {
			seenCand[eValue] = true
			cands = append(cands, pick{schemas.ID(seed, "candidate", eValue), strings.Join(strings.Fields(eValueText), " ")})
		}
	}
	take := func(ps []pick, n int) []string {
		slices.SortFunc(ps, func(a, b pick) int { return strings.Compare(a.key, b.key) })
		var out []string
		seen := map[string]bool{}
		for _, p := range ps {
			if len(out) == n {
				break
			}
			if !seen[p.text] {
				seen[p.text] = true
				out = append(out, p.text)
			}
		}
		return out
	}
	f := &schemas.PRGBFacts{Candidates: take(cands, prgbCandidatePool), Weak: take(weak, prgbWeakPool),
		Moderate: take(moderate, prgbModeratePool), Hard: take(hard, prgbHardPool)}
	if len(f.Candidates)+len(f.Weak)+len(f.Moderate)+len(f.Hard) == 0 {
		return nil
	}
	return f
}

// localWithin returns the entity keys at most hops edges of edges from
// starts, in either direction. Hubs (more than prgbExpandMaxEdges edges)
// are reached but not expanded: through "2024" every fact is two hops away.
func localWithin(edges []*Edge, starts []string, hops int) map[string]bool {
	adj := map[string][]string{}
	for _, e := range edges {
		adj[e.h] = append(adj[e.h], e.t)
		adj[e.t] = append(adj[e.t], e.h)
	}
	seen := map[string]bool{}
	frontier := []string{}
	for _, s := range starts {
		if !seen[s] {
			seen[s] = true
			frontier = append(frontier, s)
		}
	}
	for d := 0; d < hops; d++ {
		var next []string
		for _, n := range frontier {
			if len(adj[n]) > prgbExpandMaxEdges {
				continue
			}
			for _, m := range adj[n] {
				if !seen[m] {
					seen[m] = true
					next = append(next, m)
				}
			}
		}
		frontier = next
	}
	return seen
}
