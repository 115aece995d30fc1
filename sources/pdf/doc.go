// Package pdf reads a PDF's text for the sources that receive files (the
// dir: folder source and uploads to POST /v1/documents) with Debian's
// pdftotext (poppler-utils), run with limits: the file's bytes in a
// private temporary file, a time limit, a cap on the text read back, no
// shell and an empty environment.
//
// pdftotext gives the text in reading order (columns one after the other)
// with a form feed between pages. Text then keeps that structure: lines of
// a paragraph are joined (a word hyphenated across lines is mended), a
// short line standing alone that reads like a title becomes a Markdown
// heading, and lines repeated at the top or bottom of most pages (running
// headers and footers, page numbers) are dropped.
//
// It must not import processors or sinks.
package pdf
