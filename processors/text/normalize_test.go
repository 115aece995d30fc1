package text

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// squadNormalize is Normalize as first written, the SQuAD normalization
// one string per step. Normalize still agrees with it on every text without
// digits, % signs, the word "percent" or typographic characters
// (squadAgrees), where the changes of docs/methods.md do not apply.
func squadNormalize(s string) string {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if isASCIIPunct(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(referenceRemoveArticles(s)), " ")
}

// squadAgrees reports whether s is a text on which Normalize must equal
// squadNormalize.
func squadAgrees(s string) bool {
	if strings.ContainsFunc(s, func(r rune) bool {
		_, typographic := referenceFold[r]
		return typographic || '0' <= r && r <= '9' || r == '%'
	}) {
		return false
	}
	return !strings.Contains(squadNormalize(s), "percent")
}

// referenceFold is the table of docs/methods.md, written apart from
// foldRune: the ASCII form of each typographic character; a space marked
// groups also groups thousands between digits, and "" removes the rune.
var referenceFold = map[rune]string{
	'‘': "'", '’': "'", '‚': "'", '‛': "'", '′': "'", '‹': "'", '›': "'", 'ʼ': "'", '´': "'", '＇': "'",
	'“': `"`, '”': `"`, '„': `"`, '‟': `"`, '″': `"`, '«': `"`, '»': `"`, '＂': `"`,
	'‐': "-", '‑': "-", '‒': "-", '–': "-", '−': "-", '﹣': "-", '－': "-",
	'—': " ", '―': " ", '\u200b': " ",
	'\u00a0': "groups", '\u2007': "groups", '\u2009': "groups", '\u202f': "groups",
	'\u00ad': "", '\u2060': "", '\ufeff': "",
}

// referenceNormalize is Normalize one step at a time over a slice of runes,
// in the order docs/methods.md gives: typographic forms, numbers, lowercase
// and ASCII punctuation (step 1, one rune at a time, since what a
// punctuation mark becomes depends on its neighbours in s and on what was
// kept before it), then articles, thousands commas, "percent" and
// whitespace. The two-pass Normalize must agree with it on every input.
func referenceNormalize(s string) string {
	rs := []rune(s) // invalid UTF-8 becomes U+FFFD, as in strings.ToLower
	digit := func(k int) bool { return k >= 0 && k < len(rs) && '0' <= rs[k] && rs[k] <= '9' }
	group := func(k int) bool { return digit(k) && digit(k+1) && digit(k+2) && !digit(k+3) }
	number := func(k int) bool {
		if k < len(rs) && rs[k] == '$' {
			k++
		}
		if k < len(rs) && rs[k] == '.' {
			k++
		}
		return digit(k)
	}
	var out []rune
	lastWord := func() bool { return len(out) > 0 && isWordRune(out[len(out)-1]) }
	for k, r := range rs {
		if f, ok := referenceFold[r]; ok {
			switch {
			case f == "groups" && digit(k-1) && group(k+1):
				continue
			case f == "groups":
				r = ' '
			case f == "":
				continue
			default:
				r = []rune(f)[0]
			}
		}
		r = unicode.ToLower(r)
		switch {
		case unicode.IsSpace(r):
			out = append(out, ' ')
		case !isASCIIPunct(r):
			out = append(out, r)
		case r == '.' && digit(k+1) && digit(k-1):
			out = append(out, '.')
		case r == '.' && digit(k+1) && !lastWord():
			out = append(out, '0', '.')
		case strings.ContainsRune(",/:", r) && digit(k-1) && digit(k+1):
			out = append(out, r)
		case r == '-' && number(k+1) && (digit(k-1) || !lastWord()):
			out = append(out, '-')
		case r == '$' && len(out) > 0 && 'a' <= out[len(out)-1] && out[len(out)-1] <= 'z' && number(k+1):
			out = append(out, ' ')
		case r == '%':
			out = append(out, []rune(" per cent ")...)
		}
	}
	t := referenceRemoveArticles(string(out))
	rs = []rune(t)
	out = out[:0]
	for k, r := range rs {
		if r == ',' && group(k+1) {
			continue
		}
		out = append(out, r)
	}
	t = referenceReplaceWord(string(out), "percent", "per cent")
	return strings.Join(strings.Fields(t), " ")
}

// referenceRemoveArticles replaces every article of s with a space, with
// word boundaries judged by isWordRune.
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

// referenceReplaceWord replaces every occurrence of the word w in s, with
// word boundaries judged by isWordRune.
func referenceReplaceWord(s, w, by string) string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); {
		if i == 0 || !isWordRune(rs[i-1]) {
			end := i + len(w)
			if end <= len(rs) && string(rs[i:end]) == w && (end == len(rs) || !isWordRune(rs[end])) {
				b.WriteString(by)
				i = end
				continue
			}
		}
		b.WriteRune(rs[i])
		i++
	}
	return b.String()
}

// checkNormalize compares Normalize(s) with both references and checks that
// normalizing again changes nothing.
func checkNormalize(t *testing.T, s string) bool {
	t.Helper()
	got := Normalize(s)
	if want := referenceNormalize(s); got != want {
		t.Errorf("Normalize(%q) = %q, reference %q", s, got, want)
		return false
	}
	if squadAgrees(s) {
		if want := squadNormalize(s); got != want {
			t.Errorf("Normalize(%q) = %q, SQuAD normalization %q", s, got, want)
			return false
		}
	}
	if again := Normalize(got); again != got {
		t.Errorf("Normalize(%q) = %q, normalized again %q", s, got, again)
		return false
	}
	return true
}

// pieces are fragments that exercise every branch: articles at every kind of
// boundary, ASCII punctuation inside would-be articles ("t.he"), case,
// Unicode spaces, marks, letters and punctuation, characters whose lowercase
// is ASCII (Kelvin sign) or longer, invalid UTF-8 and controls; and for
// numbers, digits next to every mark that may belong to a number, groups of
// three, signs, percent in all its spellings and typographic forms.
var pieces = []string{
	"the", "The", "THE", "a", "A", "an", "An", "t.he", "a-n", "th", "e", "n", "x", "_", "1", "é", "\u0301", "ß",
	"\u212a", "\u0130", "İ", "Σ", "日本", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u0085", "\u00a0", "\u2003",
	"\u3000", ".", ",", "'", "$", "-", "—", "«", "\x00", "\x7f", "\xff", "\xe2\x82", "\ufffd", "🙂",
	"0", "4", "400", "12", ".5", "1,400", "%", "percent", "Per", "cent", "PERCENT", "/", ":", "+", "US",
	"’", "“", "–", "−", "‑", "\u00ad", "\u202f", "\u2009", "\u200b", "\ufeff",
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
		// Tokens as first written: runs of word runes, here plus the
		// characters a number keeps, of the reference normalization.
		return strings.FieldsFunc(norm.NFD.String(referenceNormalize(s)), func(r rune) bool {
			return !isWordRune(r) && !strings.ContainsRune(".,-/:", r)
		})
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
	for _, s := range []string{"", "  The  Answer ", "$4.2 billion.", "café a thé", "e\u0301a", "t.he x", "\xffthe\u00a0a",
		"−4.2%", "1,400.5", "1\u202f400", "US$.5", "Macy’s", "x—y", "2025–10–01", "a 4.2 per cent"} {
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
