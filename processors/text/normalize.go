package text

import (
	"unicode"
	"unicode/utf8"
)

// Normalize is the answer normalization every matcher applies
// (docs/methods.md, Answer matching and refusal detection): the SQuAD
// normalization, lowercase, remove ASCII punctuation, remove the articles a,
// an and the as whole words and collapse whitespace, with two changes made
// before it.
//
// Typographic characters are folded to their ASCII forms first (foldRune):
// curly quotes, apostrophes and primes become ' and ", so that "Macy’s"
// equals "Macy's"; hyphens, the en dash and the minus sign become -; the em
// dash, a clause break, becomes a space; Unicode spaces become spaces.
//
// Numbers keep the punctuation that makes them numbers, because SQuAD's
// normalization turns "4.2%" and "42%" into the same "42", which in finance
// text makes a wrong figure a correct answer:
//
//   - a . , / : or - between two digits is kept ("4.2", "3/4", "2025-10-01"),
//     except a comma, or a no-break, narrow, figure or thin space, that
//     groups thousands ("1,400" and "1 400" are "1400"; a plain space does
//     not, as "3 100 m" is two numbers);
//   - a - or . that starts a number after a non-word character is kept as a
//     sign or a decimal point, the latter with a leading zero ("-4.2",
//     ".5" is "0.5"; a + sign is dropped);
//   - % and the word "percent" are written "per cent", so "4.2%", "4.2
//     percent" and "4.2 per cent" are equal and differ from "4.2";
//   - $ is dropped as before, except that it separates a currency prefix
//     from the amount ("US$4.2" is "us 4.2").
//
// Scale words ("billion"), currency words and currency signs other than $
// are words or characters like any other, so "$4.2 billion" differs from
// "$42 billion" and from "$4.2 million".
//
// The reference finds articles with a regexp \b, which in Go (RE2) is
// ASCII-only: it would see a boundary between "é" and "a" and strip the "a"
// of "déa". Boundaries are therefore checked by hand with Unicode classes.
//
// Normalize is idempotent, and it looks across whitespace only to drop a
// thousands space between digits, so the normalization of texts joined at
// whitespace is their normalizations joined by single spaces (the
// answer-removed perturbation relies on that).
//
// It runs in two passes over stack buffers rather than one string per step:
// the judge, the question checks and answer removal normalize every answer
// and sentence they look at.
func Normalize(s string) string {
	var folded, out [256]byte
	b, w := folded[:0], out[:0]
	if len(s) > len(folded) {
		// Room for the text and a few expansions ("%" is "per cent"),
		// so that a long text costs one allocation per pass.
		b = make([]byte, 0, len(s)+len(s)/16+16)
	}
	b = foldText(b, s)
	if len(b) > len(out) {
		w = make([]byte, 0, len(b)+len(b)/16+16)
	}
	w = finishWords(w, b)
	if string(w) == s {
		return s // already normalized: spare the copy
	}
	return string(w)
}

// Results of foldRune that are not runes.
const (
	keepRune   = -1 // not folded: lowercase it and keep it
	dropRune   = -2 // invisible: remove it
	groupSpace = -3 // a space that may group thousands ("1 400")
)

// foldRune maps the typographic forms of quotes, apostrophes, dashes and
// spaces to the ASCII character that stands for them, which the rest of
// normalization then treats as if it had been typed.
//
// The hyphens, the figure and en dash and the minus sign join words and
// numbers as the ASCII hyphen-minus does ("2020–2025" is "2020-2025", "−4.2"
// is "-4.2"). The em dash and the horizontal bar only ever separate clauses
// ("revenue—$4.2 billion"), so they become a space: as a hyphen they would
// glue the answer to the word before it.
func foldRune(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032', '\u2039', '\u203a', '\u02bc', '\u00b4', '\uff07':
		return '\''
	case '\u201c', '\u201d', '\u201e', '\u201f', '\u2033', '\u00ab', '\u00bb', '\uff02':
		return '"'
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2212', '\ufe63', '\uff0d':
		return '-'
	case '\u2014', '\u2015', '\u200b':
		return ' '
	case '\u00a0', '\u2007', '\u2009', '\u202f':
		return groupSpace
	case '\u00ad', '\u2060', '\ufeff': // soft hyphen, word joiner, byte order mark
		return dropRune
	}
	return keepRune
}

// foldText is the first pass: it appends to b the text s folded to ASCII
// forms (foldRune), lowercased, with ASCII punctuation removed except where
// it belongs to a number (foldPunct) and Unicode whitespace written as an
// ASCII space. Invalid UTF-8 becomes U+FFFD, as in strings.ToLower.
func foldText(b []byte, s string) []byte {
	word := false // the last rune appended is a word rune
	for i := 0; i < len(s); {
		c, n := s[i], 1
		if unchanged[c] {
			// Most text is runs of lowercase letters, digits and
			// spaces: copy each run at once.
			j := i + 1
			for j < len(s) && unchanged[s[j]] {
				j++
			}
			b = append(b, s[i:j]...)
			word = s[j-1] != ' '
			i = j
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			n = size
			switch f := foldRune(r); f {
			case dropRune:
				i += n
				continue
			case groupSpace:
				if i > 0 && isDigit(s[i-1]) && groupAt(s, i+n) {
					i += n // a thousands separator: "1 400" is 1400
					continue
				}
				c = ' '
			case keepRune:
				r = unicode.ToLower(r)
				if unicode.IsSpace(r) {
					c = ' '
					break
				}
				b = utf8.AppendRune(b, r)
				word = slowIsWordRune(r)
				i += n
				continue
			default:
				c = byte(f)
			}
		}
		// c is ASCII here; it stands for s[i:i+n].
		switch {
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
			word = true
		case !asciiPunct[c]: // whitespace and control characters
			b = append(b, c)
			word = false
		default:
			b, word = foldPunct(b, word, s, i, i+n, c)
		}
		i += n
	}
	return b
}

// foldPunct handles the ASCII punctuation c found at s[i:next], after the
// text before it has been appended to b; word says whether the last rune
// appended is a word rune. It returns b and word updated.
//
// What decides is whether the last rune appended is a word rune and whether
// the character's neighbours in s are digits (or a $ or . before a digit),
// which are always kept as they are: so what is kept here sits between the
// same characters in the output, and normalizing again keeps it again. The
// one test that looks further, whether a comma groups thousands, is left to
// finishWords, which sees the output (in s, a dropped character could hide
// between the digits).
func foldPunct(b []byte, word bool, s string, i, next int, c byte) ([]byte, bool) {
	afterDigit := i > 0 && isDigit(s[i-1])
	switch c {
	case '.':
		if digitAt(s, next) {
			if afterDigit {
				return append(b, '.'), false
			}
			if !word { // ".5": a number without its leading zero
				return append(b, '0', '.'), false
			}
		}
	case ',', '/', ':':
		if afterDigit && digitAt(s, next) {
			return append(b, c), false
		}
	case '-':
		// Between numbers a range or a date ("3-4", "2025-10-01"), which
		// SQuAD would glue into a different number; before a number and
		// after no word, a minus sign.
		if numberAt(s, next) && (afterDigit || !word) {
			return append(b, '-'), false
		}
	case '$':
		// A currency prefix ("US$", "C$") stays apart from the amount, so
		// the amount is a token of its own.
		if n := len(b); n > 0 && 'a' <= b[n-1] && b[n-1] <= 'z' && numberAt(s, next) {
			return append(b, ' '), false
		}
	case '%':
		return append(b, " per cent "...), false
	}
	return b, word // removed, like all other ASCII punctuation
}

// finishWords is the second pass: it appends to dst the first pass's output
// b with articles removed, the word "percent" written "per cent", commas
// that group thousands dropped and whitespace collapsed to single spaces
// between words. b holds no ASCII punctuation but the . , / : - that
// foldText kept inside numbers, and its only whitespace is ASCII.
func finishWords(dst, b []byte) []byte {
	space := false    // a separator is due before the next non-space rune
	prevWord := false // the previous rune of b is a word rune
	for i := 0; i < len(b); {
		c := b[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(b[i:])
			prevWord = slowIsWordRune(r)
			if space && len(dst) > 0 {
				dst = append(dst, ' ')
			}
			space = false
			dst = append(dst, b[i:i+n]...)
			i += n
			continue
		}
		if asciiWord[c] {
			if !prevWord {
				if c == 't' || c == 'a' {
					if m := articleAt(b, i); m > 0 {
						space = true
						// The article's last letter is a word rune;
						// the rune after it is not, and cannot start
						// another article.
						prevWord = true
						i += m
						continue
					}
				}
				if space && len(dst) > 0 {
					dst = append(dst, ' ')
				}
				space = false
				if c == 'p' && wordAt(b, i, "percent") {
					dst = append(dst, "per cent"...)
					prevWord = true
					i += len("percent")
					continue
				}
			}
			// Copy the rest of the word's ASCII run at once.
			j := i + 1
			for j < len(b) && asciiWordByte[b[j]] {
				j++
			}
			dst = append(dst, b[i:j]...)
			prevWord = true
			i = j
			continue
		}
		if c == ',' && groupAt(b, i+1) {
			// A thousands separator: b[i-1] is a digit (foldText keeps a
			// comma only between digits), which the next digit joins.
			i++
			continue
		}
		prevWord = false
		i++
		if c == ' ' || '\t' <= c && c <= '\r' {
			space = true
			continue
		}
		if space && len(dst) > 0 {
			dst = append(dst, ' ')
		}
		space = false
		dst = append(dst, c)
	}
	return dst
}

// isDigit reports whether c is an ASCII digit. Only ASCII digits make
// numbers here: the rules are about how figures are typed, and other
// scripts' digits are left as the letters of a word.
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitAt reports whether s[j] is an ASCII digit.
func digitAt[T string | []byte](s T, j int) bool { return j < len(s) && isDigit(s[j]) }

// numberAt reports whether a number starts at s[j]: a digit, or a decimal
// point or a dollar sign (or both) before one.
func numberAt(s string, j int) bool {
	if j < len(s) && s[j] == '$' {
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	return digitAt(s, j)
}

// groupAt reports whether s[j:] starts with exactly three digits, the group
// after a thousands separator.
func groupAt[T string | []byte](s T, j int) bool {
	return digitAt(s, j) && digitAt(s, j+1) && digitAt(s, j+2) && !digitAt(s, j+3)
}

// wordAt reports whether w occurs at b[i] and ends at a word boundary. The
// caller has checked the left boundary.
func wordAt(b []byte, i int, w string) bool {
	return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w && !wordRuneAt(b, i+len(w))
}

// wordRuneAt reports whether the rune starting at b[j] is a word rune.
func wordRuneAt(b []byte, j int) bool {
	if j >= len(b) {
		return false
	}
	r := rune(b[j])
	if r >= utf8.RuneSelf {
		r, _ = utf8.DecodeRune(b[j:])
	}
	return isWordRune(r)
}

// asciiWordByte is asciiWord indexed by any byte: false from
// utf8.RuneSelf on, where a multi-byte rune starts or continues.
var asciiWordByte = func() (t [256]bool) {
	copy(t[:], asciiWord[:])
	return t
}()

// unchanged marks the bytes the first pass copies as they are whatever
// surrounds them: lowercase ASCII letters, digits and the space.
var unchanged = func() (t [256]bool) {
	t[' '] = true
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	return t
}()

// asciiPunct caches isASCIIPunct for bytes below utf8.RuneSelf.
var asciiPunct = func() (t [utf8.RuneSelf]bool) {
	for c := range rune(utf8.RuneSelf) {
		t[c] = isASCIIPunct(c)
	}
	return t
}()

// isASCIIPunct matches the reference's punctuation set (Python's
// string.punctuation): every printable ASCII character that is neither a
// letter, a digit nor a space. Go classes some of them ($+<=>^`|~) as symbols,
// hence both tests.
func isASCIIPunct(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsPunct(r) || unicode.IsSymbol(r))
}

// articleAt returns the length of the article "the", "an" or "a" starting at
// b[i] when it ends at a word boundary, else 0. The caller has checked the
// left boundary.
func articleAt(b []byte, i int) int {
	n := 0
	switch rest := b[i:]; {
	case len(rest) >= 3 && rest[0] == 't' && rest[1] == 'h' && rest[2] == 'e':
		n = 3
	case len(rest) >= 2 && rest[0] == 'a' && rest[1] == 'n':
		n = 2
	case rest[0] == 'a':
		// "a" followed by "n" was handled above: 'n' is a word rune, so
		// "a" alone cannot end at a boundary there.
		n = 1
	default:
		return 0
	}
	if wordRuneAt(b, i+n) {
		return 0
	}
	return n
}

// isWordRune is the Unicode counterpart of \w: letters, digits, combining
// marks (so a decomposed accent does not end a word) and the underscore.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return slowIsWordRune(r)
}

func slowIsWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// asciiWord caches isWordRune for ASCII: every normalized character is
// classified, and the Unicode tables are slower than an index.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = slowIsWordRune(r)
	}
	return t
}()
