package sources

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckText(t *testing.T) {
	ctrl := func(n, of int) string { // n controls among of runes
		return strings.Repeat("\x01", n) + strings.Repeat("a", of-n)
	}
	f := func(name, in string, want error, says string) {
		t.Helper()
		err := CheckText(in)
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("%s: CheckText = %v, want %v", name, err, want)
			return
		}
		if err != nil && !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %q does not say %q", name, err, says)
		}
	}
	f("prose", "Acme Corp's revenue in 2025 was $4.2 billion — up 3%.\n", nil, "")
	f("empty", "", nil, "")
	f("layout controls", "a\tb\r\n\fc\n\n\t\t", nil, "")
	f("colour codes", "\x1b[31mERROR\x1b[0m the disk on db-2 is 97% full, rotate the logs\n", nil, "")
	f("10% controls", ctrl(10, 100), nil, "")
	f("just over 10%", ctrl(11, 100), ErrBinary, "11 of 100 characters")
	f("all \\x01", strings.Repeat("\x01", 4096), ErrBinary, "control characters")
	f("vertical tabs", strings.Repeat("\va", 50), ErrBinary, "")
	f("DEL", strings.Repeat("\x7fa", 50), ErrBinary, "")
	// C1 controls are two bytes each in UTF-8; the share is of runes.
	f("C1 controls", strings.Repeat("\u0085\u009bab", 50), ErrBinary, "100 of 200")
	f("one C1 in text", "price\u0080list of the spring catalogue", nil, "")
	f("NUL", "text\x00more text", ErrBinary, "NUL byte at byte 4")
	f("NUL before invalid UTF-8", "\xff\x00", ErrBinary, "NUL")
	f("invalid UTF-8", "caf\xe9 cr\xe8me", ErrInvalidUTF8, "0xe9 at byte 3")
	f("cut sequence", "ok \xe2\x82", ErrInvalidUTF8, "at byte 3")
	f("surrogate half", "a\xed\xa0\x80b", ErrInvalidUTF8, "at byte 1")
	f("U+FFFD itself", "a\uFFFDb", nil, "")
}

func TestInvalidUTF8At(t *testing.T) {
	for in, want := range map[string]int{"": -1, "abc": -1, "é": -1, "\xff": 0, "ab\xc3": 2, "é\x80": 2, "\uFFFD\xff": 3} {
		if got := InvalidUTF8At(in); got != want {
			t.Errorf("InvalidUTF8At(%q) = %d, want %d", in, got, want)
		}
	}
}
