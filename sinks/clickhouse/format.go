package clickhouse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Client-side rendering of native-protocol results in ClickHouse's text
// formats, for `robustream sql --clickhouse URL --format F`. chDB renders on
// its own; this makes the server engine print the same bytes for the types
// our tables use (strings, integers, floats, DateTime, Date, Enum, arrays,
// Nullable). Supported: TabSeparated (TSV), TabSeparatedWithNames
// (TSVWithNames), TabSeparatedRaw (TSVRaw), CSV, CSVWithNames, JSONEachRow.

type format int

const (
	formatTSV format = iota
	formatTSVRaw
	formatCSV
	formatJSONEachRow
)

type rowWriter struct {
	format format
	names  bool
}

func newRowWriter(name string) (*rowWriter, error) {
	switch strings.ToLower(name) {
	case "", "tabseparated", "tsv":
		return &rowWriter{format: formatTSV}, nil
	case "tabseparatedwithnames", "tsvwithnames":
		return &rowWriter{format: formatTSV, names: true}, nil
	case "tabseparatedraw", "tsvraw":
		return &rowWriter{format: formatTSVRaw}, nil
	case "csv":
		return &rowWriter{format: formatCSV}, nil
	case "csvwithnames":
		return &rowWriter{format: formatCSV, names: true}, nil
	case "jsoneachrow":
		return &rowWriter{format: formatJSONEachRow}, nil
	}
	return nil, fmt.Errorf("format %q is not supported against a server; use TabSeparated, TabSeparatedWithNames, TabSeparatedRaw, CSV, CSVWithNames or JSONEachRow", name)
}

// valueKind says how a rendered value is quoted by the formats.
type valueKind int

const (
	kindNumber    valueKind = iota // bare in every format
	kindString                     // escaped in TSV, quoted in CSV and JSON
	kindComposite                  // an array literal, already quoted inside
	kindNull
)

func (w *rowWriter) render(rows driver.Rows) ([]byte, error) {
	types := rows.ColumnTypes()
	var buf bytes.Buffer
	if w.names {
		for i, t := range types {
			if i > 0 {
				buf.WriteByte(w.sep())
			}
			w.writeText(&buf, t.Name(), kindString)
		}
		buf.WriteByte('\n')
	}
	dest := make([]any, len(types))
	for i, t := range types {
		dest[i] = reflect.New(t.ScanType()).Interface()
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if w.format == formatJSONEachRow {
			if err := w.writeJSONRow(&buf, types, dest); err != nil {
				return nil, err
			}
			continue
		}
		for i, t := range types {
			if i > 0 {
				buf.WriteByte(w.sep())
			}
			text, kind := renderValue(reflect.ValueOf(dest[i]).Elem(), t.DatabaseTypeName())
			w.writeText(&buf, text, kind)
		}
		buf.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (w *rowWriter) sep() byte {
	if w.format == formatCSV {
		return ','
	}
	return '\t'
}

func (w *rowWriter) writeText(buf *bytes.Buffer, text string, kind valueKind) {
	if kind == kindNull {
		buf.WriteString(`\N`)
		return
	}
	switch w.format {
	case formatTSV:
		if kind == kindString {
			escapeTSV(buf, text)
			return
		}
	case formatCSV:
		if kind != kindNumber {
			buf.WriteByte('"')
			buf.WriteString(strings.ReplaceAll(text, `"`, `""`))
			buf.WriteByte('"')
			return
		}
	}
	buf.WriteString(text)
}

// escapeTSV escapes like ClickHouse's TabSeparated output (which, on 18.16
// as on 26.x, escapes the single quote too).
func escapeTSV(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			buf.WriteString(`\\`)
		case '\'':
			buf.WriteString(`\'`)
		case '\t':
			buf.WriteString(`\t`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case 0:
			buf.WriteString(`\0`)
		default:
			buf.WriteByte(c)
		}
	}
}

// quoteInArray renders a string element of an array the way ClickHouse
// does in every text format: single-quoted, backslash-escaped.
func quoteInArray(s string) string {
	var b bytes.Buffer
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\', '\t', '\n', '\r', '\b', '\f', 0:
			escapeTSV(&b, s[i:i+1])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// innerType strips one wrapper such as Nullable(…) or Array(…).
func innerType(dbType, wrapper string) (string, bool) {
	if strings.HasPrefix(dbType, wrapper+"(") && strings.HasSuffix(dbType, ")") {
		return dbType[len(wrapper)+1 : len(dbType)-1], true
	}
	return dbType, false
}

// renderValue renders v (of a column of ClickHouse type dbType) as text.
func renderValue(v reflect.Value, dbType string) (string, valueKind) {
	if t, ok := innerType(dbType, "Nullable"); ok {
		dbType = t
	}
	if t, ok := innerType(dbType, "LowCardinality"); ok {
		dbType = t
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "", kindNull
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case time.Time:
		return formatTime(x, dbType), kindString
	case big.Int:
		return x.String(), kindNumber
	case fmt.Stringer:
		if v.Kind() == reflect.Struct { // decimal.Decimal, uuid.UUID, …
			return x.String(), kindNumber
		}
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), kindString
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), kindNumber
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), kindNumber
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), kindNumber
	case reflect.Float32:
		return formatFloat(v.Float(), 32), kindNumber
	case reflect.Float64:
		return formatFloat(v.Float(), 64), kindNumber
	case reflect.Slice, reflect.Array:
		elemType, _ := innerType(dbType, "Array")
		var b strings.Builder
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			text, kind := renderValue(v.Index(i), elemType)
			switch kind {
			case kindString:
				b.WriteString(quoteInArray(text))
			case kindNull:
				b.WriteString("NULL")
			default:
				b.WriteString(text)
			}
		}
		b.WriteByte(']')
		return b.String(), kindComposite
	}
	return fmt.Sprint(v.Interface()), kindString
}

// formatTime renders Date, Date32, DateTime and DateTime64(p) values in the
// column's time zone, which clickhouse-go has already applied.
func formatTime(t time.Time, dbType string) string {
	switch {
	case strings.HasPrefix(dbType, "Date32"), dbType == "Date":
		return t.Format(time.DateOnly)
	case strings.HasPrefix(dbType, "DateTime64("):
		prec := 0
		if args := strings.TrimSuffix(strings.TrimPrefix(dbType, "DateTime64("), ")"); args != "" {
			prec, _ = strconv.Atoi(strings.TrimSpace(strings.Split(args, ",")[0]))
		}
		if prec > 0 {
			return t.Format(time.DateTime + "." + strings.Repeat("0", prec))
		}
	}
	return t.Format(time.DateTime)
}

// formatFloat prints like ClickHouse: shortest round-trip digits, plain
// notation between 1e-6 and 1e21, nan/inf spelled in lower case.
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if a := math.Abs(f); f == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	s := strconv.FormatFloat(f, 'e', -1, bits)
	mant, exp, _ := strings.Cut(s, "e")
	sign := ""
	if strings.HasPrefix(exp, "-") {
		sign = "-"
	}
	exp = strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")
	return mant + "e" + sign + exp
}

// writeJSONRow writes one JSONEachRow line like current ClickHouse (and
// chDB): 64-bit integers as bare numbers (18.16 quoted them) and
// non-finite floats as null.
func (w *rowWriter) writeJSONRow(buf *bytes.Buffer, types []driver.ColumnType, dest []any) error {
	buf.WriteByte('{')
	for i, t := range types {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, _ := json.Marshal(t.Name())
		buf.Write(name)
		buf.WriteByte(':')
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(jsonValue(reflect.ValueOf(dest[i]).Elem(), t.DatabaseTypeName())); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	buf.WriteString("}\n")
	return nil
}

func jsonValue(v reflect.Value, dbType string) any {
	if t, ok := innerType(dbType, "Nullable"); ok {
		dbType = t
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return json.Number(formatFloat(v.Float(), v.Type().Bits()))
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 || strings.HasPrefix(dbType, "Array(") {
			elemType, _ := innerType(dbType, "Array")
			out := make([]any, v.Len())
			for i := range out {
				out[i] = jsonValue(v.Index(i), elemType)
			}
			return out
		}
	}
	text, kind := renderValue(v, dbType)
	if kind == kindNumber && v.Kind() != reflect.Struct {
		return json.Number(text)
	}
	return text
}
