package perturb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestSplitWords(t *testing.T) {
	f := func(in string, want ...string) {
		t.Helper()
		var got []string
		for _, w := range splitWords(in) {
			if in[w.start:w.end] != w.text {
				t.Errorf("span %d:%d of %q is %q, word says %q", w.start, w.end, in, in[w.start:w.end], w.text)
			}
			got = append(got, w.text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
	f("")
	f("  ")
	f("What was Acme Corp's revenue in Q3 2025?", "What", "was", "Acme", "Corp's", "revenue", "in", "Q3", "2025")
	f("$4.2 billion", "4", "2", "billion")
	f("'quoted' -dash- e-mail user@host _x_", "quoted", "dash", "e-mail", "user@host", "x")
	f("naïve café", "naïve", "café")
	f("a,b;c", "a", "b", "c")
}

func TestWordsToChange(t *testing.T) {
	for words, want := range map[int]int{0: 1, 1: 1, 9: 1, 10: 1, 19: 1, 20: 2, 35: 3} {
		if got := WordsToChange(words); got != want {
			t.Errorf("WordsToChange(%d) = %d, want %d", words, got, want)
		}
	}
}

// changedWords compares two texts word by word; the perturbations keep the
// number of words, so positions line up.
func changedWords(t *testing.T, orig, pert string) []int {
	t.Helper()
	a, b := splitWords(orig), splitWords(pert)
	if len(a) != len(b) {
		t.Fatalf("word count changed: %q → %q", orig, pert)
	}
	var idx []int
	for i := range a {
		if a[i].text != b[i].text {
			idx = append(idx, i)
		}
	}
	return idx
}

func TestQueryConstraints(t *testing.T) {
	p := &Perturber{}
	const long = "Which company did the Acme Corp board name as successor to Northwind Bank in the merger announced for Q3 2025 after months of talks with regulators and investors?"
	accepted := []string{"Northwind Bank"}
	words := splitWords(long)
	n := WordsToChange(len(words))
	if n != 2 {
		t.Fatalf("test query has %d words, want n = 2", len(words))
	}
	for _, kind := range []string{KindChar, KindQWERTY} {
		for i := range 200 {
			id := fmt.Sprintf("q%d", i)
			out, err := p.Query(kind, id, long, accepted)
			if err != nil {
				t.Fatalf("%s %s: %v", kind, id, err)
			}
			changed := changedWords(t, long, out)
			if len(changed) != n {
				t.Errorf("%s %s: %d words changed, want %d: %q", kind, id, len(changed), n, out)
			}
			for _, c := range changed {
				w := words[c].text
				if isStopword(w) {
					t.Errorf("%s %s: stopword %q changed", kind, id, w)
				}
				if w == "Northwind" || w == "Bank" {
					t.Errorf("%s %s: answer word %q changed", kind, id, w)
				}
			}
			again, _ := p.Query(kind, id, long, accepted)
			if again != out {
				t.Errorf("%s %s: not deterministic: %q then %q", kind, id, out, again)
			}
			// Punctuation and spacing survive.
			if strings.Map(keepNonWord, out) != strings.Map(keepNonWord, long) {
				t.Errorf("%s %s: punctuation changed: %q", kind, id, out)
			}
		}
	}
}

func keepNonWord(r rune) rune {
	if isWordChar(r) {
		return -1
	}
	return r
}

func TestQuerySeedVaries(t *testing.T) {
	p := &Perturber{}
	q := "What was Acme Corp's revenue in Q3 2025?"
	seen := map[string]bool{}
	for i := range 20 {
		out, err := p.Query(KindChar, fmt.Sprintf("q%d", i), q, []string{"$4.2 billion"})
		if err != nil {
			t.Fatal(err)
		}
		seen[out] = true
	}
	if len(seen) < 10 {
		t.Errorf("20 question ids gave only %d distinct char variants", len(seen))
	}
}

func TestQueryNoCandidate(t *testing.T) {
	p := &Perturber{}
	f := func(kind, query string, accepted []string) {
		t.Helper()
		if out, err := p.Query(kind, "q", query, accepted); !errors.Is(err, ErrNoCandidate) {
			t.Errorf("Query(%s, %q) = %q, %v; want ErrNoCandidate", kind, query, out, err)
		}
	}
	f(KindChar, "", nil)
	f(KindChar, "what is the", nil)                            // stopwords only
	f(KindChar, "who is Maria Lopez", []string{"Maria Lopez"}) // answer words only
	f(KindQWERTY, "what is 2025", nil)                         // digits have no neighbours
	if _, err := p.Query("shout", "q", "Hello", nil); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("unknown kind: err = %v", err)
	}
}

func TestCharChange(t *testing.T) {
	for i := range 500 {
		rng := NewRand(fmt.Sprint(i), KindChar)
		for _, w := range []string{"revenue", "Q3", "a", "all", "naïve"} {
			out, ok := charChange(w, rng)
			if !ok || out == w {
				t.Fatalf("charChange(%q) = %q, %v", w, out, ok)
			}
			if !oneCharEdit(w, out) {
				t.Errorf("charChange(%q) = %q is not one swap/delete/insert/substitute", w, out)
			}
		}
	}
}

// oneCharEdit reports whether b is a by one neighbouring swap, deletion,
// insertion or substitution of an ASCII letter.
func oneCharEdit(a, b string) bool {
	x, y := []rune(a), []rune(b)
	ascii := func(r rune) bool { return strings.ContainsRune(asciiLetters, r) }
	switch len(y) - len(x) {
	case -1:
		for i := range x {
			if string(append(append([]rune(nil), x[:i]...), x[i+1:]...)) == b {
				return true
			}
		}
	case 1:
		for i := range y {
			if ascii(y[i]) && string(append(append([]rune(nil), y[:i]...), y[i+1:]...)) == a {
				return true
			}
		}
	case 0:
		var diff []int
		for i := range x {
			if x[i] != y[i] {
				diff = append(diff, i)
			}
		}
		if len(diff) == 1 {
			return ascii(y[diff[0]])
		}
		return len(diff) == 2 && diff[1] == diff[0]+1 && x[diff[0]] == y[diff[1]] && x[diff[1]] == y[diff[0]]
	}
	return false
}

// qwertySpec is the keyboard-neighbour map as specified for the qwerty kind
// (TextAttack's WordSwapQWERTY; docs/methods.md, Query perturbations),
// written out apart from the code, parsed below and compared with the map
// the code uses.
const qwertySpec = `q→w,a,s; w→q,e,a,s,d;
  e→w,s,d,f,r; r→e,d,f,g,t; t→r,f,g,h,y; y→t,g,h,j,u; u→y,h,j,k,i; i→u,j,k,l,o; o→i,k,l,p; p→o,l;
  a→q,w,s,z,x; s→q,w,e,a,d,z,x; d→w,e,r,f,c,x,s; f→e,r,t,g,v,c,d; g→r,t,y,h,b,v,d; h→t,y,u,g,j,b,n;
  j→y,u,i,k,m,n,h; k→u,i,o,l,m,j; l→i,o,p,k; z→a,s,x; x→s,d,z,c; c→x,d,f,v; v→c,f,g,b; b→v,g,h,n;
  m→n,j,k`

func TestQWERTYMap(t *testing.T) {
	want := map[rune]string{}
	for _, entry := range strings.Split(qwertySpec, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(entry), "→")
		if !ok {
			t.Fatalf("bad entry %q", entry)
		}
		want[[]rune(k)[0]] = strings.ReplaceAll(v, ",", "")
	}
	if len(want) != len(qwertyNeighbours) {
		t.Errorf("map has %d keys, the spec %d", len(qwertyNeighbours), len(want))
	}
	for k, v := range want {
		if qwertyNeighbours[k] != v {
			t.Errorf("%c → %q, the spec says %q", k, qwertyNeighbours[k], v)
		}
	}
}

func TestQWERTYChange(t *testing.T) {
	for i := range 500 {
		rng := NewRand(fmt.Sprint(i), KindQWERTY)
		for _, w := range []string{"Revenue", "Q3", "ACME", "x9"} {
			out, ok := qwertyChange(w, rng)
			if !ok {
				t.Fatalf("qwertyChange(%q) failed", w)
			}
			a, b := []rune(w), []rune(out)
			var diff []int
			for j := range a {
				if a[j] != b[j] {
					diff = append(diff, j)
				}
			}
			if len(diff) != 1 {
				t.Fatalf("qwertyChange(%q) = %q: %d letters changed", w, out, len(diff))
			}
			o, r := a[diff[0]], b[diff[0]]
			if !strings.ContainsRune(qwertyNeighbours[unicode.ToLower(o)], unicode.ToLower(r)) {
				t.Errorf("qwertyChange(%q) = %q: %c is not a neighbour of %c", w, out, r, o)
			}
			if unicode.IsUpper(o) != unicode.IsUpper(r) {
				t.Errorf("qwertyChange(%q) = %q: case not kept", w, out)
			}
		}
	}
	if out, ok := qwertyChange("2025", NewRand("q", KindQWERTY)); ok {
		t.Errorf("qwertyChange(2025) = %q, want no change", out)
	}
}

func wordNetOrSkip(t *testing.T) *WordNet {
	t.Helper()
	if _, err := os.Stat(filepath.Join(DefaultWordNetDir, "index.noun")); err != nil {
		t.Skipf("WordNet dictionary not installed at %s (Debian package wordnet-base): %v", DefaultWordNetDir, err)
	}
	return NewWordNet("")
}

func TestSynonyms(t *testing.T) {
	wn := wordNetOrSkip(t)
	f := func(word string, want ...string) {
		t.Helper()
		got, err := wn.Synonyms(word)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("Synonyms(%q) = %q, missing %q", word, got, w)
			}
		}
		for _, g := range got {
			if strings.EqualFold(g, word) || strings.ContainsAny(g, "_ ") || !isOneWord(g) {
				t.Errorf("Synonyms(%q) has ineligible %q", word, g)
			}
		}
		if !slices.IsSorted(got) {
			t.Errorf("Synonyms(%q) not sorted: %q", word, got)
		}
	}
	f("revenue", "gross", "receipts")
	f("large", "big")
	f("buy", "purchase")
	f("buys", "purchase")   // detachment rule s → ""
	f("bought", "purchase") // verb.exc: bought → buy
	f("companies", "party") // ies → y
	if got, _ := wn.Synonyms("buys"); slices.Contains(got, "buy") {
		t.Errorf("Synonyms(buys) offers its own base form: %q", got)
	}
	if got, _ := wn.Synonyms("xyzzyq"); len(got) != 0 {
		t.Errorf("Synonyms(xyzzyq) = %q", got)
	}
}

func TestMatchCase(t *testing.T) {
	f := func(orig, syn, want string) {
		t.Helper()
		if got := matchCase(orig, syn); got != want {
			t.Errorf("matchCase(%q, %q) = %q, want %q", orig, syn, got, want)
		}
	}
	f("revenue", "gross", "gross")
	f("Revenue", "gross", "Gross")
	f("REVENUE", "gross", "GROSS")
	f("A", "angstrom", "Angstrom")
	f("buy", "Washington", "Washington")
}

func TestWordNetQuery(t *testing.T) {
	wn := wordNetOrSkip(t)
	p := &Perturber{WordNet: wn}
	// "Large" has the safe synonym "big" (first, usual sense of both);
	// "revenue" has none (a report's term, synonym.go's termSense).
	q := "Large revenue of Acme?"
	for i := range 50 {
		out, err := p.Query(KindWordNet, fmt.Sprint(i), q, []string{"$4.2 billion"})
		if err != nil {
			t.Fatal(err)
		}
		ch := changedWords(t, q, out)
		if len(ch) != 1 {
			t.Fatalf("%q → %q: %d words changed", q, out, len(ch))
		}
		w := splitWords(out)[ch[0]].text
		if !unicode.IsUpper([]rune(w)[0]) {
			t.Errorf("%q → %q: capitalization lost", q, out)
		}
	}
}

func TestWordNetKeepsNames(t *testing.T) {
	wn := wordNetOrSkip(t)
	p := &Perturber{WordNet: wn}
	// Not the subject of a "What was …" question, which is kept whole
	// (synonym.go): here the names sit in the object.
	q := "Which customers bought Acme Corp's large servers?"
	for i := range 50 {
		out, err := p.Query(KindWordNet, fmt.Sprint(i), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changedWords(t, q, out) {
			if w := splitWords(q)[c].text; w == "Acme" || w == "Corp's" {
				t.Errorf("name %q replaced: %q", w, out)
			}
		}
	}
}

func TestAnswerLeak(t *testing.T) {
	wn := wordNetOrSkip(t)
	p := &Perturber{WordNet: wn}
	// "buy" has the synonym "purchase", which is the answer: a seed that
	// picks it must be refused, and no output may contain it.
	leaks := 0
	for i := range 200 {
		out, err := p.Query(KindWordNet, fmt.Sprint(i), "did they buy", []string{"purchase"})
		switch {
		case errors.Is(err, ErrAnswerLeak):
			leaks++
		case err != nil:
			t.Fatal(err)
		case strings.Contains(out, "purchase"):
			t.Errorf("answer leaked: %q", out)
		}
	}
	if leaks == 0 {
		t.Error("no seed picked the answer as synonym; the leak check is untested")
	}
}

func TestWordNetUnavailable(t *testing.T) {
	p := &Perturber{WordNet: NewWordNet(t.TempDir())}
	if _, err := p.Query(KindWordNet, "q", "What was the revenue?", nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v, want ErrUnavailable", err)
	}
	if _, err := (&Perturber{}).Query(KindWordNet, "q", "What was the revenue?", nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("nil WordNet: err = %v, want ErrUnavailable", err)
	}
}

func ExamplePerturber_Query() {
	p := &Perturber{}
	q := "Whom did Northwind Bank appoint as chief financial officer?"
	out, _ := p.Query(KindQWERTY, "q-42", q, []string{"Maria Lopez"})
	again, _ := p.Query(KindQWERTY, "q-42", q, []string{"Maria Lopez"})
	fmt.Println(out)
	fmt.Println(out == again)
	// Output:
	// Whom did Northwind Bank appoint as xhief financial officer?
	// true
}

// TestQueryKeepsTheFacts: the template's time anchor and words with digits
// are never perturbed: a typo in "November 2026" or "Q3 2025" would ask
// about another period, and a synonym of "reported" breaks the phrase.
func TestQueryKeepsTheFacts(t *testing.T) {
	p := &Perturber{WordNet: wordNetOrSkip(t)}
	for _, q := range []string{
		"What did Gitweb offer for legacy URLs, as reported in November 2026?",
		"How many engineers did Globex Industries hire in Q3 2025 as of April 2026?",
	} {
		for _, kind := range []string{KindChar, KindQWERTY, KindWordNet} {
			for i := range 20 {
				out, err := p.Query(kind, fmt.Sprint("q", i), q, []string{"nothing"})
				if errors.Is(err, ErrNoCandidate) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, keep := range []string{"as reported in November 2026?", "Q3 2025 as of April 2026?"} {
					if strings.HasSuffix(q, keep) && !strings.HasSuffix(out, keep) {
						t.Errorf("%s: %q became %q", kind, q, out)
					}
				}
			}
		}
	}
}

// TestQueryKeepsCapitalizedStopwords: a stopword opening the question is
// still a stopword ("In coreutils 9.1, …" once became "Indium coreutils").
func TestQueryKeepsCapitalizedStopwords(t *testing.T) {
	p := &Perturber{}
	q := "In coreutils 9.1, which syscall does cat now use?"
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		out, err := p.Query(KindQWERTY, id, q, []string{"copy_file_range"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, "In ") {
			t.Errorf("seed %s: %q perturbed the opening preposition", id, out)
		}
	}
}

// TestWordNetKeepsNamesAndInflection: a word before a version names a
// program ("make 4.3" once became "earn 4.3"), and a synonym keeps the
// word's -ed ("released" once became "liberate": "released" has no -ed
// synonym, so that question cannot be paraphrased this way at all).
func TestWordNetKeepsNamesAndInflection(t *testing.T) {
	p := &Perturber{WordNet: NewWordNet("")}
	if err := p.WordNet.Available(); err != nil {
		t.Skipf("WordNet: %v", err)
	}
	changed := 0
	for i := range 40 {
		id := fmt.Sprint("q", i)
		if out, err := p.Query(KindWordNet, id, "When was make 4.3 released?", []string{"19 Jan 2020"}); !errors.Is(err, ErrNoCandidate) {
			t.Errorf("seed %d: %q, %v; want no candidate (a program name and a participle without an -ed synonym)", i, out, err)
		}
		out, err := p.Query(KindWordNet, id, "Which developers use make 4.3?", []string{"GNU"})
		if errors.Is(err, ErrNoCandidate) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		changed++
		if !strings.Contains(out, " make 4.3?") {
			t.Errorf("seed %d: %q changed the program's name", i, out)
		}
	}
	if changed == 0 {
		t.Error("no seed paraphrased the second question: the test checks nothing")
	}
}
