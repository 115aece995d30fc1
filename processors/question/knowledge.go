package question

import (
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
)

// Knowledge is the incremental knowledge graph with the questions it
// supports. Its questions are a function of the graph: an instance is
// asked while it is valid (Graph.Valid), a question can be written for it
// and its checks pass, and it is among the smallest ids of its cap group
// (capKey: per_document single-hop questions of a document, per_fact
// multi-hop questions of a pattern, answer fact and set of documents).
// Every change (a version applied, an alias merge) re-evaluates only the
// instances its entities index and those around its new edges, and reports
// the questions that became active and those that stopped being so. Because the rule depends on the graph alone, the same
// documents give the same questions in any order, and a restart that
// rebuilds the graph rebuilds the same set (Rebuild). Not safe for
// concurrent use.
type Knowledge struct {
	g   *Graph
	lim PatternLimits
	// configured is lim as configured; lim caps max_hops at what the
	// writer in use can phrase.
	configured PatternLimits
	// valid holds, per cap group (capKey), the valid instances with their
	// question; active the subset asked, by instance id.
	valid    map[string]map[string]*asked
	active   map[string]*asked
	byGroup  map[string]map[string]bool   // cap group → active instance ids
	sig      map[string]string            // entity → how it is described (Graph.signature)
	byEntity map[string]map[string]string // entity → instance id → cap group
	docs     map[string]*DocVersions
	// order lists, per rs.triplets partition, the document versions
	// completed there by position (prgb.go: a version's neighbours).
	order       map[int][]docAt
	orderSorted bool
	held        map[string]map[string]*schemas.Triplet // document → triplet id → triplet of a version arriving
	// lives counts, by question id as built, how often that question was
	// retired. Retirement is final for an id (robustream.question_retirements
	// is never undone), so a question asked again — its document put back
	// after a deletion, its fact restated, a cap that lets it in again — is
	// asked under a new id (lifeID).
	lives map[string]uint32
	// Rejected counts, by reason, the instances turned down.
	Rejected map[string]int64
	now      func() time.Time
	llm      *llmQA
	embed    *embeddingSim // nil: D_r by lexical cosine
	log      *slog.Logger
}

type asked struct {
	in   *Instance
	q    *schemas.Question // as emitted: its id is lifeID(base, …)
	base string            // q's id as built, the same in every life
	fp   string            // fingerprint of what q was built from
}

// DocVersions is what the graph knows of a document's versions: the last
// complete one with its chunks, and the one whose chunks are arriving.
type DocVersions struct {
	Version uint32          `json:"version"`
	Chunks  map[string]bool `json:"chunks"`
	Pending uint32          `json:"pending"`
	Want    uint32          `json:"want"`
	Seen    map[string]bool `json:"seen"`
	// Partition and Position are where the complete version's last End
	// record was read (rs.triplets partition and offset; Position -1:
	// unknown, ChunkDone without one). Neighbours are the facts of the
	// documents read before it on that partition, as they stood then
	// (prgb.go): PRGB's noise facts from beyond the question's own
	// documents, the same on every run.
	Partition  int         `json:"partition,omitempty"`
	Position   int64       `json:"position,omitempty"`
	Neighbours []NoiseFact `json:"neighbours,omitempty"`
}

// Change is what one update did to the question set.
type Change struct {
	New, Retired []*schemas.Question
	// RemovedEdges are the edges a complete new version retired; Stored
	// the triplets whose edge entered or now cites them; Released the held
	// triplets a completed version used up ("doc_id/triplet_id").
	RemovedEdges []string
	Stored       []*schemas.Triplet
	Released     []string
	// Lives are the built question ids whose retirement count (Lives)
	// changed.
	Lives []string
}

// NewKnowledge returns an empty knowledge graph.
func NewKnowledge(lim PatternLimits) *Knowledge {
	lim = lim.withDefaults()
	configured := lim
	lim.MaxHops = min(lim.MaxHops, TemplateMaxHops)
	return &Knowledge{g: NewGraph(), lim: lim, configured: configured, valid: map[string]map[string]*asked{},
		active: map[string]*asked{}, byGroup: map[string]map[string]bool{}, sig: map[string]string{}, byEntity: map[string]map[string]string{}, docs: map[string]*DocVersions{}, held: map[string]map[string]*schemas.Triplet{}, lives: map[string]uint32{},
		Rejected: map[string]int64{}, now: func() time.Time { return time.Now().UTC() }}
}

// SetLLM makes the generator write the questions (writer) and score them
// (scorer); either may be nil. log receives the calls that failed.
func (k *Knowledge) SetLLM(writer *LLMWriter, scorer *LLMScorer, log *slog.Logger) {
	k.llm, k.log = nil, log
	if writer != nil || scorer != nil {
		k.llm = &llmQA{writer: writer, scorer: scorer, attempts: 4, backoff: 250 * time.Millisecond, timeout: 2 * time.Minute}
	}
	k.lim = k.configured
	if writer == nil {
		// The templates phrase at most three hops (two relative clauses):
		// longer paths would be enumerated only to be turned down.
		k.lim.MaxHops = min(k.lim.MaxHops, TemplateMaxHops)
	}
}

// TemplateMaxHops is the longest path the offline writer phrases.
const TemplateMaxHops = 3

// SetEmbedder makes D_r the embedding cosine of GRADE §3.3 (nil: the
// lexical cosine). A question whose embeddings cannot be had keeps the
// lexical D_r, recorded as such in sim_func.
func (k *Knowledge) SetEmbedder(e provider.Embedder) {
	k.embed = nil
	if e != nil {
		k.embed = newEmbeddingSim(e)
	}
}

// difficulty sets a question's D_r and the similarity it used.
func (k *Knowledge) difficulty(q *schemas.Question) {
	sims, fn := []float64(nil), SimLexicalCosine
	if k.embed != nil {
		var err error
		if sims, err = k.embed.similarities(q.Question, q.GTChunks); err != nil {
			k.Rejected[RejectEmbedder]++
			k.logLLM("embedder gave no vectors; D_r is the lexical one", err)
			sims = nil
		} else {
			fn = SimEmbeddingCosine
		}
	}
	if sims == nil {
		sims = make([]float64, len(q.GTChunks))
		for i, c := range q.GTChunks {
			sims[i] = LexicalSimilarity(q.Question, c)
		}
	}
	drMin, drMean, drPower := drAggregates(sims)
	q.DR, q.SimFunc = drMin, fn
	scores := make(map[string]float64, len(q.QAScores)+2)
	for name, v := range q.QAScores {
		scores[name] = v
	}
	scores[ScoreDRMean], scores[ScoreDRPowerMean] = drMean, drPower
	q.QAScores = scores
}

// The D_r aggregations besides the minimum, recorded in qa_scores.
const (
	ScoreDRMean      = "dr_mean"
	ScoreDRPowerMean = "dr_power_mean"
)

// RejectEmbedder counts questions whose D_r fell back to the lexical
// similarity (the question is still asked).
const RejectEmbedder = "embedder"

// Graph returns the graph.
func (k *Knowledge) Graph() *Graph { return k.g }

// Active returns the questions being asked, sorted by id.
func (k *Knowledge) Active() []*schemas.Question {
	out := make([]*schemas.Question, 0, len(k.active))
	for _, a := range k.active {
		out = append(out, a.q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].QuestionID < out[j].QuestionID })
	return out
}

// Doc returns what is known of a document's versions (nil: nothing).
func (k *Knowledge) Doc(id string) *DocVersions { return k.docs[id] }

// SetDoc restores a document's version record (Rebuild).
func (k *Knowledge) SetDoc(id string, d *DocVersions) {
	k.docs[id] = d
	if d != nil && d.Chunks != nil && d.Position >= 0 {
		k.placed(id, d)
		k.orderSorted = false
	}
}

// AddTriplet takes a triplet of a document version. A version's triplets
// are held until the version is complete (ChunkDone), then applied at once,
// so that an edit yields only its net difference: the facts it changed
// retire their questions and ask new ones, the facts it restated change
// nothing. A triplet of the complete version itself (a replay) is applied
// at once, and is a no-op when its fact is known; a triplet of an older
// version is stale and ignored. held reports whether the triplet was held
// (the caller persists it until the version completes).
func (k *Knowledge) AddTriplet(t *schemas.Triplet) (c Change, held bool) {
	d := k.doc(t.DocID)
	switch {
	case t.DocVersion < d.Version:
		return c, false
	case t.DocVersion == d.Version && d.Chunks != nil:
		if !d.Chunks[t.ChunkID] {
			return c, false
		}
		e := EdgeOf(t)
		if touched := k.g.Add(e, t.ChunkText); touched != nil {
			c = k.update(touched, []*Edge{e}, touched[2:]...)
			c.Stored = append(c.Stored, t)
		}
		return c, false
	}
	k.Hold(t)
	return c, true
}

// Hold keeps a triplet of a version still arriving (AddTriplet, and a
// restart restoring what was held).
func (k *Knowledge) Hold(t *schemas.Triplet) {
	if k.held[t.DocID] == nil {
		k.held[t.DocID] = map[string]*schemas.Triplet{}
	}
	k.held[t.DocID][t.TripletID] = t
}

func (k *Knowledge) doc(id string) *DocVersions {
	d := k.docs[id]
	if d == nil {
		d = &DocVersions{}
		k.docs[id] = d
	}
	return d
}

// ChunkDone records that every triplet of a chunk of a document version has
// been seen (the triplet stage closes each chunk with an End record, in
// the same partition, after its triplets). When every chunk of a version
// newer than the last complete one is done, the version is applied: the
// edges it no longer states leave the graph, its new facts enter, and the
// questions change by the difference.
func (k *Knowledge) ChunkDone(doc, chunk string, version, chunks uint32) Change {
	return k.ChunkDoneAt(doc, chunk, version, chunks, 0, -1)
}

// ChunkDoneAt is ChunkDone for the End record read at offset position of
// partition of rs.triplets: a version it completes takes, as its
// neighbours, the facts of the documents completed before it on that
// partition (prgb.go). A position of -1 gives it none.
func (k *Knowledge) ChunkDoneAt(doc, chunk string, version, chunks uint32, partition int, position int64) Change {
	d := k.doc(doc)
	if version < d.Version || (version == d.Version && d.Chunks != nil) {
		return Change{}
	}
	if version > d.Pending || d.Seen == nil {
		d.Pending, d.Want, d.Seen = version, max(chunks, 1), map[string]bool{}
	}
	if version < d.Pending {
		return Change{}
	}
	d.Seen[chunk] = true
	if uint32(len(d.Seen)) < d.Want {
		return Change{}
	}
	d.Version, d.Chunks, d.Pending, d.Want, d.Seen = d.Pending, d.Seen, 0, 0, nil
	d.Partition, d.Position, d.Neighbours = partition, position, nil
	if position >= 0 {
		d.Neighbours = k.neighbours(partition, position, doc)
		k.placed(doc, d)
	}
	var c Change
	var touched []string
	var added []*Edge
	stated := map[string]bool{}
	held := k.held[doc]
	delete(k.held, doc)
	for _, id := range slices.Sorted(maps.Keys(held)) {
		t := held[id]
		c.Released = append(c.Released, doc+"/"+id)
		if t.DocVersion != d.Version || !d.Chunks[t.ChunkID] {
			continue // an older version's, or a chunk this version lacks
		}
		stated[EdgeKey(t)] = true
	}
	var widen []string // entities a removal or merge may open new instances at
	for _, id := range k.g.DocEdges(doc) {
		if !stated[id] {
			n := k.g.Remove(id)
			touched = append(touched, n...)
			widen = append(widen, n...)
			c.RemovedEdges = append(c.RemovedEdges, id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(held)) {
		t := held[id]
		if t.DocVersion != d.Version || !d.Chunks[t.ChunkID] {
			continue
		}
		e := EdgeOf(t)
		before, had := k.g.edges[e.ID]
		var was string
		if had {
			was = before.TripletID
		}
		if n := k.g.Add(e, t.ChunkText); n != nil {
			touched = append(touched, n...)
			widen = append(widen, n[2:]...)
			added = append(added, e)
			c.Stored = append(c.Stored, t)
		} else if had && k.g.edges[e.ID].TripletID != was {
			c.Stored = append(c.Stored, t)
		}
	}
	u := k.update(touched, added, widen...)
	c.New, c.Retired, c.Lives = u.New, u.Retired, u.Lives
	return c
}

// update re-evaluates the instances around touched entities and around the
// added edges, then settles the cap groups they belong to.
//
// Adding an edge only narrows what other instances may be (one more tail
// makes a fact ambiguous, one more edge makes a hub), with two exceptions
// that widen it: an edge or merge that changes how an entity is described
// (its class: a person, an organisation, a place), and a removal. Only
// around such entities are the instances without a new edge enumerated
// again; elsewhere the indexed ones are re-validated.
func (k *Knowledge) update(touched []string, added []*Edge, widen ...string) Change {
	candidates := map[string]*Instance{}
	fresh := map[string]bool{} // instances with a new edge: their rejections are counted
	groups := map[string]bool{}
	for _, e := range added {
		for _, in := range k.g.Around(e, k.lim) {
			candidates[in.ID()] = in
			fresh[in.ID()] = true
		}
	}
	slices.Sort(touched)
	for _, n := range slices.Compact(touched) {
		for id, group := range k.byEntity[n] {
			if a := k.valid[group][id]; a != nil {
				candidates[id] = a.in
			}
		}
		// What a change at n makes possible: instances around its edges,
		// when it changed how n is described or lost or merged an edge.
		sig := k.g.signature(n)
		changed := sig != k.sig[n] || slices.Contains(widen, n)
		if sig == "" {
			delete(k.sig, n)
		} else {
			k.sig[n] = sig
		}
		if !changed {
			continue
		}
		for _, h := range append(k.g.outOf(n), k.g.inOf(n)...) {
			for _, in := range k.g.Around(h.e, k.lim) {
				candidates[in.ID()] = in
			}
		}
	}
	for id, in := range candidates {
		group := capKey(in)
		groups[group] = true
		fp := k.fingerprint(in)
		if a := k.valid[group][id]; a != nil && a.fp == fp && k.g.Valid(in, k.lim) == "" {
			continue // still valid, and its question would read the same
		}
		q, reason := k.build(in)
		if q == nil {
			if k.valid[group][id] != nil {
				delete(k.valid[group], id)
				k.unindex(in, id)
			} else if fresh[id] && !isStale(reason) {
				k.Rejected[reason]++
			}
			continue
		}
		if k.valid[group] == nil {
			k.valid[group] = map[string]*asked{}
		}
		if old := k.valid[group][id]; old == nil || old.base != q.QuestionID {
			k.valid[group][id] = &asked{in: in, q: q, base: q.QuestionID, fp: fp}
			k.index(in, id, group)
		} else {
			old.fp = fp
		}
	}
	return k.settle(groups, false)
}

// fingerprint names everything an instance's question is built from
// besides its validity: its facts as last stated (triplet ids) and how its
// entities are described (signatures). Same fingerprint, same question.
func (k *Knowledge) fingerprint(in *Instance) string {
	parts := []string{in.ID()}
	for _, e := range in.Edges {
		parts = append(parts, e.TripletID, k.g.signature(k.g.head(e)), k.g.signature(k.g.tail(e)))
	}
	return schemas.ID(parts...)
}

func isStale(reason string) bool { return reason == RejectStale }

// settle makes each cap group's active instances its PerDocument valid ones
// of smallest id, and reports the difference. quiet rebuilds without
// reporting (after a restart the questions were already emitted).
func (k *Knowledge) settle(groups map[string]bool, quiet bool) Change {
	var c Change
	for _, group := range slices.Sorted(maps.Keys(groups)) {
		ids := slices.Sorted(maps.Keys(k.valid[group]))
		want := map[string]bool{}
		for _, id := range ids[:min(len(ids), k.lim.capOf(group))] {
			want[id] = true
		}
		for _, id := range slices.Sorted(maps.Keys(k.byGroup[group])) {
			if want[id] {
				continue
			}
			a := k.active[id]
			reason := "capped"
			if k.valid[group][id] == nil {
				reason = k.whyInvalid(a.in)
			}
			k.deactivate(id, group)
			c.Retired = append(c.Retired, k.retire(a, reason))
			c.Lives = append(c.Lives, a.base)
		}
		for _, id := range slices.Sorted(maps.Keys(want)) {
			a := k.valid[group][id]
			if cur := k.active[id]; cur == nil || cur.base != a.base {
				if cur != nil {
					c.Retired = append(c.Retired, k.retire(cur, "rewritten"))
					c.Lives = append(c.Lives, cur.base)
				}
				k.relive(a)
				k.active[id] = a
				if k.byGroup[group] == nil {
					k.byGroup[group] = map[string]bool{}
				}
				k.byGroup[group][id] = true
				c.New = append(c.New, a.q)
			}
		}
	}
	if quiet {
		return Change{}
	}
	return c
}

func (k *Knowledge) deactivate(id, group string) {
	delete(k.active, id)
	delete(k.byGroup[group], id)
}

func (k *Knowledge) whyInvalid(in *Instance) string {
	if r := k.g.Valid(in, k.lim); r != "" {
		return r
	}
	return "invalid"
}

// retire returns the retirement of a's question as emitted, and counts it
// against the id as built.
func (k *Knowledge) retire(a *asked, reason string) *schemas.Question {
	k.lives[a.base]++
	q := a.q
	r := *q
	r.Retired = reason
	r.Meta = schemas.Meta{}
	r.ProducedAt = k.now()
	schemas.Stamp(&r, schemas.ID(q.QuestionID, "retired"), q.QuestionID)
	return &r
}

// relive gives a question about to be asked the id of its current life:
// the id as built the first time, a new one derived from it after each
// retirement.
func (k *Knowledge) relive(a *asked) {
	id := lifeID(a.base, k.lives[a.base])
	if a.q.QuestionID == id {
		return
	}
	q := *a.q
	q.QuestionID = id
	q.Meta = schemas.Meta{}
	q.ProducedAt = k.now()
	schemas.Stamp(&q, id, a.q.Lineage...)
	a.q = &q
}

// lifeID is the id of a question built as base and retired n times before.
func lifeID(base string, n uint32) string {
	if n == 0 {
		return base
	}
	return schemas.ID(base, "life", strconv.FormatUint(uint64(n), 10))
}

// Lives returns how often the question built as id was retired.
func (k *Knowledge) Lives(id string) uint32 { return k.lives[id] }

// SetLives restores a retirement count (a restart, before Rebuild).
func (k *Knowledge) SetLives(id string, n uint32) {
	if n == 0 {
		delete(k.lives, id)
		return
	}
	k.lives[id] = n
}

func (k *Knowledge) index(in *Instance, id, group string) {
	for _, n := range k.dependsOn(in) {
		if k.byEntity[n] == nil {
			k.byEntity[n] = map[string]string{}
		}
		k.byEntity[n][id] = group
	}
}

// dependsOn returns the entities whose edges decide whether an instance is
// valid: a change at one of them re-evaluates it. A single-hop question
// depends on its head alone (unless RARE's degree rule is on), so that the
// entities many facts point to (a city) do not collect every question.
func (k *Knowledge) dependsOn(in *Instance) []string {
	g, es := k.g, in.Edges
	switch in.Pattern {
	case schemas.PatternSingle:
		if k.lim.SingleHop == "rare" {
			return g.entitiesOf(in)
		}
		return []string{g.head(es[0])}
	case schemas.PatternStar:
		// The shared head (under either name, when a link joins them)
		// and the identifying tail.
		return []string{g.head(es[0]), g.head(es[1]), g.tail(es[0])}
	case schemas.PatternInvertedStar:
		return []string{g.head(es[0]), g.tail(es[0]), g.tail(es[1])}
	}
	// A path depends on every entity but its answer: the answer is
	// neither described nor checked for uniqueness, and a chord to it
	// touches another entity of the path too.
	var out []string
	for i, e := range es {
		out = append(out, g.head(e))
		if i < len(es)-1 {
			out = append(out, g.tail(e))
		}
	}
	return out
}

func (k *Knowledge) unindex(in *Instance, id string) {
	for _, e := range in.Edges {
		for _, n := range []string{e.h, e.t, k.g.find(e.h), k.g.find(e.t)} {
			delete(k.byEntity[n], id)
		}
	}
}

// Rebuild re-derives the valid and active sets from the graph as it
// stands, reporting nothing: after a restart the graph's edges are
// restored (AddTriplet per stored edge) and this recovers the questions
// that were being asked.
func (k *Knowledge) Rebuild() {
	k.valid, k.active, k.byEntity = map[string]map[string]*asked{}, map[string]*asked{}, map[string]map[string]string{}
	k.byGroup = map[string]map[string]bool{}
	groups := map[string]bool{}
	ids := slices.Sorted(maps.Keys(k.g.edges))
	for _, id := range ids {
		for _, in := range k.g.Around(k.g.edges[id], k.lim) {
			group := capKey(in)
			if k.valid[group][in.ID()] != nil {
				continue
			}
			if q, _ := k.build(in); q != nil {
				if k.valid[group] == nil {
					k.valid[group] = map[string]*asked{}
				}
				k.valid[group][in.ID()] = &asked{in: in, q: q, base: q.QuestionID, fp: k.fingerprint(in)}
				k.index(in, in.ID(), group)
				groups[group] = true
			}
		}
	}
	k.settle(groups, true)
	k.sig = map[string]string{}
	for _, e := range k.g.edges {
		for _, n := range []string{k.g.head(e), k.g.tail(e)} {
			if sig := k.g.signature(n); sig != "" {
				k.sig[n] = sig
			}
		}
	}
}

// build writes and checks the question of a valid instance, or returns
// why there is none.
func (k *Knowledge) build(in *Instance) (*schemas.Question, string) {
	if r := k.g.Valid(in, k.lim); r != "" {
		return nil, r
	}
	if in.Pattern == schemas.PatternSingle {
		e := in.Edges[0]
		q, reason := Build(e.triplet(k.g.Chunk(e.ChunkID)))
		if q == nil {
			return nil, reason
		}
		if q, reason = k.rewrite(in, q, e.Head); q == nil {
			return nil, reason
		}
		q.ProducedAt = time.Time{}
		q.Meta = schemas.Meta{}
		q.PRGB = k.g.prgbFacts(in, k.neighboursOf(in))
		k.difficulty(q)
		q.QuestionID = schemas.ID(in.ID(), q.Question, q.Answer)
		schemas.Stamp(q, q.QuestionID, e.TripletID)
		return q, ""
	}
	text, answer, templated := k.g.Write(in)
	ae, tail := in.Answer()
	if !templated {
		// No template reads well (a path three relative clauses deep):
		// only the LLM writer can phrase it.
		if k.llm == nil || k.llm.writer == nil {
			return nil, RejectNoTemplate
		}
		answer = ae.Head
		if tail {
			answer = ae.Tail
		}
	}
	answer = strings.Join(strings.Fields(answer), " ")
	var ids, chunks, triplets, pivots []string
	for _, e := range in.Edges {
		triplets = append(triplets, e.TripletID)
		if !slices.Contains(ids, e.ChunkID) {
			ids = append(ids, e.ChunkID)
			chunks = append(chunks, k.g.Chunk(e.ChunkID))
		}
	}
	switch in.Pattern {
	case schemas.PatternStar:
		pivots = []string{in.Edges[0].Head}
	case schemas.PatternInvertedStar:
		pivots = []string{in.Edges[0].Tail}
	default:
		for _, e := range in.Edges[1:] {
			pivots = append(pivots, e.Head)
		}
	}
	named := in.Edges[0].Head
	if in.Pattern == schemas.PatternStar {
		named = in.Edges[0].Tail
	}
	scores := map[string]float64{}
	if templated {
		var ok bool
		if scores, ok = Checks(text, named, answer, []string{k.g.Chunk(ae.ChunkID)}); !ok {
			for _, r := range Reasons[1:] {
				if scores[r] == 0 {
					return nil, r
				}
			}
		}
		for _, p := range pivots {
			if ContainsAnswer(text, p) && in.Pattern != schemas.PatternInvertedStar {
				return nil, RejectPivotNamed
			}
		}
		if namesAnswer(text, answer) {
			return nil, CheckAnswerNotInQuestion
		}
	}
	if in.Repaired {
		scores["link_repaired"] = 1
	}
	q := &schemas.Question{
		Question: text, Answer: answer, Pattern: in.Pattern, Hops: uint8(len(in.Edges)),
		TripletIDs: triplets, GTChunkIDs: ids, GTChunks: chunks, Pivot: strings.Join(pivots, "; "),
		QAScores: scores, DR: Difficulty(text, chunks), SimFunc: SimLexicalCosine, Generator: GeneratorTemplate,
		DocID: ae.DocID, Domain: ae.Domain, PublishedAt: ae.PublishedAt,
	}
	var reason string
	if q, reason = k.rewrite(in, q, named); q == nil {
		return nil, reason
	}
	if q.Question == "" {
		return nil, RejectNoTemplate // the writer gave nothing usable either
	}
	q.PRGB = k.g.prgbFacts(in, k.neighboursOf(in))
	k.difficulty(q)
	q.QuestionID = schemas.ID(in.ID(), q.Question, answer)
	schemas.Stamp(q, q.QuestionID, triplets...)
	return q, ""
}

// RejectPivotNamed: a multi-hop question names the pivot it should only
// describe.
const RejectPivotNamed = "pivot_named"

// namesAnswer reports whether a question names part of its answer: a
// capitalized word of three letters or more of the answer occurs in the
// question ("Who is the chief executive of the company Solberg
// co-founded?" → "Ingrid Solberg"). A multi-hop walk can come back to
// where it started under another form of the name.
func namesAnswer(question, answer string) bool {
	q := map[string]bool{}
	for _, w := range strings.Fields(Normalize(question)) {
		q[w] = true
	}
	for _, w := range strings.Fields(answer) {
		r := []rune(w)
		if len(r) >= 3 && unicode.IsUpper(r[0]) {
			if n := Normalize(w); n != "" && q[n] {
				return true
			}
		}
	}
	return false
}
