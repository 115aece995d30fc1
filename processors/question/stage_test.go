package question_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/streams"
)

func encode(t *testing.T, e schemas.Event, id string) []byte {
	t.Helper()
	schemas.Stamp(e, id)
	b, err := schemas.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStage(t *testing.T) {
	s, err := question.NewStage(question.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "questions" {
		t.Fatalf("Name() = %q", s.Name())
	}
	pub := time.Date(2025, 9, 30, 0, 0, 0, 0, time.UTC)
	chunkText := "Acme Corp opened 12 new stores in Q3 2025, bringing its total to 1,164."
	tr := &schemas.Triplet{TripletID: "t1", Head: "Acme Corp", Relation: "opened", Tail: "12 new stores",
		ChunkID: "c1", DocID: "d1", SourceSentence: chunkText, Extractor: "rule", ChunkText: chunkText,
		Domain: "finance", PublishedAt: pub}
	// A document version's triplets are held until its last chunk closes.
	if recs, err := s.Process(context.Background(), streams.Message{Value: encode(t, tr, "t1")}); err != nil || len(recs) != 0 {
		t.Fatalf("Process before the chunk closed: %d records, err %v", len(recs), err)
	}
	end := &schemas.Triplet{End: true, ChunkID: "c1", DocID: "d1", Chunks: 1}
	recs, err := s.Process(context.Background(), streams.Message{Value: encode(t, end, "end1")})
	if err != nil || len(recs) != 1 {
		t.Fatalf("Process: %d records, err %v", len(recs), err)
	}
	var q schemas.Question
	if err := schemas.Decode(recs[0].Value, &q); err != nil {
		t.Fatal(err)
	}
	want := "How many new stores did Acme Corp open in Q3 2025?"
	switch {
	case q.Question != want || q.Answer != "12 new stores":
		t.Errorf("question %q answer %q", q.Question, q.Answer)
	case q.QuestionID == "" || q.ID != q.QuestionID || string(recs[0].Key) != q.QuestionID:
		t.Errorf("id %q is not the record's id and key", q.QuestionID)
	case recs[0].Topic != streams.TopicQuestions:
		t.Errorf("topic %q", recs[0].Topic)
	case q.Pattern != "single" || q.Hops != 1 || q.Generator != "template" || q.SimFunc != "lexical_cosine":
		t.Errorf("pattern fields %+v", q)
	case len(q.TripletIDs) != 1 || q.TripletIDs[0] != "t1" || len(q.Lineage) != 1 || q.Lineage[0] != "t1":
		t.Errorf("lineage %v %v", q.TripletIDs, q.Lineage)
	case len(q.GTChunkIDs) != 1 || q.GTChunkIDs[0] != "c1" || len(q.GTChunks) != 1 || q.GTChunks[0] != chunkText:
		t.Errorf("ground truth %v %v", q.GTChunkIDs, q.GTChunks)
	case q.DocID != "d1" || q.Domain != "finance" || !q.PublishedAt.Equal(pub):
		t.Errorf("metadata %+v", q)
	case q.QAScores[question.CheckAnswerInChunk] != 1 || q.QAScores[question.CheckAnswerWhole] != 1:
		t.Errorf("scores %v", q.QAScores)
	case q.DR <= 0 || q.DR >= 1:
		t.Errorf("d_r %v", q.DR)
	}

	// A triplet whose tail is not in its chunk yields no question (of
	// another company: the same company with two counts would be an
	// ambiguous fact, which retires the first question).
	tr.TripletID, tr.DocID, tr.Head, tr.Tail = "t2", "d2", "Apex Corp", "14 new stores"
	end.DocID = "d2"
	for _, e := range []schemas.Event{tr, end} {
		if recs, err := s.Process(context.Background(), streams.Message{Value: encode(t, e, "x")}); err != nil || len(recs) != 0 {
			t.Errorf("unsupported answer: %d records, err %v", len(recs), err)
		}
	}
}

func TestStageBadInput(t *testing.T) {
	s, _ := question.NewStage(question.Config{}, nil)
	v2, _ := json.Marshal(map[string]any{"schema_version": 2, "triplet_id": "t", "chunk_id": "c"})
	noID, _ := json.Marshal(map[string]any{"schema_version": 1, "head": "A"})
	for name, v := range map[string][]byte{"not json": []byte("]"), "unknown version": v2, "no ids": noID} {
		if _, err := s.Process(context.Background(), streams.Message{Value: v}); !streams.IsPermanent(err) {
			t.Errorf("%s: err %v, want permanent", name, err)
		}
	}
}

// TestDemoPipeline runs the demo feed through the real chunk, triplet and
// question stages, as the engine would, and checks the invariants of every
// question: its answer occurs in its ground-truth chunk, it does not contain
// the answer, it passed every rule check, and it is anchored in time so that
// it has one answer across periods. It also pins the yield per period.
func TestDemoPipeline(t *testing.T) {
	ctx := context.Background()
	cs, err := chunk.NewStage(chunk.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := triplet.NewStage(triplet.Config{})
	qs, _ := question.NewStage(question.Config{}, nil)
	run := func(p streams.Processor, value []byte) [][]byte {
		t.Helper()
		recs, err := p.Process(ctx, streams.Message{Value: value})
		if err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		var out [][]byte
		for _, r := range recs {
			out = append(out, r.Value)
		}
		return out
	}
	const periods = 8
	total, minQ := 0, 1<<30
	ids := map[string]bool{}
	answers := map[string]string{} // question text → answer
	for p := range periods {
		nq, nt := 0, 0
		for _, d := range demo.Generate(11, p) {
			for _, c := range run(cs, encode(t, &d, d.ID)) {
				for _, tv := range run(ts, c) {
					nt++
					for _, qv := range run(qs, tv) {
						var q schemas.Question
						if err := schemas.Decode(qv, &q); err != nil {
							t.Fatal(err)
						}
						if q.Retired != "" {
							continue
						}
						nq++
						if ids[q.QuestionID] {
							t.Errorf("question id repeated across the corpus: %q", q.Question)
						}
						ids[q.QuestionID] = true
						// Time anchoring: the same question never has two
						// answers across periods.
						if a, ok := answers[q.Question]; ok && a != q.Answer {
							t.Errorf("%q has answers %q and %q", q.Question, a, q.Answer)
						}
						answers[q.Question] = q.Answer
						if last := q.GTChunks[len(q.GTChunks)-1]; !question.AnswerInText(q.Answer, last) || !strings.Contains(last, strings.Fields(q.Answer)[0]) {
							t.Errorf("answer %q not in its chunk", q.Answer)
						}
						if question.ContainsAnswer(q.Question, q.Answer) || strings.Contains(q.Question, q.Answer) {
							t.Errorf("question %q contains its answer %q", q.Question, q.Answer)
						}
						for k, v := range q.QAScores {
							if k == question.ScoreDRMean || k == question.ScoreDRPowerMean {
								// D_r aggregations, not checks: between D_r's
								// minimum form and 1.
								if v < 0 || v > q.DR+1e-9 {
									t.Errorf("%q: %s = %v, d_r %v", q.Question, k, v, q.DR)
								}
								continue
							}
							if v != 1 {
								t.Errorf("%q: check %s = %v", q.Question, k, v)
							}
						}
						if !strings.HasSuffix(q.Question, "?") || q.DR < 0 || q.DR > 1 {
							t.Errorf("malformed question %q d_r %v", q.Question, q.DR)
						}
					}
				}
			}
		}
		t.Logf("period %d (%s): %d triplets, %d questions", p, demo.PeriodLabel(p), nt, nq)
		total += nq
		minQ = min(minQ, nq)
	}
	t.Logf("%d questions over %d periods", total, periods)
	if minQ < 40 {
		t.Errorf("a period yielded only %d questions, want at least 40", minQ)
	}
}
