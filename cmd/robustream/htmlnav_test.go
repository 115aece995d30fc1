package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEvalOnceAsksNothingAboutNavigation runs eval --once over the real
// documentation pages of sources/dir/testdata/pages (DocBook, Sphinx,
// texinfo, Doxygen, …): questions are asked, and no question or answer
// holds the navigation text their goldens list (before main-content
// extraction, the PostgreSQL release notes' Prev/Up/Next tables gave
// "What is the up of E.17. Release 15.4?" → "Home").
func TestEvalOnceAsksNothingAboutNavigation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	pages := filepath.Join("..", "..", "sources", "dir", "testdata", "pages")
	goldens, _ := filepath.Glob(filepath.Join(pages, "*", "*.golden"))
	if len(goldens) < 4 {
		t.Fatalf("%d goldens in %s", len(goldens), pages)
	}
	dir := t.TempDir()
	var nav []*regexp.Regexp
	for _, g := range goldens {
		page := strings.TrimSuffix(g, ".golden") + ".html"
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(page)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(g)
		if err != nil {
			t.Fatal(err)
		}
		for sc := bufio.NewScanner(f); sc.Scan(); {
			switch kind, s, _ := strings.Cut(sc.Text(), "\t"); kind {
			case "nav":
				nav = append(nav, regexp.MustCompile(regexp.QuoteMeta(s)))
			case "word":
				nav = append(nav, regexp.MustCompile(`(^|[^\pL\pN])`+regexp.QuoteMeta(s)+`([^\pL\pN]|$)`))
			}
		}
		f.Close()
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "dir:" + dir, "--data-dir", data, "--log-level", "error"}, &out, &errb); code != 0 {
		t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	rows := strings.TrimSpace(robustream(t, "sql", "--data-dir", data,
		"SELECT concat(question, ' → ', answer) FROM robustream.questions"))
	if rows == "" {
		t.Fatal("no questions")
	}
	for _, q := range strings.Split(rows, "\n") {
		for _, re := range nav {
			if re.MatchString(q) {
				t.Errorf("asks about navigation (%s): %s", re, q)
			}
		}
	}
	t.Logf("%d questions", strings.Count(rows, "\n")+1)
}
