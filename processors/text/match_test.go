package text

import (
	"fmt"
	"testing"
)

func TestNormalize(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	f("", "")
	f("  The  Answer ", "answer")
	f("$4.2 billion.", "42 billion")
	f("Acme Corp's", "acme corps")
	f("A cat, an owl and the dog", "cat owl and dog")
	f("theatre anthem area", "theatre anthem area")
	f("the", "")
	f("a-b", "ab")
	// Unicode boundaries: "a" after "é" is inside a word and stays; a
	// Unicode dash is not ASCII punctuation and is kept.
	f("déa", "déa")
	f("café a thé", "café thé")
	f("Ünïcode THE Ärger", "ünïcode ärger")
	f("x — a y", "x — y")
	// A decomposed accent (combining mark) is part of the word, so the "a"
	// after it is not an article.
	f("e\u0301a", "e\u0301a")
	f("tab\tand\nnewline", "tab and newline")
}

func TestExact(t *testing.T) {
	f := func(pred string, accepted []string, want bool) {
		t.Helper()
		if got := Exact(pred, accepted); got != want {
			t.Errorf("Exact(%q, %q) = %v, want %v", pred, accepted, got, want)
		}
	}
	f("Maria Lopez", []string{"maria lopez"}, true)
	f("The $4.2 billion.", []string{"$4.2 billion"}, true)
	f("4.2 billion dollars", []string{"$4.2 billion"}, false)
	f("Lopez", []string{"Maria Lopez", "Lopez"}, true)
	f("", []string{"the"}, false)
	f("anything", nil, false)
}

func TestCovered(t *testing.T) {
	f := func(pred string, accepted []string, want bool) {
		t.Helper()
		if got := Covered(pred, accepted); got != want {
			t.Errorf("Covered(%q, %q) = %v, want %v", pred, accepted, got, want)
		}
	}
	f("It was $4.2 billion.", []string{"$4.2 billion"}, true)
	f("We went to the party", []string{"art"}, true) // the known weakness
	f("Maria", []string{"Maria Lopez"}, false)
	f("anything", []string{"", "The"}, false)
}

func TestTokenSeq(t *testing.T) {
	f := func(pred string, accepted []string, want bool) {
		t.Helper()
		if got := TokenSeq(pred, accepted); got != want {
			t.Errorf("TokenSeq(%q, %q) = %v, want %v", pred, accepted, got, want)
		}
	}
	f("We went to the party", []string{"art"}, false)
	f("It is modern art.", []string{"art"}, true)
	f("It was $4.2 billion in Q3.", []string{"$4.2 billion"}, true)
	f("Lopez, Maria", []string{"Maria Lopez"}, false)
	f("Maria Lopez, CFO", []string{"Maria Lopez"}, true)
	// Composed and decomposed forms compare equal after NFD.
	f("Zoë Martín", []string{"Zoe\u0308 Marti\u0301n"}, true)
	f("resume", []string{"résumé"}, false)
	f("x—y", []string{"y"}, true)
	f("anything", []string{"the"}, false)
}

func ExampleNormalize() {
	fmt.Println(Normalize("The CFO is  Maria López, an économiste."))
	// Output: cfo is maria lópez économiste
}
