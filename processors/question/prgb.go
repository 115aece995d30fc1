package question

import (
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
)

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
// Edges citing a ground-truth chunk of the question are never noise. The
// lists are ordered by a hash of the instance and the edge, so the choice is
// deterministic and differs between questions. It scans the graph's edges
// once: O(edges) per question built.
func (g *Graph) prgbFacts(in *Instance) *schemas.PRGBFacts {
	ae, tail := in.Answer()
	subject, value := g.head(ae), g.tail(ae)
	if !tail {
		subject, value = value, subject
	}
	golden := map[string]bool{}
	mine := map[string]bool{}
	var starts []string
	for _, e := range in.Edges {
		golden[e.ChunkID] = true
		mine[e.ID] = true
		starts = append(starts, g.head(e), g.tail(e))
	}
	near := g.within(starts, prgbNearHops)
	parents := map[string]bool{}
	for _, h := range append(g.outOf(subject), g.inOf(subject)...) {
		for _, n := range []string{g.head(h.e), g.tail(h.e)} {
			if n != subject && n != value {
				parents[n] = true
			}
		}
	}
	type pick struct{ key, text string }
	var weak, moderate, hard, cands []pick
	seenCand := map[string]bool{}
	seed := in.ID()
	for id, e := range g.edges {
		if mine[id] || golden[e.ChunkID] || strings.TrimSpace(e.Sentence) == "" {
			continue
		}
		eSubject, eValue, eValueText := g.head(e), g.tail(e), e.Tail
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
		case !sameRel && !near[g.head(e)] && !near[g.tail(e)]:
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

// within returns the canonical entities at most hops edges from starts,
// in either direction. Hubs (more than prgbExpandMaxEdges edges) are
// reached but not expanded: through "2024" every fact is two hops away.
func (g *Graph) within(starts []string, hops int) map[string]bool {
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
			if len(g.out[n])+len(g.in[n]) > prgbExpandMaxEdges {
				continue
			}
			for _, h := range append(g.outOf(n), g.inOf(n)...) {
				for _, m := range []string{g.head(h.e), g.tail(h.e)} {
					if !seen[m] {
						seen[m] = true
						next = append(next, m)
					}
				}
			}
		}
		frontier = next
	}
	return seen
}
