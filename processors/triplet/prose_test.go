package triplet

import "testing"

// TestExtractProse: the declarative sentences of prose documentation
// (READMEs, manuals): definitions, lower-case program names, coordinated
// participles, "part of", licences; and the lists and list lead-ins that
// must not give a one-item answer.
func TestExtractProse(t *testing.T) {
	for _, tc := range []struct{ text, head, relation, tail, kind string }{
		{"Lintwerk is a static analyser for shell scripts written in POSIX sh.", "Lintwerk", "is", "a static analyser for shell scripts", KindCopula},
		{"fzq is a small and fast command-line search tool.", "fzq", "is", "a small and fast command-line search tool", KindCopula},
		{"Quillpad is a fast, portable, minimal text editor with a plugin system.", "Quillpad", "is", "a fast, portable, minimal text editor", KindCopula},
		{"Lintwerk was originally written and maintained by Oda Rasmussen.", "Lintwerk", "was written by", "Oda Rasmussen", KindVerb},
		{"GNU Quill is part of the GNU Operating System, developed by the GNU Project.", "GNU Quill", "is part of", "the GNU Operating System", KindCopula},
		{"Lintwerk is licensed under the Apache License.", "Lintwerk", "is licensed under", "the Apache License", KindVerb},
		{"Quillpad respects the XDG Base Directory Specification.", "Quillpad", "respects", "the XDG Base Directory Specification", KindVerb},
		{"Lintwerk depends on Quillpad.", "Lintwerk", "depends on", "Quillpad", KindVerb},
		// Lists: one item is not the answer; a lead-in announces a list.
		{"Quillpad supports HTTP, HTTPS, and FTP protocols.", "", "", "", ""},
		{"Lintwerk was written by Oda Rasmussen and Per Holm.", "", "", "", ""},
		{"The Quill distribution contains the following files: README and COPYING.", "", "", "", ""},
		// Two definitions of one thing in a chunk: neither is the answer.
		{"Quillpad is a text editor. Quillpad is a plugin host.", "", "", "", ""},
		// A kind of thing whose substance is in a relative clause.
		{"Lintwerk is a simple program whose purpose is to find bugs.", "", "", "", ""},
		{"Quillpad is a simple key/value storage system that is fast.", "Quillpad", "is", "a simple key/value storage system", KindCopula},
		// A partitive is not a figure; a version number is not a name.
		{"Adrian was one of the first developers of the project.", "", "", "", ""},
		{"1.2 Rex released 848 packages.", "", "", "", ""},
		// A one-letter variable is not a name to define.
		{"X is the major version.", "", "", "", ""},
	} {
		got := Extract(tc.text)
		if tc.head == "" {
			for _, x := range got {
				if x.Kind == KindCopula || x.Kind == KindVerb {
					t.Errorf("%q: want nothing, got%s", tc.text, show(got))
					break
				}
			}
			continue
		}
		if !has(got, tc.head, tc.relation, tc.tail, tc.kind) {
			t.Errorf("%q:\n want (%s | %s | %s) [%s]\n got%s", tc.text, tc.head, tc.relation, tc.tail, tc.kind, show(got))
		}
	}
}

// TestExtractProseIt: "It" opening the sentence after one about a named
// subject stands for that subject, and for nothing else.
func TestExtractProseIt(t *testing.T) {
	got := Extract("Quillpad is a text editor. It respects the XDG Base Directory Specification.")
	if !has(got, "Quillpad", "respects", "the XDG Base Directory Specification", KindVerb) {
		t.Errorf("It not read as Quillpad:%s", show(got))
	}
	got = Extract("The editor is small. It respects the XDG Base Directory Specification.")
	for _, x := range got {
		if x.Relation == "respects" {
			t.Errorf("It read without a named subject before it:%s", show(got))
		}
	}
}
