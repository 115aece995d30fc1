// Package dir is the folder source (docs/architecture.md, Stages): it reads
// Markdown (.md, .markdown), plain text (.txt), HTML (.html, .htm) and PDF
// (.pdf, through sources/pdf) files
// under a folder, recursively, and emits one DocumentVersion per file to
// rs.documents. With Watch it polls the folder and emits files whose content
// changed.
//
// HTML is reduced to its main content (sources/htmltext: navigation,
// headers, footers, sidebars and link tables left out, scripts, styles and
// hidden elements dropped, block elements become paragraphs, headings,
// lists and tables become their Markdown forms) so that chunking treats
// every format alike; a page that is all navigation is skipped as empty.
//
// Malformed input is never fatal (docs/architecture.md, Stages): binary (a
// NUL byte, or more than 10% control characters; sources.CheckText, the
// record sources' rule too), invalid UTF-8, empty and
// oversized files are skipped with a warning naming the file and the reason,
// and counted. Oversized means larger than max_bytes, or a document whose
// encoded record would not fit one Kafka record (escaping can make a 4 MiB
// file a 24 MB record); a record that emit still refuses as too large
// (streams.ErrTooLarge) skips its file, not the rest of the folder.
//
// The source reads only what it listed, and nothing behind a link. The
// configured path is opened as given (a link there is the operator's
// choice); below it, every directory and file is opened relative to its
// parent's descriptor with O_NOFOLLOW and O_NONBLOCK, and the opened file
// must be a regular file with the device and inode the listing saw before a
// byte is read, from that descriptor. So an entry swapped for a link between
// the listing and the open is not followed, a parent directory swapped for a
// link neither, and a FIFO swapped in cannot block the scan. Symbolic links
// (to files, to directories, loops, dangling), FIFOs, sockets, device nodes,
// directory loops (bind mounts) and entries replaced mid-scan are skipped
// with a "file skipped" warning naming the path and why, once while the
// entry stays (not at every poll) and again if it disappears and comes back;
// a replaced entry is retried at the next scan. There is no option to
// follow links: put the files themselves, or a bind mount, in the folder.
// A scan checks for cancellation between entries, so it never holds up
// shutdown. Hidden directories (.git and friends) are not walked.
//
// It must not modify the folder and must not import processors or sinks.
// JSONL belongs to its own source. A file that disappears from a folder
// it listed is emitted as its document's deletion (deletion.go); with
// Config.Memory the source remembers across processes which files of the
// folder it emitted (memory.go), so that a file removed while no engine ran
// is deleted at the next start. A scan that finds no document file at all
// deletes nothing and warns: an unmounted share looks like an emptied
// folder.
package dir
