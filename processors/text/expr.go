package text

import (
	"errors"
	"fmt"
	"strings"
)

// Expr is an expected answer written as keywords combined with & (all of
// them), | (any of them) and parentheses, as PRGB states the answers of
// its combination tasks (§"Evaluation pipeline": "2016: Brazil & 2020:
// Japan"). & binds tighter than |. A keyword is a run of text without the
// operator characters, spaces inside it kept ("137 million parcels"), or
// a double-quoted string for a keyword that holds one of them ("AT&T";
// \" and \\ escape inside quotes).
//
// PRGB's reference implementation splits on the operators and keeps the
// spaces around them as empty keywords that match anything, so "(a | b) &
// (c | d)" counts "b" as correct (docs/methods.md, PRGB). Here
// an empty keyword is a syntax error, and the caller matches each keyword
// with the judge's own matcher, so a keyword is found in an answer exactly
// when it would be accepted as the answer.
type Expr struct {
	op       byte // '&', '|', or 0 for a keyword
	keyword  string
	operands []*Expr
}

// ErrExpr is the error of a malformed expression.
var ErrExpr = errors.New("malformed answer expression")

// ParseExpr parses an expected-answer expression.
func ParseExpr(s string) (*Expr, error) {
	p := &exprParser{s: s}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.fail("unexpected %q", p.s[p.i])
	}
	return e, nil
}

// Match reports whether answer satisfies the expression, with match
// telling whether answer holds one keyword: the reader passes its judge
// (reader.Judge with its method, under which a refusal holds none).
func (e *Expr) Match(answer string, match func(answer, keyword string) bool) bool {
	switch e.op {
	case '&':
		for _, o := range e.operands {
			if !o.Match(answer, match) {
				return false
			}
		}
		return true
	case '|':
		for _, o := range e.operands {
			if o.Match(answer, match) {
				return true
			}
		}
		return false
	}
	return match(answer, e.keyword)
}

// Keywords returns the expression's keywords in order.
func (e *Expr) Keywords() []string {
	if e.op == 0 {
		return []string{e.keyword}
	}
	var out []string
	for _, o := range e.operands {
		out = append(out, o.Keywords()...)
	}
	return out
}

// QuoteKeyword writes s as one keyword of an expression: as it is, or
// quoted when it holds an operator, a parenthesis or a quote.
func QuoteKeyword(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, `&|()"\`) {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// exprParser is a recursive-descent parser over the grammar
//
//	or      = and { "|" and }
//	and     = operand { "&" operand }
//	operand = "(" or ")" | keyword
type exprParser struct {
	s string
	i int
}

func (p *exprParser) fail(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d of %q: %s", ErrExpr, p.i, p.s, fmt.Sprintf(format, args...))
}

func (p *exprParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *exprParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *exprParser) or() (*Expr, error) { return p.list('|', p.and) }

func (p *exprParser) and() (*Expr, error) { return p.list('&', p.operand) }

// list parses operands joined by op; one operand is returned as it is.
func (p *exprParser) list(op byte, next func() (*Expr, error)) (*Expr, error) {
	first, err := next()
	if err != nil {
		return nil, err
	}
	e := &Expr{op: op, operands: []*Expr{first}}
	for p.peek() == op {
		p.i++
		o, err := next()
		if err != nil {
			return nil, err
		}
		e.operands = append(e.operands, o)
	}
	if len(e.operands) == 1 {
		return first, nil
	}
	return e, nil
}

func (p *exprParser) operand() (*Expr, error) {
	switch c := p.peek(); c {
	case '(':
		p.i++
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.fail("missing )")
		}
		p.i++
		return e, nil
	case '"':
		return p.quoted()
	case 0:
		return nil, p.fail("a keyword is missing at the end")
	case '&', '|', ')':
		return nil, p.fail("a keyword is missing before %q", c)
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(`&|()"`, rune(p.s[p.i])) {
		p.i++
	}
	kw := strings.TrimSpace(p.s[start:p.i])
	if p.i < len(p.s) && p.s[p.i] == '(' || p.i < len(p.s) && p.s[p.i] == '"' {
		return nil, p.fail("an operator is missing before %q", p.s[p.i])
	}
	return &Expr{keyword: kw}, nil
}

func (p *exprParser) quoted() (*Expr, error) {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '\\':
			if p.i == len(p.s) {
				return nil, p.fail("unterminated quoted keyword")
			}
			b.WriteByte(p.s[p.i])
			p.i++
		case '"':
			kw := strings.TrimSpace(b.String())
			if kw == "" {
				return nil, p.fail("empty quoted keyword")
			}
			if n := p.peek(); n != 0 && n != '&' && n != '|' && n != ')' {
				return nil, p.fail("an operator is missing after a quoted keyword")
			}
			return &Expr{keyword: kw}, nil
		default:
			b.WriteByte(c)
		}
	}
	return nil, p.fail("unterminated quoted keyword")
}
