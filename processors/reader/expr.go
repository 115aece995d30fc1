package reader

import (
	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
)

// placeholderExpr is the expected-answer expression of a PRGB placeholder
// request (its expected answer, the first accepted answer), or nil for any
// other request: only PRGB writes expressions, and "R&D" in another
// family's answer is a name, not a conjunction. A placeholder request is
// scored by the expression's keywords alone, without the embedding or LLM
// judge, as PRGB scores by keyword (§"Evaluation pipeline"); an expression
// that does not parse (perturb writes none) falls back to the plain judge.
func placeholderExpr(req *schemas.EvalRequest) *text.Expr {
	if req.Axis != schemas.AxisPlaceholder || req.ClosedBook || len(req.Accepted) == 0 {
		return nil
	}
	e, err := text.ParseExpr(req.Accepted[0])
	if err != nil {
		return nil
	}
	return e
}

// judgeKeyword matches one keyword of an expression as Judge matches an
// accepted answer.
func judgeKeyword(method string) func(answer, keyword string) bool {
	return func(answer, keyword string) bool { return Judge(answer, []string{keyword}, method).Correct }
}
