// Package schemas holds robustream's event types, their deterministic ids and
// versioning, their Arrow schemas, and the ClickHouse DDL (sql/*.sql).
//
// It is the contract between stages: every event carries SchemaVersion, an id
// derived from its defining content, ProducedAt and the ids it came from
// (Lineage). Decode rejects a version it does not know with ErrUnknownVersion,
// which the stage runner turns into a dead-letter entry.
//
// This package depends on nothing else of ours; everything else may import it.
package schemas
