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

// BenchmarkInsert compares the sink's Write (JSON decode, validation, for
// outcomes the stored-id lookup, Arrow build, insert) with the raw chDB
// arrowstream insert of a prebuilt record of the same shape, measured in
// the same iterations. It reports both as events/s and their ratio.
//
//	go test -run '^$' -bench Insert -benchtime 5x ./sinks/clickhouse/
func BenchmarkInsert(b *testing.B) {
	e := sharedChDB(b)
	resetDatabase(b, e)
	const batch = 10_000
	text := strings.Repeat("Quarterly revenue rose 4% on strong demand. ", 25)
	gen := map[string]func(prefix string) schemas.Event{
		"outcomes": func(id string) schemas.Event { return outcome(id, "m1", schemas.AxisQuery, 1) },
		"chunks": func(id string) schemas.Event {
			return stamped(&schemas.Chunk{ChunkID: id, DocID: "d1", Text: text, Tokens: 250, Kind: "text", PublishedAt: published}, id)
		},
	}
	for _, table := range []string{"outcomes", "chunks"} {
		b.Run(table, func(b *testing.B) {
			ctx := context.Background()
			tb := schemas.TableNamed(table)
			topic := map[string]string{"outcomes": streams.TopicOutcomes, "chunks": streams.TopicChunks}[table]
			s, err := NewSink(e, table, nil)
			if err != nil {
				b.Fatal(err)
			}
			events := func(kind string, iter int) []schemas.Event {
				out := make([]schemas.Event, batch)
				for j := range out {
					out[j] = gen[table](fmt.Sprintf("%s-%d-%d", kind, iter, j))
				}
				return out
			}
			var rawTime, sinkTime time.Duration
			for i := 0; i < b.N; i++ {
				rec := tb.RecordWith(Allocator(), events("raw", i))
				start := time.Now()
				err := e.InsertArrow(ctx, table, rec, fmt.Sprintf("bench-raw-%s-%d", table, i))
				rawTime += time.Since(start)
				rec.Release()
				if err != nil {
					b.Fatal(err)
				}

				msgs := batchOf(b, topic, int64(i*batch), events("sink", i)...)
				start = time.Now()
				if err := s.Write(ctx, msgs); err != nil {
					b.Fatal(err)
				}
				sinkTime += time.Since(start)
			}
			n := float64(b.N * batch)
			b.ReportMetric(n/rawTime.Seconds(), "raw_events/s")
			b.ReportMetric(n/sinkTime.Seconds(), "sink_events/s")
			b.ReportMetric(rawTime.Seconds()/sinkTime.Seconds(), "sink/raw_speed")
		})
	}
}
