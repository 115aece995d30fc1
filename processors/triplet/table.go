package triplet

import (
	"strings"
	"unicode"
)

// tableTriples reads the Markdown tables of a chunk: a header row, a
// delimiter row (|---|---|) and data rows. Each data row yields (first cell,
// column header, cell) for every other non-empty cell, with the row line,
// verbatim, as its sentence. Rows whose first cell is empty, a number, or a
// repeat of the header yield nothing, and neither does a placeholder cell
// (placeholderCell): "n/a" or "–" records that there is no value, and as a
// gold answer it reads like a refusal that no reader can get right.
func tableTriples(chunk string) []Triple {
	var out []Triple
	lines := chunkLines(chunk)
	for i := 0; i+1 < len(lines); i++ {
		if !isRow(lines[i].text) || !isDelimiter(lines[i+1].text) {
			continue
		}
		header := cells(lines[i].text)
		if valueColumns[strings.ToLower(strings.Trim(header[0], "*_ "))] {
			// "| type | default | mandatory |" under "#### FileCreateMode":
			// each row holds values of one setting the heading names, so
			// its first cell ("octalNumber") is no thing to ask about
			i++
			continue
		}
		for k := i + 2; k < len(lines) && isRow(lines[k].text); k++ {
			row := cells(lines[k].text)
			if len(row) == 0 || !entityCell(row[0]) || strings.EqualFold(row[0], header[0]) || condition(row[0]) || labelCell(row[0], header[0]) {
				// a row named by a condition ("N≥12 and even", "x < 0")
				// names no thing to ask about
				continue
			}
			for c := 1; c < len(row) && c < len(header); c++ {
				h := strings.TrimSpace(strings.Trim(header[c], "*_"))
				v := strings.TrimSpace(strings.Trim(row[c], "*_"))
				if h == "" || repeatedHeader(header, c) || clauseHeader(h) || pointerCell(v) || strings.HasSuffix(h, ".") || strings.HasSuffix(h, "?") || placeholderCell(v) || !strings.Contains(lines[k].text, v) ||
					linkMarkup(v) || linkMarkup(row[0]) || freeTextColumn(h) || proseCell(v) || booleanCell(v) ||
					listCell(v) || listCell(row[0]) {
					// an abbreviated header ("Decompress.") is not a
					// word a question can use, nor is a header that
					// asks ("Overwrite if already exists?")
					continue
				}
				out = append(out, Triple{
					Head: rowName(row[0]), Relation: h, Tail: v, Kind: KindTable,
					Sentence: Sentence{Text: lines[k].text, Start: lines[k].start, End: lines[k].end},
				})
			}
		}
		i++
	}
	return out
}

func isRow(l string) bool { return strings.HasPrefix(l, "|") && strings.Count(l, "|") >= 2 }

// isDelimiter: | --- | :---: |
func isDelimiter(l string) bool {
	if !isRow(l) {
		return false
	}
	for _, c := range cells(l) {
		c = strings.TrimSpace(c)
		if strings.Trim(c, "-:") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// cells splits a row into its trimmed cells.
func cells(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	l = strings.TrimSuffix(l, "|")
	parts := strings.Split(l, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// entityCell: a first cell that names something, not a number or a blank.
func entityCell(c string) bool {
	c = strings.TrimSpace(strings.Trim(c, "*_ "))
	return c != "" && strings.IndexFunc(c, unicode.IsLetter) >= 0 && !isNumber(c)
}

// labelColumns head a first column of labels for places in a layout
// ("Column | Data": A, B, C), which a question could not name.
var labelColumns = set("column", "col", "row", "step", "no", "no.", "#", "number", "item", "position", "pos")

// labelCell reports a one-character first cell under a label column.
func labelCell(c, header string) bool {
	c = strings.TrimSpace(strings.Trim(c, "*_ "))
	return len([]rune(c)) == 1 && labelColumns[strings.ToLower(strings.TrimSpace(header))]
}

// placeholderWords are the spellings, after placeholderKey, that tables use
// for "no value here": not applicable, not available, none, unknown, to be
// decided. They are English conventions of table writing, not words of one
// corpus. A status such as "pending" is a value and stays.
var placeholderWords = map[string]bool{
	"na": true, "nav": true, "none": true, "nil": true, "null": true, "nan": true,
	"notapplicable": true, "notavailable": true, "notknown": true, "unknown": true, "nodata": true,
	"tbd": true, "tba": true, "tbc": true, "emptystring": true, "blank": true,
}

// placeholderCell reports whether a table cell holds no value: empty, only
// punctuation, symbols or spaces (any dash, "?", "…", "*" alone is not a
// value either), or one of placeholderWords however it is cased,
// dotted, slashed or spaced ("N/A", "n.a.", "Not applicable", "TBD").
func placeholderCell(v string) bool {
	k := placeholderKey(v)
	return k == "" || placeholderWords[k]
}

// placeholderKey keeps only the letters and digits of v, lowercased: the
// punctuation and spacing of a placeholder vary ("N/A", "n. a.", "–", "— ")
// while its letters do not.
func placeholderKey(v string) string {
	var b strings.Builder
	for _, r := range v {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// rowName is a row's first cell without its Markdown emphasis and link
// brackets: "**zstd 1.5.1 -1**" and "[zlib] 1.2.11 -1" name "zstd 1.5.1 -1"
// and "zlib 1.2.11 -1".
func rowName(c string) string {
	c = strings.TrimSpace(strings.Trim(strings.TrimSpace(c), "*_"))
	if strings.HasPrefix(c, "[") {
		if j := strings.Index(c, "]"); j > 0 && !strings.HasPrefix(c[j+1:], "(") {
			c = c[1:j] + c[j+1:]
		}
	}
	return c
}

// linkMarkup: a cell holding a Markdown image or a link target ("[![build
// status](…)](…)"): a badge or a link, not a value to ask for.
func linkMarkup(c string) bool {
	return strings.Contains(c, "](") || strings.Contains(c, "![")
}

// freeTextColumns hold remarks, not values: a cell under them is prose
// with no one short answer.
var freeTextColumns = set("notes", "note", "description", "descriptions", "comment", "comments", "remarks",
	"remark", "details", "explanation", "meaning", "summary", "example", "examples", "usage", "purpose")

func freeTextColumn(h string) bool { return freeTextColumns[strings.ToLower(strings.TrimSpace(h))] }

// proseCell: a cell that is a sentence or more ("A named variable. Its
// value can be set by …", "The integer segment id."), no value to ask for.
func proseCell(v string) bool {
	if n := len(strings.Fields(v)); n > 10 || n >= 3 && strings.HasSuffix(v, ".") && strings.ContainsFunc(v[:1], unicode.IsUpper) {
		return true
	}
	i := strings.Index(v, ". ")
	return i > 0 && i+2 < len(v) && strings.ContainsFunc(v[i+2:i+3], unicode.IsUpper)
}

// booleanCell: a yes/no mark ("Yes", "n", "true", "x"). Asked as "What is
// the <header> of <row>?" it makes no question a person asks, and one of
// two answers is right by chance.
func booleanCell(v string) bool {
	switch placeholderKey(v) {
	case "yes", "no", "y", "n", "true", "false", "x":
		return true
	}
	return false
}

// listCell: a cell of items on lines of their own, which the HTML reader
// joins with "; " ("REAL; DOUBLE; FLOAT"). As a row's name it names no one
// thing; as a value it is a list that a single answer cannot hold.
func listCell(v string) bool { return strings.Contains(v, "; ") }

// condition: a cell that states a comparison ("N≥12 and even", "x < 0",
// "size >= 4"), not a name; an option's "=" ("--fast=1") is no comparison.
func condition(c string) bool {
	if strings.ContainsAny(c, "≥≤≠") {
		return true
	}
	for _, op := range []string{" < ", " > ", " <= ", " >= ", " = ", " == ", " != "} {
		if strings.Contains(c, op) {
			return true
		}
	}
	return false
}

// repeatedHeader: two columns under the same header ("Option | Option":
// the flag and the configuration keyword) leave "the option of …" with two
// answers.
func repeatedHeader(header []string, c int) bool {
	for k, h := range header {
		if k != c && strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(header[c])) {
			return true
		}
	}
	return false
}

// valueColumns head a first column of values rather than of things: a
// setting's type, format or value.
var valueColumns = map[string]bool{"type": true, "data type": true, "datatype": true, "kind": true, "format": true,
	"value": true, "values": true, "default": true, "syntax": true}

// clauseHeader: a header that is a clause or a question ("What happens",
// "How it works"), not an attribute a question can name.
func clauseHeader(h string) bool {
	f := strings.Fields(strings.ToLower(h))
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "what", "how", "when", "where", "why", "which", "who", "does", "is", "can":
		return true
	}
	return false
}

// pointerCell: a cell that sends the reader elsewhere ("(see description)",
// "see below").
func pointerCell(v string) bool {
	w := strings.Fields(strings.ToLower(strings.Trim(v, "()[] ")))
	return len(w) > 0 && (w[0] == "see" || w[0] == "cf." || w[0] == "refer")
}
