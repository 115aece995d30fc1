package perturb

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/streams"
)

var (
	demoOnce      sync.Once
	demoQuestions []*schemas.Question
)

// questionsOfDemo runs the demo feed through the chunk, triplet and question
// stages, as robustream bench does, so benchmarks and differential tests see
// the questions the perturb stage really gets.
func questionsOfDemo(tb testing.TB) []*schemas.Question {
	tb.Helper()
	demoOnce.Do(func() {
		ch, err := chunk.NewStage(chunk.Config{})
		if err != nil {
			panic(err)
		}
		tr, _ := triplet.NewStage(triplet.Config{})
		qs, _ := question.NewStage(question.Config{}, nil)
		var msgs []streams.Message
		for p := range 8 {
			for _, d := range demo.Generate(7, p) {
				schemas.Stamp(&d, schemas.ID(d.DocID, d.ContentHash))
				b, err := schemas.Encode(&d)
				if err != nil {
					panic(err)
				}
				msgs = append(msgs, streams.Message{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b})
			}
		}
		for _, proc := range []streams.Processor{ch, tr, qs} {
			var next []streams.Message
			for _, m := range msgs {
				recs, err := proc.Process(context.Background(), m)
				if err != nil {
					panic(err)
				}
				for _, r := range recs {
					next = append(next, streams.Message{Topic: r.Topic, Key: r.Key, Value: r.Value})
				}
			}
			msgs = next
		}
		for _, m := range msgs {
			q := new(schemas.Question)
			if err := schemas.Decode(m.Value, q); err != nil {
				panic(err)
			}
			demoQuestions = append(demoQuestions, q)
		}
	})
	if len(demoQuestions) == 0 {
		tb.Fatal("the demo feed yielded no questions")
	}
	return demoQuestions
}

// BenchmarkVariants measures the perturb stage's work per question, WordNet
// loaded beforehand (BenchmarkWordNetLoad measures the load).
func BenchmarkVariants(b *testing.B) {
	qs := questionsOfDemo(b)
	s := mustStage(b, Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := s.perturber.WordNet.Available(); err != nil {
		b.Logf("WordNet unavailable, the wordnet kind is skipped: %v", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, q := range qs {
			s.Variants(q)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/question")
}

func BenchmarkWordNetLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := NewWordNet("").Available(); err != nil {
			b.Skip(err)
		}
	}
}

// BenchmarkPerturbProcess measures the stage as the runner calls it: decode
// the question, make its variant set (cross cells included), encode every
// variant. variants/question says how large the sets are, which is what
// fan-out and pairing multiply.
func BenchmarkPerturbProcess(b *testing.B) {
	qs := questionsOfDemo(b)
	msgs := make([]streams.Message, len(qs))
	for i, q := range qs {
		v, err := schemas.Encode(q)
		if err != nil {
			b.Fatal(err)
		}
		msgs[i] = streams.Message{Topic: streams.TopicQuestions, Key: []byte(q.QuestionID), Value: v}
	}
	s := mustStage(b, Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := s.perturber.WordNet.Available(); err != nil {
		b.Logf("WordNet unavailable, the wordnet kind is skipped: %v", err)
	}
	variants := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		variants = 0
		for _, m := range msgs {
			recs, err := s.Process(context.Background(), m)
			if err != nil {
				b.Fatal(err)
			}
			variants += len(recs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/question")
	b.ReportMetric(float64(variants)/float64(len(qs)), "variants/question")
}
