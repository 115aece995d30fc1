package pair

import (
	"context"
	"fmt"
	"testing"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// BenchmarkPairSet measures the pair stage over whole (model, question)
// sets: every result decoded, added to the set in the store, and the
// outcomes of the completed set encoded. slots is the manifest's size
// (5: the original, three query kinds and answer_removed; 8: with the three
// cross cells), plus the closed-book request.
func BenchmarkPairSet(b *testing.B) {
	for _, slots := range []int{5, 8} {
		b.Run(fmt.Sprintf("slots=%d", slots), func(b *testing.B) {
			msgs := benchSet(b, slots)
			store := &mapStore{m: map[string][]byte{}}
			st := NewStage(store)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				clear(store.m)
				store.ops = store.ops[:0]
				for _, m := range msgs {
					if _, err := st.Process(context.Background(), m); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/set")
		})
	}
}

// benchSet returns the encoded results of one set: slots contextual
// results and the closed-book one, last.
func benchSet(b *testing.B, slots int) []streams.Message {
	var names []string
	for i := range slots {
		names = append(names, schemas.Slot("axis", fmt.Sprint("kind", i)))
	}
	manifest := schemas.NewManifest(names...)
	var msgs []streams.Message
	add := func(r schemas.EvalResult) {
		r.Manifest, r.Expected = manifest, slots+1
		v, err := schemas.Encode(&r)
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, streams.Message{Topic: streams.TopicEvalResults, Key: []byte(r.QuestionID), Value: v})
	}
	for i := range slots {
		r := result(fmt.Sprint("v", i), false, i%2 == 0, answer(i%3), slots+1, 0)
		r.Axis, r.Kind = "axis", fmt.Sprint("kind", i)
		add(r)
	}
	add(result("cb", true, false, wrong, slots+1, 0))
	return msgs
}
