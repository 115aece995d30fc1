package htmltext

import (
	"bytes"
	"errors"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Extract returns the title and the main content of an HTML page as text,
// with paragraphs separated by blank lines and headings, list items and
// tables in their Markdown forms. What is not main content (mainContent)
// is left out. The parser is the HTML5 one browsers use, so hostile or
// broken markup parses the way a reader would see it.
func Extract(src []byte) (title, text string, err error) {
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return "", "", err
	}
	root, drop := mainContent(doc)
	if text = render(root, drop); text == "" && render(doc, nil) != "" {
		return findTitle(doc), "", ErrNoMainContent
	}
	return findTitle(doc), text, nil
}

// ErrNoMainContent is a page with visible text all of which is navigation
// (an index of links, a redirect page's menu).
var ErrNoMainContent = errors.New("only navigation and links, no main content")

// render is the text under root, without what drop holds (drop may be nil).
func render(root *html.Node, drop map[*html.Node]bool) string {
	w := &textWriter{drop: drop}
	w.walk(root)
	w.flush()
	return strings.Join(dropEmptySections(w.paras, w.levels), "\n\n")
}

// findTitle returns the text of the first <title>, which lives in <head>, the
// part of the page the text walk skips.
func findTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		return collapse(inlineText(n, nil))
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTitle(c); t != "" {
			return t
		}
	}
	return ""
}

// lineBreak marks a <br> inside the inline buffer until flush.
const lineBreak = "\x00"

type textWriter struct {
	drop   map[*html.Node]bool // not main content (mainContent)
	paras  []string
	levels []int // heading level of each paragraph, 0 for others
	inline strings.Builder
	prefix string // Markdown marker for the paragraph being built: "## ", "- "
}

// skipped elements never show text to a reader.
var skipped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Iframe: true, atom.Object: true, atom.Canvas: true,
	atom.Head: true, atom.Select: true, atom.Button: true}

// blocks start a new paragraph.
var blocks = map[atom.Atom]bool{atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true,
	atom.Header: true, atom.Footer: true, atom.Main: true, atom.Aside: true, atom.Nav: true,
	atom.Blockquote: true, atom.Pre: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Dt: true,
	atom.Dd: true, atom.Figure: true, atom.Figcaption: true, atom.Form: true, atom.Hr: true,
	atom.Address: true, atom.Details: true, atom.Summary: true, atom.Body: true, atom.Caption: true,
	atom.Td: true, atom.Th: true, atom.Tr: true} // cells: of layout tables only, data tables are tableText's

// layoutTable reports a table used to lay out a page rather than to hold
// data: one that says so (role "presentation" or "none"), that has a single
// cell, or that holds a table, a heading or a form; its cells are read as
// blocks, not as a Markdown table.
func layoutTable(t *html.Node) bool {
	if hasToken(attr(t, "role"), "presentation") || hasToken(attr(t, "role"), "none") {
		return true
	}
	cells, layout := 0, false
	for c := t.FirstChild; c != nil && !layout; c = c.NextSibling {
		visit(c, func(n *html.Node) bool {
			switch n.DataAtom {
			case atom.Table, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Form:
				layout = true
			case atom.Td, atom.Th:
				cells++
			}
			return !layout
		})
	}
	return layout || cells == 1
}

var headings = map[atom.Atom]string{atom.H1: "# ", atom.H2: "## ", atom.H3: "### ", atom.H4: "#### ",
	atom.H5: "##### ", atom.H6: "###### "}

func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch strings.ToLower(a.Key) {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(a.Val, "true") {
				return true
			}
		case "style":
			s := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

func (w *textWriter) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.inline.WriteString(n.Data)
		return
	case html.ElementNode:
		if skipped[n.DataAtom] || hidden(n) || w.drop[n] {
			return
		}
		switch {
		case n.DataAtom == atom.Br:
			w.inline.WriteString(lineBreak)
			return
		case n.DataAtom == atom.Table && layoutTable(n):
			w.flush()
			w.children(n) // its cells are blocks
			w.flush()
			return
		case n.DataAtom == atom.Pre:
			// Program listings and examples: a fenced block, kept line by
			// line, that the sentence reader leaves out (code states no
			// fact in prose) and the chunker keeps with its paragraph.
			w.flush()
			if code := preText(n, w.drop); code != "" {
				w.paras = append(w.paras, "```\n"+code+"\n```")
				w.levels = append(w.levels, 0)
			}
			w.prefix = ""
			return
		case n.DataAtom == atom.Table:
			w.flush()
			if t := tableText(n, w.drop); t != "" {
				w.paras = append(w.paras, t)
				w.levels = append(w.levels, 0)
				w.prefix = ""
			}
			return
		case headings[n.DataAtom] != "":
			w.flush()
			w.prefix = headings[n.DataAtom]
			w.children(n)
			w.flush()
			w.prefix = ""
			return
		case n.DataAtom == atom.Li:
			w.flush()
			w.prefix = "- "
			w.children(n)
			w.flush()
			w.prefix = ""
			return
		case blocks[n.DataAtom]:
			w.flush()
			w.children(n)
			w.flush()
			return
		}
	}
	w.children(n)
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

// flush closes the paragraph being built, collapsing whitespace the way a
// browser renders it; <br> survives as a line break. The marker waits for
// the first paragraph with text, so a list item whose text is in a <p>
// (DocBook, Sphinx) keeps its "- ".
func (w *textWriter) flush() {
	var lines []string
	for _, l := range strings.Split(w.inline.String(), lineBreak) {
		if l = collapse(l); l != "" {
			lines = append(lines, l)
		}
	}
	w.inline.Reset()
	if len(lines) > 0 {
		w.paras = append(w.paras, w.prefix+strings.Join(lines, "\n"))
		w.levels = append(w.levels, strings.Count(w.prefix, "#"))
		w.prefix = ""
	}
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// preText is the text of a <pre> block with its lines kept: blank lines and
// trailing spaces go (a blank line would end the fenced paragraph), and a
// line of backquotes that would close the fence early is left out.
func preText(n *html.Node, drop map[*html.Node]bool) string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(visibleText(n, drop, "\n"), "\r", ""), "\n") {
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "```") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// inlineText is all visible text under n that drop does not leave out
// (drop may be nil).
func inlineText(n *html.Node, drop map[*html.Node]bool) string { return visibleText(n, drop, " ") }

// visibleText is all visible text under n that drop does not leave out, a
// <br> written as br.
func visibleText(n *html.Node, drop map[*html.Node]bool, br string) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && n.DataAtom != atom.Title && (skipped[n.DataAtom] || hidden(n) || drop[n]) {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			b.WriteString(br)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// cellText is a table cell's text on one line, a line break inside it
// written as "; ": a cell of lines ("REAL<br>DOUBLE<br>FLOAT") lists items,
// and joined with spaces they would read as one name.
func cellText(c *html.Node, drop map[*html.Node]bool) string {
	parts := strings.Split(visibleText(c, drop, "\x00"), "\x00")
	var kept []string
	for _, p := range parts {
		if p = collapse(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "; ")
}

// tableText renders a table as a Markdown table, so that the chunker keeps it
// whole with its caption (RARE §4.1). Its header row is the first row when
// that row is in <thead> or all <th>; a table without one gets a header
// row of empty cells. Nested tables are flattened into their cell.
func tableText(t *html.Node, drop map[*html.Node]bool) string {
	var rows [][]string
	var caption string
	header := false // the first row names the columns
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type != html.ElementNode {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				rec(c)
			}
			return
		}
		if skipped[n.DataAtom] || hidden(n) || drop[n] {
			return
		}
		switch n.DataAtom {
		case atom.Caption:
			caption = collapse(inlineText(n, drop))
			return
		case atom.Tr:
			var cells []string
			allTh := true
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) && !hidden(c) && !drop[c] {
					cells = append(cells, strings.ReplaceAll(cellText(c, drop), "|", "/"))
					allTh = allTh && c.DataAtom == atom.Th
				}
			}
			if len(cells) > 0 {
				if len(rows) == 0 {
					header = allTh || n.Parent != nil && n.Parent.DataAtom == atom.Thead
				}
				rows = append(rows, cells)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(t)
	if len(rows) == 0 {
		return caption
	}
	if !header {
		// Markdown needs a header row; one of empty cells says the table
		// names no columns, rather than passing its first row for names.
		width := 0
		for _, r := range rows {
			width = max(width, len(r))
		}
		rows = append([][]string{make([]string, width)}, rows...)
	}
	var b strings.Builder
	if caption != "" {
		b.WriteString(caption + "\n\n")
	}
	for i, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |")
		if i == 0 {
			b.WriteString("\n|" + strings.Repeat("---|", len(r)))
		}
		if i < len(rows)-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}
