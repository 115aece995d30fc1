package perturb

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/judge"
)

// Errors of the document perturbations. The stage counts them as skipped.
var (
	// ErrAnswerNotFound: no sentence of the context holds an accepted
	// answer, so removing it would not change the context.
	ErrAnswerNotFound = errors.New("no sentence holds an accepted answer")
	// ErrAnswerRemains: after removal an accepted answer is still in the
	// context (e.g. it spans a sentence boundary); the variant would not be
	// "answer absent" and is dropped (METHODS: verify none remains).
	ErrAnswerRemains = errors.New("an accepted answer remains after removal")
	// ErrEmptyContext: nothing is left once the answer sentences are gone;
	// an empty context is the closed-book case, not a lexically similar one.
	ErrEmptyContext = errors.New("no context left after removal")
)

// RemoveAnswer makes the answer_removed context of RARE §3.2 (lexically
// similar, answer absent): it deletes every sentence whose normalized text
// contains a normalized accepted answer, keeps the rest of each context
// (chunks that become empty are dropped), and verifies on the result that no
// accepted answer remains.
//
// Matching is by normalized substring, the judge's covered test, on purpose:
// for removal, over-matching ("art" in "party") only deletes a sentence too
// many, while under-matching would leave the answer in a context labelled
// answer-absent.
func RemoveAnswer(contexts, accepted []string) ([]string, error) {
	return removeAnswer(contexts, judge.NewAnswers(accepted))
}

// removeAnswer is RemoveAnswer with the accepted answers normalized once for
// all sentences rather than once per sentence, and each sentence normalized
// once for both the removal and the final check.
func removeAnswer(contexts []string, answers *judge.Answers) ([]string, error) {
	var out []string
	removed, remains := false, false
	var norms []string
	for _, c := range contexts {
		var b strings.Builder
		// When every kept sentence but the last ends in whitespace (as
		// sentenceSpans makes them), Normalize of the kept text is the
		// kept sentences' normalized texts joined by single spaces:
		// normalization never looks across whitespace. Otherwise the kept
		// text is normalized again.
		norms = norms[:0]
		joinable, prev := true, ""
		for _, s := range sentenceSpans(c) {
			sentence := c[s[0]:s[1]]
			if sentence == "" {
				continue // adds nothing to the kept text, and holds no answer
			}
			n := judge.Normalize(sentence)
			if answers.CoveredNormalized(n) {
				removed = true
				continue
			}
			if prev != "" && !endsInSpace(prev) {
				joinable = false
			}
			prev = sentence
			if n != "" {
				norms = append(norms, n)
			}
			b.WriteString(sentence)
		}
		kept := strings.TrimSpace(b.String())
		if kept == "" {
			continue
		}
		out = append(out, kept)
		switch {
		case remains:
		case joinable:
			remains = answers.CoveredNormalized(strings.Join(norms, " "))
		default:
			remains = answers.Covered(kept)
		}
	}
	if !removed {
		return nil, ErrAnswerNotFound
	}
	if len(out) == 0 {
		return nil, ErrEmptyContext
	}
	if remains {
		return nil, ErrAnswerRemains
	}
	return out, nil
}

func endsInSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}

// abbreviations end with a period that does not end a sentence. Lowercase,
// without the final period.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"inc": true, "corp": true, "co": true, "ltd": true, "plc": true, "llc": true, "bros": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "no": true, "fig": true, "approx": true,
	"u.s": true, "u.k": true, "jan": true, "feb": true, "mar": true, "apr": true, "jun": true,
	"jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

// sentenceSpans splits text into sentences and returns their byte spans
// [start, end). Each span runs up to the start of the next, so it carries
// its trailing whitespace and concatenating spans restores the text. A
// sentence ends at '.', '!' or '?' (plus closing quotes or brackets) followed
// by whitespace, unless the period closes an abbreviation or an initial, and
// at a line break unless the line was merely wrapped (see isWrappedLine):
// chunks keep table rows and headings on lines of their own.
func sentenceSpans(text string) [][2]int {
	var spans [][2]int
	start := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		end := -1
		switch {
		case r == '\n':
			if !isWrappedLine(text, i) {
				end = i + n
			}
		case r == '.' || r == '!' || r == '?':
			j := i + n
			for j < len(text) {
				c, m := utf8.DecodeRuneInString(text[j:])
				if !strings.ContainsRune(`"')]”’»`, c) {
					break
				}
				j += m
			}
			if j < len(text) && isSpaceAt(text, j) && (r != '.' || !isAbbreviation(text[start:i])) {
				end = j
			}
		}
		i += n
		if end < 0 {
			continue
		}
		// Swallow the whitespace after the boundary into this sentence.
		for end < len(text) && isSpaceAt(text, end) {
			_, m := utf8.DecodeRuneInString(text[end:])
			end += m
		}
		if strings.TrimSpace(text[start:end]) != "" {
			spans = append(spans, [2]int{start, end})
		} else if len(spans) > 0 {
			spans[len(spans)-1][1] = end
		}
		start, i = end, end
	}
	if start < len(text) {
		if strings.TrimSpace(text[start:]) != "" || len(spans) == 0 {
			spans = append(spans, [2]int{start, len(text)})
		} else {
			spans[len(spans)-1][1] = len(text)
		}
	}
	return spans
}

// isWrappedLine reports whether the newline at i sits inside a hard-wrapped
// sentence: the text before it ends in a letter, digit or comma and the next
// line starts in lowercase. Splitting there would cut an answer in two and
// leave it undetected.
func isWrappedLine(text string, i int) bool {
	before := strings.TrimRightFunc(text[:i], unicode.IsSpace)
	after := strings.TrimLeftFunc(text[i:], unicode.IsSpace)
	if before == "" || after == "" || strings.Contains(text[len(before):len(text)-len(after)], "\n\n") {
		return false
	}
	p, _ := utf8.DecodeLastRuneInString(before)
	q, _ := utf8.DecodeRuneInString(after)
	return (unicode.IsLetter(p) || unicode.IsDigit(p) || p == ',') && unicode.IsLower(q)
}

func isSpaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// isAbbreviation reports whether the text before a period ends with an
// abbreviation or a single-letter initial ("J. Smith").
func isAbbreviation(before string) bool {
	// The last of strings.Fields(before), found from the end: before runs
	// from the sentence start, and splitting all of it at every period made
	// sentence splitting quadratic in the sentence length.
	end := len(strings.TrimRightFunc(before, unicode.IsSpace))
	if end == 0 {
		return false
	}
	start := 0
	if i := strings.LastIndexFunc(before[:end], unicode.IsSpace); i >= 0 {
		_, n := utf8.DecodeRuneInString(before[i:])
		start = i + n
	}
	last := strings.ToLower(strings.TrimLeft(before[start:end], `"'([`))
	return abbreviations[last] || utf8.RuneCountInString(last) == 1 && unicode.IsLetter([]rune(last)[0])
}
