package chunk

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestCountTokensIsRealBPE(t *testing.T) {
	f := func(text string, want int) {
		t.Helper()
		if got := CountTokens(text); got != want {
			t.Errorf("CountTokens(%q) = %d, want %d", text, got, want)
		}
	}
	// Reference counts of cl100k_base; a word-count approximation gets them
	// wrong.
	f("", 0)
	f("hello world", 2)
	f("tiktoken is great!", 6)
	f("<|endoftext|>", 7) // counted as plain text, never as a control token
}

func TestSplitSmall(t *testing.T) {
	f := func(text string, max int, want ...string) {
		t.Helper()
		var got []string
		for _, p := range Split(text, max) {
			got = append(got, p.Kind+":"+p.Text)
		}
		if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
			t.Errorf("Split(%q, %d)\n got %q\nwant %q", text, max, got, want)
		}
	}
	f("", 600)
	f(" \n\n\t\n", 600)
	f("One paragraph.", 600, "text:One paragraph.")
	f("A.\n\nB.", 600, "text:A.\n\nB.")
	// Budget 3: "A." is 2 tokens, so each paragraph is alone.
	f("A.\n\nB.\n\nC.", 3, "text:A.", "text:B.", "text:C.")
	// A paragraph over budget is never cut.
	f("one two three four five six seven eight nine ten.\n\nB.", 4,
		"text:one two three four five six seven eight nine ten.", "text:B.")
	// A heading is carried to the piece it introduces.
	f("Alpha beta.\n\n## Next\n\nGamma delta.", 8, "text:Alpha beta.", "text:## Next\n\nGamma delta.")
	// The table keeps its caption and note, and stands alone.
	f("Intro text.\n\nTable 1: Revenue\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSource: filings.\n\nOutro.", 600,
		"text:Intro text.",
		"table:Table 1: Revenue\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSource: filings.",
		"text:Outro.")
	// Prose ending in a full stop is not a caption.
	f("Revenue grew.\n\n| a | b |\n|---|---|\n| 1 | 2 |", 600,
		"text:Revenue grew.", "table:| a | b |\n|---|---|\n| 1 | 2 |")
	// Blank lines inside a fenced block do not end the paragraph.
	f("```\nx\n\ny\n```\n\nz", 1, "text:```\nx\n\ny\n```", "text:z")
	// CRLF input: spans exclude the carriage returns at paragraph ends.
	f("A.\r\n\r\nB.\r\n", 600, "text:A.\r\n\r\nB.")
}

// corpus builds a document of paragraphs of random length, with tables.
func corpus(r *rand.Rand) string {
	words := strings.Fields("the revenue of Acme Corp rose to $4.2 billion in Q3 2025 while margins held at 12.4% and headcount reached 12,400")
	var b strings.Builder
	for i := range 40 {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if r.IntN(8) == 0 {
			fmt.Fprintf(&b, "Table %d: Key figures\n\n| metric | value |\n|---|---|\n", i)
			for j := range 2 + r.IntN(20) {
				fmt.Fprintf(&b, "| m%d | %d |\n", j, r.IntN(10000))
			}
			b.WriteString("\nNote: unaudited.")
			continue
		}
		lines := 1 + r.IntN(4)
		for l := range lines {
			if l > 0 {
				b.WriteString("\n")
			}
			for w := range 3 + r.IntN(60) {
				if w > 0 {
					b.WriteString(" ")
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteString(".")
		}
	}
	return b.String()
}

func TestSplitInvariants(t *testing.T) {
	for seed := range uint64(20) {
		text := corpus(rand.New(rand.NewPCG(seed, 7)))
		paras := paragraphs(text)
		for _, max := range []int{16, 64, 200, 600} {
			pieces := Split(text, max)
			if len(pieces) == 0 {
				t.Fatalf("seed %d max %d: no pieces", seed, max)
			}
			prevEnd := 0
			for i, p := range pieces {
				if p.Text != text[p.Start:p.End] {
					t.Fatalf("seed %d max %d piece %d: Text is not text[Start:End]", seed, max, i)
				}
				if p.Start < prevEnd {
					t.Fatalf("seed %d max %d piece %d: overlaps the previous piece", seed, max, i)
				}
				prevEnd = p.End
				if p.Tokens != CountTokens(p.Text) {
					t.Fatalf("seed %d max %d piece %d: Tokens %d, counted %d", seed, max, i, p.Tokens, CountTokens(p.Text))
				}
				multi := strings.Contains(p.Text, "\n\n")
				if p.Kind == KindText && multi && p.Tokens > max {
					t.Errorf("seed %d max %d piece %d: %d tokens in a packed piece", seed, max, i, p.Tokens)
				}
				if p.Kind == KindTable && !(strings.HasPrefix(p.Text, "Table ") && strings.HasSuffix(p.Text, "Note: unaudited.")) {
					t.Errorf("seed %d max %d piece %d: table lost its caption or note: %q", seed, max, i, p.Text)
				}
			}
			// Every paragraph lies inside exactly one piece.
			for _, para := range paras {
				n := 0
				for _, p := range pieces {
					if p.Start <= para.start && para.end <= p.End {
						n++
					} else if para.start < p.End && p.Start < para.end {
						t.Fatalf("seed %d max %d: paragraph %q split by piece %q", seed, max, text[para.start:para.end], p.Text)
					}
				}
				if n != 1 {
					t.Fatalf("seed %d max %d: paragraph in %d pieces", seed, max, n)
				}
			}
		}
	}
}

func ExampleSplit() {
	text := "# Acme Corp results\n\nAcme Corp's revenue in Q3 2025 was $4.2 billion.\n\n" +
		"Table 1: Key figures\n\n| metric | Q3 2025 |\n|---|---|\n| margin | 12.4% |\n\nSource: company filings."
	for _, p := range Split(text, 600) {
		fmt.Printf("%s [%d:%d] %d tokens: %q\n", p.Kind, p.Start, p.End, p.Tokens, p.Text)
	}
	// Output:
	// text [0:69] 24 tokens: "# Acme Corp results\n\nAcme Corp's revenue in Q3 2025 was $4.2 billion."
	// table [71:168] 35 tokens: "Table 1: Key figures\n\n| metric | Q3 2025 |\n|---|---|\n| margin | 12.4% |\n\nSource: company filings."
}
