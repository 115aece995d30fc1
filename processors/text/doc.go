// Package text holds the text handling that several stages need, so that
// each rule is written once and every stage applies the same one:
//
//   - answer normalization and token matching (Normalize, Tokens,
//     ContainsRun, Answers and the matchers Exact, Covered and TokenSeq;
//     docs/methods.md, Answer matching and refusal detection), on which the
//     judge, the question checks and the answer-removed perturbation must
//     agree;
//   - one sentence splitter (Sentences) with its abbreviation list, whose
//     options say how a caller reads a text's layout and how sure a
//     boundary must be;
//   - one stopword list (IsStopword), in three nested breadths;
//   - a line scanner aware of Markdown code fences (Lines).
//
// Everything here is a pure function of its arguments: no Kafka, no events
// or schemas, no I/O, no clock, no randomness, and no stage logic (what a
// stage emits, skips or records is decided in the stage). It must not import
// any other package of this repository: stage packages import it, never each
// other (processors/imports_test.go enforces that).
//
// Changing what a function here returns changes the outputs of every stage
// that uses it (sentence spans, question checks, variant texts and so their
// ids), so a change of behaviour is a change of those stages too.
package text
