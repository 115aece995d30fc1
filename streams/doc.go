// Package streams is robustream's engine: Kafka topics, the stage runner
// (consume → process → produce → commit after the effect is durable),
// consumer-group scaling, retry and dead-letter middleware, keyed state with
// a Kafka changelog, quiescence detection, and the embedded broker.
//
// It knows nothing of documents, questions or ClickHouse: sources, processors
// and sinks plug in through the three small interfaces of stream.go. It must
// not import sources/, processors/ or sinks/.
package streams
