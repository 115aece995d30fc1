package triplet

import (
	"strings"
	"testing"
)

// TestReleaseTriples: the shapes of release notes, with the release of the
// heading above them in the chunk, and tails verbatim in their sentences.
func TestReleaseTriples(t *testing.T) {
	chunk := "GNU coreutils NEWS                                    -*- outline -*-\n\n" +
		"* Noteworthy changes in release 9.1 (2022-04-15) [stable]\n\n** Bug fixes\n\n" +
		"  chmod -R no longer exits with error status when encountering symlinks.\n" +
		"  All files would be processed correctly, but the exit status was incorrect.\n" +
		"  [bug introduced in coreutils-9.0]\n\n** Changes in behavior\n\n" +
		"  cat now uses the copy_file_range syscall if available, when doing\n  simple copies between regular files.\n\n" +
		"  chown and chroot now warn about usages like \"chown root.root f\".\n\n" +
		"  It uses clock_getres and clock_gettime to infer the clock resolution.\n"
	got := Extract(chunk)
	for _, w := range [][3]string{
		{"coreutils 9.1", "released on", "2022-04-15"},
		{"the bug fixed in coreutils 9.1 where chmod -R exits with error status when encountering symlinks", "introduced in", "coreutils-9.0"},
		{"cat (coreutils 9.1)", "now uses", "copy_file_range"},
	} {
		if !has(got, w[0], w[1], w[2], KindRelease) {
			t.Errorf("want (%s | %s | %s); got%s", w[0], w[1], w[2], show(got))
		}
	}
	for _, x := range got {
		if Verify(chunk, x.Sentence.Text, x.Tail) != nil || chunk[x.Sentence.Start:x.Sentence.End] != x.Sentence.Text {
			t.Errorf("not verbatim: %+v", x)
		}
		if x.Head == "chown and chroot (coreutils 9.1)" || x.Head == "It" {
			t.Errorf("read an intransitive verb or a pronoun: %+v", x)
		}
	}
	// Without release-note marks, the patterns do not run.
	if got := releaseTriples("Northwind now uses the PickMate 3 robot.", ""); len(got) != 0 {
		t.Errorf("release patterns read a report: %s", show(got))
	}
}

func TestReleaseSecurity(t *testing.T) {
	chunk := "### Major changes between OpenSSL 3.0.18 and OpenSSL 3.0.19 [27 Jan 2026]\n\n" +
		"OpenSSL 3.0.19 is a security patch release. The most severe CVE fixed in this\nrelease is High.\n\n" +
		"  * Fixed Stack buffer overflow in CMS `AuthEnvelopedData` parsing.\n    ([CVE-2025-15467])\n"
	got := Extract(chunk)
	for _, w := range [][3]string{
		{"OpenSSL 3.0.19", "released on", "27 Jan 2026"},
		{"OpenSSL 3.0.19", "kind of release", "a security patch release"},
		{"the most severe CVE fixed in OpenSSL 3.0.19", "severity", "High"},
		{"the stack buffer overflow in CMS AuthEnvelopedData parsing fixed in OpenSSL 3.0.19", "CVE identifier", "CVE-2025-15467"},
	} {
		if !has(got, w[0], w[1], w[2], KindRelease) {
			t.Errorf("want (%s | %s | %s); got%s", w[0], w[1], w[2], show(got))
		}
	}
}

// The "version X - author, date" and "Version X (date)" headings of GNU
// NEWS files date their release.
func TestVersionHeadings(t *testing.T) {
	for _, c := range []struct{ chunk, head, date string }{
		{"GNU tar NEWS - User visible changes. 2021-02-13\n\nversion 1.34 - Sergey Poznyakoff, 2021-02-13\n\n* Fix extraction over pipe (savannah bug #60002)\n", "tar 1.34", "2021-02-13"},
		{"GNU make NEWS\n\nVersion 4.3 (19 Jan 2020)\n\n* WARNING: Backward-incompatibility!\n", "make 4.3", "19 Jan 2020"},
	} {
		found := false
		for _, x := range Extract(c.chunk) {
			if x.Kind == KindRelease && x.Head == c.head && x.Relation == "released on" && x.Tail == c.date {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: no release date %s for %s in %+v", c.chunk, c.date, c.head, Extract(c.chunk))
		}
	}
}

// TestTitleRelease: a document whose title names one release ("What’s New
// In Quill 3.3") is release notes of that release in every chunk, headings
// or not; the change sentences of such prose are read with guards against
// the shapes that are no change of an object.
// TestReleaseGainedOption: an option a command learned or gained in the
// release is read with the command and the release; an option gained by
// something unnamed, or something else gained, is not.
func TestReleaseGainedOption(t *testing.T) {
	chunk := "Quill v4.2 Release Notes\n\n" +
		" * \"quill rebase\" gained the \"--update-refs\" option.\n\n" +
		" * 'fjord bundle' learned a new '--quiet' option to squelch progress.\n\n" +
		" * The command learned the \"--no-recurse\" option.\n\n" +
		" * \"quill log\" gained support for mailmaps.\n"
	got := ExtractTitled(chunk, "Quill v4.2 Release Notes")
	for _, w := range [][3]string{
		{`"quill rebase" (Quill v4.2)`, "gained", `"--update-refs"`},
		{`"fjord bundle" (Quill v4.2)`, "learned", `'--quiet'`},
	} {
		if !has(got, w[0], w[1], w[2], KindRelease) {
			t.Errorf("want (%s | %s | %s); got%s", w[0], w[1], w[2], show(got))
		}
	}
	for _, x := range got {
		if x.Kind == KindRelease && (x.Tail == `"--no-recurse"` || strings.Contains(x.Tail, "mailmaps")) {
			t.Errorf("read %s", show([]Triple{x}))
		}
	}
}

// TestGeneralFactsInRelease: in release notes, a change stated with a past
// verb is asked in its release, and a sentence a release pattern read is
// not read again without it.
func TestGeneralFactsInRelease(t *testing.T) {
	chunk := "Quill 3.21 Release Notes\n\n" +
		"The Quill RPM Generator gained the QUILL_RPM_EXCLUDE option to avoid scanning paths.\n\n" +
		"The FindFjord module now provides imported targets.\n"
	got := ExtractTitled(chunk, "Quill 3.21 Release Notes")
	if !has(got, "the Quill RPM Generator (Quill 3.21)", "gained", "the QUILL_RPM_EXCLUDE option", KindRelease) {
		t.Errorf("past change not tied to its release:%s", show(got))
	}
	for _, x := range got {
		if x.Kind != KindRelease {
			t.Errorf("read without its release: %s", show([]Triple{x}))
		}
	}
}

func TestTitleRelease(t *testing.T) {
	for title, want := range map[string]string{
		"What\u2019s New In Quill 3.3 \u2014 Quill 3.11.2 documentation": "Quill 3.3",
		"What's new in Fjord Lint 2.1":                                   "Fjord Lint 2.1",
		"Quill 4.2 Release Notes":                                        "Quill 4.2",
		"Release notes for Quill v4.2.1":                                 "Quill v4.2.1",
		"Quill documentation":                                            "",
		"What's new":                                                     "",
	} {
		if got := titleRelease(title).name; got != want {
			t.Errorf("titleRelease(%q) = %q, want %q", title, got, want)
		}
	}
	chunk := "#### Sockets\n\n" +
		"The threading.Thread constructor now accepts a daemon keyword argument.\n\n" +
		"The IMAP4_SSL constructor now accepts an SSLContext parameter to control parameters of the secure channel.\n\n" +
		"Several functions now take an optional symlinks argument.\n\n" +
		"Quill objects can now be transferred over Fjord connections.\n\n" +
		"Quill now always supports the full range of Unicode code points.\n\n" +
		"The quill_open function now accepts an optional argument: when true, Quill opens files lazily.\n\n" +
		"quillz.QFile can now read from and write to arbitrary file-like objects.\n\n" +
		"lintlib.FTP now accepts a source_address keyword argument to specify the (host, port) to use.\n"
	got := ExtractTitled(chunk, "What\u2019s New In Quill 3.3 \u2014 Quill 3.11.2 documentation")
	for _, w := range [][3]string{
		{"the threading.Thread constructor (Quill 3.3)", "now accepts", "a daemon keyword argument"},
		{"the IMAP4_SSL constructor (Quill 3.3)", "now accepts to control parameters of the secure channel", "an SSLContext parameter"},
		{"lintlib.FTP (Quill 3.3)", "now accepts", "a source_address keyword argument"},
	} {
		if !has(got, w[0], w[1], w[2], KindRelease) {
			t.Errorf("want (%s | %s | %s); got%s", w[0], w[1], w[2], show(got))
		}
	}
	for _, x := range got {
		if x.Kind == KindRelease && (strings.Contains(x.Head, "Several") || strings.Contains(x.Head, "Quill objects") ||
			x.Relation == "now always" || strings.Contains(x.Head, "quill_open") || strings.Contains(x.Head, "QFile")) {
			t.Errorf("read a quantified subject, a passive, an adverb as the verb, a lead-in or a preposition as object: %+v", x)
		}
	}
	// A common word opening the sentence is lower-cased in the head; a
	// word the page writes capitalized inside a sentence is a name.
	cased := ExtractTitled("Frozen modules no longer define a __file__ attribute.\n\nLintwerk objects now support the context management protocol, as Lintwerk does.",
		"What's New In Quill 3.4")
	if !has(cased, "frozen modules (Quill 3.4)", "no longer define", "a __file__ attribute", KindRelease) ||
		!has(cased, "Lintwerk objects (Quill 3.4)", "now support", "the context management protocol", KindRelease) {
		t.Errorf("sentence case of heads: %s", show(cased))
	}
	if got := ExtractTitled(chunk, "Quill documentation"); len(filterKind(got, KindRelease)) != 0 {
		t.Errorf("release facts without a release title: %s", show(got))
	}
}

func filterKind(ts []Triple, kind string) []Triple {
	var out []Triple
	for _, x := range ts {
		if x.Kind == kind {
			out = append(out, x)
		}
	}
	return out
}
