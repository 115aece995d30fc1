// Package sources holds the connectors that emit document versions into
// rs.documents (sources/demo, sources/dir, …) and Versioned, the wrapper that
// gives every changed document a new version and drops unchanged ones.
//
// Connectors depend on streams and schemas only, never on processors or
// sinks.
package sources
