// Package sources holds the connectors that emit document versions into
// rs.documents (sources/demo, sources/dir, …), Versioned, the wrapper that
// gives every changed document a new version and drops unchanged ones, and
// the rules every connector applies alike: what counts as text
// (CheckText), what counts as a publication date (PlausibleDate), and how a
// document too large for Kafka is set aside without stopping its source
// (EmitSkippingTooLarge, DeadLetter).
//
// Connectors depend on streams and schemas only, never on processors or
// sinks.
package sources
