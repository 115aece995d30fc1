package clickhouse_test

import (
	"context"
	"log/slog"

	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

// Open the embedded engine, migrate, and write a batch of outcomes read
// from Kafka. With Config{URL: "clickhouse://host:9000"} the same code
// writes to a server.
func ExampleNewSink() {
	ctx := context.Background()
	e, err := clickhouse.Open(ctx, clickhouse.Config{DataDir: "data"})
	if err != nil {
		panic(err) // errors.Is(err, clickhouse.ErrLocked): another process runs on data/
	}
	defer e.Close()
	if err := clickhouse.Migrate(ctx, e, slog.Default()); err != nil {
		panic(err)
	}
	sink, err := clickhouse.NewSink(e, clickhouse.TableForTopic(streams.TopicOutcomes), slog.Default())
	if err != nil {
		panic(err)
	}
	var batch []streams.Message // one topic-partition run, from the stage runner
	if err := sink.Write(ctx, batch); err != nil {
		// A *streams.BatchError names the messages to dead-letter; the rest
		// are written. Any other error: retry the same batch.
		panic(err)
	}
	// ClickHouse now holds the outcomes; rolling metrics are in
	// robustream.robustness_5m/_1h/_1d and robustream.rare_scores.
}
