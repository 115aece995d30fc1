package perturb

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/robustream/robustream/processors/text"
)

// Errors of the document perturbations. The stage counts them as skipped.
var (
	// ErrAnswerNotFound: no sentence of the context holds an accepted
	// answer, so removing it would not change the context.
	ErrAnswerNotFound = errors.New("no sentence holds an accepted answer")
	// ErrAnswerRemains: after removal an accepted answer is still in the
	// context (e.g. it spans a sentence boundary); the variant would not be
	// "answer absent" and is dropped (docs/methods.md, Document
	// perturbations: verify none remains).
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
	return removeAnswer(contexts, text.NewAnswers(accepted))
}

// removeAnswer is RemoveAnswer with the accepted answers normalized once for
// all sentences rather than once per sentence, and each sentence normalized
// once for both the removal and the final check.
func removeAnswer(contexts []string, answers *text.Answers) ([]string, error) {
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
			n := text.Normalize(sentence)
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

// sentenceSpans splits c into sentences and returns their byte spans
// [start, end). Each span runs up to the start of the next, so it carries
// its trailing whitespace and concatenating spans restores c: removal
// rebuilds a context from the spans it keeps.
//
// The split is text.Sentences with the Wrapped layout, plainly: every line
// is in some sentence (chunks keep table rows and headings on lines of
// their own, and they must survive removal), a hard-wrapped sentence is not
// cut in two (which would leave half an answer behind, undetected), and a
// period after an abbreviation or an initial ends nothing. Splitting too
// little only removes a sentence too many.
func sentenceSpans(c string) [][2]int {
	ss := text.Sentences(c, text.SentenceOptions{Layout: text.Wrapped})
	if len(ss) == 0 {
		if c == "" {
			return nil
		}
		return [][2]int{{0, len(c)}} // whitespace only
	}
	spans := make([][2]int, len(ss))
	for i := range ss {
		start, end := ss[i].Start, len(c)
		if i == 0 {
			start = 0
		}
		if i+1 < len(ss) {
			end = ss[i+1].Start
		}
		spans[i] = [2]int{start, end}
	}
	return spans
}
