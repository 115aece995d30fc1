package schemas

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// scanStringByBytes is scanString written plainly, one byte at a time:
// the reference the word-at-a-time scan is held to.
func scanStringByBytes(b []byte, i int) (end int, simple bool) {
	if i >= len(b) || b[i] != '"' {
		return -1, false
	}
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c < 0x20:
			return -1, false
		case c == '\\':
			escaped = true
			j++
		case c == '"':
			return j, !escaped && utf8.Valid(b[i+1:j])
		}
	}
	return -1, false
}

// TestScanStringMatchesByteScan: for strings of every length up to 40
// around each kind of byte the scan stops at (quote, backslash, control
// character, multi-byte and invalid UTF-8), at every offset into the
// eight-byte words, the scan finds the same end and says the same about
// simplicity as the plain reference.
func TestScanStringMatchesByteScan(t *testing.T) {
	alphabet := []string{"a", "Z", "0", " ", "~", "\"", "\\", "\\\"", "\x00", "\x1f", "\t", "\x7f", "é", "€", "𝄞", "\xff", "\xc3", "\x80"}
	r := rand.New(rand.NewPCG(7, 14))
	checked := 0
	for n := 0; n <= 40; n++ {
		for range 300 {
			var sb strings.Builder
			for range n {
				// Mostly plain ASCII, as in our messages, so that the
				// special bytes land at every position of a word.
				if r.IntN(4) == 0 {
					sb.WriteString(alphabet[r.IntN(len(alphabet))])
				} else {
					sb.WriteByte(byte('a' + r.IntN(26)))
				}
			}
			for pad := 0; pad < 8; pad++ {
				b := []byte(strings.Repeat(" ", pad) + `"` + sb.String() + `",1`)
				// Also without a closing quote after the body.
				for _, buf := range [][]byte{b, b[:pad+1+sb.Len()]} {
					wantEnd, wantSimple := scanStringByBytes(buf, pad)
					gotEnd, gotSimple := scanString(buf, pad)
					if gotEnd != wantEnd || (wantEnd >= 0 && gotSimple != wantSimple) {
						t.Fatalf("%q at %d: scanString (%d, %v), byte scan (%d, %v)", buf, pad, gotEnd, gotSimple, wantEnd, wantSimple)
					}
					checked++
				}
			}
		}
	}
	if checked < 100000 {
		t.Errorf("only %d strings checked", checked)
	}
}

// TestDirectRecordBuffers: a batch of direct rows (some strings with
// escapes, columns empty in every row, arrays in some rows) builds the
// record the builders build from the same events, alone and beside a row
// that took the struct path, and gives back every byte it allocated.
func TestDirectRecordBuffers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var values [][]byte
	var events []Event
	for i := range 1500 {
		r := &EvalResult{RequestID: fmt.Sprint("r", i), VariantID: "v", Answer: fmt.Sprint("answer ", i), TokensIn: uint32(i), Similarity: float64(i) / 7, Correct: i%3 == 0}
		if i%5 == 0 {
			r.Answer = fmt.Sprintf("line %d\n\"quoted\" é", i)
		}
		if i%4 == 1 {
			r.Retriever = "bm25"
			r.Retrieved = []string{fmt.Sprintf("passage %d\n\"q\"", i), "", "plain é"}[:1+i%3]
			r.RetrievedSources = []string{fmt.Sprint("doc", i), "doc2"}
			r.RetrievedScores = []float64{float64(i) / 3, -0.25, 1e-9}[:i%4]
		}
		Stamp(r, r.RequestID)
		b, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, b)
		events = append(events, r)
	}
	rb := EvalResultsTable.DecodeRows(values)
	defer rb.Release()
	var rows []Row
	for i, res := range rb.Results {
		if res.Err != nil || !res.Stored || res.Row.ev != nil {
			t.Fatalf("message %d did not take the direct path: %+v", i, res)
		}
		rows = append(rows, res.Row)
	}
	for _, n := range []int{1, len(rows)} { // one core and all cores
		got := EvalResultsTable.RecordOfRows(mem, rows[:n])
		want := EvalResultsTable.Record(events[:n])
		if !array.RecordEqual(got, want) {
			t.Errorf("%d rows: direct record differs from the builders'", n)
		}
		// Every column carries a validity bitmap, as the builders' do.
		for c, col := range got.Columns() {
			if col.Data().Buffers()[0] == nil || col.NullN() != 0 {
				t.Errorf("%d rows, column %s: no validity bitmap, or nulls (%d)", n, EvalResultsTable.Columns[c].Name, col.NullN())
			}
		}
		got.Release()
		want.Release()
	}
	// Row 7 through the struct path: a key in another case.
	mixed := append([]Row{}, rows...)
	b := []byte(strings.Replace(string(values[7]), `"request_id"`, `"Request_ID"`, 1))
	r, stored, err := EvalResultsTable.DecodeRow(b)
	if err != nil || !stored || r.ev == nil {
		t.Fatalf("upper-cased key: row %+v stored %v err %v, want the struct path", r, stored, err)
	}
	mixed[7] = r
	got := EvalResultsTable.RecordOfRows(mem, mixed)
	want := EvalResultsTable.Record(events)
	if !array.RecordEqual(got, want) {
		t.Errorf("mixed batch: record differs from the builders'")
	}
	got.Release()
	want.Release()
}

// TestFloatFits: where floatFits answers for a skipped float, parsing
// agrees (it fails only out of range), at both sizes, around the largest
// float of each.
func TestFloatFits(t *testing.T) {
	nums := []string{"0", "-0", "1.5", "-12.25", "0.000001", "3.4e38", "1e39", "1E5", "1.5e-400", "1.0e400"}
	for _, whole := range []int{1, 37, 38, 39, 40, 307, 308, 309, 310, 400} {
		for _, lead := range []string{"1", "3", "9"} {
			n := lead + strings.Repeat("9", whole-1)
			nums = append(nums, n, "-"+n, n+".5", n+".999")
		}
	}
	fits := 0
	for _, n := range nums {
		for _, bits := range []int{32, 64} {
			if skipNumber([]byte(n), 0) != len(n) {
				t.Fatalf("%s is not a number to skipNumber", n)
			}
			_, err := strconv.ParseFloat(n, bits)
			if floatFits([]byte(n), bits) {
				fits++
				if err != nil {
					t.Errorf("%s (float%d): floatFits, but parsing says %v", n, bits, err)
				}
			}
		}
	}
	if fits < len(nums) {
		t.Errorf("floatFits answered for only %d of %d", fits, 2*len(nums))
	}
}

// TestAppendUnquotedMatchesDecoding holds the escape decoder to decoding
// itself: for random strings of escapes (defined, unknown, broken),
// surrogate pairs (whole, lone, reversed), text in and out of UTF-8 and
// plain bytes, the same value or the same refusal.
func TestAppendUnquotedMatchesDecoding(t *testing.T) {
	parts := []string{"a", "plain text ", "é", "😀", `\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`, `\u00e9`, `\u00E9`,
		`\u0000`, `\u001f`, `\uffff`, `\ufffd`, `\ud83d\ude00`, `\uD83D\uDE00`, `\ud83d`, `\ude00`, `\ude00\ud83d`, `\ud83dx`,
		`\ud83d\u0041`, `\ud83d\n`, `\x`, `\U00e9`, `\u12`, `\u12g4`, "\xff", "\xe2\x82", "\xc3", `\`, `'`}
	rng := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for range 20000 {
		var sb strings.Builder
		sb.WriteByte('"')
		for range 1 + rng.IntN(6) {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		sb.WriteByte('"')
		q := []byte(sb.String())
		end, simple := scanString(q, 0)
		if end != len(q)-1 || simple {
			continue // not a string appendUnquoted is given
		}
		checked++
		want, wok := unquote(q)
		got, gok := appendUnquoted([]byte("prefix"), q)
		if gok != wok || (gok && string(got) != "prefix"+want) {
			t.Fatalf("%s: decoding gives %q (ok %v), appendUnquoted %q (ok %v)", q, want, wok, got, gok)
		}
	}
	got, ok := appendUnquoted(nil, []byte(`"line\nbreak \"q\" \u00e9 \ud83d\ude00\t\\\/"`))
	if want := "line\nbreak \"q\" é 😀\t\\/"; !ok || string(got) != want {
		t.Errorf("common escapes: %q (ok %v), want %q", got, ok, want)
	}
	if checked < 5000 {
		t.Errorf("only %d strings checked", checked)
	}
}
