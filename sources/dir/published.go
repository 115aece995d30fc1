package dir

import (
	"bytes"
	"regexp"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/robustream/robustream/sources"
)

// Where a document's published_at came from, recorded in its metadata under
// MetaPublishedFrom. Questions anchor to the period a fact belongs to, so
// only a date the document gives itself is one. The file's modification
// time (often the day it was copied or a package was built) is kept as
// provenance under MetaFileMtime and never becomes published_at: a
// document without a date of its own has none, and its facts get no time
// anchor unless their sentence has one.
const (
	// MetaPublishedFrom is the metadata key of the provenance.
	MetaPublishedFrom = "published_at_from"
	// PublishedFromMetadata: Markdown front matter (date, published,
	// published_at, pubDate) or HTML metadata (<meta> dates, <time
	// datetime>).
	PublishedFromMetadata = "metadata"
	// PublishedFromText: a dated line near the top ("Published: …",
	// "Release date: …", "Date: …").
	PublishedFromText = "text"
	// PublishedFromNone: the document gives no date; published_at is
	// zero.
	PublishedFromNone = "none"
	// MetaFileMtime is the metadata key of the file's modification time
	// (RFC 3339), provenance only.
	MetaFileMtime = "file_mtime"
)

// publishedAt returns the document's publication date and where it came
// from; zero and PublishedFromNone when the document gives none. text is
// the document's text as extracted.
func publishedAt(mime string, raw []byte, text string) (time.Time, string) {
	var meta string
	switch mime {
	case "text/html":
		if doc, err := html.Parse(bytes.NewReader(raw)); err == nil {
			meta = htmlDate(doc)
		}
	case "text/markdown":
		fields, _ := frontMatter(string(raw))
		for _, k := range []string{"published_at", "published", "date", "pubdate", "release_date"} {
			if v := fields[k]; v != "" {
				meta = v
				break
			}
		}
	}
	if t, ok := parseDate(meta); ok {
		return t, PublishedFromMetadata
	}
	if t, ok := textDate(text); ok {
		return t, PublishedFromText
	}
	return time.Time{}, PublishedFromNone
}

// frontMatter splits a Markdown document's YAML front matter ("---" lines
// around "key: value" lines, at the very top) from its body. Keys are
// lowercased; values unquoted. A document without it is all body.
func frontMatter(s string) (fields map[string]string, body string) {
	rest, ok := strings.CutPrefix(strings.ReplaceAll(s, "\r\n", "\n"), "---\n")
	if !ok {
		return nil, s
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		if head, ok = strings.CutSuffix(rest, "\n---"); !ok {
			return nil, s
		}
		body = ""
	}
	fields = map[string]string{}
	for _, line := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue
		}
		fields[strings.ToLower(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return fields, body
}

// htmlDateNames are the <meta> names and properties that carry a page's
// publication date, in the usual order of trust.
var htmlDateNames = []string{"article:published_time", "datepublished", "dc.date.issued", "dcterms.issued",
	"dc.date", "dcterms.date", "date", "pubdate", "publish-date", "publication_date", "og:published_time"}

// htmlDate returns the page's publication date as written: from <meta>
// (name, property or itemprop), else the first <time datetime>.
func htmlDate(doc *html.Node) string {
	metas := map[string]string{}
	var firstTime string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Meta:
				var name, content string
				for _, a := range n.Attr {
					switch strings.ToLower(a.Key) {
					case "name", "property", "itemprop":
						name = strings.ToLower(a.Val)
					case "content":
						content = a.Val
					}
				}
				if name != "" && metas[name] == "" {
					metas[name] = content
				}
			case atom.Time:
				for _, a := range n.Attr {
					if strings.EqualFold(a.Key, "datetime") && firstTime == "" {
						firstTime = a.Val
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, k := range htmlDateNames {
		if v := metas[k]; v != "" {
			return v
		}
	}
	return firstTime
}

// datedLine is a line near the top of a document that says when it was
// published: "Published: 2026-04-28", "**Release date:** April 28, 2026",
// "Date - 28 Apr 2026".
var datedLine = regexp.MustCompile(`(?i)^[\s*_#>-]*(?:published(?:\s+on)?|publication\s+date|release\s+date|released(?:\s+on)?|date(?:\s+of\s+issue)?|issued(?:\s+on)?|posted(?:\s+on)?)[\s*_]*[:\-–—]?[\s*_]*(.+)$`)

// textLines is how far from the top a dated line is looked for.
const textLines = 30

// textDate finds a dated line among the first lines of text.
func textDate(text string) (time.Time, bool) {
	for i, line := range strings.SplitN(text, "\n", textLines+1) {
		if i == textLines {
			break
		}
		if m := datedLine.FindStringSubmatch(line); m != nil {
			if t, ok := parseDate(m[1]); ok {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// dateIn finds the first date in a string: ISO 8601 (with or without a
// time), "April 28, 2026", "28 April 2026", "Apr 28 2026", or an RFC 1123
// date as feeds write them.
var dateIn = regexp.MustCompile(`(?i)\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?` +
	`|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}` +
	`|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+\d{4}`)

// dateLayouts parse what dateIn finds, once normalized (ordinals and
// commas dropped, months abbreviated to three letters, one space).
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05", "2006-01-02 15:04:05",
	"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02", "Jan 2 2006", "2 Jan 2006"}

var ordinal = regexp.MustCompile(`(?i)(\d)(?:st|nd|rd|th)\b`)

// parseDate reads the first date of s, in UTC. Dates before 1900 or more
// than a day in the future are no publication dates (sources.PlausibleDate).
func parseDate(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC1123Z, strings.TrimSpace(s)); err == nil {
		return sane(t)
	}
	if t, err := time.Parse(time.RFC1123, strings.TrimSpace(s)); err == nil {
		return sane(t)
	}
	found := dateIn.FindString(s)
	if found == "" {
		return time.Time{}, false
	}
	norm := strings.Join(strings.Fields(strings.NewReplacer(",", " ", ".", " ").Replace(ordinal.ReplaceAllString(found, "$1"))), " ")
	if !strings.Contains(found, "-") {
		// Month names: "April" → "Apr", "Sept" → "Sep".
		f := strings.Fields(norm)
		for i, w := range f {
			if len(w) >= 3 && (w[0] < '0' || w[0] > '9') {
				f[i] = strings.ToUpper(w[:1]) + strings.ToLower(w[1:3])
			}
		}
		norm = strings.Join(f, " ")
	} else {
		norm = found
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, norm); err == nil {
			return sane(t)
		}
	}
	return time.Time{}, false
}

// sane keeps t when it can be a publication date (sources.PlausibleDate).
func sane(t time.Time) (time.Time, bool) {
	if sources.PlausibleDate(t) != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}
