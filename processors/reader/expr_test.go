package reader

import (
	"errors"
	"testing"

	"github.com/robustream/robustream/processors/text"
)

// The example of issue 15 and docs/methods.md, PRGB: PRGB's reference scores "b"
// correct for (a | b) & (c | d) because the spaces become empty keywords;
// a real parser scores it 0, and "b and d" 1.
func TestExprScoresHandComputedCases(t *testing.T) {
	cases := []struct {
		expr, answer string
		want         bool
	}{
		{"(a | b) & (c | d)", "b", false},
		{"(a | b) & (c | d)", "b and d", true},
		{"(e | b) & (c | d)", "e, c", true}, // not "a": the judge drops articles
		{"(a | b) & (c | d)", "c and d", false},
		{"e | b & c", "e", true}, // & binds tighter: e | (b & c)
		{"e | b & c", "b", false},
		{"e | b & c", "c then b", true},
		{"(a | b) & c", "b", false},
		{"137 million parcels", "They delivered 137 million parcels.", true},
		{"137 million parcels", "137 million", false}, // a keyword is matched as the judge matches an answer
		{"4.2% & Oslo", "4.2 percent in Oslo", true},
		{"4.2% & Oslo", "42% in Oslo", false},
		{`"AT&T" | Verizon`, "at&t", true},
		{`"AT&T"`, "AT", false},
		{"Brazil & Japan", "no such info", false}, // a refusal matches nothing
	}
	for _, c := range cases {
		e, err := text.ParseExpr(c.expr)
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", c.expr, err)
		}
		if got := e.Match(c.answer, judgeKeyword("")); got != c.want {
			t.Errorf("%q against %q = %v, want %v", c.expr, c.answer, got, c.want)
		}
	}
}

func TestExprRejectsMalformed(t *testing.T) {
	for _, s := range []string{"", "   ", "a &", "& a", "a | | b", "(a | b", "a | b)", "()", "a (b)", `"a`, `""`, `"a" b`, "a & (b | )", "((a)"} {
		if e, err := text.ParseExpr(s); !errors.Is(err, text.ErrExpr) {
			t.Errorf("ParseExpr(%q) = %v, %v; want ErrExpr", s, e, err)
		}
	}
}

func TestQuoteKeywordRoundTrips(t *testing.T) {
	for _, kw := range []string{"Orbital Freight", "AT&T", "Smith (Jr.)", `say "hi"`, `a\b`, "x|y"} {
		e, err := text.ParseExpr(text.QuoteKeyword(kw))
		if err != nil {
			t.Fatalf("QuoteKeyword(%q) = %q does not parse: %v", kw, text.QuoteKeyword(kw), err)
		}
		if got := e.Keywords(); len(got) != 1 || got[0] != kw {
			t.Errorf("QuoteKeyword(%q) parses to %q", kw, got)
		}
	}
}
