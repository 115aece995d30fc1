package question

import (
	"slices"
	"strings"
	"unicode"

	"github.com/robustream/robustream/schemas"
)

// Instance is one occurrence of a question pattern in the graph: the edges
// a question is built on, in the order the question walks them.
//   - single: [e]; the answer is e's tail.
//   - chain (2–3 edges) and path (4–5 edges): e1 … ek with the tail of each
//     the head of the next; the question names e1's head, the answer is
//     ek's tail, the entities between are pivots referred to indirectly.
//   - star: [e1, e2] sharing their head A; e1 identifies A ("the company
//     based in Trondheim"), the answer is e2's tail.
//   - inverted star: [e1, e2] sharing their tail C; e1 identifies C
//     through its head, the answer is e2's head.
type Instance struct {
	Pattern  string
	Edges    []*Edge
	Repaired bool // a hop crossed a context-equivalence link
	id       string
}

// ID is the instance's identity: its pattern and edges, in order.
func (in *Instance) ID() string {
	if in.id == "" {
		parts := []string{in.Pattern}
		for _, e := range in.Edges {
			parts = append(parts, e.ID)
		}
		in.id = schemas.ID(parts...)
	}
	return in.id
}

// Answer is the edge holding the answer and whether the answer is its tail.
func (in *Instance) Answer() (*Edge, bool) {
	switch in.Pattern {
	case schemas.PatternInvertedStar:
		return in.Edges[1], false
	default:
		return in.Edges[len(in.Edges)-1], true
	}
}

// PatternLimits bound the enumeration (Config.Patterns).
type PatternLimits struct {
	// MaxHops is the longest path (GRADE: 2–5 hops).
	MaxHops int `yaml:"max_hops" help:"longest multi-hop path, 2..5 (GRADE)"`
	// HubDegree is the degree, in one period, above which an entity is too
	// generic to be a pivot for the facts of that period ("the company",
	// "2025"): paths from them do not pass through it (Graph.hub).
	HubDegree int `yaml:"hub_degree" help:"entities with more edges than this in a fact's period are never its pivots"`
	// PerDocument caps the questions of one pattern whose answer comes from
	// one document. The kept ones are those of smallest id, so the set does
	// not depend on the order documents arrive in.
	PerDocument int `yaml:"per_document" help:"most questions per pattern and document"`
	// PerFact caps the multi-hop questions of one pattern that ask one
	// fact (its answer), so a fact with many neighbours does not fill the
	// set with near-identical questions.
	PerFact int `yaml:"per_fact" help:"most multi-hop questions per pattern that ask one fact"`
	// SingleHop: "unique" asks a single-hop question about a fact when its
	// head has no other tail for the relation (one answer); "rare" adds
	// RARE §4.3's degree constraints (head: out 1, in 0; tail: in 1, out
	// 0), which keep single-hop facts out of multi-hop questions.
	SingleHop string `yaml:"single_hop" help:"single-hop selection: unique or rare"`
}

func (l PatternLimits) withDefaults() PatternLimits {
	if l.MaxHops == 0 {
		l.MaxHops = 5
	}
	if l.HubDegree == 0 {
		l.HubDegree = 40
	}
	if l.PerDocument == 0 {
		l.PerDocument = 50
	}
	if l.PerFact == 0 {
		l.PerFact = 3
	}
	if l.SingleHop == "" {
		l.SingleHop = "unique"
	}
	return l
}

// maxPathsPerEdge bounds the paths enumerated through one new edge, and
// maxWalks the partial paths on either side of it: the work per new edge
// stays bounded however dense the graph around it is. Walks follow edges
// in id order, so the bound keeps the same paths whatever the arrival
// order.
const (
	maxPathsPerEdge = 200
	maxWalks        = 64
)

// Around returns every pattern instance that contains edge e. The caller
// validates each (Valid).
func (g *Graph) Around(e *Edge, lim PatternLimits) []*Instance {
	out := []*Instance{{Pattern: schemas.PatternSingle, Edges: []*Edge{e}}}
	h, t := g.head(e), g.tail(e)
	var stars, inverted []hop
	if !g.hub(h, e, lim) {
		stars = g.outOf(h)
	}
	if !g.hub(t, e, lim) {
		inverted = g.inOf(t)
	}
	for _, o := range stars {
		if o.e != e && compatible(o.e, e) {
			out = append(out, &Instance{Pattern: schemas.PatternStar, Edges: []*Edge{e, o.e}, Repaired: o.repaired},
				&Instance{Pattern: schemas.PatternStar, Edges: []*Edge{o.e, e}, Repaired: o.repaired})
		}
	}
	for _, i := range inverted {
		if i.e != e && compatible(i.e, e) {
			out = append(out, &Instance{Pattern: schemas.PatternInvertedStar, Edges: []*Edge{e, i.e}, Repaired: i.repaired},
				&Instance{Pattern: schemas.PatternInvertedStar, Edges: []*Edge{i.e, e}, Repaired: i.repaired})
		}
	}
	// Paths through e: up to MaxHops-1 edges before it and after it.
	before := g.walk(h, e, lim, lim.MaxHops-1, false, map[string]bool{h: true, t: true})
	after := g.walk(t, e, lim, lim.MaxHops-1, true, map[string]bool{h: true, t: true})
	n := 0
	for _, b := range before {
		for _, a := range after {
			k := len(b.edges) + 1 + len(a.edges)
			if k < 2 || k > lim.MaxHops || n >= maxPathsPerEdge || overlaps(b.nodes, a.nodes) {
				continue
			}
			edges := make([]*Edge, 0, k)
			for i := len(b.edges) - 1; i >= 0; i-- {
				edges = append(edges, b.edges[i])
			}
			edges = append(edges, e)
			edges = append(edges, a.edges...)
			p := schemas.PatternChain
			if k > 3 {
				p = schemas.PatternPath
			}
			out = append(out, &Instance{Pattern: p, Edges: edges, Repaired: b.repaired || a.repaired})
			n++
		}
	}
	return out
}

type walked struct {
	edges    []*Edge
	nodes    []string
	repaired bool
}

// walk returns the simple walks of up to depth edges from n (forward along
// out-edges, or backward along in-edges), the empty walk included. Hubs
// are never crossed.
func (g *Graph) walk(n string, from *Edge, lim PatternLimits, depth int, forward bool, seen map[string]bool) []walked {
	out := []walked{{}}
	if depth == 0 || g.hub(n, from, lim) {
		return out
	}
	next := g.inOf(n)
	if forward {
		next = g.outOf(n)
	}
	for _, x := range next {
		if len(out) >= maxWalks {
			break
		}
		if !compatible(x.e, from) {
			continue
		}
		m := g.head(x.e)
		if forward {
			m = g.tail(x.e)
		}
		if seen[m] {
			continue
		}
		seen[m] = true
		for _, w := range g.walk(m, from, lim, depth-1, forward, seen) {
			if len(out) >= maxWalks {
				break
			}
			out = append(out, walked{edges: append([]*Edge{x.e}, w.edges...), nodes: append([]string{m}, w.nodes...),
				repaired: x.repaired || w.repaired})
		}
		delete(seen, m)
	}
	return out
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// Rejection reasons of pattern instances (besides the rule checks).
const (
	RejectAmbiguous = "ambiguous"  // the question would have more than one answer
	RejectOneChunk  = "one_chunk"  // one chunk answers a multi-hop question alone
	RejectHubPivot  = "hub_pivot"  // a pivot is too generic (pivot rarity)
	RejectRedundant = "redundant"  // a path with a shortcut
	RejectDuplicate = "duplicate"  // the same fact asked from another chunk
	RejectDegree    = "degree"     // RARE's single-hop degree constraints
	RejectStale     = "stale_edge" // an edge left the graph
	RejectPeriods   = "periods"    // a multi-hop set mixes facts of different periods
)

// Valid checks an instance against the graph as it stands and returns ""
// or the reason it cannot be asked. Every condition is a function of the
// graph, so the set of valid instances does not depend on the order edges
// arrived in.
func (g *Graph) Valid(in *Instance, lim PatternLimits) string {
	for _, e := range in.Edges {
		if g.edges[e.ID] != e {
			return RejectStale
		}
	}
	unique := func(e *Edge) bool { return g.distinct(g.head(e), e.rel, e.period, "", true) == 1 }
	switch in.Pattern {
	case schemas.PatternSingle:
		e := in.Edges[0]
		if !unique(e) {
			return RejectAmbiguous
		}
		if g.repeated(e) {
			// "Where is the Kea project website available?" from the same
			// paragraph on nine manual pages: asked once, from the chunk
			// whose edge id is least (whatever order they came in)
			return RejectDuplicate
		}
		if lim.SingleHop == "rare" {
			h, t := g.head(e), g.tail(e)
			if len(g.outOf(h)) != 1 || len(g.inOf(h)) != 0 || len(g.inOf(t)) != 1 || len(g.outOf(t)) != 0 {
				return RejectDegree
			}
		}
		return ""
	}
	chunks := map[string]bool{}
	for _, e := range in.Edges {
		chunks[e.ChunkID] = true
		for _, o := range in.Edges {
			if !compatible(e, o) {
				return RejectPeriods
			}
		}
	}
	if len(chunks) < 2 {
		return RejectOneChunk
	}
	switch in.Pattern {
	case schemas.PatternChain, schemas.PatternPath:
		nodes := []string{g.head(in.Edges[0])}
		for i, e := range in.Edges {
			if !unique(e) {
				return RejectAmbiguous
			}
			if i > 0 && (g.hubFor(g.head(e), in, lim) || hasDigit(e.Head)) {
				return RejectHubPivot
			}
			nodes = append(nodes, g.tail(e))
		}
		// Simple: no entity twice, counting context-equivalent names as
		// one ("Vik" and "Anders Vik"): a walk that comes back to where it
		// passed asks a riddle whose answer it names.
		for i, a := range nodes {
			for _, b := range nodes[i+1:] {
				if a == b || g.links[a][b] {
					return RejectRedundant
				}
			}
		}
		// Non-redundant: no edge joins two entities of the path that are
		// not neighbours on it (the path would not be a shortest one).
		for i, a := range nodes {
			for _, o := range g.outOf(a) {
				if j := slices.Index(nodes, g.tail(o.e)); j >= 0 && j != i+1 && j != i-1 {
					return RejectRedundant
				}
			}
		}
	case schemas.PatternStar:
		id, ask := in.Edges[0], in.Edges[1]
		a := g.head(id)
		if g.hubFor(a, in, lim) {
			return RejectHubPivot
		}
		if id.rel == ask.rel || g.distinct(g.tail(id), id.rel, id.period, "", false) != 1 || !unique(ask) || a == "" {
			return RejectAmbiguous
		}
	case schemas.PatternInvertedStar:
		id, ask := in.Edges[0], in.Edges[1]
		c := g.tail(id)
		if g.head(id) == g.head(ask) || g.links[g.head(id)][g.head(ask)] || !unique(id) {
			return RejectAmbiguous
		}
		if g.distinct(c, ask.rel, ask.period, g.head(id), false) != 1 {
			return RejectAmbiguous
		}
		if g.hubFor(c, in, lim) || hasDigit(id.Tail) {
			return RejectHubPivot
		}
	}
	return ""
}

// hubFor reports whether an entity is a hub for any edge of an instance.
// Enumeration stops at a hub for the edge it starts from, so a valid
// instance must have no hub pivot for any of its edges: then it is found
// from whichever edge arrives last.
func (g *Graph) hubFor(n string, in *Instance, lim PatternLimits) bool {
	for _, e := range in.Edges {
		if g.hub(n, e, lim) {
			return true
		}
	}
	return false
}

// Entities returns the canonical entities an instance touches.
func (g *Graph) entitiesOf(in *Instance) []string {
	var out []string
	for _, e := range in.Edges {
		out = append(out, g.head(e), g.tail(e))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// docOf is the document an instance's answer comes from (its cap group).
func docOf(in *Instance) string {
	e, _ := in.Answer()
	return e.DocID
}

// capKey is the cap group of an instance: its document and pattern for a
// single-hop question; for a multi-hop one the pattern, the fact it asks
// and the documents its facts come from. All the instances of a group
// become possible when the last of those documents is applied, in one
// update, so the cap picks among all of them at once and the set asked
// does not depend on the order documents arrive in.
func capKey(in *Instance) string {
	if in.Pattern == schemas.PatternSingle {
		return docOf(in) + "\x00" + in.Pattern
	}
	e, _ := in.Answer()
	var docs []string
	for _, x := range in.Edges {
		docs = append(docs, x.DocID)
	}
	slices.Sort(docs)
	return docOf(in) + "\x00" + in.Pattern + "\x00" + e.ID + "\x00" + strings.Join(slices.Compact(docs), "\x00")
}

// capOf returns the cap of a group.
func (l PatternLimits) capOf(group string) int {
	if strings.Count(group, "\x00") > 1 {
		return l.PerFact
	}
	return l.PerDocument
}

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }
