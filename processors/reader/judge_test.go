package reader

import (
	"fmt"
	"testing"
)

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
	// The answer may say more than an accepted answer, never less.
	f("adjusted", []string{"been adjusted"}, "", Verdict{Method: MethodTokenSeq})
	f("adjusted", []string{"been adjusted"}, MethodCovered, Verdict{Method: MethodCovered})
	f("The figures have been adjusted.", []string{"been adjusted"}, "", Verdict{Correct: true, Method: MethodTokenSeq})
	// Figures are compared as figures, under every matcher.
	for _, m := range []string{MethodExact, MethodCovered, MethodTokenSeq} {
		f("42%", []string{"4.2%"}, m, Verdict{Method: m})
		f("$42 billion", acc, m, Verdict{Method: m})
		f("4.2 per cent", []string{"4.2%"}, m, Verdict{Correct: true, Method: m})
		f("1,400", []string{"1400"}, m, Verdict{Correct: true, Method: m})
		f("Macy’s", []string{"Macy's"}, m, Verdict{Correct: true, Method: m})
	}
	f("Unemployment rose to 4.2 percent in Q3.", []string{"4.2%"}, "", Verdict{Correct: true, Method: MethodTokenSeq})
	f("Revenue was $4.2 billion; the context does not mention the margin.", acc, "", Verdict{Correct: true, Method: MethodTokenSeq})
	f("I can’t answer that, but it may be $4.2 billion.", acc, "", Verdict{Refused: true, Method: MethodTokenSeq})
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

// BenchmarkJudge is the judge's cost per result: refusal detection plus the
// default matcher, on a short answer, an answer in a sentence and a refusal.
func BenchmarkJudge(b *testing.B) {
	accepted := []string{"$4.2 billion"}
	for _, bc := range []struct{ name, answer string }{
		{"short", "$4.2 billion"},
		{"sentence", "Northwind Bank reported revenue of $4.2 billion in the third quarter, up 8% from a year earlier."},
		{"refusal", "Based on the provided context, I cannot determine the revenue."},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				Judge(bc.answer, accepted, "")
			}
		})
	}
}
