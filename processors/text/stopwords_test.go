package text

import "testing"

func TestIsStopword(t *testing.T) {
	f := func(w string, narrow, function, broad bool) {
		t.Helper()
		for b, want := range map[Breadth]bool{StopNarrow: narrow, StopFunction: function, StopBroad: broad} {
			if got := IsStopword(w, b); got != want {
				t.Errorf("IsStopword(%q, %d) = %v, want %v", w, b, got, want)
			}
		}
	}
	f("what", true, true, true)
	f("the", true, true, true)
	f("s", true, true, true) // of "Corp's" split at the apostrophe
	f("he", false, true, true)
	f("shall", false, true, true)
	f("near", false, true, true)
	f("one", false, false, true)
	f("last", false, false, true)
	f("doesn't", false, false, true)
	f("revenue", false, false, false)
	f("What", false, false, false) // exact lookup: callers decide about case
	f("", false, false, false)
	if IsStopword("the", 0) {
		t.Error("breadth 0 has stopwords")
	}
}

// TestStopwordBreadthsNested checks that the breadths are nested, so that a
// caller widening its breadth only ever gains words.
func TestStopwordBreadthsNested(t *testing.T) {
	count := map[Breadth]int{}
	for w := range stopwords {
		for _, b := range []Breadth{StopNarrow, StopFunction, StopBroad} {
			if IsStopword(w, b) {
				count[b]++
				if b < StopBroad && !IsStopword(w, b+1) {
					t.Errorf("%q is a stopword at %d but not at %d", w, b, b+1)
				}
			}
		}
	}
	// The sizes fix what each caller ignores; a change here changes
	// D_r, the lexical reader's answers or the query variants.
	if count[StopNarrow] != 35 || count[StopFunction] != 95 || count[StopBroad] != 271 {
		t.Errorf("breadths have %d, %d, %d words; want 35, 95, 271", count[StopNarrow], count[StopFunction], count[StopBroad])
	}
}
