package chunk

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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
	// A paragraph over budget is cut: this one is one sentence of 11
	// tokens, so between words.
	f("one two three four five six seven eight nine ten.\n\nB.", 4,
		"text:one two three four", "text:five six seven eight", "text:nine ten.", "text:B.")
	// A heading is carried to the piece it introduces.
	f("Alpha beta.\n\n## Next\n\nGamma delta.", 8, "text:Alpha beta.", "text:## Next\n\nGamma delta.")
	// A table keeps its caption and note and is packed with the paragraphs
	// around it like any unit (it used to stand alone); a piece holding a
	// table is of kind table.
	f("Intro text.\n\nTable 1: Revenue\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSource: filings.\n\nOutro.", 600,
		"table:Intro text.\n\nTable 1: Revenue\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSource: filings.\n\nOutro.")
	f("Revenue grew.\n\n| a | b |\n|---|---|\n| 1 | 2 |", 600,
		"table:Revenue grew.\n\n| a | b |\n|---|---|\n| 1 | 2 |")
	// The introduction moves to the table's piece rather than closing the
	// previous one (greedy packing alone would leave it with "First…").
	f("First para one two three.\n\nRevenue by segment was as follows:\n\n| a | b |\n|---|---|\n| 1 | 2 |", 24,
		"text:First para one two three.",
		"table:Revenue by segment was as follows:\n\n| a | b |\n|---|---|\n| 1 | 2 |")
	// Over the budget with everything attached (34 tokens), the table lets
	// go of its introduction first (27 tokens without it)…
	full := "Revenue by segment was as follows:\n\nTable 1: Revenue\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSource: filings."
	f(full, 30,
		"text:Revenue by segment was as follows:",
		"table:Table 1: Revenue\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSource: filings.")
	// …then of its notes (23 tokens with the caption)…
	f(full, 25,
		"text:Revenue by segment was as follows:",
		"table:Table 1: Revenue\n\n| a | b |\n|---|---|\n| 1 | 2 |",
		"text:Source: filings.")
	// …then of its caption (17 tokens alone), and is still not cut.
	f(full, 20,
		"text:Revenue by segment was as follows:\n\nTable 1: Revenue",
		"table:| a | b |\n|---|---|\n| 1 | 2 |",
		"text:Source: filings.")
	// Blank lines inside a fenced block do not end the paragraph (7 tokens,
	// 9 with "z").
	f("```\nx\n\ny\n```\n\nz", 7, "text:```\nx\n\ny\n```", "text:z")
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

// TestSplitInvariants checks random documents at budgets from tight
// (paragraphs and tables cut down to words) to roomy (nothing cut).
func TestSplitInvariants(t *testing.T) {
	const header = "| metric | value |\n|---|---|\n"
	captioned := 0 // later parts of a table cut between rows that name it
	defer func() {
		if captioned == 0 {
			t.Error("no later part of a cut table repeats its caption")
		}
	}()
	for seed := range uint64(20) {
		text := corpus(rand.New(rand.NewPCG(seed, 7)))
		paras := paragraphs(text)
		for _, max := range []int{16, 64, 200, 600} {
			pieces := Split(text, max)
			if len(pieces) == 0 {
				t.Fatalf("seed %d max %d: no pieces", seed, max)
			}
			checkPieces(t, text, max, pieces)
			for i, p := range pieces {
				multi := strings.Contains(p.Text, "\n\n")
				if p.Kind == KindText && multi && p.Split != SplitNone {
					t.Errorf("seed %d max %d piece %d: a cut piece spans paragraphs: %q", seed, max, i, p.Text)
				}
				if p.Header > 0 {
					// The header rows, after the table's caption when it
					// has one: a line of the text, then a blank line.
					caption, ok := strings.CutSuffix(p.Text[:p.Header], header)
					if caption != "" {
						captioned++
					}
					if !ok || caption != "" && (!strings.HasSuffix(caption, "\n\n") || strings.Count(caption, "\n") != 2 ||
						!strings.Contains(text, strings.TrimSuffix(caption, "\n\n")+"\n")) {
						t.Errorf("seed %d max %d piece %d: repeated header %q", seed, max, i, p.Text[:p.Header])
					}
				}
				if max == 600 && p.Split != SplitNone {
					// No paragraph of corpus reaches 600 tokens: nothing
					// may be cut that was not cut before.
					t.Errorf("seed %d max %d piece %d: cut (%s) although nothing is over budget", seed, max, i, p.Split)
				}
			}
			// Every paragraph lies inside exactly one piece, unless it is
			// cut, and then only by cut pieces.
			for _, para := range paras {
				inside, across := 0, 0
				for _, p := range pieces {
					switch {
					case p.Start <= para.start && para.end <= p.End:
						inside++
					case para.start < p.End && p.Start < para.end:
						across++
						if p.Split == SplitNone {
							t.Fatalf("seed %d max %d: paragraph %q cut by a whole piece %q", seed, max, text[para.start:para.end], p.Text)
						}
					}
				}
				if inside > 1 || inside == 1 && across > 0 || inside+across == 0 {
					t.Fatalf("seed %d max %d: paragraph inside %d pieces, across %d", seed, max, inside, across)
				}
			}
			// The table rules, whether tables were cut or not.
			checkTables(t, fmt.Sprintf("seed %d max %d", seed, max), text, max, pieces)
		}
	}
}

// checkTables checks the table rules of Split: a piece is of kind table
// exactly when it holds a part of a table; a table that fits the budget is
// in one piece, not cut, with its caption, introduction and notes as far as
// the budget allows (the introduction let go first, then the notes, then
// the caption); a table over the budget keeps its caption in its first
// part and its notes in its last, and is cut between rows when the budget
// has room for rows.
func checkTables(t *testing.T, name, text string, max int, pieces []Piece) {
	t.Helper()
	paras := paragraphs(text)
	var bodies [][2]int
	for _, para := range paras {
		if isTable(para.lines) {
			bodies = append(bodies, [2]int{para.start, para.end})
		}
	}
	overlaps := func(p Piece, s [2]int) bool { return s[0] < p.End && p.Start < s[1] }
	contains := func(p Piece, start, end int) bool { return p.Start <= start && end <= p.End }
	for i, p := range pieces {
		// The notes of a cut table can end up in a part of their own,
		// still of kind table and cut between rows.
		holds := slices.ContainsFunc(bodies, func(b [2]int) bool { return overlaps(p, b) })
		if holds && p.Kind != KindTable || !holds && p.Kind == KindTable && p.Split != SplitRow {
			t.Errorf("%s: piece %d is of kind %s, holds a table: %v: %q", name, i, p.Kind, holds, p.Text)
		}
	}
	for _, u := range group(paras) {
		if !u.table {
			continue
		}
		body := [2]int{paras[u.body].start, paras[u.body].end}
		var parts []Piece
		for _, p := range pieces {
			if overlaps(p, body) {
				parts = append(parts, p)
			}
		}
		if len(parts) == 0 {
			t.Fatalf("%s: table at %d in no piece", name, body[0])
		}
		capStart := body[0]
		if u.caption >= 0 {
			capStart = paras[u.caption].start
		}
		if CountTokens(text[body[0]:body[1]]) <= max {
			if len(parts) != 1 || !contains(parts[0], body[0], body[1]) || parts[0].Split != SplitNone {
				t.Errorf("%s: a table that fits is cut into %d pieces: %q", name, len(parts), text[body[0]:body[1]])
				continue
			}
			p := parts[0]
			switch {
			case CountTokens(text[u.start:u.end]) <= max:
				if !contains(p, u.start, u.end) {
					t.Errorf("%s: table without its introduction, caption or notes, though they fit: %q", name, p.Text)
				}
			case CountTokens(text[capStart:u.end]) <= max:
				if !contains(p, capStart, u.end) || u.intro >= 0 && contains(p, paras[u.intro].start, body[0]) {
					t.Errorf("%s: table without its caption or notes, or with its introduction though the whole is over budget: %q", name, p.Text)
				}
			case CountTokens(text[capStart:body[1]]) <= max:
				if !contains(p, capStart, body[1]) {
					t.Errorf("%s: table without its caption, though it fits: %q", name, p.Text)
				}
			}
			continue
		}
		parts = parts[:0]
		for _, p := range pieces {
			if overlaps(p, [2]int{capStart, u.end}) {
				parts = append(parts, p)
			}
		}
		first, last := parts[0], parts[len(parts)-1]
		if !contains(first, capStart, body[0]+1) || !contains(last, u.end-1, u.end) {
			t.Errorf("%s: cut table lost its caption or notes: first %q, last %q", name, first.Text, last.Text)
		}
		for _, p := range parts {
			if p.Kind != KindTable || max >= 64 && p.Split != SplitRow {
				t.Errorf("%s: table part of kind %s cut by %q: %q", name, p.Kind, p.Split, p.Text)
			}
		}
	}
}

// checkPieces checks what holds of any split of any text: pieces in order,
// without overlap, within the budget (unless one rune is over it) and
// counted exactly, Text[Header:] is the span, together they hold every
// non-space rune, and valid UTF-8 stays valid.
func checkPieces(t *testing.T, text string, max int, pieces []Piece) {
	t.Helper()
	covered := make([]bool, len(text))
	prevEnd := 0
	valid := utf8.ValidString(text)
	for i, p := range pieces {
		if p.Start < prevEnd || p.End <= p.Start || p.End > len(text) {
			t.Fatalf("piece %d: span [%d:%d] after %d in %d bytes", i, p.Start, p.End, prevEnd, len(text))
		}
		prevEnd = p.End
		if p.Header < 0 || p.Header > len(p.Text) || p.Text[p.Header:] != text[p.Start:p.End] {
			t.Fatalf("piece %d: Text[%d:] is not text[%d:%d]: %q", i, p.Header, p.Start, p.End, p.Text)
		}
		if p.Header > 0 && (p.Split != SplitRow || p.Kind != KindTable) {
			t.Errorf("piece %d: a header repeated in a piece of kind %s cut by %q", i, p.Kind, p.Split)
		}
		if n := CountTokens(p.Text); p.Tokens != n {
			t.Fatalf("piece %d: Tokens %d, counted %d: %q", i, p.Tokens, n, p.Text)
		}
		if p.Tokens > max && (p.Header > 0 || utf8.RuneCountInString(p.Text) > 1) {
			t.Errorf("piece %d: %d tokens over the budget of %d (cut %q): %q", i, p.Tokens, max, p.Split, p.Text)
		}
		if p.Kind != KindText && p.Kind != KindTable {
			t.Errorf("piece %d: kind %q", i, p.Kind)
		}
		switch p.Split {
		case SplitNone, SplitSentence, SplitRow, SplitWord:
		default:
			t.Errorf("piece %d: Split %q", i, p.Split)
		}
		if valid && !utf8.ValidString(p.Text) {
			t.Errorf("piece %d: invalid UTF-8 out of valid UTF-8: %q", i, p.Text)
		}
		for k := p.Start; k < p.End; k++ {
			covered[k] = true
		}
	}
	for i, r := range text {
		if !covered[i] && !unicode.IsSpace(r) {
			t.Fatalf("rune %q at %d is in no piece", r, i)
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
	// table [0:168] 59 tokens: "# Acme Corp results\n\nAcme Corp's revenue in Q3 2025 was $4.2 billion.\n\nTable 1: Key figures\n\n| metric | Q3 2025 |\n|---|---|\n| margin | 12.4% |\n\nSource: company filings."
}
