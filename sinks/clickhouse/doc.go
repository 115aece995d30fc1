// Package clickhouse writes robustream's events to ClickHouse and keeps its
// schema: two engines behind one Engine interface — embedded chDB (the
// default, loaded from libchdb.so at run time) and a clickhouse-server over
// the native protocol — the migrator that applies schemas' DDL to either, and
// the Kafka→ClickHouse sinks, one per raw table.
//
// Writes are idempotent (docs/architecture.md, Delivery contract): raw
// tables converge by id, a retried batch carries the same deduplication
// token, and outcomes — the one table that feeds materialized views — are
// filtered against what is already stored so that every outcome is counted
// once.
//
// This package must not import other sinks, sources or processors; it knows
// streams only through the Sink interface and Message type.
package clickhouse
