package text

import (
	"fmt"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	f := func(s string, want ...string) {
		t.Helper()
		var got []string
		for l := range Lines(s) {
			if s[l.Start:l.End] != l.Text || strings.Contains(l.Text, "\n") {
				t.Fatalf("Lines(%q): line %q is not s[%d:%d]", s, l.Text, l.Start, l.End)
			}
			mark := "text"
			if l.Code {
				mark = "code"
			}
			got = append(got, mark+":"+l.Text)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("Lines(%q)\n got %q\nwant %q", s, got, want)
		}
	}
	f("")
	f("\n", "text:")
	f("a\nb\n", "text:a", "text:b")
	f("a\r\n\r\nb", "text:a\r", "text:\r", "text:b")
	f("x\n```go\ny\n\nz\n```\nw", "text:x", "code:```go", "code:y", "code:", "code:z", "code:```", "text:w")
	f("  ~~~\nin\n  ~~~  \nout", "code:  ~~~", "code:in", "code:  ~~~  ", "text:out")
	// Any fence toggles, as both users have always had it.
	f("```\na\n~~~\nb", "code:```", "code:a", "code:~~~", "text:b")
	// A fence left open runs to the end.
	f("a\n```\nb\n\nc", "text:a", "code:```", "code:b", "code:", "code:c")
	f("`` not a fence\n``` x", "text:`` not a fence", "code:``` x")
}

func TestLinesStops(t *testing.T) {
	n := 0
	for range Lines("a\nb\nc") {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("the loop ran %d times after break at 2", n)
	}
}

func ExampleLines() {
	for l := range Lines("Intro\n```\ncode\n```\nOutro") {
		fmt.Println(l.Code, l.Text)
	}
	// Output:
	// false Intro
	// true ```
	// true code
	// true ```
	// false Outro
}
