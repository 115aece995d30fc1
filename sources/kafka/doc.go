// Package kafka is the kafka:TOPIC source: documents that other systems
// write to a topic of the engine's Kafka cluster, read as a consumer group
// (robustream-source-<topic> unless configured), so that a restart resumes
// after the last committed message and several engines share the topic's
// partitions.
//
// A message's value is a document record as JSON (jsonl.Record; its id
// defaults to the message key), or plain text whose document id is the
// key. A tombstone (a null value) deletes the document named by its key:
// its questions retire. A message that is none of these (malformed JSON, a
// record that does not check, text that is not text, text without a key,
// a document too large for one Kafka record) is dead-lettered to rs.dlq
// with its topic, partition and offset, never dropped silently, so its
// batch still commits.
// Offsets are committed only after the documents are written, so a crash
// re-reads, and sources.Versioned drops what was already written.
//
// Finite (eval --once) reads up to the end offsets seen at the start and
// returns. It must not import processors or sinks.
package kafka
