package schemas

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// fillEvent sets every exported field of ev to a distinct non-zero value,
// so that a column reading the wrong field shows.
func fillEvent(ev Event, seed int) {
	n := seed
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			f, sf := v.Field(i), v.Type().Field(i)
			if !sf.IsExported() {
				continue
			}
			n++
			switch {
			case f.Type() == timeType:
				f.Set(reflect.ValueOf(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * 7919 * time.Second)))
			case f.Kind() == reflect.Struct:
				fill(f)
			case f.Kind() == reflect.String:
				f.SetString(fmt.Sprintf("%s-%d é \"q\"\n", sf.Name, n))
			case f.Kind() == reflect.Bool:
				f.SetBool(n%2 == 0)
			case f.Kind() >= reflect.Int && f.Kind() <= reflect.Int64:
				f.SetInt(int64(n))
			case f.Kind() >= reflect.Uint && f.Kind() <= reflect.Uint64:
				f.SetUint(uint64(n % 200))
			case f.Kind() == reflect.Float64:
				f.SetFloat(float64(n) + 0.125)
			case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
				f.Set(reflect.ValueOf([]string{fmt.Sprint("a", n), "b\n\"é\"", ""}))
			case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Float64:
				f.Set(reflect.ValueOf([]float64{float64(n) + 0.5, -1e-7, 0}))
			case f.Kind() == reflect.Map:
				m := reflect.MakeMap(f.Type())
				v := reflect.New(f.Type().Elem()).Elem()
				if v.Kind() == reflect.String {
					v.SetString(fmt.Sprint(n))
				} else {
					v.SetFloat(float64(n))
				}
				m.SetMapIndex(reflect.ValueOf("k"), v)
				f.Set(m)
			}
		}
	}
	fill(reflect.ValueOf(ev).Elem())
	m := ev.meta()
	m.SchemaVersion = Version
	if o, ok := ev.(*Outcome); ok {
		o.Family = FamilyGRADE
	}
}

// structPath is what the sink did before rows: decode an event, skip what
// is not a row, validate, build the record from the event.
func structPath(t *Table, b []byte) (rec arrow.Record, stored bool, err error) {
	ev := t.NewEvent()
	if err := Decode(b, ev); err != nil {
		return nil, false, err
	}
	if !t.Stores(ev) {
		return nil, false, nil
	}
	if err := t.Validate(ev); err != nil {
		return nil, false, err
	}
	return t.Record([]Event{ev}), true, nil
}

// mutations returns variants of a valid message: every field nulled,
// retyped, removed or renamed in case, extra keys, escapes, invalid UTF-8,
// other versions, broken syntax, other layout.
func mutations(tb testing.TB, b []byte) map[string][]byte {
	var obj map[string]stdjson.RawMessage
	if err := stdjson.Unmarshal(b, &obj); err != nil {
		tb.Fatal(err)
	}
	// Written by hand: Marshal would check the raw values, and some of
	// them are meant to be broken.
	enc := func(o map[string]stdjson.RawMessage) []byte {
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var sb strings.Builder
		sb.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "%q:%s", k, o[k])
		}
		sb.WriteByte('}')
		return []byte(sb.String())
	}
	with := func(k, v string) []byte {
		o := map[string]stdjson.RawMessage{}
		for kk, vv := range obj {
			o[kk] = vv
		}
		if v == "" {
			delete(o, k)
		} else {
			o[k] = stdjson.RawMessage(v)
		}
		return enc(o)
	}
	out := map[string][]byte{"as encoded": b, "sorted keys": enc(obj)}
	indented, _ := stdjson.MarshalIndent(obj, " ", "\t")
	out["indented"] = indented
	for k := range obj {
		for i, v := range []string{`null`, `"x"`, `""`, `7`, `1.5`, `-1`, `300`, `4294967296`, `1e400`, `true`, `[]`, `{}`, `["s"]`,
			`"2025-01-02T03:04:05Z"`, `"2025-13-02T03:04:05Z"`, `"rare"`, `"bogus"`, `"tab\there \u00e9 \ud83d\ude00"`, "\"\xff\xfe raw\"", `-0`, `0.0`,
			// Arrays: of each kind, escaped, mixed, with nulls, out of range, spaced, broken.
			`"bad \x escape"`, `"cut \u12"`, `["a\x"]`, `{"k":"\q"}`, `[1.5, -2e3, 0]`, `[ "a\n\u00e9" , "", "\ud83d\ude00"]`, "[\"\xff raw\"]", `[null]`, `["a",1]`, `[1,"a"]`, `[1e400]`, `[[]]`, `[ ]`, `["a",]`, `[1`} {
			out[fmt.Sprintf("%s=%d", k, i)] = with(k, v)
		}
		out[k+" removed"] = with(k, "")
		o := map[string]stdjson.RawMessage{}
		for kk, vv := range obj {
			o[kk] = vv
		}
		delete(o, k)
		o[strings.ToUpper(k)] = obj[k]
		out[k+" upper-cased"] = enc(o)
	}
	out["unknown keys"] = with("zz_extra", `{"a":[1,2,{"b":null}],"c":"d"}`)
	out["unknown key, bad"] = with("zz_extra", `[1,}`)
	out["version 2"] = with("schema_version", "2")
	out["version 1.0"] = with("schema_version", "1.0")
	out["empty"] = []byte(`{}`)
	out["array"] = []byte(`[]`)
	out["trailing"] = append(append([]byte{}, b...), " x"...)
	out["trailing space"] = append(append([]byte{}, b...), " \n"...)
	out["truncated"] = b[:len(b)/2]
	out["escaped key"] = []byte(strings.Replace(string(b), `"schema_version"`, `"schema\u005fversion"`, 1))
	out["duplicate key"] = []byte(strings.Replace(string(b), `{`, `{"produced_at":"2001-01-01T00:00:00Z",`, 1))
	return out
}

// TestDecodeRowMatchesStructPath holds the direct path to the struct path:
// for every table and every mutation of a full event, DecodeRow and
// RecordOfRows give the same record as Decode, Validate and Record, or the
// same error.
func TestDecodeRowMatchesStructPath(t *testing.T) {
	direct := 0
	for _, tb := range Tables() {
		ev := tb.NewEvent()
		fillEvent(ev, len(tb.Name))
		b, err := Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		if tb.Direct() {
			var extra []byte
			// Array columns included: a full event goes direct.
			if ok := tb.plan().decode(b, cellRef{make([]cell, len(tb.Columns)), 0, 1}, &extra); !ok {
				t.Errorf("%s: a full event of the table did not take the direct path", tb.Name)
			}
		}
		for name, m := range mutations(t, b) {
			want, wstored, werr := structPath(tb, m)
			row, stored, gerr := tb.DecodeRow(m)
			if row.ev == nil && gerr == nil && stored {
				direct++
			}
			switch {
			case werr != nil || gerr != nil:
				if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
					t.Errorf("%s, %s: struct path error %v, DecodeRow error %v", tb.Name, name, werr, gerr)
				}
			case stored != wstored:
				t.Errorf("%s, %s: DecodeRow says stored %v, the struct path %v", tb.Name, name, stored, wstored)
			case !stored:
			default:
				got := tb.RecordOfRows(memory.DefaultAllocator, []Row{row})
				if !array.RecordEqual(want, got) {
					t.Errorf("%s, %s: records differ\nstruct: %v\ndirect: %v", tb.Name, name, want, got)
				}
				if k, w := tb.RowKey(row), tb.RowID(mustDecode(t, tb, m)); k != w {
					t.Errorf("%s, %s: RowKey %q, RowID %q", tb.Name, name, k, w)
				}
				got.Release()
			}
			if want != nil {
				want.Release()
			}
		}
	}
	// The base cases, the layouts, extra keys and most retypings that stay
	// valid (a string for a string) go direct; far more than a handful.
	if direct < 100 {
		t.Errorf("only %d mutations took the direct path", direct)
	}
}

func mustDecode(t *testing.T, tb *Table, b []byte) Event {
	ev := tb.NewEvent()
	if err := Decode(b, ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestDirectTables: the tables with the sinks' volume are read directly,
// the outcomes check is the Enum8 check the direct path makes, and a
// mixed batch (direct and struct rows) builds one record in order.
func TestDirectTables(t *testing.T) {
	for _, tb := range []*Table{EvalResultsTable, OutcomesTable, ChunksTable, DocumentsTable, AlertsTable} {
		if !tb.Direct() {
			t.Errorf("%s is not read directly", tb.Name)
		}
	}
	names := OutcomesTable.plan().enums[1]
	if !reflect.DeepEqual(names, families) {
		t.Errorf("family names from the Enum8 type %v, check's %v", names, families)
	}
	var rows []Row
	var evs []Event
	for i := range 3 {
		o := &Outcome{OutcomeID: fmt.Sprint("o", i), Family: FamilyRARE, Value: float64(i)}
		Stamp(o, o.OutcomeID)
		b, _ := Encode(o)
		if i == 1 {
			// A key in another case: decoding matches it, the direct path
			// hands the message over.
			b = []byte(strings.Replace(string(b), `"value"`, `"Value"`, 1))
		}
		r, stored, err := OutcomesTable.DecodeRow(b)
		if err != nil || !stored || (r.ev != nil) != (i == 1) {
			t.Fatalf("outcome %d: row %+v stored %v err %v", i, r, stored, err)
		}
		rows = append(rows, r)
		evs = append(evs, o)
	}
	want := OutcomesTable.Record(evs)
	got := OutcomesTable.RecordOfRows(memory.DefaultAllocator, rows)
	defer want.Release()
	defer got.Release()
	if !array.RecordEqual(want, got) {
		t.Errorf("mixed batch:\n got %v\nwant %v", got, want)
	}
	if _, _, err := OutcomesTable.DecodeRow([]byte(`{"schema_version":1,"outcome_id":"o","family":"nope"}`)); !errors.Is(err, ErrRow) {
		t.Errorf("unknown family: %v, want ErrRow", err)
	}
}

// TestUTCSeconds holds the timestamp shortcut to time.Time's parsing: the
// same seconds where it answers, and no answer where parsing refuses.
func TestUTCSeconds(t *testing.T) {
	cases := []string{"1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "2000-02-29T12:00:00Z",
		"1900-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2024-02-29T23:59:59.999999999Z", "2106-02-07T06:28:15Z",
		"2106-02-07T06:28:16Z", "9999-12-31T23:59:59Z", "2025-04-31T00:00:00Z", "2025-13-01T00:00:00Z", "2025-00-01T00:00:00Z",
		"2025-01-00T00:00:00Z", "2025-01-01T24:00:00Z", "2025-01-01T23:60:00Z", "2025-01-01T23:59:60Z", "2025-01-01T00:00:00.Z",
		"2025-01-01T00:00:00.1234567891Z", "2025-01-01t00:00:00Z", "2025-01-01T00:00:00z", "2025-01-01T00:00:00+00:00",
		"2025-1-01T00:00:00Z", "+025-01-01T00:00:00Z", "2025-01-01T00:00:00.5Z", "2025-01-01 00:00:00Z"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		tm := time.Unix(r.Int64N(1<<34)-1<<32, r.Int64N(1e9)).UTC()
		cases = append(cases, tm.Format(time.RFC3339Nano), tm.Format(time.RFC3339))
	}
	for _, c := range cases {
		var tm time.Time
		err := tm.UnmarshalJSON([]byte(`"` + c + `"`))
		got, ok := utcSeconds([]byte(c))
		switch {
		case ok && err != nil:
			t.Errorf("%s: shortcut says %d, parsing refuses: %v", c, got, err)
		case ok && got != DateTimeSeconds(tm):
			t.Errorf("%s: shortcut says %d, parsing %d", c, got, DateTimeSeconds(tm))
		}
	}
	if _, ok := utcSeconds([]byte("2025-06-30T08:15:00.123Z")); !ok {
		t.Error("the encoder's own layout is not taken by the shortcut")
	}
}

// TestDecodeRowsRecyclesCleanly: a batch decoded and built on all cores
// (1,500 rows) into a recycled slab gives the records DecodeRow gives one
// by one, and a value of an earlier batch never shows through a key the
// next batch lacks.
func TestDecodeRowsRecyclesCleanly(t *testing.T) {
	batch := func(withAnswer bool) [][]byte {
		var out [][]byte
		for i := range 1500 {
			r := &EvalResult{RequestID: fmt.Sprint("r", i), Answer: fmt.Sprint("answer ", i, "\n"), TokensIn: uint32(i)}
			Stamp(r, r.RequestID)
			b, err := Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			if !withAnswer {
				b = []byte(strings.Replace(string(b), fmt.Sprintf(`"answer":"answer %d\n",`, i), "", 1))
			}
			out = append(out, b)
		}
		return out
	}
	for _, withAnswer := range []bool{true, false, true} {
		values := batch(withAnswer)
		rb := EvalResultsTable.DecodeRows(values)
		var rows, one []Row
		for i, res := range rb.Results {
			if res.Err != nil || !res.Stored || res.Row.ev != nil {
				t.Fatalf("message %d: %+v", i, res)
			}
			rows = append(rows, res.Row)
			r, _, _ := EvalResultsTable.DecodeRow(values[i])
			one = append(one, r)
		}
		got := EvalResultsTable.RecordOfRows(memory.DefaultAllocator, rows)
		want := EvalResultsTable.RecordOfRows(memory.DefaultAllocator, one)
		if !array.RecordEqual(got, want) {
			t.Errorf("answers %v: batch and one-by-one records differ", withAnswer)
		}
		answers := got.Column(got.Schema().FieldIndices("answer")[0]).(*array.String)
		if a := answers.Value(5); (a != "") != withAnswer {
			t.Errorf("answers %v: row 5 has answer %q", withAnswer, a)
		}
		got.Release()
		want.Release()
		rb.Release()
	}
}
