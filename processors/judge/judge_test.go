package judge

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

func TestIsRefusal(t *testing.T) {
	f := func(answer string, want bool) {
		t.Helper()
		if got := IsRefusal(answer); got != want {
			t.Errorf("IsRefusal(%q) = %v, want %v", answer, got, want)
		}
	}
	f("", true)
	f("  ", true)
	f("...", true)
	f("no such info", true)
	f("No such information.", true)
	f("NO-RES", true)
	f("I cannot answer this question from the context.", true)
	f("I can't answer that.", true)
	f("There is not enough information to answer.", true)
	f("Unknown", true)
	f("unknown.", true)
	f("I don't know", true)
	f("The context does not mention the CFO.", true)
	f("N/A", true)
	f("Maria Lopez", false)
	f("The Unknown Soldier", false)
	f("$4.2 billion", false)
	f("Infotech", false)
}

func TestJudge(t *testing.T) {
	f := func(answer string, accepted []string, method string, want Verdict) {
		t.Helper()
		if got := Judge(answer, accepted, method); got != want {
			t.Errorf("Judge(%q, %q, %q) = %+v, want %+v", answer, accepted, method, got, want)
		}
	}
	acc := []string{"$4.2 billion"}
	f("$4.2 billion", acc, "", Verdict{Correct: true, Method: MethodTokenSeq})
	f("revenue was $4.2 billion", acc, MethodExact, Verdict{Method: MethodExact})
	f("revenue was $4.2 billion", acc, MethodCovered, Verdict{Correct: true, Method: MethodCovered})
	f("party", []string{"art"}, MethodCovered, Verdict{Correct: true, Method: MethodCovered})
	f("party", []string{"art"}, MethodTokenSeq, Verdict{Method: MethodTokenSeq})
	f("no such info", acc, "", Verdict{Refused: true, Method: MethodTokenSeq})
	// A refusal is never correct, even when the accepted answer looks like one.
	f("Unknown", []string{"unknown"}, MethodExact, Verdict{Refused: true, Method: MethodExact})
	f("$4.2 billion", acc, "bogus", Verdict{Correct: true, Method: MethodTokenSeq})
}

func TestValidMethod(t *testing.T) {
	for m, want := range map[string]bool{"": true, "exact": true, "covered": true, "token_seq": true, "embedding": false} {
		if got := ValidMethod(m); got != want {
			t.Errorf("ValidMethod(%q) = %v, want %v", m, got, want)
		}
	}
}

func ExampleJudge() {
	v := Judge("They went to the party.", []string{"art"}, MethodCovered)
	fmt.Println(v.Method, v.Correct)
	v = Judge("They went to the party.", []string{"art"}, "")
	fmt.Println(v.Method, v.Correct)
	v = Judge("No such info.", []string{"art"}, "")
	fmt.Println(v.Refused, v.Correct)
	// Output:
	// covered true
	// token_seq false
	// true false
}

func ExampleNormalize() {
	fmt.Println(Normalize("The CFO is  Maria López, an économiste."))
	// Output: cfo is maria lópez économiste
}
