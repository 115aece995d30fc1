package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// questionsWriter writes question and retirement records through the two
// sinks of rs.questions, each batch at offsets of its own (the insert
// deduplication token is made of them).
type questionsWriter struct {
	t                      *testing.T
	questions, retirements streams.Sink
	offset                 int64
}

func newQuestionsWriter(t *testing.T, e Engine) *questionsWriter {
	t.Helper()
	r, err := NewSink(e, schemas.QuestionRetirementsTable.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &questionsWriter{t: t, questions: newSink(t, e, streams.TopicQuestions), retirements: r}
}

// emit writes question id as emitted at at; retire, when not "", writes it
// as retired for that reason at at.
func (w *questionsWriter) write(id, retire string, at time.Time) {
	w.t.Helper()
	q := &schemas.Question{QuestionID: id, Question: "What did " + id + " do?", Answer: "x", DocID: "d-" + id, Retired: retire}
	q.ProducedAt = at
	stamped(q, id)
	batch := batchOf(w.t, streams.TopicQuestions, w.offset, q)
	w.offset++
	for _, s := range []streams.Sink{w.questions, w.retirements} {
		if err := s.Write(context.Background(), batch); err != nil {
			w.t.Fatalf("%s: %v", s.Name(), err)
		}
	}
}

func (w *questionsWriter) emit(id string, at time.Time)        { w.write(id, "", at) }
func (w *questionsWriter) retire(id, why string, at time.Time) { w.write(id, why, at) }
func lines(tb testing.TB, e Engine, q string) string {
	return strings.ReplaceAll(scalar(tb, e, q), "\n", " ")
}
func outcomeOf(id, question, variant string, at time.Time) *schemas.Outcome {
	o := outcome(id, "m", schemas.AxisOriginal, 1)
	o.QuestionID, o.VariantID = question, variant
	o.ProducedAt = at
	return stamped(o, id)
}

// TestQuestionsAskedAgain: a question is retired when its latest retirement
// is at least as new as its latest emission, to the microsecond — not when
// it was ever retired. Emitted then retired within one second: retired.
// Retired then emitted again within one second: asked. current_outcomes
// holds the latest evaluation of each cell of the questions asked.
func TestQuestionsAskedAgain(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		w := newQuestionsWriter(t, e)
		base := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
		ms := func(n int) time.Time { return base.Add(time.Duration(n) * time.Millisecond) }

		w.emit("q-same", ms(100))
		w.retire("q-same", "ambiguous", ms(400)) // the same second
		w.emit("q-back", ms(0))
		w.retire("q-back", "deleted", ms(1000))
		w.emit("q-back", ms(1250)) // restored, within the retirement's second
		w.emit("q-twice", ms(0))
		w.retire("q-twice", "stale_edge", ms(1000))
		w.emit("q-twice", ms(2000))
		w.retire("q-twice", "deleted", ms(3000))
		w.emit("q-never", ms(0))
		w.retire("q-orphan", "capped", ms(0)) // its question row not stored (yet)

		if got, want := lines(t, e, "SELECT question_id, reason FROM robustream.retired_questions ORDER BY question_id"),
			"q-orphan\tcapped q-same\tambiguous q-twice\tdeleted"; got != want {
			t.Errorf("retired_questions:\n got %q\nwant %q", got, want)
		}
		if got, want := lines(t, e, "SELECT retired_at_us FROM robustream.retired_questions WHERE question_id = 'q-twice'"),
			fmt.Sprint(ms(3000).UnixMicro()); got != want {
			t.Errorf("q-twice retired_at_us = %s, want %s", got, want)
		}
		if got, want := lines(t, e, "SELECT DISTINCT question_id FROM robustream.active_questions ORDER BY question_id"),
			"q-back q-never"; got != want {
			t.Errorf("active_questions: %q, want %q", got, want)
		}
		if got, want := lines(t, e, "SELECT produced_at_us FROM robustream.questions FINAL WHERE question_id = 'q-back'"),
			fmt.Sprint(ms(1250).UnixMicro()); got != want {
			t.Errorf("q-back produced_at_us = %s, want %s", got, want)
		}

		// Outcomes: q-back's first evaluation (two cells), its second
		// (one of those cells again, under a new id); q-same's and
		// q-never's.
		outcomes := newSink(t, e, streams.TopicOutcomes)
		batch := batchOf(t, streams.TopicOutcomes, 0,
			outcomeOf("o-back-1", "q-back", "v1", ms(600)),
			outcomeOf("o-back-1-v2", "q-back", "v2", ms(600)),
			outcomeOf("o-same", "q-same", "v1", ms(300)),
			outcomeOf("o-never", "q-never", "v1", ms(500)),
			outcomeOf("o-back-2", "q-back", "v1", ms(5000)),
		)
		if err := outcomes.Write(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
		if got, want := lines(t, e, "SELECT outcome_id FROM robustream.current_outcomes ORDER BY outcome_id"),
			"o-back-1-v2 o-back-2 o-never"; got != want {
			t.Errorf("current_outcomes: %q, want %q", got, want)
		}
		if got := scalar(t, e, "SELECT count() FROM robustream.outcomes"); got != "5" {
			t.Errorf("outcomes (history) has %s rows, want all 5", got)
		}

		// Retired again after the outcomes: out of the current set.
		w.retire("q-back", "deleted", ms(7000))
		if got := lines(t, e, "SELECT DISTINCT question_id FROM robustream.active_questions ORDER BY question_id"); got != "q-never" {
			t.Errorf("active_questions after q-back's second retirement: %q, want q-never", got)
		}
		if got := lines(t, e, "SELECT outcome_id FROM robustream.current_outcomes ORDER BY outcome_id"); got != "o-never" {
			t.Errorf("current_outcomes after q-back's second retirement: %q, want o-never", got)
		}
	})
}

// TestRetirementsMigratedInPlace: a data directory made before
// produced_at_us existed gains the column, its rows are read at their
// second (a tie retires), and rows written after the migration compare
// with them.
func TestRetirementsMigratedInPlace(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		var oldQuestions string
		ms, err := schemas.Migrations()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			for _, s := range m.Statements {
				if strings.HasPrefix(s, "CREATE TABLE IF NOT EXISTS robustream.questions\n") {
					oldQuestions = s
				}
			}
		}
		const col = ",\n    produced_at_us  UInt64\n"
		if !strings.Contains(oldQuestions, col) {
			t.Fatalf("010's questions table has no produced_at_us column as expected:\n%s", oldQuestions)
		}
		oldQuestions = strings.Replace(oldQuestions, col, "\n", 1)
		for _, s := range []string{
			"DROP TABLE IF EXISTS robustream.current_outcomes",
			"DROP TABLE IF EXISTS robustream.active_questions",
			"DROP TABLE IF EXISTS robustream.retired_questions",
			"DROP TABLE robustream.questions",
			"DROP TABLE robustream.question_retirements",
			oldQuestions,
			`CREATE TABLE robustream.question_retirements (question_id String, reason String, doc_id String, produced_at DateTime)
ENGINE = ReplacingMergeTree(produced_at) ORDER BY question_id`,
			`INSERT INTO robustream.questions (question_id, question, produced_at)
SELECT 'q-tie', 'a', toDateTime('2026-03-04 05:06:07', 'UTC')
UNION ALL SELECT 'q-old-back', 'b', toDateTime('2026-03-04 05:06:09', 'UTC')
UNION ALL SELECT 'q-new-back', 'c', toDateTime('2026-03-04 05:06:07', 'UTC')`,
			`INSERT INTO robustream.question_retirements (question_id, reason, produced_at)
SELECT 'q-tie', 'deleted', toDateTime('2026-03-04 05:06:07', 'UTC')
UNION ALL SELECT 'q-old-back', 'deleted', toDateTime('2026-03-04 05:06:08', 'UTC')
UNION ALL SELECT 'q-new-back', 'deleted', toDateTime('2026-03-04 05:06:08', 'UTC')`,
		} {
			if err := e.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		if err := Migrate(ctx, e, nil); err != nil {
			t.Fatalf("migrate an old data directory: %v", err)
		}
		for _, table := range []string{"questions", "question_retirements"} {
			if got := scalar(t, e, "SELECT type FROM system.columns WHERE database = 'robustream' AND table = '"+table+"' AND name = 'produced_at_us'"); got != "UInt64" {
				t.Errorf("%s.produced_at_us after the migration: type %q, want UInt64", table, got)
			}
		}
		// q-new-back is emitted again after the migration, 300 ms into the
		// second after its old retirement.
		newQuestionsWriter(t, e).emit("q-new-back", time.Date(2026, 3, 4, 5, 6, 8, 300_000_000, time.UTC))
		if got, want := lines(t, e, "SELECT question_id FROM robustream.retired_questions ORDER BY question_id"), "q-tie"; got != want {
			t.Errorf("retired_questions: %q, want %q", got, want)
		}
		if got, want := lines(t, e, "SELECT DISTINCT question_id FROM robustream.active_questions ORDER BY question_id"), "q-new-back q-old-back"; got != want {
			t.Errorf("active_questions: %q, want %q", got, want)
		}
	})
}
