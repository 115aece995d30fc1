package sources

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Reasons text is refused (CheckText). The dir: source skips such a file;
// the record sources (jsonl:, kafka:, the ingest API) refuse such a record
// or dead-letter it. A document that is not text would only feed the
// chunker and the question stages noise.
var (
	ErrBinary      = errors.New("binary data, not text")
	ErrInvalidUTF8 = errors.New("not valid UTF-8")
)

// MaxControlPercent is the share of control characters above which text
// that is valid UTF-8 is taken for binary. Prose has none besides tab, line
// feed, carriage return and form feed; a log with colour codes has an ESC
// every few dozen characters (2-5%). Data that is not text but has no NUL is
// far above: a file of \x01 bytes is 100%, random 7-bit bytes 23% (29 of
// the 128 values). 10% sits between the two, so a stray control character
// or a few colour codes never cost a document.
const MaxControlPercent = 10

// CheckText returns why s is not text, or nil: a NUL byte (no text format
// uses it, most binary ones do), invalid UTF-8, or more than
// MaxControlPercent control characters. The errors wrap ErrBinary or
// ErrInvalidUTF8 and say where or how much.
//
// JSON sources must check the raw bytes for UTF-8 too: encoding/json
// replaces an invalid byte with U+FFFD, so the decoded string always
// passes; a "\u0000" escape, though, decodes to a NUL that this catches.
func CheckText(s string) error {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Errorf("%w: a NUL byte at byte %d", ErrBinary, i)
	}
	if i := InvalidUTF8At(s); i >= 0 {
		return fmt.Errorf("%w: invalid byte 0x%02x at byte %d", ErrInvalidUTF8, s[i], i)
	}
	var runes, controls int
	for _, r := range s {
		runes++
		if isControl(r) {
			controls++
		}
	}
	if controls*100 > runes*MaxControlPercent {
		return fmt.Errorf("%w: %d of %d characters are control characters", ErrBinary, controls, runes)
	}
	return nil
}

// InvalidUTF8At is the offset of the first byte of s that is not part of
// valid UTF-8, or -1 when s is valid.
func InvalidUTF8At(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1 // not reached: ValidString said otherwise
}

// isControl reports the C0 and C1 controls and DEL (unicode.IsControl),
// except the four that text uses for layout: tab, line feed, carriage
// return and form feed (page breaks in plain-text documents).
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r', '\f':
		return false
	}
	return r < 0x20 || 0x7f <= r && r <= 0x9f
}
