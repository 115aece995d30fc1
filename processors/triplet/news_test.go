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
