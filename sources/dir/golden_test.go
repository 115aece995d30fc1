package dir

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/chunk"
)

// A golden of testdata/pages: what a page's chunks must not hold (its
// navigation) and must hold (its main text).
type golden struct {
	nav   []string         // text of the page's navigation
	words []*regexp.Regexp // navigation words, matched as whole words
	keep  []string         // main text, each whole in one chunk
}

// readGolden reads a .golden file: lines "nav<TAB>text", "word<TAB>word",
// "keep<TAB>text"; "#" starts a comment.
func readGolden(t *testing.T, path string) golden {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var g golden
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, text, ok := strings.Cut(line, "\t")
		switch {
		case !ok || text == "":
			t.Fatalf("%s: bad line %q", path, line)
		case kind == "nav":
			g.nav = append(g.nav, text)
		case kind == "word":
			g.words = append(g.words, regexp.MustCompile(`(^|[^\pL\pN])`+regexp.QuoteMeta(text)+`([^\pL\pN]|$)`))
		case kind == "keep":
			g.keep = append(g.keep, text)
		default:
			t.Fatalf("%s: unknown kind %q", path, kind)
		}
	}
	if len(g.nav)+len(g.words) == 0 || len(g.keep) == 0 {
		t.Fatalf("%s: a golden names navigation and main text", path)
	}
	return g
}

// TestGoldenPages reads real documentation pages of several generators
// (DocBook, Sphinx, texinfo, Doxygen, libxml2's devhelp stylesheet, a site
// laid out with tables), shipped in testdata/pages with their packages'
// copyright files, through the folder source and the chunker: no chunk
// holds any of the navigation text the page's golden lists (text that is
// in the page: the htmltext goldens test checks that), and every sentence
// of main text it lists is whole in one chunk.
func TestGoldenPages(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("testdata", "pages"))
	if err != nil {
		t.Fatal(err)
	}
	goldens, _ := filepath.Glob(filepath.Join(root, "*", "*.golden"))
	if len(goldens) < 4 {
		t.Fatalf("%d goldens in %s", len(goldens), root)
	}
	s, err := New(Config{Path: root}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var c collector
	if err := s.Run(context.Background(), c.emit); err != nil {
		t.Fatal(err)
	}
	if len(c.docs) != len(goldens) {
		t.Errorf("%d documents from %d pages", len(c.docs), len(goldens))
	}
	for _, gp := range goldens {
		page := strings.TrimSuffix(gp, ".golden") + ".html"
		rel, _ := filepath.Rel(root, page)
		if _, err := os.Stat(filepath.Join(filepath.Dir(page), "copyright")); err != nil {
			t.Errorf("%s: no copyright file beside it", rel)
		}
		d, ok := c.docs[page]
		if !ok {
			t.Errorf("%s: no document", rel)
			continue
		}
		g := readGolden(t, gp)
		pieces := chunk.Split(d.Text, 0)
		if len(pieces) == 0 {
			t.Errorf("%s: no chunks", rel)
		}
		for i, p := range pieces {
			for _, n := range g.nav {
				if strings.Contains(p.Text, n) {
					t.Errorf("%s: chunk %d holds navigation %q:\n%s", rel, i, n, p.Text)
				}
			}
			for _, w := range g.words {
				if w.MatchString(p.Text) {
					t.Errorf("%s: chunk %d holds navigation word %s:\n%s", rel, i, w, p.Text)
				}
			}
		}
		for _, k := range g.keep {
			found := false
			for _, p := range pieces {
				found = found || strings.Contains(p.Text, k)
			}
			if !found {
				t.Errorf("%s: main text %q is in no chunk", rel, k)
			}
		}
	}
}
