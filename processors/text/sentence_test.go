package text

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// allOptions are every combination of the options of Sentences.
var allOptions = func() []SentenceOptions {
	var out []SentenceOptions
	for _, l := range []Layout{Wrapped, EveryLine, Prose} {
		for _, strict := range []bool{false, true} {
			out = append(out, SentenceOptions{Layout: l, Strict: strict})
		}
	}
	return out
}()

func TestSentences(t *testing.T) {
	f := func(s string, o SentenceOptions, want ...string) {
		t.Helper()
		var got []string
		for _, x := range Sentences(s, o) {
			got = append(got, x.Text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Sentences(%q, %+v)\n got %q\nwant %q", s, o, got, want)
		}
	}
	plain, lines, prose := SentenceOptions{}, SentenceOptions{Layout: EveryLine}, SentenceOptions{Layout: Prose, Strict: true}

	// Layouts: which line breaks end a sentence, and which lines count.
	doc := "# Results\n\nRevenue was $4.2\nbillion in Q3. Costs fell.\n| Q3 | 4.2 |\n```\ncode. More.\n```"
	f(doc, plain, "# Results", "Revenue was $4.2\nbillion in Q3.", "Costs fell.", "| Q3 | 4.2 |", "```", "code.", "More.", "```")
	f(doc, lines, "# Results", "Revenue was $4.2", "billion in Q3.", "Costs fell.", "| Q3 | 4.2 |", "```", "code.", "More.", "```")
	f(doc, prose, "Revenue was $4.2\nbillion in Q3.", "Costs fell.")
	f("- item one\n- item two.\n12. third", prose, "item one", "item two.", "third")
	f("- item one\n- item two.\n12. third", plain, "- item one", "- item two.", "12.", "third")
	// A wrapped line is one whose next line goes on in lower case; a
	// whitespace-only line between them is a blank line all the same.
	f("Sales rose,\nsaid Acme.\nIt ended.", plain, "Sales rose,\nsaid Acme.", "It ended.")
	f("Sales rose,\n \t\nsaid Acme.", plain, "Sales rose,", "said Acme.")
	f("Sales rose,\r\n\r\nsaid Acme.", plain, "Sales rose,", "said Acme.")

	// The plain rule: any whitespace after the marks ends a sentence,
	// except after an abbreviation on the list or an initial.
	f("Acme Corp. hired Dr. J. Smith in Jan. 2025. He starts soon.", plain,
		"Acme Corp. hired Dr. J. Smith in Jan. 2025.", "He starts soon.")
	f("It grew. margins fell", plain, "It grew.", "margins fell")
	f("See Fig. 4 and “Mar. 3”. Done", plain, "See Fig. 4 and “Mar. 3”.", "Done")
	f("It cost 5. Then it fell.", plain, "It cost 5.", "Then it fell.")
	f("It was Acme (Acme Inc.) and more.", plain, "It was Acme (Acme Inc.) and more.")
	f("Plan a . Then b.", plain, "Plan a .", "Then b.")
	f("He said «stop.» Then left.", plain, "He said «stop.»", "Then left.")
	f("Wait... What? Yes!! Ok", plain, "Wait...", "What?", "Yes!!", "Ok")
	f("Revenue was $4.2 billion.\u00a0Costs fell.", plain, "Revenue was $4.2 billion.", "Costs fell.")

	// The strict rule: the next word must open a sentence; quotations,
	// name suffixes and acronyms are read in context.
	f("It grew. margins fell", prose, "It grew. margins fell")
	f("The deal closed at Acme Inc. The company grew.", prose, "The deal closed at Acme Inc.", "The company grew.")
	f("The deal closed at Acme Inc. The company grew.", plain, "The deal closed at Acme Inc. The company grew.")
	f("It bought Acme Co. Ltd. last year.", prose, "It bought Acme Co. Ltd. last year.")
	f("The U.S. Treasury issued bonds. Growth in the U.S. The end.", prose,
		"The U.S. Treasury issued bonds.", "Growth in the U.S.", "The end.")
	f(`He said "Growth was strong. Demand was high." Then it ended.`, prose,
		`He said "Growth was strong. Demand was high."`, "Then it ended.")
	f("Shares of Foo\u00a0Dr. Smith rose.", prose, "Shares of Foo\u00a0Dr. Smith rose.")
	f("He said «stop.» Then left.", prose, "He said «stop.»", "Then left.")
	f("\u00a0- item one\n- item two", prose, "item one", "item two")
}

// TestSentencesSpans checks what every caller relies on, on random texts
// under every option: each sentence is its span of the text, trimmed and
// non-empty, in order without overlap; under the Wrapped layout every
// non-space rune is in a sentence.
func TestSentencesSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(splitPieces[rng.IntN(len(splitPieces))])
		}
		checkSpans(t, b.String())
	}
}

// splitPieces are fragments of texts that stress sentence splitting: marks,
// closers, abbreviations, initials, Markdown, Unicode spaces and letters,
// and invalid UTF-8.
var splitPieces = []string{
	"Revenue was $4.2 billion", "4.2", " dollars", "The", " the", " a", "Dr.", " J.", " Smith", "Corp.", " Inc.",
	" U.S.", " e.g.", " Mar.", " no.", ".", "!", "?", "...", "\"", "“", "”", "'", "’", ")", "»", "(", " ", "  ",
	"\n", "\n\n", "\r\n", "\n \n", "\t", "\u00a0", "\u2003", "x", "big", " Zed", "said", " it", "é", "\u0301",
	"\xff", "| Q3 | 4.2 |", "# Heading", "- ", "12. ", "> ", "```", "~~~", "---", ",", "1", "İ", "ß", "日本。",
}

func checkSpans(t *testing.T, s string) {
	t.Helper()
	for _, o := range allOptions {
		ss := Sentences(s, o)
		last := 0
		for _, x := range ss {
			if x.Start < last || x.End <= x.Start || x.End > len(s) || s[x.Start:x.End] != x.Text || strings.TrimSpace(x.Text) != x.Text {
				t.Fatalf("Sentences(%q, %+v): bad sentence %+v after %d", s, o, x, last)
			}
			last = x.End
		}
		if o.Layout != Wrapped {
			continue
		}
		covered := make([]bool, len(s))
		for _, x := range ss {
			for i := x.Start; i < x.End; i++ {
				covered[i] = true
			}
		}
		for i, r := range s {
			if !unicode.IsSpace(r) && !covered[i] {
				t.Fatalf("Sentences(%q, %+v) leaves out %q at %d: %+v", s, o, r, i, ss)
			}
		}
	}
}

func FuzzSentences(f *testing.F) {
	for _, s := range []string{"", "Dr. J. Smith\nwrote it.\n\nThe end", "He said \"Go. Now.\" Then", "a.\u00a0B", "- x\n```\ny. Z\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSpans(t, s)
	})
}

// TestSentencesHostileSizes runs inputs that would take quadratic time if a
// boundary looked back over the whole sentence or block, or ahead over a
// whole run of marks: long runs of periods without spaces, of
// abbreviations, of wrapped lines, of open quotes and of marks.
func TestSentencesHostileSizes(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("a.", 100_000),
		strings.Repeat("Dr. ", 50_000),
		strings.Repeat("x,\n \n", 40_000),
		strings.Repeat("word,\nword ", 40_000),
		strings.Repeat("\"Yes. No. ", 30_000),
		strings.Repeat("- ", 100_000),
		"a" + strings.Repeat(".", 200_000) + " b",
		"\"a" + strings.Repeat("!", 200_000) + " b\"",
		strings.Repeat(".)", 100_000) + " B",
	} {
		for _, o := range allOptions {
			Sentences(s, o)
		}
	}
}

// referenceAbbreviationBefore is abbreviationBefore as first written: it
// splits all of before into words.
func referenceAbbreviationBefore(before string) bool {
	f := strings.Fields(before)
	if r, _ := utf8.DecodeLastRuneInString(before); len(f) == 0 || unicode.IsSpace(r) {
		return false
	}
	last := strings.ToLower(strings.TrimLeft(f[len(f)-1], `"“'‘([`))
	return abbreviations[last] != notAbbrev || utf8.RuneCountInString(last) == 1 && unicode.IsLetter([]rune(last)[0])
}

func TestAbbreviationBeforeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	parts := append(slices.Clone(splitPieces), "Mr", "e.g", "(Jan", "\"St", "“St", "J", "Ü", "\u0085", "\xe2\x80", "\xe2", "\x80", "\u2028", "é\u00a0")
	for range 200000 {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := abbreviationBefore(s), referenceAbbreviationBefore(s); got != want {
			t.Fatalf("abbreviationBefore(%q) = %v, reference %v", s, got, want)
		}
	}
}

func FuzzAbbreviationBefore(f *testing.F) {
	f.Add("Acme Corp")
	f.Add("hired Dr")
	f.Add("x \xe2\x80\x83J")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := abbreviationBefore(s), referenceAbbreviationBefore(s); got != want {
			t.Fatalf("abbreviationBefore(%q) = %v, reference %v", s, got, want)
		}
	})
}

func TestIsAcronym(t *testing.T) {
	for w, want := range map[string]bool{"U.S": true, "e.g": true, "a.m": true, "Ph.D": true, "4.2": false, "U": false, "U.": false, "": false, "ab.cd.ef": true} {
		if got := IsAcronym(w); got != want {
			t.Errorf("IsAcronym(%q) = %v, want %v", w, got, want)
		}
	}
}

func ExampleSentences() {
	s := "Acme Inc. hired Dr. J. Smith. The U.S. Treasury\nsold bonds.\n| Q3 | 4.2 |"
	for _, o := range []SentenceOptions{{}, {Layout: EveryLine}, {Layout: Prose, Strict: true}} {
		var out []string
		for _, x := range Sentences(s, o) {
			out = append(out, x.Text)
		}
		fmt.Printf("%q\n", out)
	}
	// Output:
	// ["Acme Inc. hired Dr. J. Smith." "The U.S. Treasury\nsold bonds." "| Q3 | 4.2 |"]
	// ["Acme Inc. hired Dr. J. Smith." "The U.S. Treasury" "sold bonds." "| Q3 | 4.2 |"]
	// ["Acme Inc. hired Dr. J. Smith." "The U.S. Treasury\nsold bonds."]
}
