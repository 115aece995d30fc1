package htmltext

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// mainContent returns the element whose text is the page's main content and
// the elements under it that are not main content, for the text walk to
// leave out (docs/methods.md, Main content of HTML pages). The rules are
// structural, so that they hold for any generator:
//
//   - The root is the page's one <main> element (or element with role
//     "main"), else <body>.
//   - Left out by what they are: <nav> and <aside>; <header> and <footer>
//     that are not inside an <article>, <section> or <main>; elements whose
//     ARIA role is a landmark or widget of navigation (navigationRoles);
//     elements whose class or id names a navigation region (navRegion).
//   - Navigation bars found by their links: a link that says it leads to
//     the previous, next, parent, first page or to an index (rel, or an
//     accesskey, which only site navigation carries) takes with it the
//     largest block around it that holds little text besides links
//     (navBarText): the Prev/Up/Next/Home tables of DocBook, texinfo's
//     "Next: … Previous: … Up: …" lines, Sphinx's related bar.
//   - Link-dense blocks (judge): a list, table, paragraph or division whose
//     visible text is at least half link text (linkDenseShare), measured
//     without what the rules above already left out, innermost first:
//     tables of contents, sidebars, menus, link tables, with the box titles
//     that frame them.
//   - Anchor marks: a link whose text is one to three symbols and no letter
//     or digit (the ¶ or § a generator puts beside a heading or an entry),
//     and continuation links: a link of at most three words ending in an
//     ellipsis ("More...", "Read more…"), which points to the rest of a text
//     rather than saying anything.
//
// Tables of data, headings and prose are kept: a table is left out only when
// it is itself navigation by one of the rules.
func mainContent(doc *html.Node) (root *html.Node, drop map[*html.Node]bool) {
	body := find(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		body = doc
	}
	root = body
	var mains []*html.Node
	visit(body, func(n *html.Node) bool {
		if n.DataAtom == atom.Main || hasToken(attr(n, "role"), "main") {
			mains = append(mains, n)
			return false
		}
		return true
	})
	if len(mains) == 1 {
		root = mains[0]
	}
	drop = map[*html.Node]bool{}
	raw := map[*html.Node]counts{}
	measure(root, raw)
	visit(root, func(n *html.Node) bool {
		if n == root {
			return true
		}
		if navElement(n) {
			drop[n] = true
			return false
		}
		if n.DataAtom == atom.A {
			if anchorMark(n) {
				drop[n] = true
			} else if navLink(n) {
				drop[navBar(n, root, raw)] = true
			}
			return false
		}
		return true
	})
	// Link density counts only what the rules above kept.
	judge(root, root, drop)
	return root, drop
}

// linkDenseShare is the share of link text, in percent, at which a block
// is taken for navigation. Prose that cites its sources stays far below
// (a few link words per sentence); a menu or a table of contents is all
// links, and a link table with short labels beside its links ("Prev", the
// neighbouring page's title) is caught by its rel links instead.
const linkDenseShare = 50

// navBarText is how much text besides link text (in letters and digits
// and other non-space characters) a block may hold and still be taken for
// the navigation bar of a link it contains: DocBook's navigation header,
// with the page and chapter titles, holds about 40; a paragraph of prose
// that happens to link to the next chapter holds more.
const navBarText = 100

// denseBlocks are the elements the link-density rule applies to. Table
// cells, definition terms and inline elements are judged as part of their
// table, list or paragraph, so a table of data keeps its cells.
var denseBlocks = map[atom.Atom]bool{atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Menu: true,
	atom.Table: true, atom.Div: true, atom.Section: true, atom.P: true, atom.Li: true,
	atom.Center: true}

// navigationRoles are the ARIA roles of regions that are not the content.
var navigationRoles = []string{"navigation", "banner", "contentinfo", "complementary", "search",
	"menu", "menubar", "toolbar", "tablist"}

// navRegionWords are class and id words that name a navigation region; a
// word matches a class or id token equal to it or starting with it
// ("navheader", "nav-panel", "sidebar-wrapper"), and "sidebar",
// "breadcrumb" and "navbar" also match inside a token ("sphinxsidebar").
var navRegionWords = []string{"nav", "menu", "breadcrumb", "sidebar", "footer", "pagination",
	"pager", "skiplink", "related"}

var navRegionInside = []string{"sidebar", "breadcrumb", "navbar", "navigation"}

// navRels are link relations that only navigation between pages uses.
var navRels = []string{"prev", "previous", "next", "up", "home", "start", "first", "last",
	"contents", "toc", "index", "top", "parent"}

func navElement(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Aside:
		return true
	case atom.Header, atom.Footer:
		for p := n.Parent; p != nil; p = p.Parent {
			if p.DataAtom == atom.Article || p.DataAtom == atom.Section || p.DataAtom == atom.Main ||
				hasToken(attr(p, "role"), "main") {
				return false
			}
		}
		return true
	}
	for _, r := range navigationRoles {
		if hasToken(attr(n, "role"), r) {
			return true
		}
	}
	return navRegion(attr(n, "class")) || navRegion(attr(n, "id"))
}

// navRegion reports whether a class or id value names a navigation region
// (navRegionWords).
func navRegion(v string) bool {
	if v == "" {
		return false
	}
	for _, tok := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		for _, w := range navRegionWords {
			if strings.HasPrefix(tok, w) && (w != "nav" || !strings.HasPrefix(tok, "navy")) {
				return true
			}
		}
		for _, w := range navRegionInside {
			if strings.Contains(tok, w) {
				return true
			}
		}
	}
	return false
}

// titleName reports whether a class or id value names a title ("title",
// "headertitle", "page-title").
func titleName(v string) bool {
	return v != "" && strings.Contains(strings.ToLower(v), "title")
}

// navLink reports a link that leads to another page of the site's
// sequence: a navigation relation (navRels) or an access key.
func navLink(a *html.Node) bool {
	if attr(a, "href") == "" {
		return false
	}
	if _, ok := attrOK(a, "accesskey"); ok {
		return true
	}
	for _, r := range navRels {
		if hasToken(attr(a, "rel"), r) {
			return true
		}
	}
	return false
}

// navBar is the largest block around the navigation link a, below root and
// not a sectioning element, whose text besides links is at most
// navBarText; a itself when its parent already holds more.
func navBar(a, root *html.Node, c map[*html.Node]counts) *html.Node {
	bar := a
	for p := a.Parent; p != nil && p != root; p = p.Parent {
		switch p.DataAtom {
		case atom.Body, atom.Main, atom.Article, atom.Section:
			return bar
		}
		if k := c[p]; k.text-k.link > navBarText {
			return bar
		}
		bar = p
	}
	return bar
}

// anchorMark reports a link whose visible text is one to three symbols and
// no letter or digit (a permalink or source mark), or at most three words
// ending in an ellipsis (a continuation link).
func anchorMark(a *html.Node) bool {
	if attr(a, "href") == "" {
		return false
	}
	words := strings.Fields(inlineText(a, nil))
	t := strings.Join(words, "")
	if t == "" {
		return false
	}
	if len(words) <= 3 && (strings.HasSuffix(t, "...") || strings.HasSuffix(t, "…")) {
		return true
	}
	if len([]rune(t)) > 3 {
		return false
	}
	for _, r := range t {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// counts are the non-space characters of visible text under an element,
// and how many of them are inside links.
type counts struct {
	text, link int
	titled     bool // (kept) a heading, or an element whose class or id names a title, is below
}

func (c counts) dense() bool { return c.text > 0 && c.link*100 >= c.text*linkDenseShare }

// measure fills out with the counts of every element under n (n
// included), and returns n's counts. One pass, so a page of any depth
// costs its size.
func measure(n *html.Node, out map[*html.Node]counts) counts {
	var c counts
	switch n.Type {
	case html.TextNode:
		return counts{text: nonSpace(n.Data)}
	case html.ElementNode:
		if skipped[n.DataAtom] || hidden(n) {
			return c
		}
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		k := measure(ch, out)
		c.text += k.text
		c.link += k.link
	}
	if n.Type == html.ElementNode {
		if n.DataAtom == atom.A && attr(n, "href") != "" {
			c.link = c.text
		}
		out[n] = c
	}
	return c
}

// judge applies the link-density rule under root, innermost blocks first,
// adding the blocks it leaves out to drop. It returns n's counts as found
// (all) and without what was left out (kept). A block is left out when
// what is kept of it is link-dense, or when link-dense blocks inside it
// held at least as much text as it keeps and what it keeps is a few labels
// (at most navBarText characters besides links): the frame of a menu, its
// title and box headings, goes with the menu ("Main Menu", "See also"),
// while a layout table that holds a menu beside the text keeps the text,
// and a block that keeps a heading or a title (titleName) keeps it: a
// page's title bar with a row of section links beside it.
func judge(n, root *html.Node, drop map[*html.Node]bool) (all, kept counts) {
	switch n.Type {
	case html.TextNode:
		c := counts{text: nonSpace(n.Data)}
		return c, c
	case html.ElementNode:
		if skipped[n.DataAtom] || hidden(n) || drop[n] {
			return counts{}, counts{}
		}
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		a, k := judge(ch, root, drop)
		all.text += a.text
		all.link += a.link
		kept.text += k.text
		kept.link += k.link
		kept.titled = kept.titled || k.titled
	}
	if n.Type != html.ElementNode {
		return all, kept
	}
	if n.DataAtom == atom.A && attr(n, "href") != "" {
		all.link, kept.link = all.text, kept.text
	}
	if headings[n.DataAtom] != "" || titleName(attr(n, "class")) || titleName(attr(n, "id")) {
		kept.titled = kept.text > 0
	}
	gone := all.text - kept.text // in link-dense blocks below
	if n != root && denseBlocks[n.DataAtom] &&
		(kept.dense() || gone > 0 && gone >= kept.text && kept.text-kept.link <= navBarText && !kept.titled) {
		drop[n] = true
		return all, counts{}
	}
	return all, kept
}

func nonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// visit calls f on the element nodes under n in document order, n
// included; f returns whether to go into the node's children.
func visit(n *html.Node, f func(*html.Node) bool) {
	if n.Type == html.ElementNode && !f(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		visit(c, f)
	}
}

func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, match); f != nil {
			return f
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val, true
		}
	}
	return "", false
}

// hasToken reports whether the space-separated list v holds tok, ignoring
// case.
func hasToken(v, tok string) bool {
	for _, f := range strings.Fields(v) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// dropEmptySections leaves out the headings under which nothing is left
// (their section was all navigation): a heading followed by a heading of
// the same or a higher level, or by the end of the text.
func dropEmptySections(paras []string, levels []int) []string {
	keep := make([]bool, len(paras))
	next := -1 // level of the next kept paragraph: 0 for text, -1 for none
	for i := len(paras) - 1; i >= 0; i-- {
		l := levels[i]
		if l > 0 && (next == -1 || next > 0 && next <= l) {
			continue
		}
		keep[i] = true
		next = l
	}
	var out []string
	for i, p := range paras {
		if keep[i] {
			out = append(out, p)
		}
	}
	return out
}
