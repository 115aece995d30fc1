package clickhouse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

var published = time.Date(2024, 3, 31, 12, 0, 0, 0, time.UTC)

// message encodes ev as the record at topic/partition/offset.
func message(tb testing.TB, topic string, partition int, offset int64, ev schemas.Event) streams.Message {
	tb.Helper()
	b, err := schemas.Encode(ev)
	if err != nil {
		tb.Fatal(err)
	}
	return streams.Message{Topic: topic, Partition: partition, Offset: offset, Key: []byte(ev.Key()), Value: b}
}

// batchOf encodes events at consecutive offsets from first.
func batchOf(tb testing.TB, topic string, first int64, events ...schemas.Event) []streams.Message {
	out := make([]streams.Message, len(events))
	for i, ev := range events {
		out[i] = message(tb, topic, 0, first+int64(i), ev)
	}
	return out
}

func stamped[E schemas.Event](ev E, id string) E {
	schemas.Stamp(ev, id)
	return ev
}

func outcome(id, model, axis string, value float64) *schemas.Outcome {
	return stamped(&schemas.Outcome{
		OutcomeID: id, Family: schemas.FamilyRARE, Metric: "f", ModelID: model, Axis: axis, Kind: axis + "_kind",
		QuestionRef: schemas.QuestionRef{QuestionID: "q-" + id, Pattern: schemas.PatternSingle, Hops: 1, Domain: "finance", PublishedAt: published},
		Value:       value, EvaluatedAt: published.Add(90 * time.Minute),
	}, id)
}

// sampleEvents returns three events for the table a topic feeds.
func sampleEvents(topic string) []schemas.Event {
	var out []schemas.Event
	for i := 1; i <= 3; i++ {
		id := fmt.Sprint(i)
		var ev schemas.Event
		switch topic {
		case streams.TopicDocuments:
			ev = stamped(&schemas.DocumentVersion{DocID: "d" + id, Version: 1, Source: "demo", Title: "Q1 report", Domain: "finance",
				PublishedAt: published, ContentHash: "h" + id, MIME: "text/markdown", Text: "Revenue\trose.\n"}, "d"+id)
		case streams.TopicChunks:
			ev = stamped(&schemas.Chunk{ChunkID: "c" + id, DocID: "d1", DocVersion: 1, Ordinal: uint32(i), Text: "Revenue rose.", Tokens: 3, Kind: "text", PublishedAt: published}, "c"+id)
		case streams.TopicTriplets:
			ev = stamped(&schemas.Triplet{TripletID: "t" + id, Head: "Acme", Relation: "reported", Tail: "revenue", ChunkID: "c1", DocID: "d1",
				SourceSentence: "Acme reported revenue.", Extractor: "rule", ChunkText: "ignored", PublishedAt: published}, "t"+id)
		case streams.TopicQuestions:
			ev = stamped(&schemas.Question{QuestionID: "q" + id, Question: "What did Acme report?", Answer: "revenue", Aliases: []string{"sales", "it's"},
				Pattern: schemas.PatternSingle, Hops: 1, GTChunkIDs: []string{"c1"}, QAScores: map[string]float64{"clarity": 4.5}, DR: 0.3, PublishedAt: published}, "q"+id)
		case streams.TopicVariants:
			ev = stamped(&schemas.Variant{VariantID: "v" + id, QuestionRef: schemas.QuestionRef{QuestionID: "q1"}, Axis: schemas.AxisQuery, Kind: "char",
				Query: "Waht did Acme report?", Contexts: []string{"Acme reported revenue."}, ExpectedAnswer: "revenue", AnswerAvailable: true}, "v"+id)
		case streams.TopicEvalResults:
			ev = stamped(&schemas.EvalResult{RequestID: "r" + id, VariantID: "v1", ModelID: "m1", QuestionRef: schemas.QuestionRef{QuestionID: "q1"},
				Answer: "revenue", Correct: i%2 == 1, JudgeMethod: "exact", LatencyMS: 12.5, EvaluatedAt: published}, "r"+id)
		case streams.TopicOutcomes:
			ev = outcome("o"+id, "m1", schemas.AxisQuery, 1)
		case streams.TopicAlerts:
			ev = stamped(&schemas.Alert{AlertID: "a" + id, Rule: "drop", Series: "m1/rare", State: "firing", Baseline: 0.9, Recent: 0.6, PValue: 0.001, FiredAt: published}, "a"+id)
		}
		out = append(out, ev)
	}
	return out
}

func newSink(tb testing.TB, e Engine, topic string) streams.Sink {
	tb.Helper()
	s, err := NewSink(e, TableForTopic(topic), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestSinkAllTables(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		for _, topic := range Topics() {
			s := newSink(t, e, topic)
			if err := s.Write(ctx, batchOf(t, topic, 0, sampleEvents(topic)...)); err != nil {
				t.Fatalf("%s: %v", topic, err)
			}
			if n := scalar(t, e, "SELECT count() FROM robustream."+TableForTopic(topic)); n != "3" {
				t.Errorf("%s: %s rows, want 3", TableForTopic(topic), n)
			}
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		}
		f := func(q, want string) {
			t.Helper()
			if got := scalar(t, e, q); got != want {
				t.Errorf("%s = %q, want %q", q, got, want)
			}
		}
		f("SELECT toUnixTimestamp(published_at), toUnixTimestamp(fetched_at), text FROM robustream.documents WHERE doc_id = 'd1'",
			fmt.Sprintf("%d\t0\tRevenue\\trose.\\n", published.Unix()))
		f("SELECT aliases, qa_score_names, qa_score_values, hops FROM robustream.questions WHERE question_id = 'q2'",
			`['sales','it\'s']	['clarity']	[4.5]	1`)
		f("SELECT sum(correct), sum(closed_book), max(latency_ms) FROM robustream.eval_results", "2\t0\t12.5")
		f("SELECT contexts, answer_available FROM robustream.variants WHERE variant_id = 'v3'", `['Acme reported revenue.']	1`)
		f("SELECT family, toUnixTimestamp(evaluated_at) FROM robustream.outcomes WHERE outcome_id = 'o1'",
			fmt.Sprintf("rare\t%d", published.Add(90*time.Minute).Unix()))
		f("SELECT state, toUnixTimestamp(resolved_at) FROM robustream.alerts WHERE alert_id = 'a1'", "firing\t0")
		// Records live in C memory in cgo builds: every one must be freed,
		// by chDB releasing the exported stream or by us.
		if a, ok := Allocator().(interface{ AllocatedBytes() int64 }); ok && a.AllocatedBytes() != 0 {
			t.Errorf("%d bytes of Arrow buffers leaked", a.AllocatedBytes())
		}
	})
}

// rolled checks that every rolling table counts want outcomes, and that the
// invariant the views rest on holds: sum(n) = count() of outcomes.
func rolled(t *testing.T, e Engine, want int) {
	t.Helper()
	for _, tb := range []string{"outcomes", "robustness_5m", "robustness_1h", "robustness_1d"} {
		q := "SELECT sum(n) FROM robustream." + tb
		if tb == "outcomes" {
			q = "SELECT count() FROM robustream.outcomes"
		}
		if got := scalar(t, e, q); got != fmt.Sprint(want) {
			t.Errorf("%s = %s, want %d", q, got, want)
		}
	}
}

func TestSinkRetriedBatch(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		s := newSink(t, e, streams.TopicOutcomes)
		batch := batchOf(t, streams.TopicOutcomes, 100, outcome("o1", "m1", "query", 1), outcome("o2", "m1", "query", 0), outcome("o3", "m1", "document", 1))
		for i := 0; i < 3; i++ {
			if err := s.Write(ctx, batch); err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
		rolled(t, e, 3)
		// Raw tables other than outcomes are not filtered: a retry relies on
		// the token, then on ReplacingMergeTree.
		cs := newSink(t, e, streams.TopicChunks)
		chunks := batchOf(t, streams.TopicChunks, 7, sampleEvents(streams.TopicChunks)...)
		for i := 0; i < 2; i++ {
			if err := cs.Write(ctx, chunks); err != nil {
				t.Fatal(err)
			}
		}
		want := "3"
		if !e.SupportsDedup() {
			want = "6" // at-least-once; converges at merge time
		}
		if got := scalar(t, e, "SELECT count() FROM robustream.chunks"); got != want {
			t.Errorf("chunks after a retried batch: %s rows, want %s", got, want)
		}
		if got := scalar(t, e, "SELECT count() FROM robustream.chunks FINAL"); got != "3" {
			t.Errorf("chunks FINAL after a retried batch: %s rows, want 3", got)
		}
	})
}

// TestInsertArrowDedupToken checks the engine-level mechanism the sinks
// rely on: the same block with the same token is dropped by the raw table
// and by every view target (docs/architecture.md, Delivery contract).
func TestInsertArrowDedupToken(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		if !e.SupportsDedup() {
			v, _ := e.ServerVersion(context.Background())
			t.Skipf("%s %s has no insert deduplication (needs 22.2): at-least-once there", e.Kind(), v)
		}
		ctx := context.Background()
		rec := schemas.OutcomesTable.RecordWith(Allocator(), []schemas.Event{outcome("o1", "m1", "query", 1), outcome("o2", "m1", "query", 0)})
		defer rec.Release()
		for i := 0; i < 3; i++ {
			if err := e.InsertArrow(ctx, "outcomes", rec, "rs.outcomes-0-0-1"); err != nil {
				t.Fatal(err)
			}
		}
		rolled(t, e, 2)
		// Control: another token is another block.
		if err := e.InsertArrow(ctx, "outcomes", rec, "rs.outcomes-0-2-3"); err != nil {
			t.Fatal(err)
		}
		rolled(t, e, 4)
	})
}

func TestSinkReemittedOutcome(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		s := newSink(t, e, streams.TopicOutcomes)
		if err := s.Write(ctx, batchOf(t, streams.TopicOutcomes, 0, outcome("o1", "m1", "query", 1), outcome("o2", "m1", "query", 1))); err != nil {
			t.Fatal(err)
		}
		// After a crash upstream re-emits o2 at a later offset, next to new work.
		if err := s.Write(ctx, batchOf(t, streams.TopicOutcomes, 40, outcome("o2", "m1", "query", 1), outcome("o3", "m1", "query", 0))); err != nil {
			t.Fatal(err)
		}
		// And duplicates within one batch count once too.
		if err := s.Write(ctx, batchOf(t, streams.TopicOutcomes, 60, outcome("o4", "m1", "query", 1), outcome("o4", "m1", "query", 1), outcome("o1", "m1", "query", 1))); err != nil {
			t.Fatal(err)
		}
		rolled(t, e, 4)
	})
}

func TestSinkBadMessages(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		s := newSink(t, e, streams.TopicOutcomes)
		future := outcome("o9", "m1", "query", 1)
		future.SchemaVersion = 99
		batch := batchOf(t, streams.TopicOutcomes, 0, outcome("o1", "m1", "query", 1))
		batch = append(batch,
			streams.Message{Topic: streams.TopicOutcomes, Offset: 1, Value: []byte("{not json")},
			message(t, streams.TopicOutcomes, 0, 2, future),
			message(t, streams.TopicOutcomes, 0, 3, &schemas.Outcome{Meta: schemas.Meta{SchemaVersion: schemas.Version}, OutcomeID: "o8", Family: "bogus"}),
			message(t, streams.TopicOutcomes, 0, 4, outcome("o2", "m1", "query", 0)),
		)
		err := s.Write(ctx, batch)
		var be *streams.BatchError
		if !errors.As(err, &be) {
			t.Fatalf("Write = %v, want a *streams.BatchError", err)
		}
		if len(be.Errs) != 3 || be.Errs[1] == nil || be.Errs[2] == nil || be.Errs[3] == nil {
			t.Fatalf("failed messages = %v, want #1, #2 and #3", be.Errs)
		}
		for i, err := range be.Errs {
			if !streams.IsPermanent(err) {
				t.Errorf("#%d: %v is not permanent", i, err)
			}
		}
		if !errors.Is(be.Errs[2], schemas.ErrUnknownVersion) || !errors.Is(be.Errs[3], schemas.ErrRow) {
			t.Errorf("errors lost their cause: %v", be.Errs)
		}
		rolled(t, e, 2)

		err = s.Write(ctx, batch[1:2])
		if !streams.IsPermanent(err) || errors.As(err, &be) {
			t.Errorf("a batch of one bad message: %v, want a plain permanent error", err)
		}
	})
}

func TestScoreViews(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		s := newSink(t, e, streams.TopicOutcomes)
		events := []schemas.Event{
			outcome("a1", "m1", schemas.AxisOriginal, 1),
			outcome("a2", "m1", schemas.AxisQuery, 1),
			outcome("a3", "m1", schemas.AxisQuery, 0),
			outcome("a4", "m1", schemas.AxisDocument, 0),
			outcome("a5", "m1", schemas.AxisRetrieval, 1),
			outcome("b1", "m2", schemas.AxisQuery, 1),
		}
		sure := outcome("s1", "m1", schemas.AxisSpurious, -1)
		sure.Family, sure.Metric, sure.Known, sure.Golden = schemas.FamilySURE, "c", true, true
		// The instance's Y(original) row: C = −1 means wrong → right.
		sureOrig := outcome("s1o", "m1", schemas.AxisSpurious, 0)
		sureOrig.Family, sureOrig.Metric, sureOrig.Known, sureOrig.Golden = schemas.FamilySURE, "y_original", true, true
		sureOrig.QuestionID, sureOrig.VariantID = sure.QuestionID, sure.VariantID
		grade := outcome("g1", "m1", schemas.AxisRetrieval, 0)
		grade.Family, grade.Hops, grade.DR = schemas.FamilyGRADE, 2, 0.4
		prgb1 := outcome("p1", "m1", schemas.AxisPlaceholder, 1)
		prgb2 := outcome("p2", "m1", schemas.AxisPlaceholder, 0)
		prgb1.Family, prgb2.Family = schemas.FamilyPRGB, schemas.FamilyPRGB
		prgb2.QuestionID = prgb1.QuestionID
		events = append(events, sure, sureOrig, grade, prgb1, prgb2)
		if err := s.Write(ctx, batchOf(t, streams.TopicOutcomes, 0, events...)); err != nil {
			t.Fatal(err)
		}
		f := func(q, want string) {
			t.Helper()
			if got := scalar(t, e, q); got != want {
				t.Errorf("%s:\n got %q\nwant %q", q, got, want)
			}
		}
		// One outcome per question: the per-question and pooled means agree.
		f("SELECT * FROM robustream.rare_scores ORDER BY model_id", "m1\t0.6\t0.5\t0\t1\t5\t5\t0.6\t0.5\t0\t1\nm2\t1\t1\tnan\tnan\t1\t1\t1\t1\tnan\tnan")
		f("SELECT model_id, kind, known, golden, n, rr, wr, lr, acc_original, acc_perturbed FROM robustream.sure_scores", "m1\tspurious_kind\t1\t1\t1\t0\t1\t0\t0\t1")
		// No question row: the similarity function is unknown ('').
		f("SELECT model_id, hops, dr_quartile, n, error_rate, questions, sim_func FROM robustream.grade_matrix", "m1\t2\t1\t1\t1\t1\t")
		f("SELECT * FROM robustream.prgb_scores", "m1\t1\t0.5\t0\t1\t0")
		rolled(t, e, len(events))
	})
}

func TestAtLeastOnceWarning(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, nil))
		for _, topic := range []string{streams.TopicOutcomes, streams.TopicChunks} {
			if _, err := NewSink(e, TableForTopic(topic), log); err != nil {
				t.Fatal(err)
			}
		}
		n := strings.Count(buf.String(), "at-least-once")
		switch {
		case e.SupportsDedup() && n != 0:
			t.Errorf("engine with deduplication warned:\n%s", buf.String())
		case !e.SupportsDedup() && e.Kind() == "server" && n != 1:
			t.Errorf("want one at-least-once warning per engine, got %d:\n%s", n, buf.String())
		}
	})
}

func TestNewSinkUnknownTable(t *testing.T) {
	if _, err := NewSink(nil, "nope", nil); err == nil {
		t.Error("NewSink accepted an unknown table")
	}
	if TableForTopic(streams.TopicEvalRequests) != "" {
		t.Error("eval requests are not stored")
	}
}

func TestBatchToken(t *testing.T) {
	f := func(want string, msgs ...streams.Message) {
		t.Helper()
		if got := batchToken(msgs); !strings.HasPrefix(got, want) {
			t.Errorf("batchToken = %q, want prefix %q", got, want)
		}
	}
	m := func(p int, off int64) streams.Message {
		return streams.Message{Topic: streams.TopicOutcomes, Partition: p, Offset: off}
	}
	f("rs.outcomes-2-10-12", m(2, 10), m(2, 11), m(2, 12))
	f("rs.outcomes-0-5-5", m(0, 5))
	f("mixed-", m(0, 5), m(1, 5))
}

// Records that are not rows — a chunk's End record on rs.triplets, a
// retirement on the questions table — are skipped, not dead-lettered as
// invalid rows; the retirement goes to its own table.
func TestSinkSkipsNonRows(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		triplets := newSink(t, e, streams.TopicTriplets)
		end := stamped(&schemas.Triplet{End: true, ChunkID: "c1", DocID: "d1", Chunks: 2}, "end-c1")
		fact := stamped(&schemas.Triplet{TripletID: "t1", Head: "Acme", Relation: "opened", Tail: "12 stores", ChunkID: "c1", DocID: "d1"}, "t1")
		if err := triplets.Write(ctx, batchOf(t, streams.TopicTriplets, 0, fact, end)); err != nil {
			t.Fatalf("a batch with an End record: %v", err)
		}
		if got := scalar(t, e, "SELECT count() FROM robustream.triplets"); got != "1" {
			t.Errorf("triplets rows = %s, want 1 (the End record is not a row)", got)
		}
		q := stamped(&schemas.Question{QuestionID: "q1", Question: "How many stores did Acme open?", Answer: "12 stores", DocID: "d1"}, "q1")
		retired := *q
		retired.Retired = "stale_edge"
		retired.ProducedAt = q.ProducedAt.Add(time.Minute)
		questions := newSink(t, e, streams.TopicQuestions)
		retirements, err := NewSink(e, schemas.QuestionRetirementsTable.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		batch := batchOf(t, streams.TopicQuestions, 0, q, &retired)
		for _, s := range []streams.Sink{questions, retirements} {
			if err := s.Write(ctx, batch); err != nil {
				t.Fatalf("%s: %v", s.Name(), err)
			}
		}
		if got := scalar(t, e, "SELECT count() FROM robustream.questions"); got != "1" {
			t.Errorf("questions rows = %s, want 1", got)
		}
		if got := scalar(t, e, "SELECT reason FROM robustream.question_retirements"); got != "stale_edge" {
			t.Errorf("retirement reason = %q", got)
		}
		if got := scalar(t, e, "SELECT count() FROM robustream.active_questions"); got != "0" {
			t.Errorf("active_questions = %s, want 0 (q1 is retired)", got)
		}
	})
}

// TestSinkPreparedAhead: the runner prepares a batch before the previous
// one is written (streams.PreparingSink). An outcome the later batch
// repeats is still counted once, since the stored-id lookup happens at
// write time, and a retried WritePrepared inserts its rows once.
func TestSinkPreparedAhead(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		s, ok := newSink(t, e, streams.TopicOutcomes).(streams.PreparingSink)
		if !ok {
			t.Fatal("the ClickHouse sink is not a streams.PreparingSink")
		}
		first := s.Prepare(batchOf(t, streams.TopicOutcomes, 0, outcome("o1", "m1", "query", 1), outcome("o2", "m1", "query", 1)))
		defer first.Release()
		second := s.Prepare(batchOf(t, streams.TopicOutcomes, 40, outcome("o2", "m1", "query", 1), outcome("o3", "m1", "query", 0)))
		defer second.Release()
		for i := 0; i < 2; i++ { // the second call is a retry
			if err := s.WritePrepared(ctx, first); err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
		if err := s.WritePrepared(ctx, second); err != nil {
			t.Fatal(err)
		}
		rolled(t, e, 3)

		cs, _ := newSink(t, e, streams.TopicChunks).(streams.PreparingSink)
		chunks := cs.Prepare(batchOf(t, streams.TopicChunks, 7, sampleEvents(streams.TopicChunks)...))
		defer chunks.Release()
		for i := 0; i < 2; i++ {
			if err := cs.WritePrepared(ctx, chunks); err != nil {
				t.Fatal(err)
			}
		}
		if got := scalar(t, e, "SELECT count() FROM robustream.chunks FINAL"); got != "3" {
			t.Errorf("chunks FINAL after a retried prepared batch: %s rows, want 3", got)
		}
	})
}
