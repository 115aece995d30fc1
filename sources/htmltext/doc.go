// Package htmltext reads the main content of an HTML page as text, for the
// sources that receive HTML (the dir: folder source, uploads, the articles
// a feed links to): what a person reads on the page, without the site's
// navigation, headers, footers, sidebars and link tables (main.go, and
// docs/methods.md, Main content of HTML pages), with headings, list items
// and tables in their Markdown forms so that chunking treats every format
// alike.
//
// It must not import processors or sinks.
package htmltext
