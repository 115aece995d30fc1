package chunk

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// checkWindows checks what holds of any SplitWindows result: verbatim
// spans advancing in order, exact token counts, windows within max (unless
// one rune is over it), every non-space rune in some window, no window
// starting or ending with whitespace, and Split set as documented. It
// returns the overlaps, in tokens, between consecutive windows.
func checkWindows(t *testing.T, text string, max int, pieces []Piece) []int {
	t.Helper()
	covered := make([]bool, len(text))
	var overlaps []int
	for i, p := range pieces {
		if p.Text != text[p.Start:p.End] || p.Header != 0 {
			t.Fatalf("window %d: Text is not text[%d:%d]", i, p.Start, p.End)
		}
		if i > 0 && (p.Start <= pieces[i-1].Start || p.End <= pieces[i-1].End) {
			t.Fatalf("window %d [%d:%d] does not advance past [%d:%d]", i, p.Start, p.End, pieces[i-1].Start, pieces[i-1].End)
		}
		if n := CountTokens(p.Text); n != p.Tokens {
			t.Fatalf("window %d: Tokens %d, counted %d", i, p.Tokens, n)
		}
		if p.Tokens > max && utf8.RuneCountInString(p.Text) > 1 {
			t.Errorf("window %d: %d tokens over %d", i, p.Tokens, max)
		}
		r0, _ := utf8.DecodeRuneInString(p.Text)
		r1, _ := utf8.DecodeLastRuneInString(p.Text)
		if unicode.IsSpace(r0) || unicode.IsSpace(r1) {
			t.Errorf("window %d starts or ends with whitespace: %q", i, p.Text)
		}
		want := SplitWindow
		if len(pieces) == 1 {
			want = SplitNone
		}
		if p.Split != want {
			t.Errorf("window %d: Split %q, want %q", i, p.Split, want)
		}
		if i > 0 {
			end := pieces[i-1].End
			if end < p.Start {
				end = p.Start // no overlap at all
			}
			overlaps = append(overlaps, CountTokens(text[p.Start:end]))
		}
		for k := p.Start; k < p.End; k++ {
			covered[k] = true
		}
	}
	for i, r := range text {
		if !covered[i] && !unicode.IsSpace(r) {
			t.Fatalf("rune %q at %d is in no window", r, i)
		}
	}
	return overlaps
}

// checkGrade checks the GRADE promises on a text where they are all
// attainable (prose): every overlap exactly overlap tokens, every window
// within [min, max], the last included.
func checkGrade(t *testing.T, name, text string, min, max, overlap int) []Piece {
	t.Helper()
	pieces := SplitWindows(text, min, max, overlap)
	for i, o := range checkWindows(t, text, max, pieces) {
		if o != overlap {
			t.Errorf("%s: windows %d and %d share %d tokens, want exactly %d: %q", name, i, i+1, o, overlap, text[pieces[i+1].Start:pieces[i].End])
		}
	}
	if CountTokens(text) <= max {
		if len(pieces) != 1 {
			t.Errorf("%s: a text within max cut into %d windows", name, len(pieces))
		}
		return pieces
	}
	for i, p := range pieces {
		if p.Tokens > max || p.Tokens < min && i < len(pieces)-1 {
			t.Errorf("%s: window %d of %d has %d tokens, want %d-%d", name, i, len(pieces), p.Tokens, min, max)
		}
	}
	// The last window reaches min whenever some end of the window before
	// it allows that: when the rest of the text from that window's start
	// has at least 2*min-overlap tokens.
	n := len(pieces)
	if last := pieces[n-1]; last.Tokens < min {
		if rest := CountTokens(text[pieces[n-2].Start:last.End]); rest >= 2*min-overlap {
			t.Errorf("%s: last window of %d tokens, although the last two could have had %d-%d each (%d tokens)", name, last.Tokens, min, max, rest)
		}
	}
	return pieces
}

func TestSplitWindowsProse(t *testing.T) {
	b, err := os.ReadFile("testdata/golden/prose.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	pieces := checkGrade(t, "prose", text, GradeMinTokens, GradeMaxTokens, GradeOverlapTokens)
	if len(pieces) < 4 {
		t.Fatalf("%d windows of a %d-token text", len(pieces), CountTokens(text))
	}
	// Prose has sentence ends everywhere: no window ends inside a
	// sentence, and those that can end at a paragraph do.
	for i, p := range pieces {
		if r, _ := utf8.DecodeLastRuneInString(p.Text); r != '.' {
			t.Errorf("window %d ends inside a sentence: %q", i, p.Text[len(p.Text)-30:])
		}
	}
	// Other bounds.
	for _, c := range [][3]int{{64, 128, 20}, {100, 200, 50}, {200, 210, 30}, {40, 300, 0}} {
		checkGrade(t, fmt.Sprint(c), text, c[0], c[1], c[2])
	}
}

func TestSplitWindowsCorpus(t *testing.T) {
	for seed := range uint64(20) {
		text := corpus(rand.New(rand.NewPCG(seed, 7)))
		pieces := checkGrade(t, fmt.Sprintf("seed %d", seed), text, GradeMinTokens, GradeMaxTokens, GradeOverlapTokens)
		checkWindowKinds(t, text, pieces)
	}
}

// checkWindowKinds checks that a window is of kind table exactly when it
// reaches into a table.
func checkWindowKinds(t *testing.T, text string, pieces []Piece) {
	t.Helper()
	for i, p := range pieces {
		holds := false
		for _, para := range paragraphs(text) {
			if isTable(para.lines) && para.start < p.End && p.Start < para.end {
				holds = true
			}
		}
		if holds != (p.Kind == KindTable) {
			t.Errorf("window %d of kind %s, holds a table: %v", i, p.Kind, holds)
		}
	}
}

func TestSplitWindowsSmall(t *testing.T) {
	if got := SplitWindows("", 128, 256, 50); len(got) != 0 {
		t.Errorf("empty text: %d windows", len(got))
	}
	if got := SplitWindows(" \n\n\t", 128, 256, 50); len(got) != 0 {
		t.Errorf("blank text: %d windows", len(got))
	}
	// Within max: one piece, however short, not marked as a window.
	got := SplitWindows("  Short text.\n\nTwo paragraphs.\n", 128, 256, 50)
	if len(got) != 1 || got[0].Text != "Short text.\n\nTwo paragraphs." || got[0].Split != SplitNone || got[0].Kind != KindText {
		t.Errorf("short text: %+v", got)
	}
	// The tail: 300 tokens of one-token words. Greedy windows of 256 would
	// leave a last window of 94; the first ends early enough instead.
	text := strings.TrimSpace(strings.Repeat(" the", 300))
	ps := checkGrade(t, "tail", text, 128, 256, 50)
	if len(ps) != 2 {
		t.Errorf("300 tokens in %d windows, want 2", len(ps))
	}
	// A word of many tokens is cut between tokens, overlaps included.
	word := randomWord(5, 20_000)
	ps = SplitWindows(word, 128, 256, 50)
	for i, o := range checkWindows(t, word, 256, ps) {
		if o < 50 {
			t.Errorf("long word: windows %d and %d share %d tokens, fewer than 50", i, i+1, o)
		}
	}
}

// TestSplitWindowsHostile runs the windowing over texts built to break
// tokenizers; it checks the invariants only, overlaps and sizes being best
// effort there.
func TestSplitWindowsHostile(t *testing.T) {
	for name, text := range hostile(20_000) {
		t.Run(name, func(t *testing.T) {
			checkWindows(t, text, 256, SplitWindows(text, 128, 256, 50))
		})
	}
}

// TestSplitWindowsTinyBounds windows short strings of awkward runes (a
// token across two runes, a word of more tokens alone than after a space,
// invalid bytes) in windows of one and two tokens: no window of several
// runes may exceed the bound.
func TestSplitWindowsTinyBounds(t *testing.T) {
	pool := []string{"🙂", "他", "说", "。", "a", "b", " ", "\n", "\xff", "\xe2\x82", "é", "ü", "Привет", "مر", "23", ".", "!", "\xed\xa0\x80", "the", "…", "’"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		var b strings.Builder
		for n := 1 + r.IntN(4); n > 0; n-- {
			b.WriteString(pool[r.IntN(len(pool))])
		}
		text := b.String()
		for _, max := range []int{1, 2, 3} {
			for _, p := range SplitWindows(text, 1, max, 0) {
				if p.Tokens > max && utf8.RuneCountInString(p.Text) > 1 {
					t.Fatalf("%q within %d: window %q has %d tokens", text, max, p.Text, p.Tokens)
				}
			}
		}
	}
}

func FuzzSplitWindows(f *testing.F) {
	f.Add("One two three. Four five six.\n\nSeven eight.", uint16(3), uint16(8), uint16(1))
	f.Add(corpus(rand.New(rand.NewPCG(2, 7))), uint16(128), uint16(256), uint16(50))
	f.Add("他说。我们走吧！好的？ naïve 🙂🙂 Привет, мир! مرحبا بالعالم", uint16(4), uint16(6), uint16(2))
	f.Add("\xff\xfe a\xe2\x82 b.\n\n\xed\xa0\x80 c", uint16(1), uint16(2), uint16(0))
	f.Add(hugeParagraph(3000), uint16(20), uint16(40), uint16(10))
	f.Add(" bü", uint16(1), uint16(0), uint16(0)) // "bü" is two tokens, " bü" one
	f.Fuzz(func(t *testing.T, text string, lo, hi, overlap uint16) {
		max := 1 + int(hi%600)
		checkWindows(t, text, max, SplitWindows(text, int(lo), max, int(overlap)))
	})
}

func BenchmarkSplitProfiles(b *testing.B) {
	text := corpus(rand.New(rand.NewPCG(1, 7)))
	b.Run("rare", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			Split(text, DefaultMaxTokens)
		}
	})
	b.Run("grade", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			SplitWindows(text, GradeMinTokens, GradeMaxTokens, GradeOverlapTokens)
		}
	})
}
