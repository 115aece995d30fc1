// Package chunk cuts document versions into retrieval-sized pieces, the first
// step of RARE-Get (RARE §4.1).
//
// Two profiles, chosen per source (Config): RARE's, the default, and
// GRADE's. Split, the RARE profile, is a pure function: paragraphs
// (blank-line separated blocks) and Markdown tables are kept whole, a table
// travels with its caption, the paragraph that introduces it and its notes,
// and units are packed greedily up to a token budget counted with a real
// BPE tokenizer (cl100k_base, embedded, so it works offline). The budget is
// a hard cap: a paragraph or table that alone exceeds it is cut between
// sentences or rows (then words, then tokens), and the piece says so.
// SplitWindows, the GRADE profile, cuts 128-256-token windows at word
// boundaries, preferring paragraph and sentence ends, each starting exactly
// 50 tokens before the end of the one before it.
// The "chunk" stage wraps both as a streams.Processor from rs.documents to
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
