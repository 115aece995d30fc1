package schemas

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

func borrowedSample() *EvalResult {
	r := &EvalResult{
		QuestionRef: QuestionRef{QuestionID: "q1", Pattern: PatternSingle, Hops: 1, Domain: "finance",
			PublishedAt: time.Date(2025, 3, 31, 0, 0, 0, 0, time.UTC)},
		RequestID: "r1", ModelID: "builtin:lexical", VariantID: "v1", Axis: "query", Kind: "char",
		Manifest: []string{"original/original", "query/char"},
		// Escapes, quotes and non-ASCII take the copying path of the decoder.
		Answer: "NOK 4,2 mrd. — \"Ålesund\"\n\ttab \\ end", Correct: true, JudgeMethod: "token_seq",
		Similarity: 0.75, LatencyMS: 12.5, TokensIn: 92, TokensOut: 2,
		EvaluatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
	}
	Stamp(r, "id1", "parent")
	r.ProducedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return r
}

// TestDecodeBorrowedAgreesWithDecode: the borrowing decoder gives the same
// event as Decode and refuses what Decode refuses, with the same errors.
func TestDecodeBorrowedAgreesWithDecode(t *testing.T) {
	b, err := Encode(borrowedSample())
	if err != nil {
		t.Fatal(err)
	}
	var want, got EvalResult
	if err := Decode(b, &want); err != nil {
		t.Fatal(err)
	}
	if err := DecodeBorrowed(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("DecodeBorrowed = %+v\nDecode        = %+v", got, want)
	}
	for name, c := range map[string]struct {
		in   string
		want error
	}{
		"truncated":      {string(b[:len(b)/2]), ErrInvalid},
		"trailing bytes": {string(b) + "x", ErrInvalid},
		"wrong type":     {`{"schema_version":1,"request_id":7}`, ErrInvalid},
		"newer version":  {`{"schema_version":99,"request_id":"r"}`, ErrUnknownVersion},
	} {
		var ev EvalResult
		err := DecodeBorrowed([]byte(c.in), &ev)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: DecodeBorrowed error %v, want %v", name, err, c.want)
		}
		if derr := Decode([]byte(c.in), &ev); !errors.Is(derr, c.want) {
			t.Errorf("%s: Decode error %v, want %v (the two must agree)", name, derr, c.want)
		}
	}
}

// TestDecodeBorrowedAllocatesLess holds the reason it exists: unescaped
// strings are not copied, so decoding allocates a few times per event, not
// once per string.
func TestDecodeBorrowedAllocatesLess(t *testing.T) {
	r := borrowedSample()
	r.Answer = "11,774 people"
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	copying := testing.AllocsPerRun(50, func() { var ev EvalResult; _ = Decode(b, &ev) })
	borrowing := testing.AllocsPerRun(50, func() { var ev EvalResult; _ = DecodeBorrowed(b, &ev) })
	if borrowing*2 > copying {
		t.Errorf("DecodeBorrowed allocates %.0f times per event, Decode %.0f: expected at most half", borrowing, copying)
	}
}
