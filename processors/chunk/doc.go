// Package chunk cuts document versions into retrieval-sized pieces, the first
// step of RARE-Get (RARE §4.1).
//
// Split is a pure function: paragraphs (blank-line separated blocks) and
// Markdown tables are never divided, a table keeps its title line and its
// notes, and paragraphs are packed greedily up to a token budget counted with
// a real BPE tokenizer (cl100k_base, embedded, so it works offline). The
// "chunk" stage wraps Split as a streams.Processor from rs.documents to
// rs.chunks; chunk ids are content hashes, so re-chunking an unchanged
// document yields the same records.
//
// It must not interpret the text (no sentence splitting, no extraction: that
// is processors/triplet), must not keep state between messages, and must not
// import other sources, processors or sinks.
package chunk
