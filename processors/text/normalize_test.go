package text

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// referenceNormalize is Normalize as first written: one string per step. The
// two-pass Normalize must agree with it on every input.
func referenceNormalize(s string) string {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if isASCIIPunct(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(referenceRemoveArticles(s)), " ")
}

func referenceRemoveArticles(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); {
		if i == 0 || !isWordRune(rs[i-1]) {
			if n := referenceArticleAt(rs, i); n > 0 {
				b.WriteByte(' ')
				i += n
				continue
			}
		}
		b.WriteRune(rs[i])
		i++
	}
	return b.String()
}

func referenceArticleAt(rs []rune, i int) int {
	for _, art := range [...]string{"the", "an", "a"} {
		n := len(art)
		if i+n > len(rs) || string(rs[i:i+n]) != art {
			continue
		}
		if i+n == len(rs) || !isWordRune(rs[i+n]) {
			return n
		}
	}
	return 0
}

func checkNormalize(t *testing.T, s string) bool {
	t.Helper()
	if got, want := Normalize(s), referenceNormalize(s); got != want {
		t.Errorf("Normalize(%q) = %q, reference %q", s, got, want)
		return false
	}
	return true
}

// pieces are fragments that exercise every branch: articles at every kind of
// boundary, ASCII punctuation inside would-be articles ("t.he"), case,
// Unicode spaces, marks, letters and punctuation, characters whose lowercase
// is ASCII (Kelvin sign) or longer, invalid UTF-8 and controls.
var pieces = []string{
	"the", "The", "THE", "a", "A", "an", "An", "t.he", "a-n", "th", "e", "n", "x", "_", "1", "é", "\u0301", "ß",
	"\u212a", "\u0130", "İ", "Σ", "日本", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u0085", "\u00a0", "\u2003",
	"\u3000", ".", ",", "'", "$", "-", "—", "«", "\x00", "\x7f", "\xff", "\xe2\x82", "\ufffd", "🙂",
}

func TestNormalizeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fails := 0
	for range 200000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if !checkNormalize(t, b.String()) {
			fails++
		}
		if fails > 20 {
			t.Fatal("too many failures")
		}
	}
	// Every rune, alone and around an article.
	for r := rune(0); r <= unicode.MaxRune; r += 1 + rune(rng.IntN(7)) {
		s := string(r)
		for _, text := range []string{s, "a" + s, s + "a", s + "the" + s, "an" + s + "x"} {
			if !checkNormalize(t, text) {
				fails++
			}
		}
		if fails > 20 {
			t.Fatal("too many failures")
		}
	}
	long := strings.Repeat("The cat, a dog and an owl — déjà vu! ", 40) // past the stack buffer
	checkNormalize(t, long)
	checkNormalize(t, long+"\xff")
}

func TestTokensAndAnswersMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gen := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	refTokens := func(s string) []string {
		return normalizedTokens(referenceNormalize(s))
	}
	for range 50000 {
		s := gen()
		if got, want := Tokens(s), refTokens(s); !slices.Equal(got, want) {
			t.Fatalf("Tokens(%q) = %q, reference %q", s, got, want)
		}
		accepted := []string{gen(), gen()}[:rng.IntN(3)]
		refCovered, refSeq := false, false
		for _, a := range accepted {
			n := referenceNormalize(a)
			refCovered = refCovered || n != "" && strings.Contains(referenceNormalize(s), n)
			tk := refTokens(a)
			refSeq = refSeq || len(tk) > 0 && ContainsRun(refTokens(s), tk)
		}
		if got := Covered(s, accepted); got != refCovered {
			t.Fatalf("Covered(%q, %q) = %v, reference %v", s, accepted, got, refCovered)
		}
		if got := TokenSeq(s, accepted); got != refSeq {
			t.Fatalf("TokenSeq(%q, %q) = %v, reference %v", s, accepted, got, refSeq)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "  The  Answer ", "$4.2 billion.", "café a thé", "e\u0301a", "t.he x", "\xffthe\u00a0a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNormalize(t, s)
	})
}

func BenchmarkNormalize(b *testing.B) {
	s := "Northwind Bank appointed Maria Lopez as chief financial officer in the third quarter. The bank is based in Oslo, and an analyst said revenue was $4.2 billion."
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			Normalize(s)
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			referenceNormalize(s)
		}
	})
}

func BenchmarkNormalizeCalibrate(b *testing.B) {
	s := strings.Repeat("Northwind Bank appointed Maria Lopez as chief financial officer in the third quarter. ", 30)
	b.SetBytes(int64(len(s)))
	b.Run("new", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			Normalize(s)
		}
	})
	b.Run("ToLower", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			_ = strings.ToLower(s)
		}
	})
}
