package triplet

import (
	"strings"
	"testing"
)

func TestNewsItems(t *testing.T) {
	news := `v2.5.1 - 24 Jan 2020
  - add shortcuts "sports", "dports"
  - add tests
  - fix lazy subchain propagation

v2.5 - 22 Nov 2019
  - new functions @eq, @ne, @not
  - add tests
  - add mountpoints to some log lines
  - add an option to allow session resumption
  - add features for the Windows platform
  - add requesting client certificates
  - remove the --legacy option (it is long gone and unused)
  - Removed the --old-style switch.
    OpenSSL 3.0 (thx to Oda Rasmussen).
  - add support netfilter targets:
    - RTPENGINE
`
	got := map[string]string{}
	for _, tr := range newsItems(news, "version history for quillwall") {
		got[tr.Head+" | "+tr.Relation] = tr.Tail
		if !strings.Contains(news, tr.Sentence.Text) || !strings.Contains(tr.Sentence.Text, strings.Fields(tr.Head)[0]) {
			t.Errorf("%q: sentence %q", tr.Head, tr.Sentence.Text)
		}
		if err := Verify(news, tr.Sentence.Text, tr.Tail); err != nil {
			t.Errorf("%q: the triplets stage drops it: %v", tr.Head, err) // the release is in the evidence
		}
	}
	want := map[string]string{
		`shortcuts "sports", "dports" | were added in release of quillwall`:  "2.5.1",
		`functions @eq, @ne, @not | were added in release of quillwall`:      "2.5",
		`mountpoints | were added to some log lines in release of quillwall`: "2.5",
		`the --old-style switch | was removed in release of quillwall`:       "2.5",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("missing %s → %s", k, v)
		}
	}
	for k, v := range got {
		if want[k] == "" {
			t.Errorf("unexpected %s → %s", k, v)
		}
	}
	// Without a program named by the title or a heading, nothing is asked.
	if tr := newsItems(news, "CHANGES"); len(tr) != 0 {
		t.Errorf("no program: got %v", tr)
	}
	// A heading that names its program names it.
	if tr := newsItems("quillpad 1.14.10 (2023-09-01)\n=========\n\n* Add the --fast option\n", ""); len(tr) != 1 || tr[0].Relation != "was added in release of quillpad" || tr[0].Tail != "1.14.10" {
		t.Errorf("named heading: got %v", tr)
	}
}

func TestNewsProgram(t *testing.T) {
	for title, want := range map[string]string{"GNU sed NEWS": "sed", "version history for ferm": "ferm", "NEWS about less": "less",
		"News about PCRE releases": "PCRE", "NEWS file for libxslt": "libxslt", "stunnel change log": "stunnel", "CHANGES": "",
		"Release notes": ""} {
		if got := newsProgram(title); got != want {
			t.Errorf("newsProgram(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestNewsItemForms(t *testing.T) {
	news := "Changes in QuillSP 1.5.2\n* Add support for http redirection (Oda Rasmussen)\n* Added new \"protocol = a\" and \"protocol = b\" configuration file options\n* added \"flush\" hooks\n* Add notes to quill(3) of when functions were added.\n* Add compatibility by using the new module.\n\n" +
		"**2022-12-12  -  QuillSP 1.4.0  -  \"No real mystery\"**\n- Add support for abstract Unix-domain sockets.\n"
	got := map[string]string{}
	for _, tr := range newsItems(news, "") {
		got[tr.Head+" | "+tr.Relation] = tr.Tail
	}
	want := map[string]string{
		"support for http redirection | was added in release of QuillSP":                                      "1.5.2",
		`new "protocol = a" and "protocol = b" configuration file options | were added in release of QuillSP`: "1.5.2",
		`"flush" hooks | were added in release of QuillSP`:                                                    "1.5.2",
		"support for abstract Unix-domain sockets | was added in release of QuillSP":                          "1.4.0",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("missing %s → %s", k, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	// A change stated with "now" under a release heading, which the
	// release patterns did not tie to its release, is not asked.
	if ts := ExtractTitled("v9.0.0 (2023-01-16)\n===================\n\n* qemu: Report enlightenments\n\n  The supported Quill enlightenments are now reported in domain capabilities XML.\n", "quillvirt releases"); len(ts) != 0 {
		t.Errorf("a change without its release: %v", ts)
	}
}
