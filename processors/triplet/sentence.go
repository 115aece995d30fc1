package triplet

import "github.com/robustream/robustream/processors/text"

// Sentence is a sentence of a chunk: Text is exactly chunk[Start:End].
type Sentence = text.Sentence

// Sentences splits s into the sentences the extractor reads: Markdown prose
// only, split strictly (text.Prose, Strict; see text.Sentences). A wrong
// split would yield a wrong fact, a missed one only a fact less, so
// headings, tables and code are not read, a quoted sentence stays inside its
// reporting one, and a period ends a sentence only when the next word opens
// one. Decimals ("4.2") never split.
func Sentences(s string) []Sentence {
	return text.Sentences(s, text.SentenceOptions{Layout: text.Prose, Strict: true})
}
