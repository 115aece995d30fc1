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
