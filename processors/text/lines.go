package text

import (
	"iter"
	"strings"
)

// Line is one line of a text.
type Line struct {
	// Text is the line without the '\n' that ends it; a '\r' before the
	// '\n' stays, so Text is exactly text[Start:End].
	Text       string
	Start, End int
	// Code is true for a fence line (one that opens with ``` or ~~~ after
	// optional indentation) and for every line between an opening fence
	// and its closing one. A fence left open runs to the end of the text.
	Code bool
}

// Lines yields the lines of text in order, telling which are fenced code.
// The chunker keeps a fenced block in one paragraph however many blank
// lines it holds, and the sentence splitter skips it; both need the same
// answer to "is this line code?".
//
// Any fence line toggles the state, whichever of ``` and ~~~ opened the
// block and however many backticks it has: a simplification of CommonMark
// that both users have always made. A text that ends in '\n' has no empty
// last line.
func Lines(text string) iter.Seq[Line] {
	return func(yield func(Line) bool) {
		inFence := false
		for pos := 0; pos < len(text); {
			end, next := len(text), len(text)
			if nl := strings.IndexByte(text[pos:], '\n'); nl >= 0 {
				end, next = pos+nl, pos+nl+1
			}
			line := text[pos:end]
			t := strings.TrimSpace(line)
			fence := strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
			code := fence || inFence
			if fence {
				inFence = !inFence
			}
			if !yield(Line{Text: line, Start: pos, End: end, Code: code}) {
				return
			}
			pos = next
		}
	}
}
