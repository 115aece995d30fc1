package chunk

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/robustream/robustream/sources/demo"
)

func TestSplitOversizeSmall(t *testing.T) {
	f := func(text string, max int, want ...string) {
		t.Helper()
		pieces := Split(text, max)
		checkPieces(t, text, max, pieces)
		var got []string
		for _, p := range pieces {
			got = append(got, fmt.Sprintf("%s/%s:%s", p.Kind, p.Split, p.Text))
		}
		if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
			t.Errorf("Split(%q, %d)\n got %q\nwant %q", text, max, got, want)
		}
	}
	// Whole sentences are packed up to the budget.
	f("Alpha beta gamma. Delta epsilon! Zeta eta theta? Iota kappa.", 8,
		"text/sentence:Alpha beta gamma. Delta epsilon!", "text/sentence:Zeta eta theta?", "text/sentence:Iota kappa.")
	// A closing quote or bracket stays with its sentence.
	f("“Quoted, he said.” Next one.) Last one here.", 7,
		"text/sentence:“Quoted, he said.”", "text/sentence:Next one.) Last one here.")
	// A line break ends a sentence too: list items, code lines.
	f("- first item\n- second item\n- third item", 7,
		"text/sentence:- first item\n- second item", "text/sentence:- third item")
	// Chinese needs no space after a full stop.
	f("他说。我们走吧！好的？", 4, "text/sentence:他说。", "text/word:我们走", "text/word:吧！", "text/sentence:好的？")
	// The heading that opens an oversize paragraph opens its first part;
	// the paragraphs around it are packed as before.
	f("Intro.\n\n## Results\n\nAlpha beta gamma. Delta epsilon! Zeta eta theta? Iota kappa.\n\nEnd.", 10,
		"text/:Intro.", "text/sentence:## Results\n\nAlpha beta gamma. Delta epsilon!",
		"text/sentence:Zeta eta theta? Iota kappa.", "text/:End.")
	// What follows packs as if the heading had been emitted with the rest.
	f("## Results\n\nAlpha beta gamma. Delta epsilon! Zeta eta theta? Iota kappa.\n\nEnd one two.\n\nMore three four.", 10,
		"text/sentence:## Results\n\nAlpha beta gamma. Delta epsilon!", "text/sentence:Zeta eta theta? Iota kappa.",
		"text/:End one two.\n\nMore three four.")
	// A word over the budget is cut between tokens, never inside a rune.
	f("supercalifragilisticexpialidocious", 3,
		"text/word:supercal", "text/word:ifragil", "text/word:isticexpial", "text/word:idocious")
	f("naïve日本🙂", 1, "text/word:na", "text/word:ï", "text/word:ve", "text/word:日", "text/word:本",
		"text/word:🙂") // 🙂 is two tokens: a rune cannot be cut
	// A table is cut between rows: its intro and title stay with the
	// header; later parts repeat header and delimiter rows; the note stays
	// with the last rows.
	f("Rows below:\n\nTable 2: Sales\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |\n\nSource: us.", 30,
		"table/row:Rows below:\n\nTable 2: Sales\n| a | b |\n|---|---|\n| 1 | 2 |",
		"table/row:| a | b |\n|---|---|\n| 3 | 4 |\n| 5 | 6 |\n\nSource: us.")
	// Without a delimiter row, the first row is the header.
	f("| a | b |\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |", 12,
		"table/row:| a | b |", "table/row:| a | b |\n| 1 | 2 |", "table/row:| a | b |\n| 3 | 4 |", "table/row:| a | b |\n| 5 | 6 |")
	// A header over half the budget is not repeated.
	f("| alpha | beta |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |", 16,
		"table/row:| alpha | beta |\n|---|---|", "table/row:| 1 | 2 |\n| 3 | 4 |", "table/row:| 5 | 6 |")
}

// TestSplitHugeParagraph cuts a 4.1 MB paragraph, the size that once
// became one chunk of 788,463 tokens: whole sentences where they fit, words
// of the sentences that do not.
func TestSplitHugeParagraph(t *testing.T) {
	text := hugeParagraph(4_100_000)
	t.Logf("%d bytes, %d tokens", len(text), CountTokens(text))
	pieces := Split(text, DefaultMaxTokens)
	checkPieces(t, text, DefaultMaxTokens, pieces)
	splits := map[string]int{}
	var texts []string
	for _, p := range pieces {
		splits[p.Split]++
		texts = append(texts, p.Text)
	}
	if splits[SplitSentence] == 0 || splits[SplitWord] == 0 || len(splits) != 2 {
		t.Errorf("cuts %v, want sentences, and words for the overlong sentences only", splits)
	}
	// Sentences and words are separated by single spaces, which the cuts
	// drop.
	if strings.Join(texts, " ") != text {
		t.Error("the pieces joined by spaces are not the paragraph")
	}
	t.Logf("%d pieces %v", len(pieces), splits)
}

// hugeParagraph is a paragraph of about size bytes: sentences of 3 to 60
// words, and every 50th a sentence of 1,500 words without a full stop.
func hugeParagraph(size int) string {
	rng := rand.New(rand.NewPCG(4, 1))
	words := strings.Fields("the revenue of Acme Corp rose to $4.2 billion in Q3 2025 while margins held at 12.4% and headcount reached 12,400")
	var b strings.Builder
	for n := 0; b.Len() < size; n++ {
		if n > 0 {
			b.WriteByte(' ')
		}
		length := 3 + rng.IntN(58)
		if n%50 == 49 {
			length = 1500
		}
		for w := range length {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		if length < 1500 {
			b.WriteString(".")
		}
	}
	return b.String()
}

// TestSplitHugeTable cuts a 5,000-row table, the size that once became one
// chunk of 72,680 tokens.
func TestSplitHugeTable(t *testing.T) {
	const (
		intro  = "Revenue of every store in 2025, in thousands of dollars, unaudited:"
		title  = "Table 7: Revenue by store"
		header = "| store | city | revenue | margin |\n|---|---|---:|---:|\n"
		note   = "Source: company filings."
	)
	rng := rand.New(rand.NewPCG(9, 9))
	var rows []string
	for i := range 5000 {
		rows = append(rows, fmt.Sprintf("| S%04d | %s | %d | %.1f%% |", i, []string{"Lyon", "Osaka", "Quito", "Perth"}[rng.IntN(4)], rng.IntN(100000), rng.Float64()*30))
	}
	text := "Annual report.\n\n" + intro + "\n\n" + title + "\n" + header + strings.Join(rows, "\n") + "\n\n" + note + "\n\nClosing words."
	pieces := Split(text, DefaultMaxTokens)
	checkPieces(t, text, DefaultMaxTokens, pieces)
	if len(pieces) < 3 || pieces[0].Text != "Annual report." || pieces[len(pieces)-1].Text != "Closing words." {
		t.Fatalf("the paragraphs around the table are not pieces of their own: %d pieces", len(pieces))
	}
	parts := pieces[1 : len(pieces)-1]
	if len(parts) < 2 {
		t.Fatalf("table in %d parts", len(parts))
	}
	var got []string
	for i, p := range parts {
		if p.Kind != KindTable || p.Split != SplitRow {
			t.Errorf("part %d: kind %s, cut %q", i, p.Kind, p.Split)
		}
		body := p.Text
		if i == 0 {
			if want := intro + "\n\n" + title + "\n" + header; !strings.HasPrefix(p.Text, want) || p.Header != 0 {
				t.Errorf("first part does not start with the intro, title and header: %.200q", p.Text)
			}
			body = strings.TrimPrefix(p.Text, intro+"\n\n"+title+"\n"+header)
		} else {
			if !strings.HasPrefix(p.Text, header) || p.Header != len(header) {
				t.Errorf("part %d does not start with the header (Header %d): %.100q", i, p.Header, p.Text)
			}
			body = p.Text[p.Header:]
		}
		if i == len(parts)-1 {
			if !strings.HasSuffix(body, "\n\n"+note) {
				t.Errorf("last part does not end with the note: %q", body[max(0, len(body)-100):])
			}
			body = strings.TrimSuffix(body, "\n\n"+note)
		}
		got = append(got, strings.Split(body, "\n")...)
	}
	// Every row once, in order.
	if !slices.Equal(got, rows) {
		t.Errorf("the parts hold %d rows, want the %d rows in order", len(got), len(rows))
	}
	t.Logf("%d parts", len(parts))
}

// TestSplitHugeWord cuts a 1.4 MB word, the size that once kept the stage
// busy for minutes, between tokens.
func TestSplitHugeWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	var b strings.Builder
	alphabet := []string{"é", "日", "ж", "🙂", "-", "7"}
	for b.Len() < 200_000 {
		if rng.IntN(4) == 0 {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		} else {
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
	}
	for name, word := range map[string]string{"letters": randomWord(3, 1_400_000), "mixed": b.String()} {
		t.Run(name, func(t *testing.T) {
			pieces := Split(word, DefaultMaxTokens)
			checkPieces(t, word, DefaultMaxTokens, pieces)
			var texts []string
			sum := 0
			for _, p := range pieces {
				if p.Split != SplitWord {
					t.Fatalf("piece cut by %q, want %q", p.Split, SplitWord)
				}
				texts = append(texts, p.Text)
				sum += p.Tokens
			}
			if strings.Join(texts, "") != word {
				t.Fatal("the pieces are not the word")
			}
			// Cut between its tokens, one piece of the pre-tokenizer
			// encodes as the tokens of its parts: BPE never merges across
			// a boundary that survives to the end.
			if n := CountTokens(word); name == "letters" && sum != n {
				t.Errorf("the pieces count %d tokens, the word %d", sum, n)
			}
			t.Logf("%d bytes in %d pieces", len(word), len(pieces))
		})
	}
}

// FuzzSplit splits any text at any budget: no panic, pieces within the
// budget and counted exactly, all the text kept, valid UTF-8 kept valid.
func FuzzSplit(f *testing.F) {
	f.Add("", uint16(0))
	f.Add("One paragraph.\n\nTwo. Sentences here!\n\n# Head\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nNote: x.", uint16(5))
	f.Add("```\nx\n\ny\n```\n\nz", uint16(1))
	f.Add("| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n| 3 | 4 |\r\n", uint16(9))
	f.Add("他说。我们走吧！好的？ naïve 🙂🙂 Привет, мир! مرحبا بالعالم", uint16(3))
	f.Add("\xff\xfe a\xe2\x82 b.\n\n\xed\xa0\x80 c", uint16(2))
	f.Add(demo.Generate(0, 0)[0].Text, uint16(40))
	f.Add(corpus(rand.New(rand.NewPCG(1, 7))), uint16(16))
	f.Add(hugeParagraph(3000), uint16(30))
	rows := []string{"Table 1: Big\n\n| k | v |\n|---|---|"}
	for i := range 300 {
		rows = append(rows, fmt.Sprintf("| k%d | %d |", i, i*i))
	}
	f.Add(strings.Join(rows, "\n")+"\n\nNote: none.", uint16(50))
	h := hostile(3000)
	for _, name := range slices.Sorted(maps.Keys(h)) {
		f.Add(h[name], uint16(100))
	}
	f.Fuzz(func(t *testing.T, text string, budget uint16) {
		max := 1 + int(budget%1000)
		checkPieces(t, text, max, Split(text, max))
	})
}
