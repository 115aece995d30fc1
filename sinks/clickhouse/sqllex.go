package clickhouse

import (
	"strings"
)

// The statement splitter of the read-only path. chDB runs every statement
// of a text it is handed, even under EXPLAIN AST (checked on 26.5: the
// statements after the first `;` ran and their output came back), so no
// text reaches an engine before this lexer has found exactly one statement
// in it. It follows ClickHouse's lexer where the two must agree (quotes,
// escapes, comments) and refuses every construct on which lexers of
// different ClickHouse versions could disagree about where a statement
// ends: a refusal there costs a user a rewrite, a disagreement would let a
// second statement through.

// errMultiStatement is the one refusal for text that is not exactly one
// statement. It is fixed: the refusal never quotes the text or any engine
// output back.
var errMultiStatement = refused("send exactly one statement per request (no ';' between statements)")

// sqlTokenKind classifies the tokens the splitter yields.
type sqlTokenKind int

const (
	tokWord   sqlTokenKind = iota // a bare word: keyword, name or number
	tokQuoted                     // a name in "double quotes" or `backticks`, unquoted in text
	tokString                     // a 'string literal', unquoted in text
	tokPunct                      // any other single byte outside quotes and comments
)

// sqlToken is one token of a statement.
type sqlToken struct {
	kind sqlTokenKind
	text string
}

// singleStatement checks that q holds exactly one statement and returns it
// without a trailing `;` (and whatever whitespace and comments follow it),
// with its tokens. Any error wraps ErrRefused and says nothing of q.
func singleStatement(q string) (string, []sqlToken, error) {
	var toks []sqlToken
	end := -1 // offset of the one `;` allowed, once seen
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == 0:
			// The C API reads a NUL as the end of the text, Go does not:
			// the two would see different statements.
			return "", nil, refused("the statement holds a NUL byte")
		case isSQLSpace(c):
			i++
			continue
		case c == '-' && i+1 < len(q) && q[i+1] == '-', c == '#' && i+1 < len(q) && (q[i+1] == ' ' || q[i+1] == '!'):
			// A line comment runs to '\n'. A '\r' alone is a line end to
			// some readers and not to others: refused.
			j := i + 2
			for j < len(q) && q[j] != '\n' {
				if q[j] == '\r' && (j+1 >= len(q) || q[j+1] != '\n') {
					return "", nil, refused("a line comment holds a carriage return that does not end the line")
				}
				if q[j] == 0 {
					return "", nil, refused("the statement holds a NUL byte")
				}
				j++
			}
			i = j
			continue
		case c == '#':
			// '#' starts a comment only before ' ' or '!' in ClickHouse;
			// elsewhere engines differ.
			return "", nil, refused("'#' is allowed only as a comment ('# ' or '#!')")
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			// ClickHouse nests block comments, other SQL readers do not:
			// a '/*' inside a block comment is refused, so that both agree
			// where it ends.
			j := i + 2
			for {
				if j+1 >= len(q) {
					return "", nil, refused("a block comment is not closed")
				}
				if q[j] == 0 {
					return "", nil, refused("the statement holds a NUL byte")
				}
				if q[j] == '/' && q[j+1] == '*' {
					return "", nil, refused("block comments may not be nested")
				}
				if q[j] == '*' && q[j+1] == '/' {
					break
				}
				j++
			}
			i = j + 2
			continue
		case c == '$':
			// Heredoc literals ($tag$ … $tag$) quote text in recent
			// ClickHouse and not in older ones; not worth the ambiguity.
			return "", nil, refused("'$' is allowed only inside quotes")
		}
		if end >= 0 {
			// Anything but whitespace and comments after the `;`.
			return "", nil, errMultiStatement
		}
		switch c {
		case '\'', '"', '`':
			// ClickHouse reads a backslash escape and a doubled quote in
			// all three quote forms.
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(q) {
					return "", nil, refused("a quoted string or name is not closed")
				}
				d := q[j]
				if d == 0 {
					return "", nil, refused("the statement holds a NUL byte")
				}
				if d == '\\' {
					if c != '\'' {
						// Whether a backslash escapes inside a quoted name
						// has varied; names have no need of one.
						return "", nil, refused("a quoted name may not hold a backslash")
					}
					if j+1 >= len(q) {
						return "", nil, refused("a quoted string or name is not closed")
					}
					if q[j+1] == 0 {
						return "", nil, refused("the statement holds a NUL byte")
					}
					b.WriteByte(q[j+1])
					j += 2
					continue
				}
				if d == c {
					if j+1 < len(q) && q[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(d)
				j++
			}
			kind := tokQuoted
			if c == '\'' {
				kind = tokString
			}
			toks = append(toks, sqlToken{kind, b.String()})
			i = j + 1
		case ';':
			end = i
			i++
		default:
			if isWordByte(c) {
				j := i
				for j < len(q) && isWordByte(q[j]) {
					j++
				}
				toks = append(toks, sqlToken{tokWord, q[i:j]})
				i = j
			} else {
				toks = append(toks, sqlToken{tokPunct, q[i : i+1]})
				i++
			}
		}
	}
	if len(toks) == 0 {
		return "", nil, refused("no statement")
	}
	if end >= 0 {
		q = q[:end]
	}
	return q, toks, nil
}

// isSQLSpace is ClickHouse's whitespace: ASCII only.
func isSQLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isWordByte: letters, digits, '_' and every non-ASCII byte, which
// ClickHouse reads as part of a bare name.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}
