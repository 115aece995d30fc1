package dir

import (
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// nameLineRe is the line under a manual page's NAME heading: one or more
// program names, a dash, what the program is ("git-add - Add file contents
// to the index", "couriertcpd — the Courier mail server TCP server daemon").
var nameLineRe = regexp.MustCompile(`^([A-Za-z0-9][\w.+:-]*)(?:\s*,\s*[A-Za-z0-9][\w.+:-]*)*\s+(?:-|--|–|—)\s+(\S.*)$`)

// manualTitle is "name — what it is" read from the NAME section that opens
// a manual page (text as man(1) prints it, or HTML and Markdown renderings
// with a "NAME" or "Name" heading), or "" when the text opens otherwise.
// The heading must come within the first lines: a "Name" heading deep in a
// guide is a section of it, not a page's name.
func manualTitle(text string) string {
	lines := strings.Split(text, "\n")
	seen := 0
	for i, l := range lines {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
		if t == "" {
			continue
		}
		if seen++; seen > 8 {
			return ""
		}
		if t != "NAME" && t != "Name" {
			continue
		}
		for _, next := range lines[i+1:] {
			n := strings.TrimSpace(next)
			if n == "" {
				continue
			}
			m := nameLineRe.FindStringSubmatch(n)
			if m == nil {
				return ""
			}
			return m[1] + " — " + strings.TrimSpace(m[2])
		}
	}
	return ""
}

// withManualTitle returns the title a document is given: title itself,
// unless the text is a manual page whose NAME line says more than title
// does (no title at all, as for a text file, or a title that is only the
// program's name, as "couriertcpd" is).
func withManualTitle(title, text string) string {
	m := manualTitle(text)
	if m == "" {
		return title
	}
	name, _, _ := strings.Cut(m, " — ")
	if t := strings.TrimSpace(title); t == "" || strings.EqualFold(t, name) {
		return m
	}
	return title
}

// versionRe is a release number: "1.9.13p3", "v2.5.1".
var versionRe = regexp.MustCompile(`\bv?\d+\.\d+`)

// modelineRe is an Emacs mode line ("-*- outline -*-") on a title line.
var modelineRe = regexp.MustCompile(`\s*-\*-.*?-\*-\s*`)

// textTitle is the title of a plain-text file: the first of its first three
// lines that reads as one (at most ten words, a lower-case letter, two
// words or more, not ending as a sentence or a lead-in does), with a mode
// line and rules cut: "GNU coreutils NEWS", "version history for ferm"
// (under a bare "CHANGES"). A file that opens with prose, or with the
// heading of its latest release ("What's new in Sudo 1.9.13p3"), has none.
func textTitle(text string) string {
	seen := 0
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(modelineRe.ReplaceAllString(l, " "))
		for _, b := range []string{"* ", "- ", "+ ", "• "} {
			if strings.HasPrefix(t, b) {
				return "" // an item of a list: the text has begun
			}
		}
		t = strings.TrimSpace(strings.Trim(t, "=-~*#_ \t"))
		if t == "" {
			continue
		}
		if seen++; seen > 3 || versionRe.MatchString(t) {
			return "" // past the opening lines, or at the first release's heading
		}
		w := strings.Fields(t)
		if len(w) < 2 || len(w) > 10 || strings.ToUpper(t) == t || strings.ContainsAny(t[len(t)-1:], ".,:;") ||
			strings.ContainsAny(t, "<>{}") || strings.IndexFunc(t, unicode.IsControl) >= 0 {
			continue // markup or terminal colours are not a title
		}
		return t
	}
	return ""
}

// packageDirRe is a folder named as a package or project is: "chrony",
// "libxml2", "python3-dbus".
var packageDirRe = regexp.MustCompile(`^[a-z][a-z0-9.+-]*[a-z0-9]$`)

// genericDirs hold documents of many programs, or none in particular.
var genericDirs = map[string]bool{"doc": true, "docs": true, "documentation": true, "share": true, "src": true,
	"source": true, "tmp": true, "home": true, "data": true, "files": true, "text": true, "txt": true, "notes": true,
	"news": true, "relnotes": true, "release-notes": true, "changelogs": true, "misc": true, "examples": true,
	"html": true, "man": true, "info": true, "usr": true, "local": true, "opt": true, "var": true, "etc": true}

// fileTitle is the title of a file whose text gives none: its name without
// the extension, and for a conventional documentation file (NEWS, CHANGES,
// README …) in a folder named after its package, the package too:
// /usr/share/doc/chrony/NEWS is "chrony NEWS", which names the program its
// release notes are of.
func fileTitle(path string) string {
	base := filepath.Base(path)
	title := strings.TrimSuffix(base, filepath.Ext(base))
	name, _, _ := strings.Cut(base, ".")
	if !docNames[name] {
		return title
	}
	dir := filepath.Base(filepath.Dir(path))
	if !packageDirRe.MatchString(dir) || genericDirs[dir] {
		return title
	}
	return dir + " " + name
}
