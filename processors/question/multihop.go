package question

import (
	"regexp"
	"strings"
	"time"

	"github.com/robustream/robustream/schemas"
)

// The offline writer of multi-hop questions. A pivot is never named: it is
// described through the fact that leads to it ("the chief executive of
// Northwind Robotics", "the company that supplies picking robots to
// Fjordline Logistics", "the place where Kvarts is based"), and the
// question asks the last fact of that description. A fact it cannot
// describe grammatically yields no question rather than a clumsy one.

// placeRe matches relations that locate their head: asked with "Where".
var placeRe = regexp.MustCompile(`^(?:is |are |was |were )?(based|located|headquartered|registered|situated) in$`)

// roleRe matches the attributes that name a person's role in an
// organisation: their tail is a person, their head an organisation.
var roleRe = regexp.MustCompile(`(?i)\b(?:chief|executive|director|manager|chair|chairman|chairwoman|president|head|founder|ceo|cfo|cto|officer|minister|mayor|secretary|member)s?\b`)

// classOf names the kind of thing an entity is in the graph, for a
// description: "person", "company", "organisation", "place", or "" when
// unknown. The graph's own facts come first (the tail of a role is a
// person; whatever has a role or a location is an organisation), then the
// name's last word.
func (g *Graph) classOf(e *Edge, tail bool) string {
	name, key := e.Head, g.head(e)
	if tail {
		name, key = e.Tail, g.tail(e)
	}
	for _, h := range g.inOf(key) {
		if attribute(h.e) && roleRe.MatchString(h.e.Relation) {
			return "person"
		}
	}
	org := false
	for _, h := range g.outOf(key) {
		if (attribute(h.e) && roleRe.MatchString(h.e.Relation)) || placeRe.MatchString(strings.ToLower(h.e.Relation)) {
			org = true
		}
	}
	if c := classOf(name, g.isPlaced(key)); c != "" && (c != "person" || !org) {
		return c
	}
	if org {
		return "organisation"
	}
	return ""
}

// classOf names the kind of thing a name is by its form alone.
func classOf(name string, placed bool) string {
	switch {
	case placed:
		return "place"
	case looksLikePerson(name):
		return "person"
	}
	ws := strings.Fields(strings.ToLower(name))
	if len(ws) == 0 {
		return ""
	}
	last := strings.Trim(ws[len(ws)-1], ".,")
	switch last {
	case "ministry", "agency", "authority", "council", "office", "board", "union", "institute", "university", "programme", "program", "fund", "initiative":
		return "organisation"
	}
	if orgWords[last] || corporate[last] || strings.HasSuffix(last, "tech") || strings.HasSuffix(last, "teknikk") {
		return "company"
	}
	return ""
}

// signature sums up what of an entity's edges its description depends on
// (classOf): whether it holds a role, has one or a location, is a location.
// Counted as edges come and go, so it costs nothing at a hub.
func (g *Graph) signature(key string) string {
	f := g.flags[key]
	for l := range g.links[key] {
		o := g.flags[l]
		f.roleIn, f.org, f.placed = f.roleIn+o.roleIn, f.org+o.org, f.placed+o.placed
	}
	code := 0
	for i, c := range []int{f.roleIn, f.org, f.placed} {
		if c > 0 {
			code |= 1 << i
		}
	}
	return signatures[code]
}

// signatures are the names of the eight combinations ("" for none).
var signatures = [8]string{"", "r", "o", "ro", "p", "rp", "op", "rop"}

// describes counts what an edge tells of how its head and tail are
// described (signature).
type describes struct{ roleIn, org, placed int }

func (g *Graph) flag(h, t string, e *Edge, d int) {
	role := attribute(e) && roleRe.MatchString(e.Relation)
	place := placeRe.MatchString(strings.ToLower(e.Relation))
	ft, fh := g.flags[t], g.flags[h]
	if role {
		ft.roleIn += d
	}
	if place {
		ft.placed += d
	}
	if role || place {
		fh.org += d
	}
	g.flags[t], g.flags[h] = ft, fh
}

// isPlaced reports whether an entity is the tail of a locating fact
// anywhere in the graph.
func (g *Graph) isPlaced(key string) bool {
	for _, h := range g.inOf(key) {
		if placeRe.MatchString(strings.ToLower(h.e.Relation)) {
			return true
		}
	}
	return false
}

// attribute reports whether an edge states an attribute of its head by a
// noun ("chief executive", a table column) rather than a verb.
func attribute(e *Edge) bool { return e.Kind == "attribute" || e.Kind == "table" }

// describeTail returns a noun phrase for e's tail that names only e's head:
// "the chief executive of Northwind Robotics", "the place where Northwind
// Robotics is based", "the company that Northwind Robotics supplies to".
func (g *Graph) describeTail(e *Edge, inner string) (string, bool) {
	rel := strings.ToLower(strings.TrimSpace(e.Relation))
	switch {
	case attribute(e):
		return "the " + rel + " of " + inner, true
	case placeRe.MatchString(rel):
		return "the place where " + inner + " is " + placeRe.FindStringSubmatch(rel)[1], true
	case e.Kind == "copula" || strings.HasPrefix(rel, "is ") || rel == "is" || rel == "was":
		return "", false
	}
	class := g.classOf(e, true)
	if class == "" || class == "place" || weakVerb(rel) {
		return "", false
	}
	return "the " + class + " that " + inner + " " + rel, true
}

// describeHead returns a noun phrase for e's head that names only e's tail:
// "the company whose chief executive is Anders Vik", "the company based in
// Trondheim", "the company that supplies picking robots to Fjordline".
func (g *Graph) describeHead(e *Edge) (string, bool) {
	rel := strings.ToLower(strings.TrimSpace(e.Relation))
	class := g.classOf(e, false)
	if class == "" || class == "place" || weakVerb(rel) || whenRe.MatchString(e.Tail) {
		return "", false
	}
	switch {
	case placeRe.MatchString(rel):
		return "the " + class + " " + placeRe.FindStringSubmatch(rel)[1] + " in " + e.Tail, true
	case e.Kind == "attribute":
		return "the " + class + " whose " + rel + " is " + e.Tail, true
	case e.Kind == "table":
		return "", false
	case e.Kind == "copula" || strings.HasPrefix(rel, "is ") || rel == "is" || rel == "was":
		return "", false
	}
	return "the " + class + " that " + rel + " " + e.Tail, true
}

// askTail writes the question whose answer is e's tail, with subject the
// phrase standing for e's head.
func (g *Graph) askTail(subject string, e *Edge) (string, bool) {
	rel := strings.TrimSpace(e.Relation)
	if rel != "" {
		rel = lowerFirst(rel)
	}
	period := periodOf(e)
	switch {
	case placeRe.MatchString(rel):
		return finish("Where is "+subject+" "+placeRe.FindStringSubmatch(rel)[1], e, false), true
	case attribute(e):
		wh := "What"
		if isPerson(e.Tail, e.Sentence) {
			wh = "Who"
		}
		be := "is"
		if e.Kind == "table" || !period.IsZero() && hasDigit(e.Tail) {
			be = "was"
		}
		return finish(wh+" "+be+" the "+rel+" of "+subject, e, false), true
	}
	if e.Kind == "copula" || weakVerb(rel) {
		return "", false // "What was the company that …?" asks for a description
	}
	return SingleFor(e.Kind, subject, e.Relation, e.Tail, e.Sentence, g.Chunk(e.ChunkID), e.PublishedAt)
}

// askHead writes the question whose answer is e's head, with object the
// phrase standing for e's tail.
func (g *Graph) askHead(object string, e *Edge, same bool, other string) (string, bool) {
	rel := strings.ToLower(strings.TrimSpace(e.Relation))
	class := g.classOf(e, false)
	if class == "" || class == "place" || weakVerb(rel) {
		return "", false
	}
	which := "Which " + class
	if class == "person" {
		which = "Who"
	}
	switch {
	case placeRe.MatchString(rel):
		verb := placeRe.FindStringSubmatch(rel)[1]
		if same {
			return finish(which+" is "+verb+" in the same place as "+other, e, false), true
		}
		return finish(which+" is "+verb+" in "+object, e, false), true
	case e.Kind == "attribute" && !same:
		return finish(which+" has "+object+" as its "+rel, e, false), true
	case e.Kind == "attribute":
		return "", false
	case e.Kind == "table" || e.Kind == "copula" || strings.HasPrefix(rel, "is ") || rel == "is" || rel == "was":
		return "", false
	}
	if same {
		return "", false
	}
	return finish(which+" "+rel+" "+object, e, true), true
}

// finish adds the time anchor of the answer's fact and the question mark.
func finish(q string, e *Edge, past bool) string {
	if a := anchor(e.Head, e.Tail, e.Sentence); a != "" && !yearRe.MatchString(q) {
		q += " " + a
	} else if !e.PublishedAt.IsZero() && !yearRe.MatchString(q) {
		if past {
			q += ", as reported in " + e.PublishedAt.Format("January 2006")
		} else {
			q += " as of " + e.PublishedAt.Format("January 2006")
		}
	}
	return q + "?"
}

func periodOf(e *Edge) time.Time { return e.PublishedAt }

// Write returns the offline question text of an instance and its answer,
// or ok false when no template fits.
func (g *Graph) Write(in *Instance) (question, answer string, ok bool) {
	es := in.Edges
	switch in.Pattern {
	case schemas.PatternChain, schemas.PatternPath:
		subject := es[0].Head
		for _, e := range es[:len(es)-1] {
			d, ok := g.describeTail(e, subject)
			if !ok {
				return "", "", false
			}
			subject = d
		}
		last := es[len(es)-1]
		q, ok := g.askTail(subject, last)
		if strings.Count(q, " that ") > 2 {
			// Three relative clauses deep no one reads it: longer paths
			// need the LLM writer.
			return "", "", false
		}
		return q, last.Tail, ok
	case schemas.PatternStar:
		d, ok := g.describeHead(es[0])
		if !ok {
			return "", "", false
		}
		q, ok := g.askTail(d, es[1])
		return q, es[1].Tail, ok
	case schemas.PatternInvertedStar:
		id, ask := es[0], es[1]
		d, ok := g.describeTail(id, id.Head)
		if !ok {
			return "", "", false
		}
		q, ok := g.askHead(d, ask, id.rel == ask.rel, id.Head)
		return q, ask.Head, ok
	}
	return "", "", false
}

// weakVerb reports relations too vague to describe an entity by ("the
// company that had …").
func weakVerb(rel string) bool {
	f := strings.Fields(rel)
	if len(f) == 0 {
		return true
	}
	switch f[0] {
	case "had", "has", "have", "is", "was", "are", "were", "did", "does", "got", "gets", "saw", "sees", "said", "says":
		return true
	}
	return false
}

// whenRe matches a tail that is a date or a period: a date says when, and
// does not describe what.
var whenRe = regexp.MustCompile(`(?i)^(?:(?:on|in|by)\s+)?(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October|November|December|Q[1-4])\b|^(?:19|20)\d{2}$`)
