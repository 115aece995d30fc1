package htmltext

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// Each rule of mainContent on a small page: what must go and what must stay.
func TestMainContentRules(t *testing.T) {
	const prose = `<p>Northwind Freight carried 4,200 containers in 2025, up from 3,900, as the <a href="port.html">Trondheim port</a> reopened its second quay.</p>`
	cases := []struct {
		name, page string
		gone, kept []string
	}{
		{"semantic elements", `<header><a href="/">Northwind</a> Logistics portal</header><nav><a href="a">About us</a></nav>` + prose +
			`<aside>Subscribe to our newsletter today</aside><footer>Contact the webmaster</footer>`,
			[]string{"Logistics portal", "About us", "newsletter", "webmaster"}, []string{"4,200 containers"}},
		{"header inside an article is its heading", `<article><header><h1>Annual freight figures</h1></header>` + prose + `</article>`,
			nil, []string{"# Annual freight figures", "4,200 containers"}},
		{"ARIA roles", `<div role="banner">Portal banner text</div><div role="search">Search the portal</div>` + prose +
			`<div role="contentinfo">All rights reserved</div><div role="complementary">Popular this week</div>`,
			[]string{"banner text", "Search the portal", "rights reserved", "Popular this week"}, []string{"4,200 containers"}},
		{"class and id names", `<div class="sphinxsidebar">Quick search box</div><div id="breadcrumbs">Home / Reports</div>` + prose +
			`<div class="site-footer">Imprint and privacy</div><ul class="pagination"><li>Page 2 of 7</li></ul>`,
			[]string{"Quick search", "Home / Reports", "Imprint", "Page 2 of 7"}, []string{"4,200 containers"}},
		{"a navy class is not navigation", `<div class="navy-box">` + prose + `</div>`, nil, []string{"4,200 containers"}},
		{"a bar of rel links with the neighbours' titles", prose + `<table><tr><td><a rel="prev" href="q1.html">Prev</a></td><td>First quarter results</td>` +
			`<td><a rel="next" href="q3.html">Next</a></td><td>Third quarter results</td></tr></table>`,
			[]string{"Prev", "First quarter results", "Third quarter results"}, []string{"4,200 containers"}},
		{"accesskey links", prose + `<p>Next: <a accesskey="n" href="x.html">Missing features</a>, Up: <a accesskey="u" href="i.html">Manual</a></p>`,
			[]string{"Missing features", "Up:"}, []string{"4,200 containers"}},
		{"a rel link in prose takes only itself", `<p>The fleet grew by twelve vessels over the year, all of them built in Ulsteinvik, and the ` +
			`company expects six more next year, as the <a rel="next" href="n.html">next chapter</a> describes in detail for each route.</p>`,
			[]string{"next chapter"}, []string{"twelve vessels", "as the describes"}},
		{"link-dense list and its box title", prose + `<div><b>Related reading</b><ul><li><a href="1">Freight index</a></li>` +
			`<li><a href="2">Port statistics</a></li><li><a href="3">Annual report 2024</a></li></ul></div>`,
			[]string{"Related reading", "Freight index", "Annual report 2024"}, []string{"4,200 containers"}},
		{"a data table with a link column stays", `<table><caption>Table 2: Volumes</caption><tr><th>Port</th><th>Containers</th><th>Change</th></tr>` +
			`<tr><td><a href="t.html">Trondheim</a></td><td>4,200</td><td>up 7.7% on the year</td></tr>` +
			`<tr><td><a href="b.html">Bergen</a></td><td>3,100</td><td>down 2.1% on the year</td></tr></table>`,
			nil, []string{"Table 2: Volumes", "| Port | Containers | Change |", "| Trondheim | 4,200 | up 7.7% on the year |"}},
		{"a layout table reads as blocks", `<table><tr><td><ul><li><a href="a">Home</a></li><li><a href="b">Downloads</a></li></ul></td>` +
			`<td><h1>Freight</h1>` + prose + `</td></tr></table>`,
			[]string{"Home", "Downloads", "|"}, []string{"# Freight", "4,200 containers"}},
		{"anchor marks and continuation links", `<h2>Volumes<a href="#v">¶</a></h2><p>Containers rose to 4,200 <a href="c/1">§</a> in 2025. <a href="#more">Read more…</a></p>`,
			[]string{"¶", "§", "Read more"}, []string{"## Volumes", "Containers rose to 4,200 in 2025."}},
		{"a title bar beside section links keeps the title", `<div><div class="summary"><a href="#a">Macros</a> | <a href="#b">Typedefs</a></div>` +
			`<div class="headertitle">Freight API</div></div>` + prose,
			[]string{"Macros", "Typedefs"}, []string{"Freight API", "4,200 containers"}},
		{"the main element is the root", `<div>Welcome back, guest</div><main>` + prose + `</main><div>Cookie settings</div>`,
			[]string{"Welcome back", "Cookie settings"}, []string{"4,200 containers"}},
		{"a heading left without its section goes", `<h2>Contents</h2><ul><li><a href="#a">Volumes</a></li><li><a href="#b">Outlook</a></li></ul><h2>Volumes</h2>` + prose,
			[]string{"Contents", "Outlook"}, []string{"## Volumes", "4,200 containers"}},
	}
	for _, c := range cases {
		_, text, err := Extract([]byte("<html><body>" + c.page + "</body></html>"))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for _, g := range c.gone {
			if strings.Contains(text, g) {
				t.Errorf("%s: %q kept in\n%s", c.name, g, text)
			}
		}
		for _, k := range c.kept {
			if !strings.Contains(strings.Join(strings.Fields(text), " "), k) && !strings.Contains(text, k) {
				t.Errorf("%s: %q lost from\n%s", c.name, k, text)
			}
		}
	}
}

// A list item's marker goes to its first paragraph with text, however
// deep: generators put list items' text in <p> elements.
func TestListItemParagraphs(t *testing.T) {
	_, text, err := Extract([]byte(`<ul><li><p>Fix the planner (Tom Lane)</p><p>Plans could be wrong.</p></li>` +
		`<li><div><p>Fix the hash join</p></div></li><li></li></ul><p>After the list.</p>`))
	want := "- Fix the planner (Tom Lane)\n\nPlans could be wrong.\n\n- Fix the hash join\n\nAfter the list."
	if err != nil || text != want {
		t.Errorf("got %q %v\nwant %q", text, err, want)
	}
}

// A table's first row names its columns only when it is a header row (in
// <thead>, or all <th>); a table without one gets a header of empty cells,
// so that no data row passes for column names.
func TestTableHeaders(t *testing.T) {
	for page, want := range map[string]string{
		`<table><tr><td>ctxt:</td><td>a transformation context</td></tr><tr><td>node:</td><td>the current node</td></tr></table>`: "|  |  |\n|---|---|\n| ctxt: | a transformation context |\n| node: | the current node |",
		`<table><thead><tr><td>Port</td><td>Containers</td></tr></thead><tr><td>Bergen</td><td>3,100</td></tr></table>`:           "| Port | Containers |\n|---|---|\n| Bergen | 3,100 |",
		`<table><tr><th>Port</th><th>Containers</th></tr><tr><td>Bergen</td><td>3,100</td></tr></table>`:                          "| Port | Containers |\n|---|---|\n| Bergen | 3,100 |",
		`<table><tr><th>Released</th><td>2023-08-10</td></tr><tr><th>Branch</th><td>15</td></tr></table>`:                         "|  |  |\n|---|---|\n| Released | 2023-08-10 |\n| Branch | 15 |",
		// lines of a cell are items, kept apart
		`<table><tr><th>Types</th><th>Rule</th></tr><tr><td>REAL<br>DOUBLE<br> FLOAT</td><td>4</td></tr></table>`: "| Types | Rule |\n|---|---|\n| REAL; DOUBLE; FLOAT | 4 |",
	} {
		if _, text, err := Extract([]byte(page)); err != nil || text != want {
			t.Errorf("%s:\ngot  %q %v\nwant %q", page, text, err, want)
		}
	}
}

// A page that is all navigation has no main content: an error, not an
// empty document or a document of menu items.
func TestOnlyNavigation(t *testing.T) {
	_, _, err := Extract([]byte(`<html><body><ul><li><a href="a">Alpha</a></li><li><a href="b">Beta</a></li></ul></body></html>`))
	if !errors.Is(err, ErrNoMainContent) {
		t.Errorf("a page of links: err %v", err)
	}
	if _, text, err := Extract([]byte(`<html><body></body></html>`)); err != nil || text != "" {
		t.Errorf("an empty page: %q %v", text, err)
	}
}

// The goldens of sources/dir/testdata/pages list navigation text that is in
// the page: each is in the page's text when no main-content rule applies
// (render of the whole document), and not in Extract's text; each main text
// it lists is in Extract's text.
func TestGoldenNavigationIsInThePage(t *testing.T) {
	goldens, _ := filepath.Glob(filepath.Join("..", "dir", "testdata", "pages", "*", "*.golden"))
	if len(goldens) < 4 {
		t.Fatalf("%d goldens", len(goldens))
	}
	for _, gp := range goldens {
		src, err := os.ReadFile(strings.TrimSuffix(gp, ".golden") + ".html")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		all := render(doc, nil)
		_, text, err := Extract(src)
		if err != nil {
			t.Fatalf("%s: %v", gp, err)
		}
		f, err := os.Open(gp)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			kind, s, _ := strings.Cut(sc.Text(), "\t")
			switch kind {
			case "nav", "word":
				if !strings.Contains(all, s) {
					t.Errorf("%s: navigation %q is not in the page", gp, s)
				}
				if kind == "nav" && strings.Contains(text, s) {
					t.Errorf("%s: navigation %q in the main content", gp, s)
				}
			case "keep":
				if !strings.Contains(text, s) {
					t.Errorf("%s: main text %q lost", gp, s)
				}
			}
		}
		f.Close()
	}
}

// Nesting as deep as the parser takes (512 open elements) is judged like
// a flat page.
func TestDeepNesting(t *testing.T) {
	page := strings.Repeat("<div>", 500) + `<p>Containers rose to 4,200.</p><ul><li><a href="x">Menu</a></li></ul>` + strings.Repeat("</div>", 500)
	_, text, err := Extract([]byte(page))
	if err != nil || text != "Containers rose to 4,200." {
		t.Errorf("got %q %v", text, err)
	}
}
