package reader

import "github.com/robustream/robustream/processors/text"

// Method names recorded in EvalResult.JudgeMethod.
const (
	// MethodExact: the normalized prediction equals a normalized accepted
	// answer.
	MethodExact = "exact"
	// MethodCovered: a normalized accepted answer is a substring of the
	// normalized prediction. Known weakness: "art" matches "party", and
	// "4.2" matches "14.25".
	MethodCovered = "covered"
	// MethodTokenSeq: the tokens of a normalized accepted answer occur as a
	// contiguous run of the prediction's tokens. The default.
	MethodTokenSeq = "token_seq"
)

// DefaultMethod is the matcher Judge uses when none is named. Token sequence
// keeps the recall of substring matching on multi-word answers without its
// false positives inside longer words (docs/methods.md, Answer matching and refusal detection).
const DefaultMethod = MethodTokenSeq

// ValidMethod reports whether m names a matcher Judge understands; the empty
// string stands for DefaultMethod. Stages call it when validating config so a
// typo fails at start rather than silently falling back.
func ValidMethod(m string) bool {
	switch m {
	case "", MethodExact, MethodCovered, MethodTokenSeq:
		return true
	}
	return false
}

// Verdict is the judgement of one answer.
type Verdict struct {
	// Correct is true when the answer matches an accepted answer. It is
	// never true for a refusal.
	Correct bool
	// Refused is true when the model said it cannot answer.
	Refused bool
	// Method is the matcher that was applied (one of the Method constants).
	Method string
}

// Judge matches answer against the accepted answers with method (empty or
// unknown: DefaultMethod) and detects refusals (IsRefusal). Every matcher
// reads text.Normalize, which keeps figures apart ("4.2%" is not "42%") and
// folds typographic quotes and dashes, and lets the answer say more than an
// accepted answer but not less ("adjusted" is not correct for "been
// adjusted"; docs/methods.md, Answer matching and refusal detection).
// A refusal is never correct,
// even if an accepted answer happens to be, say, "unknown": RARE's judge f
// (Table 2) treats refusing and answering as different behaviours, and
// scoring a refusal as a hit would reward the model for not knowing.
func Judge(answer string, accepted []string, method string) Verdict {
	if !ValidMethod(method) || method == "" {
		method = DefaultMethod
	}
	v := Verdict{Method: method, Refused: IsRefusal(answer)}
	if v.Refused {
		return v
	}
	switch method {
	case MethodExact:
		v.Correct = text.Exact(answer, accepted)
	case MethodCovered:
		v.Correct = text.Covered(answer, accepted)
	default:
		v.Correct = text.TokenSeq(answer, accepted)
	}
	return v
}
