package question

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
)

// Edge is one fact of the knowledge graph: a triplet of the current version
// of its document.
//
// An edge is one fact of one document, whatever chunk states it: its ID
// hashes the document and the fact, not the sentence or the chunk, so a new
// version that leaves the fact alone leaves the edge and its questions
// alone, even when an edit elsewhere in the paragraph (or the sentence) gave
// the chunk a new id. TripletID, ChunkID and Sentence are those of the
// latest statement.
type Edge struct {
	ID, TripletID              string
	Head, Relation, Tail, Kind string
	Sentence, ChunkID, DocID   string
	Domain                     string
	DocVersion                 uint32
	PublishedAt                time.Time
	// rel is the normalized relation (lemmas, no auxiliaries); h and t the
	// entity keys of head and tail before alias resolution; period the time
	// the fact belongs to (the sentence's time expression, else the month of
	// publication): facts of different periods do not conflict.
	rel, h, t, period string
	// month is the month of publication, counted from year 0 (0: unknown).
	month int
	// dated: the period comes from the sentence itself, not from the
	// publication date.
	dated bool
}

// EdgeOf returns the edge of a triplet.
func EdgeOf(t *schemas.Triplet) *Edge {
	return &Edge{ID: EdgeKey(t), TripletID: t.TripletID, Head: t.Head, Relation: t.Relation, Tail: t.Tail, Kind: t.Kind,
		Sentence: t.SourceSentence, ChunkID: t.ChunkID, DocID: t.DocID, Domain: t.Domain,
		DocVersion: t.DocVersion, PublishedAt: t.PublishedAt,
		rel: RelationKey(t.Relation), h: headKey(t), t: EntityKey(t.Tail), period: periodKey(t), month: monthOf(t.PublishedAt),
		dated: anchor(t.Head, t.Tail, t.SourceSentence) != ""}
}

// compatible reports whether two facts may be combined in one multi-hop
// question: facts dated by their own sentences must be of one period
// ("employed 11,400 people in Q1 2024" does not combine with "opened 17
// stores in Q2 2024"); a fact dated only by its document's publication
// holds as of that publication, and combines with the facts published
// within combineMonths of it (with any, when either date is unknown).
func compatible(a, b *Edge) bool {
	if a.dated && b.dated {
		return a.period == b.period
	}
	if a.month == 0 || b.month == 0 {
		return true
	}
	return max(a.month-b.month, b.month-a.month) <= combineMonths
}

// combineMonths is how far apart two publications may be for a fact of one
// dated only by its publication to be combined with a fact of the other.
// A description grows stale ("the company that operates 27 wind farms" as
// of a report two years old), and without a bound every quarterly report
// of a company would pair with all of its earlier ones: the questions per
// period of an unbounded feed would grow with its age.
const combineMonths = 12

// monthOf counts the months of a date from year 0 (0 for the zero time).
func monthOf(at time.Time) int {
	if at.IsZero() {
		return 0
	}
	return at.Year()*12 + int(at.Month())
}

// headKey is the entity key of a triplet's head. A table row named by a
// common noun ("Revenue", "Operating margin") is a line of that document's
// table, not an entity shared with others: its key is qualified by the
// document, so two companies' "Revenue" rows never merge.
func headKey(t *schemas.Triplet) string {
	k := EntityKey(t.Head)
	if t.Kind == "table" && !namedEntity(t.Head) {
		k += " @" + t.DocID
	}
	return k
}

// namedEntity reports whether a name has two or more words and every word
// capitalized: "Northwind Robotics", not "Operating margin" or "Revenue".
func namedEntity(name string) bool {
	ws := strings.Fields(name)
	if len(ws) < 2 {
		return false
	}
	for _, w := range ws {
		if r := []rune(w)[0]; !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// periodKey is the period a triplet's fact belongs to.
func periodKey(t *schemas.Triplet) string {
	if a := anchor(t.Head, t.Tail, t.SourceSentence); a != "" {
		return strings.ToLower(a)
	}
	if t.PublishedAt.IsZero() {
		return ""
	}
	return t.PublishedAt.Format("2006-01")
}

// EdgeKey is the identity of a triplet's fact in the graph.
func EdgeKey(t *schemas.Triplet) string {
	return schemas.ID(t.DocID, t.Head, t.Relation, t.Tail)
}

// triplet returns the edge as the triplet it came from, with its chunk.
func (e *Edge) triplet(chunk string) *schemas.Triplet {
	return &schemas.Triplet{TripletID: e.TripletID, Head: e.Head, Relation: e.Relation, Tail: e.Tail, Kind: e.Kind,
		ChunkID: e.ChunkID, DocID: e.DocID, SourceSentence: e.Sentence, ChunkText: chunk, Domain: e.Domain,
		DocVersion: e.DocVersion, PublishedAt: e.PublishedAt}
}

// corporate suffixes are dropped from entity keys: "Northwind Robotics AS"
// and "Northwind Robotics" are one company.
var corporate = map[string]bool{"inc": true, "ltd": true, "llc": true, "plc": true, "corp": true,
	"corporation": true, "as": true, "asa": true, "ab": true, "gmbh": true, "ag": true, "sa": true,
	"co": true, "limited": true, "incorporated": true}

// EntityKey is the exact-merge key of an entity name: folded case and
// Unicode, no leading article, no possessive, no corporate suffix, single
// spaces. "The Port of Trondheim's" and "port of trondheim" share a key.
func EntityKey(name string) string {
	ws := strings.FieldsFunc(text.Normalize(name), func(r rune) bool { return unicode.IsSpace(r) })
	for len(ws) > 1 && (ws[0] == "the" || ws[0] == "a" || ws[0] == "an") {
		ws = ws[1:]
	}
	if n := len(ws); n > 0 {
		ws[n-1] = strings.TrimSuffix(strings.TrimSuffix(ws[n-1], "'s"), "’s")
	}
	for len(ws) > 1 && corporate[ws[len(ws)-1]] {
		ws = ws[:len(ws)-1]
	}
	return strings.Join(ws, " ")
}

// relAux are dropped from relation keys.
var relAux = map[string]bool{"has": true, "have": true, "had": true, "will": true, "would": true,
	"been": true, "be": true, "also": true, "now": true}

// RelationKey is the normalized relation: lower-case lemmas without
// auxiliaries, so that "supplied", "supplies" and "has supplied" are one
// relation, and "makes" and "manufactures" are "produce".
func RelationKey(rel string) string {
	var out []string
	for i, w := range strings.Fields(strings.ToLower(rel)) {
		if relAux[w] {
			continue
		}
		if i == 0 || len(out) == 0 {
			if f, ok := parseRelation(w); ok && f.lemma != "" {
				w = f.lemma
			} else if ok && f.copula {
				w = "be"
			}
			if s, ok := relationSynonyms[w]; ok {
				w = s
			}
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// relationSynonyms maps verbs that state the same relation to one lemma.
var relationSynonyms = map[string]string{"make": "produce", "manufacture": "produce", "build": "produce",
	"employ": "employ", "hire": "appoint", "name": "appoint", "purchase": "buy", "acquire": "buy",
	"run": "operate", "manage": "operate", "head": "lead"}

// acronymRe finds an acronym defined in parentheses after a name:
// "Innovation Trøndelag (IT)".
var acronymRe = regexp.MustCompile(`((?:\p{Lu}[\p{L}&-]*\s+){1,5}\p{Lu}[\p{L}&-]*)\s+\((\p{Lu}{2,6})\)`)

// Graph is the knowledge graph: entities merged by key and by alias, edges
// of the current versions of their documents, and the chunks that hold
// them. It is not safe for concurrent use.
type Graph struct {
	edges   map[string]*Edge
	out, in map[string]map[string]*Edge // canonical entity → edge id → edge
	parent  map[string]string           // alias merges (union-find); absent: its own root
	// links are GRADE's context-equivalent entities: in one document, a
	// one-word name and the longer names it opens ("Northwind" and
	// "Northwind Robotics"). Paths cross a link as if the edges were
	// mirrored, and a question that does is recorded as repaired.
	links   map[string]map[string]bool
	docKeys map[string]map[string]bool // document → entity keys
	chunks  map[string]string          // chunk id → text
	refs    map[string]int             // chunk id → edges citing it
	byDoc   map[string]map[string]bool // document → edge ids
	pdeg    map[string]map[string]int  // canonical entity → period → edges
	// outRel and inRel index the edges of an entity by relation and
	// period, for the uniqueness checks.
	outRel, inRel map[string]map[string]map[string]*Edge
	flags         map[string]describes // canonical entity → what describes it (signature)
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{edges: map[string]*Edge{}, out: map[string]map[string]*Edge{}, in: map[string]map[string]*Edge{},
		parent: map[string]string{}, links: map[string]map[string]bool{}, docKeys: map[string]map[string]bool{},
		chunks: map[string]string{}, refs: map[string]int{}, byDoc: map[string]map[string]bool{},
		pdeg:   map[string]map[string]int{},
		outRel: map[string]map[string]map[string]*Edge{}, inRel: map[string]map[string]map[string]*Edge{},
		flags: map[string]describes{}}
}

// Len returns the number of edges.
func (g *Graph) Len() int { return len(g.edges) }

// Entities returns the number of canonical entities with an edge.
func (g *Graph) Entities() int {
	n := map[string]bool{}
	for _, e := range g.edges {
		n[g.find(e.h)], n[g.find(e.t)] = true, true
	}
	return len(n)
}

// Edge returns the edge of a triplet id.
func (g *Graph) Edge(id string) (*Edge, bool) { e, ok := g.edges[id]; return e, ok }

// Chunk returns the text of a chunk an edge cites.
func (g *Graph) Chunk(id string) string { return g.chunks[id] }

func (g *Graph) find(k string) string {
	for {
		p, ok := g.parent[k]
		if !ok {
			return k
		}
		if gp, ok := g.parent[p]; ok {
			g.parent[k] = gp
		}
		k = p
	}
}

// union merges two entity keys; the smaller key is the root, so the result
// does not depend on the order merges arrive in. It returns the root when
// anything moved.
func (g *Graph) union(a, b string) (string, bool) {
	ra, rb := g.find(a), g.find(b)
	if ra == rb || ra == "" || rb == "" {
		return "", false
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	g.parent[rb] = ra
	for _, adj := range []map[string]map[string]*Edge{g.out, g.in} {
		if m := adj[rb]; m != nil {
			if adj[ra] == nil {
				adj[ra] = map[string]*Edge{}
			}
			for id, e := range m {
				adj[ra][id] = e
			}
			delete(adj, rb)
		}
	}
	for _, idx := range []map[string]map[string]map[string]*Edge{g.outRel, g.inRel} {
		for rp, m := range idx[rb] {
			if idx[ra] == nil {
				idx[ra] = map[string]map[string]*Edge{}
			}
			if idx[ra][rp] == nil {
				idx[ra][rp] = map[string]*Edge{}
			}
			for id, e := range m {
				idx[ra][rp][id] = e
			}
		}
		delete(idx, rb)
	}
	fa, fb := g.flags[ra], g.flags[rb]
	g.flags[ra] = describes{fa.roleIn + fb.roleIn, fa.org + fb.org, fa.placed + fb.placed}
	delete(g.flags, rb)
	for p, n := range g.pdeg[rb] {
		g.count(ra, p, n)
	}
	delete(g.pdeg, rb)
	for l := range g.links[rb] {
		g.link(ra, l)
	}
	delete(g.links, rb)
	return ra, true
}

func (g *Graph) link(a, b string) {
	if a == b {
		return
	}
	for _, p := range [][2]string{{a, b}, {b, a}} {
		if g.links[p[0]] == nil {
			g.links[p[0]] = map[string]bool{}
		}
		g.links[p[0]][p[1]] = true
	}
}

// Add puts an edge and its chunk text into the graph. It returns the
// canonical entities whose neighbourhood changed (none when the edge was
// already there: re-reading an unchanged document changes nothing).
func (g *Graph) Add(e *Edge, chunk string) []string {
	if old, ok := g.edges[e.ID]; ok {
		if e.DocVersion > old.DocVersion || (e.DocVersion == old.DocVersion && e.ChunkID != old.ChunkID && e.TripletID < old.TripletID) {
			// The same fact stated again by a newer version (or, within one
			// version, by two chunks: the smaller triplet id wins, so the
			// choice does not depend on arrival order).
			if e.ChunkID != old.ChunkID {
				g.unref(old.ChunkID)
				g.ref(e.ChunkID, chunk)
			}
			old.ChunkID, old.TripletID, old.DocVersion, old.PublishedAt = e.ChunkID, e.TripletID, e.DocVersion, e.PublishedAt
			old.Sentence = e.Sentence
		}
		return nil
	}
	if e.h == "" || e.t == "" || g.find(e.h) == g.find(e.t) {
		return nil
	}
	g.edges[e.ID] = e
	if g.byDoc[e.DocID] == nil {
		g.byDoc[e.DocID] = map[string]bool{}
	}
	g.byDoc[e.DocID][e.ID] = true
	g.ref(e.ChunkID, chunk)
	h, t := g.find(e.h), g.find(e.t)
	put := func(adj map[string]map[string]*Edge, k string) {
		if adj[k] == nil {
			adj[k] = map[string]*Edge{}
		}
		adj[k][e.ID] = e
	}
	put(g.out, h)
	put(g.in, t)
	g.index(g.outRel, h, e, true)
	g.index(g.inRel, t, e, true)
	g.flag(h, t, e, 1)
	g.count(h, e.period, 1)
	g.count(t, e.period, 1)
	touched := []string{h, t}
	// Aliases defined in the chunk: "Innovation Trøndelag (IT)".
	for _, m := range acronymRe.FindAllStringSubmatch(chunk, -1) {
		if r, ok := g.union(EntityKey(m[1]), EntityKey(m[2])); ok {
			touched = append(touched, r)
		}
	}
	// Context-equivalent names in the document.
	keys := g.docKeys[e.DocID]
	if keys == nil {
		keys = map[string]bool{}
		g.docKeys[e.DocID] = keys
	}
	for _, k := range []string{e.h, e.t} {
		if keys[k] {
			continue
		}
		keys[k] = true
		for other := range keys {
			if shortFor(other, k) || shortFor(k, other) {
				a, b := g.find(k), g.find(other)
				if a != b && !g.links[a][b] {
					g.link(a, b)
					touched = append(touched, a, b)
				}
			}
		}
	}
	return touched
}

// shortFor reports whether a one-word key is the short form of a longer
// one in a document: its first word ("northwind" for "northwind robotics")
// or, for a person's name, its last ("solberg" for "ingrid solberg").
func shortFor(short, long string) bool {
	if strings.Contains(short, " ") || !strings.Contains(long, " ") {
		return false
	}
	first, _, _ := strings.Cut(long, " ")
	last := long[strings.LastIndexByte(long, ' ')+1:]
	return short == first || (short == last && strings.Count(long, " ") == 1 && !orgWords[last] && !corporate[last])
}

// Remove takes an edge out (its document's new version no longer states
// it) and returns the entities whose neighbourhood changed.
func (g *Graph) Remove(id string) []string {
	e, ok := g.edges[id]
	if !ok {
		return nil
	}
	delete(g.edges, id)
	delete(g.byDoc[e.DocID], id)
	h, t := g.find(e.h), g.find(e.t)
	delete(g.out[h], id)
	delete(g.in[t], id)
	g.index(g.outRel, h, e, false)
	g.index(g.inRel, t, e, false)
	g.flag(h, t, e, -1)
	g.count(h, e.period, -1)
	g.count(t, e.period, -1)
	g.unref(e.ChunkID)
	return []string{h, t}
}

func (g *Graph) ref(chunk, text string) {
	if _, ok := g.chunks[chunk]; !ok {
		g.chunks[chunk] = text
	}
	g.refs[chunk]++
}

func (g *Graph) unref(chunk string) {
	if g.refs[chunk]--; g.refs[chunk] <= 0 {
		delete(g.refs, chunk)
		delete(g.chunks, chunk)
	}
}

// DocEdges returns the ids of the edges of a document.
func (g *Graph) DocEdges(doc string) []string {
	return slices.Sorted(maps.Keys(g.byDoc[doc]))
}

// hop is an edge as a path crosses it, and whether it got there over a
// repaired link.
type hop struct {
	e        *Edge
	repaired bool
}

// outOf returns the edges leaving entity n, those of its context-equivalent
// entities marked repaired, sorted by id.
func (g *Graph) outOf(n string) []hop { return g.adjacent(g.out, n) }

func (g *Graph) inOf(n string) []hop { return g.adjacent(g.in, n) }

func (g *Graph) adjacent(adj map[string]map[string]*Edge, n string) []hop {
	var out []hop
	for _, e := range adj[n] {
		out = append(out, hop{e, false})
	}
	for l := range g.links[n] {
		for _, e := range adj[l] {
			out = append(out, hop{e, true})
		}
	}
	slices.SortFunc(out, func(a, b hop) int { return strings.Compare(a.e.ID, b.e.ID) })
	return out
}

// hub reports whether an entity has more than HubDegree edges in the
// period of an edge ("2025", a country every report names): it is then no
// pivot for that edge, and patterns through it from that edge are not
// enumerated. The period is the fact's own (its sentence's time expression,
// else its month of publication), for undated facts too: counted over every
// period, the degree of a company reported on every quarter would cross the
// bound as its reports accumulated, retiring the questions it had pivoted,
// and which questions were asked before it crossed would depend on the
// order in which the periods' documents arrived (two runs of the demo feed,
// whose partitions interleave periods differently, asked different
// questions). Per period, whether an entity is a hub for a fact depends on
// the documents of that period alone.
func (g *Graph) hub(n string, e *Edge, lim PatternLimits) bool {
	return g.pdeg[n][e.period] > lim.HubDegree
}

func (g *Graph) count(n, period string, d int) {
	if g.pdeg[n] == nil {
		g.pdeg[n] = map[string]int{}
	}
	if g.pdeg[n][period] += d; g.pdeg[n][period] <= 0 {
		delete(g.pdeg[n], period)
		if len(g.pdeg[n]) == 0 {
			delete(g.pdeg, n)
		}
	}
}

// head and tail are an edge's canonical entities.
func (g *Graph) head(e *Edge) string { return g.find(e.h) }
func (g *Graph) tail(e *Edge) string { return g.find(e.t) }

// distinct counts the distinct canonical entities at the far end of the
// edges of a relation and period from (out) or into n, leaving out skip,
// up to 2: the uniqueness checks only ask "none, one or more".
func (g *Graph) distinct(n, rel, period, skip string, out bool) int {
	idx, end := g.inRel, g.head
	if out {
		idx, end = g.outRel, g.tail
	}
	first, count := "", 0
	g.eachRel(idx, n, rel+"\x00"+period, func(e *Edge) {
		k := end(e)
		if k == skip || count > 1 || k == first {
			return
		}
		if count == 0 {
			first = k
		}
		count++
	})
	return count
}

// repeated reports another edge stating the same fact (head, relation,
// period and tail) in another chunk, with a smaller id.
func (g *Graph) repeated(e *Edge) bool {
	h, t := g.head(e), g.tail(e)
	for _, o := range g.outRel[h][e.rel+"\x00"+e.period] {
		if o.ID < e.ID && o.ChunkID != e.ChunkID && g.tail(o) == t {
			return true
		}
	}
	return false
}

func (g *Graph) eachRel(idx map[string]map[string]map[string]*Edge, n, key string, fn func(*Edge)) {
	for _, e := range idx[n][key] {
		fn(e)
	}
	for l := range g.links[n] {
		for _, e := range idx[l][key] {
			fn(e)
		}
	}
}

func (g *Graph) index(idx map[string]map[string]map[string]*Edge, n string, e *Edge, add bool) {
	key := e.rel + "\x00" + e.period
	if !add {
		delete(idx[n][key], e.ID)
		return
	}
	if idx[n] == nil {
		idx[n] = map[string]map[string]*Edge{}
	}
	if idx[n][key] == nil {
		idx[n][key] = map[string]*Edge{}
	}
	idx[n][key][e.ID] = e
}

// each calls fn for the edges of n and of its context-equivalent entities,
// in no particular order (for checks whose result does not depend on it).
func (g *Graph) each(adj map[string]map[string]*Edge, n string, fn func(*Edge)) {
	for _, e := range adj[n] {
		fn(e)
	}
	for l := range g.links[n] {
		for _, e := range adj[l] {
			fn(e)
		}
	}
}
