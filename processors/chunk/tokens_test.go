package chunk

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/robustream/robustream/sources/demo"
)

// CountTokens reimplements tiktoken-go's EncodeOrdinary as a count. The tests
// below hold it to tiktoken-go itself, the reference, token id by token id
// (not only the count), so a pre-tokenizer mismatch that happens to leave
// the count unchanged is still caught.

var (
	refOnce sync.Once
	ref     *tiktoken.Tiktoken
)

func reference(t testing.TB) *tiktoken.Tiktoken {
	t.Helper()
	refOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		var err error
		if ref, err = tiktoken.GetEncoding(Encoding); err != nil {
			panic(err)
		}
	})
	return ref
}

// encodeIDs is CountTokens with the ids kept: the same pieces and merges,
// mapped to ranks (a cl100k token id is its rank).
func encodeIDs(t testing.TB, text string) []int {
	t.Helper()
	ranks, err := vocabulary()
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	var ids []int
	for i := 0; i < len(text); {
		j := nextPiece(text, i)
		if j <= i || j > len(text) {
			t.Fatalf("nextPiece(%q, %d) = %d", text, i, j)
		}
		piece := text[i:j]
		if r, ok := ranks[piece]; ok {
			ids = append(ids, r)
		} else {
			b := bpeMerge(ranks, piece, nil)
			for k := 0; k+1 < len(b); k++ {
				ids = append(ids, ranks[piece[b[k]:b[k+1]]])
			}
		}
		i = j
	}
	return ids
}

// same checks text against the reference and reports whether it agreed.
func same(t testing.TB, text string) bool {
	t.Helper()
	want := reference(t).EncodeOrdinary(text)
	if got := CountTokens(text); got != len(want) {
		t.Errorf("CountTokens(%q) = %d, tiktoken-go %d", text, got, len(want))
		return false
	}
	if len(want) == 0 {
		want = nil
	}
	if got := encodeIDs(t, text); !slices.Equal(got, want) {
		t.Errorf("ids of %q:\n got %v\nwant %v", text, got, want)
		return false
	}
	return true
}

func TestCountTokensEdgeCases(t *testing.T) {
	cases := []string{
		"", "a", " ", "\n", "hello world", "tiktoken is great!", "<|endoftext|>", "<|endoftext|> <|fim_prefix|>",
		// contractions, any case, and near misses
		"'s 't 're 've 'm 'll 'd", "'S 'T 'RE 'Ve 'M 'LL 'D", "I'm you'll he'd they're we've it's can't",
		"'", "''", "'l", "'r", "'v", "'x", "'sam", "'Lloyd", "' s", "'\u0130", "'\u212a", "'\u017f", "don'T", "rock'n'roll",
		// letters with a prefix rune
		"(word", "((word", "\"quoted\"", "-dash", "\tword", "\u00a0word", "\u3000word", "\u0301word", "_x", "$x",
		// numbers
		"1", "12", "123", "1234", "1234567", "3.14159", "1,000,000", "x1y22z333", "\u0661\u0662\u0663\u0664", "\u00b2\u00b3", "\u2167\u2168", "1st 2nd",
		// punctuation runs and line breaks after them
		"!", "!!!", " !!!", "  !!!", "?!\n", "...\r\n\r\nx", "a.\n\nb", "--- |:--|", "| a | b |\n|---|---|\n| 1 | 2 |",
		// whitespace
		"  ", "   ", "a  b", "a   b", "a \n b", "a\n\n\nb", "a \n\n  b", " \r\n ", "\r\n", "\r", "\t\t(x", "\t", "\t \t",
		"trailing   ", "trailing\n  ", "\v\f\u0085\u2028\u2029x", "\u00a0\u00a0x", "\u3000\u3000", "x \u00a0y", " \u0085x",
		// unicode
		"naïve café résumé", "nai\u0308ve", "Straße ΑΒΓ αβγ Ǆǅǆ", "日本語のテキスト、漢字。", "中文 测试", "한국어 텍스트",
		"Привет, мир!", "مرحبا بالعالم", "שלום עולם", "हिन्दी", "ไทย", "🙂", "👍🏽", "👨‍👩‍👧‍👦 family", "🇫🇷🇩🇪", "a🙂b", " 🙂🙂🙂",
		"\u200b\u200c\u200d", "\ufeffBOM", "\U0001d400\U0001d401", "ℌ𝔢𝔩𝔩𝔬",
		// invalid UTF-8 and surrogate-like bytes: the reference sees U+FFFD
		"\xff", "a\xffb", "\xe2\x82", "ok\xc3", "\xed\xa0\x80", "\x80\x80 word",
		// controls and NUL
		"\x00", "a\x00b", "\x1b[0m", "\x7f",
		// long runs
		strings.Repeat(" ", 300), strings.Repeat("\n", 50), strings.Repeat("a", 500), strings.Repeat("9", 100),
		strings.Repeat("ab", 200), strings.Repeat("🙂", 40), strings.Repeat("-", 120), strings.Repeat(" \n", 40) + "x",
	}
	for _, c := range cases {
		same(t, c)
	}
}

// TestCountTokensSmallStrings checks every string of up to four runes over
// an alphabet with one or more runes of every class the pre-tokenizer
// distinguishes, so each alternative of the pattern meets each neighbour.
func TestCountTokensSmallStrings(t *testing.T) {
	alphabet := []rune{'a', 'S', 'é', '日', '1', '\u0663', '\'', '.', '!', '\u0301', ' ', '\t', '\u00a0', '\n', '\r', '\u2028'}
	if testing.Short() {
		alphabet = alphabet[:10]
	}
	var walk func(prefix []rune, depth int)
	fails := 0
	walk = func(prefix []rune, depth int) {
		if fails > 20 {
			return
		}
		if !same(t, string(prefix)) {
			fails++
		}
		if depth == 0 {
			return
		}
		for _, r := range alphabet {
			walk(append(prefix, r), depth-1)
		}
	}
	walk(nil, 4)

	// Contractions: an apostrophe followed by every short combination of
	// their letters, in both cases, and of runes that end or extend them.
	alphabet = []rune{'s', 't', 'r', 'e', 'v', 'm', 'l', 'd', 'S', 'E', 'L', 'x', ' ', '\''}
	for _, prefix := range []string{"'", "a'", " '"} {
		walk([]rune(prefix), 3)
	}
}

// TestCountTokensClassBoundaries checks, around every rune where the class
// changes, that the rune plays its class's part in every alternative.
func TestCountTokensClassBoundaries(t *testing.T) {
	var runes []rune
	prev := slowClass(0)
	for r := rune(1); r <= unicode.MaxRune; r++ {
		if c := slowClass(r); c != prev {
			runes = append(runes, r-1, r)
			prev = c
		}
	}
	// Runes unicode.ToLower maps into ASCII play a part in contractions.
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if l := unicode.ToLower(r); l < utf8.RuneSelf {
			runes = append(runes, r)
		}
	}
	t.Logf("%d runes", len(runes))
	fails := 0
	for _, r := range runes {
		s := string(r)
		for _, text := range []string{s, s + s, "a" + s + "b", " " + s + "x", s + "1", "1" + s + s + s + s, "'" + s, s + " ", s + "  x", " " + s + "!", s + "\n\nx"} {
			if !same(t, text) {
				fails++
			}
		}
		if fails > 20 {
			t.Fatal("too many failures")
		}
	}
}

// TestCountTokensDemoCorpus compares whole demo documents, every paragraph
// span the packer may count, and random byte ranges (cut anywhere, even
// inside a rune).
func TestCountTokensDemoCorpus(t *testing.T) {
	periods := []int{0, 1, 5, 11}
	if testing.Short() {
		periods = periods[:1]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	docs := 0
	for seed := range int64(3) {
		for _, period := range periods {
			for _, d := range demo.Generate(seed, period) {
				docs++
				text := d.Text
				if !same(t, text) {
					t.FailNow()
				}
				ps := paragraphs(text)
				for i, p := range ps {
					same(t, text[p.start:p.end])
					if i+1 < len(ps) {
						same(t, text[p.start:ps[i+1].start])
						same(t, text[p.end:ps[i+1].start])
					}
				}
				for range 20 {
					a, b := rng.IntN(len(text)+1), rng.IntN(len(text)+1)
					if a > b {
						a, b = b, a
					}
					same(t, text[a:b])
				}
			}
		}
	}
	if docs == 0 {
		t.Fatal("demo corpus is empty")
	}
}

func FuzzCountTokens(f *testing.F) {
	for _, s := range []string{"hello world", "I'll  be\n\n  back!!\r\n", "日本語 123456 🙂", "'S\u00a0x\t\t(y", "\xff\xfe a", "| a |\n|---|"} {
		f.Add(s)
	}
	for _, d := range demo.Generate(0, 0)[:3] {
		f.Add(d.Text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		same(t, s)
	})
}

func BenchmarkCountTokens(b *testing.B) {
	var texts []string
	size := 0
	for _, d := range demo.Generate(0, 3) {
		texts = append(texts, d.Text)
		size += len(d.Text)
	}
	b.Run("robustream", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, s := range texts {
				CountTokens(s)
			}
		}
	})
	b.Run("tiktoken-go", func(b *testing.B) {
		enc := reference(b)
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, s := range texts {
				_ = enc.EncodeOrdinary(s)
			}
		}
	})
}

func ExampleCountTokens() {
	fmt.Println(CountTokens("tiktoken is great!"))
	// Output: 6
}
