package schemas

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

func TestRecordValues(t *testing.T) {
	pub := time.Date(2024, 3, 31, 12, 0, 0, 0, time.UTC)
	q := &Question{QuestionID: "q1", Question: "Who?", Answer: "A", Aliases: []string{"a", "Ay"},
		Hops: 2, GTChunkIDs: []string{"c1"}, QAScores: map[string]float64{"clarity": 4, "correctness": 5, "bogus": 1},
		DR: 0.25, PublishedAt: pub}
	Stamp(q, "q1")
	empty := &Question{QuestionID: "q2"}
	rec := QuestionsTable.Record([]Event{q, empty})
	defer rec.Release()
	if rec.NumRows() != 2 || rec.NumCols() != int64(len(QuestionsTable.Columns)) {
		t.Fatalf("got %d×%d", rec.NumRows(), rec.NumCols())
	}
	col := func(name string) arrow.Array {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("no column %s", name)
		}
		return rec.Column(idx[0])
	}
	if got := col("question_id").(*array.String).Value(0); got != "q1" {
		t.Errorf("question_id = %q", got)
	}
	if got := col("hops").(*array.Uint8).Value(0); got != 2 {
		t.Errorf("hops = %d", got)
	}
	if got := col("published_at").(*array.Timestamp).Value(0); int64(got) != pub.Unix() {
		t.Errorf("published_at = %d, want %d", got, pub.Unix())
	}
	if got := col("published_at").(*array.Timestamp).Value(1); got != 0 {
		t.Errorf("zero time stored as %d, want 0 (1970-01-01)", got)
	}
	list := func(name string, row int) []any {
		l := col(name).(*array.List)
		start, end := l.ValueOffsets(row)
		var out []any
		for i := start; i < end; i++ {
			switch v := l.ListValues().(type) {
			case *array.String:
				out = append(out, v.Value(int(i)))
			case *array.Float64:
				out = append(out, v.Value(int(i)))
			}
		}
		return out
	}
	if got, want := list("aliases", 0), []any{"a", "Ay"}; !reflect.DeepEqual(got, want) {
		t.Errorf("aliases = %v, want %v", got, want)
	}
	if got := list("aliases", 1); len(got) != 0 {
		t.Errorf("nil aliases = %v, want empty", got)
	}
	if got, want := list("qa_score_names", 0), []any{"bogus", "clarity", "correctness"}; !reflect.DeepEqual(got, want) {
		t.Errorf("qa_score_names = %v, want %v", got, want)
	}
	if got, want := list("qa_score_values", 0), []any{1.0, 4.0, 5.0}; !reflect.DeepEqual(got, want) {
		t.Errorf("qa_score_values = %v, want %v", got, want)
	}
}

func TestRecordFlags(t *testing.T) {
	r := &EvalResult{RequestID: "r", Correct: true, ClosedBook: false, Refused: true}
	rec := EvalResultsTable.Record([]Event{r})
	defer rec.Release()
	for name, want := range map[string]uint8{"correct": 1, "closed_book": 0, "refused": 1} {
		idx := rec.Schema().FieldIndices(name)[0]
		if got := rec.Column(idx).(*array.Uint8).Value(0); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
}

func TestDateTimeSeconds(t *testing.T) {
	f := func(in time.Time, want int64) {
		t.Helper()
		if got := DateTimeSeconds(in); got != want {
			t.Errorf("DateTimeSeconds(%v) = %d, want %d", in, got, want)
		}
	}
	f(time.Time{}, 0)
	f(time.Unix(-5, 0), 0)
	f(time.Unix(1700000000, 999), 1700000000)
	f(time.Unix(math.MaxUint32+10, 0), math.MaxUint32)
}

func TestValidate(t *testing.T) {
	f := func(tb *Table, e Event, ok bool) {
		t.Helper()
		err := tb.Validate(e)
		if ok && err != nil {
			t.Errorf("%s.Validate(%+v) = %v, want nil", tb.Name, e, err)
		}
		if !ok && !errors.Is(err, ErrRow) {
			t.Errorf("%s.Validate(%+v) = %v, want ErrRow", tb.Name, e, err)
		}
	}
	f(OutcomesTable, &Outcome{OutcomeID: "o", Family: FamilyRARE, Value: 1}, true)
	f(OutcomesTable, &Outcome{OutcomeID: "o", Family: "nope"}, false)
	f(OutcomesTable, &Outcome{OutcomeID: "o", Family: FamilySURE, Value: math.NaN()}, false)
	f(OutcomesTable, &Outcome{Family: FamilyRARE}, false)
	f(OutcomesTable, &Alert{AlertID: "a"}, false)
	f(AlertsTable, &Alert{AlertID: "a"}, true)
	f(DocumentsTable, &DocumentVersion{}, false)
	f(DocumentsTable, &DocumentVersion{DocID: "d"}, true)
}

func TestTableNamed(t *testing.T) {
	for _, tb := range Tables() {
		if TableNamed(tb.Name) != tb {
			t.Errorf("TableNamed(%q) does not return it", tb.Name)
		}
		if _, ok := tb.NewEvent().(Event); !ok {
			t.Errorf("%s.NewEvent is not an Event", tb.Name)
		}
	}
	if TableNamed("nope") != nil {
		t.Error("TableNamed(nope) != nil")
	}
}

func ExampleTable_Record() {
	o := &Outcome{OutcomeID: "o1", Family: FamilyRARE, Metric: "f", ModelID: "baseline-lexical",
		Value: 1, EvaluatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	rec := OutcomesTable.Record([]Event{o})
	defer rec.Release()
	fmt.Println(rec.NumRows(), "row,", rec.NumCols(), "columns")
	fmt.Println(OutcomesTable.ColumnNames()[:4])
	// Output:
	// 1 row, 18 columns
	// [outcome_id family metric model_id]
}
