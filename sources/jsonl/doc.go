// Package jsonl holds the document record that teams' systems write
// (Record: id, title, text, published_at, url, domain, metadata; the JSONL
// line, the Kafka message value and the ingest API's item are all this
// record) and the jsonl:PATH source, which replays a JSONL file of such
// records in published_at order.
//
// A line that is not a valid record (malformed JSON, a field the format
// does not have, no id or text, text that is not text: invalid UTF-8, NUL,
// control-character noise; a date that is not one or not plausible, a line
// over the size limit, a document too large for one Kafka record) never
// stops the file: it is logged with its line number, counted, and
// dead-lettered to rs.dlq with the line as the value (its first MiB) and
// its number as the offset.
//
// The replay holds an index of the file (offset and date of each valid
// line), not its records: each is read again when its turn comes.
//
// It must not import processors or sinks.
package jsonl
