// Package dir is the folder source (docs/architecture.md, Stages): it reads
// Markdown (.md, .markdown), plain text (.txt) and HTML (.html, .htm) files
// under a folder, recursively, and emits one DocumentVersion per file to
// rs.documents. With Watch it polls the folder and emits files whose content
// changed.
//
// HTML is reduced to its visible text (scripts, styles and hidden elements
// dropped, block elements become paragraphs, headings, lists and tables
// become their Markdown forms) so that chunking treats every format alike.
//
// Malformed input is never fatal (docs/architecture.md, Stages): binary (a
// NUL byte, or more than 10% control characters), invalid UTF-8, empty and
// oversized files are skipped with a warning naming the file and the reason,
// and counted. Oversized means larger than max_bytes, or a document whose
// encoded record would not fit one Kafka record (escaping can make a 4 MiB
// file a 24 MB record); a record that emit still refuses as too large
// (streams.ErrTooLarge) skips its file, not the rest of the folder. It must
// not follow symbolic links, must not modify the folder, and must not import
// processors or sinks. PDF and JSONL belong to their own sources.
package dir
