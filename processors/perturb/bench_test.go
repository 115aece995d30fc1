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
		qs, _ := question.NewStage(question.Config{})
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
	s := NewStage(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
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
