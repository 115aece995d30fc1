package chunk

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
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

// hostile are inputs that once made tokenizing or chunking slow or huge:
// single pieces of every class the pre-tokenizer knows, a table and mixed
// scripts. n is the length of each run in bytes, about.
func hostile(n int) map[string]string {
	return map[string]string{
		"letters":      randomWord(1, n),
		"a":            strings.Repeat("a", n),
		"digits":       strings.Repeat("1", n),
		"lt":           strings.Repeat("<", n),
		"spaces":       strings.Repeat(" ", n) + "x",
		"newlines":     strings.Repeat("\n", n),
		"crlf-spaces":  strings.Repeat(" \r\n", n/3),
		"e-acute":      strings.Repeat("é", n/2),
		"control":      strings.Repeat("\x01", n),
		"apostrophes":  strings.Repeat("'s", n/2),
		"mixed":        strings.Repeat("aé日1 <\n\u00a0Ж🙂", n/24),
		"random-bytes": randomBytes(n),
		"invalid":      strings.Repeat("\xff\xfe", n/2),
		"table":        strings.Repeat("| 12 | abc |\n", n/12),
	}
}

// randomWord is n random lowercase letters: one pre-tokenizer piece, the
// worst case of the merge.
func randomWord(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 99))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return string(b)
}

func randomBytes(n int) string {
	rng := rand.New(rand.NewPCG(5, 5))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return string(b)
}

// TestCountTokensLongPieces holds the heap merge to the reference on
// pieces long enough to take it, around its threshold and far beyond.
func TestCountTokensLongPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	lengths := []int{1, 2, heapMergeMin - 1, heapMergeMin, heapMergeMin + 1, 2 * heapMergeMin, 5000, 20000}
	for range 40 {
		lengths = append(lengths, 1+rng.IntN(5000))
	}
	for i, n := range lengths {
		w := randomWord(uint64(i), n)
		same(t, w)
		same(t, " "+w+"!")
		// Capitals and accents: multi-byte letters, other merges.
		same(t, strings.ToUpper(w[:n/2])+strings.ReplaceAll(w[n/2:], "e", "é"))
	}
	for name, s := range hostile(8000) {
		if !same(t, s) {
			t.Errorf("%s differs", name)
		}
	}
}

// TestMergeHeapMatchesScan compares the two merges directly on arbitrary
// byte strings, with small alphabets so that equal pairs and ties abound.
func TestMergeHeapMatchesScan(t *testing.T) {
	ranks, err := vocabulary()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 3))
	alphabets := []string{"a", "ab", "abc", "aeiou st", "01", " \n", "<>!", "\xe6\x97\xa5\xc3\xa9", "etaoinshrdlu"}
	for i := range 3000 {
		alpha := alphabets[i%len(alphabets)]
		b := make([]byte, rng.IntN(400))
		for k := range b {
			b[k] = alpha[rng.IntN(len(alpha))]
		}
		s := string(b)
		if got, want := heapMerge(ranks, s, nil), scanMerge(ranks, s, nil); !slices.Equal(got, want) {
			t.Fatalf("heapMerge(%q) = %v, scanMerge %v", s, got, want)
		}
	}
}

// TestTokenEnds checks the cut points of oversize words: in order, ending
// the text, at rune boundaries of the input (an invalid byte is a rune),
// one per token where no token ends inside a rune.
func TestTokenEnds(t *testing.T) {
	texts := []string{"", "a", "hello world", "supercalifragilistic", "naïve日本語🙂👨‍👩‍👧", "a\xffb\xe2\x82c", "\xff\xff\xff", randomWord(4, 3000)}
	for _, s := range hostile(2000) {
		texts = append(texts, s)
	}
	for _, s := range texts {
		ends := tokenEnds(s)
		if s == "" {
			if len(ends) != 0 {
				t.Errorf("tokenEnds(\"\") = %v", ends)
			}
			continue
		}
		runeStarts := map[int]bool{len(s): true}
		for i := 0; i < len(s); {
			runeStarts[i] = true
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
		}
		prev := 0
		for _, e := range ends {
			if e <= prev || !runeStarts[e] {
				t.Fatalf("tokenEnds(%.40q): %d after %d, rune start %v", s, e, prev, runeStarts[e])
			}
			prev = e
		}
		if prev != len(s) {
			t.Errorf("tokenEnds(%.40q) ends at %d of %d", s, prev, len(s))
		}
		if isASCII(s) && len(ends) != CountTokens(s) {
			t.Errorf("tokenEnds(%.40q): %d ends for %d tokens", s, len(ends), CountTokens(s))
		}
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func FuzzCountTokens(f *testing.F) {
	for _, s := range []string{"hello world", "I'll  be\n\n  back!!\r\n", "日本語 123456 🙂", "'S\u00a0x\t\t(y", "\xff\xfe a", "| a |\n|---|"} {
		f.Add(s)
	}
	for _, d := range demo.Generate(0, 0)[:3] {
		f.Add(d.Text)
	}
	h := hostile(300)
	for _, name := range slices.Sorted(maps.Keys(h)) {
		f.Add(h[name])
	}
	ranks, err := vocabulary()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// The reference merges in quadratic time: keep inputs short
		// enough for it, the long-piece tests cover the rest.
		if len(s) > 1<<14 {
			s = s[:1<<14]
		}
		same(t, s)
		// The whole input as one piece, whatever the pre-tokenizer would
		// make of it: the heap merge against the scan on any bytes.
		if len(s) > 2048 {
			s = s[:2048]
		}
		if got, want := heapMerge(ranks, s, nil), scanMerge(ranks, s, nil); !slices.Equal(got, want) {
			t.Errorf("heapMerge(%q) = %v, scanMerge %v", s, got, want)
		}
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

// countTokensQuadratic is CountTokens with the scan merge for every piece,
// as it was before the heap merge: the baseline of the benchmarks below.
func countTokensQuadratic(text string) int {
	ranks, _ := vocabulary()
	n := 0
	for i := 0; i < len(text); {
		j := nextPiece(text, i)
		n += len(scanMerge(ranks, text[i:j], nil)) - 1
		i = j
	}
	return n
}

// BenchmarkCountTokensScaling counts one long word (no whitespace, a single
// piece) of growing size. Linear time shows as a flat ns/byte.
func BenchmarkCountTokensScaling(b *testing.B) {
	word := randomWord(1, 1_400_000)
	for _, n := range []int{50_000, 200_000, 800_000, 1_400_000} {
		s := word[:n]
		b.Run(fmt.Sprintf("%dKB", n/1000), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				CountTokens(s)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/byte")
		})
	}
}

// BenchmarkCountTokensVsQuadratic times the heap merge and the old scan
// merge on the same long words in the same loop, and reports their ratio.
// Sizes stay small: the scan takes seconds from 100 KB on.
func BenchmarkCountTokensVsQuadratic(b *testing.B) {
	for _, n := range []int{5_000, 20_000, 50_000} {
		s := randomWord(2, n)
		if CountTokens(s) != countTokensQuadratic(s) {
			b.Fatal("the merges disagree")
		}
		b.Run(fmt.Sprintf("%dKB", n/1000), func(b *testing.B) {
			var heap, scan time.Duration
			for b.Loop() {
				t0 := time.Now()
				CountTokens(s)
				t1 := time.Now()
				countTokensQuadratic(s)
				heap += t1.Sub(t0)
				scan += time.Since(t1)
			}
			b.ReportMetric(float64(heap.Nanoseconds())/float64(b.N)/float64(n), "heap-ns/byte")
			b.ReportMetric(float64(scan.Nanoseconds())/float64(b.N)/float64(n), "scan-ns/byte")
			b.ReportMetric(float64(scan)/float64(heap), "scan/heap")
		})
	}
}

// BenchmarkCountTokensHostile counts a megabyte of each hostile input: the
// pre-tokenizer and the merge stay linear on runs of every class.
func BenchmarkCountTokensHostile(b *testing.B) {
	h := hostile(1 << 20)
	for _, name := range slices.Sorted(maps.Keys(h)) {
		s := h[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				CountTokens(s)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s)), "ns/byte")
		})
	}
}

// BenchmarkMergeCrossover compares the scan and heap merges on short random
// words, which sets heapMergeMin.
func BenchmarkMergeCrossover(b *testing.B) {
	ranks, err := vocabulary()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{16, 32, 48, 64, 96, 128, 256} {
		words := make([]string, 256)
		for i := range words {
			words[i] = randomWord(uint64(i), n)
		}
		scratch := make([]int, 0, 4*n)
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			var heap, scan time.Duration
			for b.Loop() {
				t0 := time.Now()
				for _, w := range words {
					scanMerge(ranks, w, scratch[:0])
				}
				t1 := time.Now()
				for _, w := range words {
					heapMerge(ranks, w, scratch[:0])
				}
				scan += t1.Sub(t0)
				heap += time.Since(t1)
			}
			b.ReportMetric(float64(scan)/float64(heap), "scan/heap")
		})
	}
}
