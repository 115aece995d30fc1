// Package feed is the rss:URL and atom:URL source: a feed polled with
// conditional GET (If-None-Match with the last ETag, If-Modified-Since with
// the last Last-Modified), so that an unchanged feed costs a 304 and emits
// nothing. Either format is read whatever the spec's kind (RSS 2.0 and
// Atom 1.0, told apart by the root element); the kind names the source.
//
// Each item is a document: its id the item's guid (Atom: id), else its
// link; its text the item's full content (content:encoded, Atom content)
// read as HTML. An item with only a summary has its linked article fetched
// and read instead (the summary is kept, with a warning, when the article
// cannot be fetched or read as text). published_at is the item's own date
// (pubDate, dc:date, published, updated), never the time of the poll; a
// date that is not plausible (sources.PlausibleDate) leaves the item
// undated, with a warning. Items are converted and written 64 at a time; an
// item too large for one Kafka record is skipped with a warning.
//
// Every request is bounded: http and https only, at most MaxRedirects
// redirects (each to http or https), a time limit, and a size limit on
// what is read. Article links come from the feed's content, so they may
// not reach loopback, private or link-local addresses unless the feed
// itself is on one (the check is on the address dialled, so a DNS name
// cannot smuggle one in).
//
// It must not import processors or sinks.
package feed
