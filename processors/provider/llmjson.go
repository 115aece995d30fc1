package provider

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Repairs of the JSON an LLM writes, shared by the stages that ask a
// generator for structured output (triplets, questions, QA scores): models
// wrap it in a code fence or prose, leave a comma before a closing bracket,
// quote keys typographically, or stop mid-array.

func LooseKey(k string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, k)
}

// SmartKey matches a key quoted with typographic (or mixed) quotes.
var SmartKey = regexp.MustCompile(`[“”"]([A-Za-z_][A-Za-z0-9_ ]*)[“”"](\s*:)`)

// unfence returns the inside of the first Markdown code fence of s (to
// its end when the closing fence is missing), or s itself.
func Unfence(s string) (string, []string) {
	i := strings.Index(s, "```")
	if i < 0 {
		return s, nil
	}
	body := s[i+3:]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "[{") {
		body = body[nl+1:] // the info string: json, JSON, …
	}
	repairs := []string{"code fence"}
	if j := strings.Index(body, "```"); j >= 0 {
		if strings.TrimSpace(s[:i]) != "" || strings.TrimSpace(body[j+3:]) != "" {
			repairs = append(repairs, "surrounding text")
		}
		body = body[:j]
	} else if strings.TrimSpace(s[:i]) != "" {
		repairs = append(repairs, "surrounding text")
	}
	return body, repairs
}

// scanJSON copies the JSON value at the start of s (which begins with [
// or {), dropping commas before a closing bracket, and returns it with
// what follows it. When s ends before the value does, the copy is cut
// after the last container that closed and the open ones are closed.
func ScanJSON(s string) (clean, rest string, repairs []string) {
	var out strings.Builder
	var stack []byte
	safeLen, safeStack := 0, []byte(nil)
	inString, escaped, trailing := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			out.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			stack = append(stack, c)
		case ']', '}':
			if len(stack) == 0 { // cannot happen: the scan stops when the stack empties
				return out.String(), s[i:], repairs
			}
			stack = stack[:len(stack)-1]
			out.WriteByte(c)
			if len(stack) == 0 {
				if trailing {
					repairs = append(repairs, "trailing comma")
				}
				return out.String(), s[i+1:], repairs
			}
			safeLen, safeStack = out.Len(), append(safeStack[:0], stack...)
			continue
		case ',':
			j := i + 1
			for j < len(s) && unicode.IsSpace(rune(s[j])) {
				j++
			}
			if j < len(s) && (s[j] == ']' || s[j] == '}') {
				trailing = true
				continue
			}
		}
		out.WriteByte(c)
	}
	if trailing {
		repairs = append(repairs, "trailing comma")
	}
	// Cut off: keep what closed, close what is open.
	repairs = append(repairs, RepairTruncated)
	kept := out.String()[:safeLen]
	if safeLen == 0 {
		kept, safeStack = string(stack[:1]), stack[:1]
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(kept, " \t\r\n,"))
	for i := len(safeStack) - 1; i >= 0; i-- {
		if safeStack[i] == '[' {
			b.WriteByte(']')
		} else {
			b.WriteByte('}')
		}
	}
	return b.String(), "", repairs
}

// excerpt puts a reply on one line, cut to 120 bytes, for error messages.
func Excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:120]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return strconv.Quote(s)
}

// RepairTruncated names the repair of a reply cut off mid-value.
const RepairTruncated = "truncated"
