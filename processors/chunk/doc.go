// Package chunk cuts document versions into retrieval-sized pieces, the first
// step of RARE-Get (RARE §4.1).
//
// Split is a pure function: paragraphs (blank-line separated blocks) and
// Markdown tables are kept whole, a table keeps its title line and its
// notes, and paragraphs are packed greedily up to a token budget counted with
// a real BPE tokenizer (cl100k_base, embedded, so it works offline). The
// budget is a hard cap: a paragraph or table that alone exceeds it is cut
// between sentences or rows (then words, then tokens), and the piece says so.
// The "chunk" stage wraps Split as a streams.Processor from rs.documents to
// rs.chunks; chunk ids are content hashes, so re-chunking an unchanged
// document yields the same records.
//
// Tokenizing and cutting take time about linear in the text, whatever the
// text: a document is untrusted input, and one megabyte-long word must not
// stall the stage.
//
// It must not interpret the text (its sentence boundaries are only places to
// cut an oversize paragraph; extraction is processors/triplet), must not keep
// state between messages, and must not import sources, sinks or other
// processors (processors/text, the shared text handling, excepted).
package chunk
