// Package docs_test keeps the repository self-contained: its documentation
// lives in docs/, and nothing in it points at specifications outside the
// repository that its users never see.
package docs_test

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// skipDirs are not part of the sources: version control, fetched or cached
// artefacts, build output, run data and test fixtures (which may quote
// anything).
var skipDirs = []string{".git", ".chdb", ".cache", "bin", "data", "testdata"}

// External pointers that must not appear anywhere: the shared folder beside
// the repository, and the architecture and methods specifications it held,
// cited by file name, by section number or by section title. The patterns
// are spelled in pieces so that this file does not match itself.
var (
	sharedDir = "../" + "shared"
	specWord  = regexp.MustCompile(`\b` + "ARCHI" + `TECTURE\b`)
	methWord  = regexp.MustCompile(`\b` + "METH" + `ODS\b`)
)

// docRef matches a comment's pointer to a doc section, as in
// "docs/architecture.md, Delivery contract".
var docRef = regexp.MustCompile(`docs/(architecture|methods)\.md, ([^\n]*)`)

// docLink matches a Markdown link to a doc with an anchor; selfLink a link
// to an anchor of the same document.
var (
	docLink  = regexp.MustCompile(`\]\((?:docs/|\.\./docs/)?(architecture|methods)\.md#([^)\s]+)\)`)
	selfLink = regexp.MustCompile(`\]\(#([^)\s]+)\)`)
)

// TestStandAlone checks that the repository stands alone: no file points at
// the specification outside it, the license is there, the README links the
// docs, and every pointer to a docs section names a section that exists.
func TestStandAlone(t *testing.T) {
	root := moduleRoot(t)
	files := sourceFiles(t, root)

	t.Run("no pointers outside the repository", func(t *testing.T) {
		for _, f := range files {
			for _, hit := range externalPointers(f.lines) {
				t.Errorf("%s:%d: %s", f.rel, hit.line, hit.what)
			}
		}
	})

	t.Run("LICENSE", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(root, "LICENSE"))
		if err != nil {
			t.Fatalf("LICENSE: %v", err)
		}
		for _, want := range []string{"Apache License", "Version 2.0, January 2004", "Copyright 2026 The robustream Authors"} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("LICENSE lacks %q", want)
			}
		}
	})

	t.Run("README links the docs", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(root, "README.md"))
		if err != nil {
			t.Fatalf("README.md: %v", err)
		}
		for _, doc := range []string{"docs/architecture.md", "docs/methods.md"} {
			if !bytes.Contains(b, []byte("]("+doc+")")) && !bytes.Contains(b, []byte("]("+doc+"#")) {
				t.Errorf("README.md has no Markdown link to %s", doc)
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(doc))); err != nil {
				t.Errorf("%s: %v", doc, err)
			}
		}
	})

	t.Run("pointers name existing sections", func(t *testing.T) {
		sections := map[string][]string{}
		for _, doc := range []string{"architecture", "methods"} {
			b, err := os.ReadFile(filepath.Join(root, "docs", doc+".md"))
			if err != nil {
				t.Fatalf("docs/%s.md: %v", doc, err)
			}
			sections[doc] = headings(string(b))
		}
		for _, f := range files {
			for i, line := range f.lines {
				for _, m := range docRef.FindAllStringSubmatch(line, -1) {
					// A pointer names a section by its title, capitalized as
					// the headings are; lower-case prose after the comma
					// ("docs/methods.md, the table of …") is not a title.
					if name := sectionName(m[2]); startsUpper(name) && !knownSection(sections[m[1]], name) {
						t.Errorf("%s:%d: docs/%s.md has no section %q (has: %s)", f.rel, i+1, m[1], name, strings.Join(sections[m[1]], "; "))
					}
				}
				for _, m := range docLink.FindAllStringSubmatch(line, -1) {
					if !slices.Contains(anchors(sections[m[1]]), m[2]) {
						t.Errorf("%s:%d: docs/%s.md has no anchor #%s", f.rel, i+1, m[1], m[2])
					}
				}
				if doc, ok := strings.CutPrefix(strings.TrimSuffix(f.rel, ".md"), "docs/"); ok && sections[doc] != nil {
					for _, m := range selfLink.FindAllStringSubmatch(line, -1) {
						if !slices.Contains(anchors(sections[doc]), m[1]) {
							t.Errorf("%s:%d: no anchor #%s in this document", f.rel, i+1, m[1])
						}
					}
				}
			}
		}
	})
}

// moduleRoot walks up from the working directory to the directory holding
// go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

type sourceFile struct {
	rel   string // slash-separated path from the module root
	lines []string
}

// sourceFiles returns every text file of the repository outside skipDirs.
// Binary files (a NUL byte, or not UTF-8) are left out.
func sourceFiles(t *testing.T, root string) []sourceFile {
	t.Helper()
	var out []sourceFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && slices.Contains(skipDirs, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symbolic links and the like
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		var lines []string
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 64<<10), len(b)+1)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if err := sc.Err(); err != nil {
			return errors.Join(errors.New(rel), err)
		}
		out = append(out, sourceFile{rel: filepath.ToSlash(rel), lines: lines})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no files found under the module root")
	}
	return out
}

type hit struct {
	line int
	what string
}

// externalPointers finds the pointers outside the repository in lines. The
// specifications are matched as upper-case words, so that a citation wrapped
// across two comment lines, or one naming a section by its title, is caught
// too.
func externalPointers(lines []string) []hit {
	var hits []hit
	for i, line := range lines {
		switch {
		case strings.Contains(line, sharedDir):
			hits = append(hits, hit{i + 1, "points at " + sharedDir + ", outside the repository"})
		case specWord.MatchString(line):
			hits = append(hits, hit{i + 1, "cites the architecture specification outside the repository; point at a section of docs/architecture.md instead"})
		case methWord.MatchString(line):
			hits = append(hits, hit{i + 1, "cites the methods specification outside the repository; point at a section of docs/methods.md instead"})
		}
	}
	return hits
}

// headings returns the titles of a Markdown document's ## and ### headings.
func headings(md string) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence {
			continue
		}
		for _, p := range []string{"## ", "### "} {
			if strings.HasPrefix(line, p) {
				out = append(out, strings.TrimSpace(strings.TrimPrefix(line, p)))
			}
		}
	}
	return out
}

// sectionName cuts the section title off the text after "docs/x.md, ": it
// ends at the first bracket, semicolon, comma or full stop, or at the end of
// the line (a title wrapped onto the next line is compared by prefix).
func sectionName(rest string) string {
	rest = strings.TrimLeft(rest, `"'`)
	if i := strings.IndexAny(rest, `);,"`); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.Index(rest, ". "); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "."))
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// knownSection accepts name when it is a heading, starts with one (a title
// followed by more words), or begins one (a title wrapped across lines),
// ignoring case.
func knownSection(headings []string, name string) bool {
	name = strings.ToLower(name)
	for _, h := range headings {
		h = strings.ToLower(h)
		if strings.HasPrefix(name, h) || strings.HasPrefix(h, name) {
			return true
		}
	}
	return false
}

// anchors returns the GitHub anchors of headings: lowercase, punctuation
// other than hyphens and underscores dropped, spaces as hyphens.
func anchors(headings []string) []string {
	var out []string
	for _, h := range headings {
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
