package dir

import (
	"context"
	"testing"
)

func TestManualTitle(t *testing.T) {
	for _, c := range []struct{ name, title, text, want string }{
		{"man(1) text", "", "GIT-ADD(1)    Git Manual    GIT-ADD(1)\n\nNAME\n       git-add - Add file contents to the index\n\nSYNOPSIS\n", "git-add — Add file contents to the index"},
		{"title only the name", "couriertcpd", "## Name\n\ncouriertcpd — the Courier mail server TCP server daemon\n\n## Synopsis\n", "couriertcpd — the Courier mail server TCP server daemon"},
		{"several names", "", "NAME\n    ovs-sim, ovs-simctl -- Open vSwitch simulator environment\n", "ovs-sim — Open vSwitch simulator environment"},
		{"a title that says more is kept", "The Courier TCP daemon", "## Name\n\ncouriertcpd — the Courier mail server TCP server daemon\n", "The Courier TCP daemon"},
		{"a Name section deep in a guide", "", "# Guide\n\na\n\nb\n\nc\n\nd\n\ne\n\nf\n\ng\n\n## Name\n\nfoo - bar\n", ""},
		{"a NAME heading over prose", "", "NAME\n\nThe name of the game is speed.\n", ""},
	} {
		if got := withManualTitle(c.title, c.text); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	// The folder source gives a text manual page its NAME line as title.
	got, err := Convert(context.Background(), "git-add.txt", []byte("NAME\n       git-add - Add file contents to the index\n\nDESCRIPTION\n       This command updates the index.\n"))
	if err != nil || got.Title != "git-add — Add file contents to the index" {
		t.Fatalf("Convert: %q, %v", got.Title, err)
	}
}

func TestTextTitle(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"GNU coreutils NEWS                                    -*- outline -*-\n\n* Noteworthy changes in release 9.1 (2022-04-15) [stable]\n", "GNU coreutils NEWS"},
		{"\n    CHANGES\n\n    version history for ferm\n\n    Max Kellermann\n", "version history for ferm"},
		{"        NEWS file for libxslt\n", "NEWS file for libxslt"},
		{"This file explains how to build the program from its sources.\nRun make.\n", ""},
		{"Changes in version 1.19:\nReading a file did set the flag.\n", ""},
		{"-*-text-*-\nSee changes.txt for a detailed list of changes.  The changes described\n", ""},
		{"<div>not a title</div>\n", ""},
		{"What's new in Sudo 1.9.13p3\n\n * Fixed a bug\n", ""},
		{"\x1b[31mERROR\x1b[0m disk full\n", ""},
	} {
		if got := textTitle(c.text); got != c.want {
			t.Errorf("textTitle(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestFileTitle(t *testing.T) {
	for path, want := range map[string]string{
		"/usr/share/doc/chrony/NEWS":         "chrony NEWS",
		"/usr/share/doc/xmlstarlet/NEWS.txt": "xmlstarlet NEWS",
		"/srv/corpus/docs/NEWS":              "NEWS",
		"/srv/corpus/relnotes/CHANGES":       "CHANGES",
		"/usr/share/doc/chrony/faq.txt":      "faq",
		"/tmp/Some Folder/README":            "README",
	} {
		if got := fileTitle(path); got != want {
			t.Errorf("fileTitle(%q) = %q, want %q", path, got, want)
		}
	}
}
