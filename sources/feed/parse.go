package feed

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robustream/robustream/sources"
)

// item is a feed entry in either format.
type item struct {
	ID, Title, Link, Date string
	Content, Summary      string // HTML (or text)
}

type rssDoc struct {
	XMLName xml.Name `xml:"rss"`
	Items   []struct {
		Title       string `xml:"title"`
		Link        string `xml:"link"`
		GUID        string `xml:"guid"`
		PubDate     string `xml:"pubDate"`
		DCDate      string `xml:"http://purl.org/dc/elements/1.1/ date"`
		Description string `xml:"description"`
		Encoded     string `xml:"http://purl.org/rss/1.0/modules/content/ encoded"`
	} `xml:"channel>item"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",innerxml"`
}

type atomDoc struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	Entries []struct {
		ID        string   `xml:"id"`
		Title     atomText `xml:"title"`
		Published string   `xml:"published"`
		Updated   string   `xml:"updated"`
		Summary   atomText `xml:"summary"`
		Content   atomText `xml:"content"`
		Links     []struct {
			Rel  string `xml:"rel,attr"`
			Href string `xml:"href,attr"`
		} `xml:"link"`
	} `xml:"entry"`
}

// parse reads an RSS 2.0 or Atom 1.0 document.
func parse(raw []byte) (format string, items []item, err error) {
	dec := xml.NewDecoder(bytes.NewReader(raw))
	dec.Strict = true
	var root xml.StartElement
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", nil, fmt.Errorf("not a feed: %w", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			root = se
			break
		}
	}
	switch {
	case root.Name.Local == "rss":
		var d rssDoc
		if err := xml.Unmarshal(raw, &d); err != nil {
			return "", nil, fmt.Errorf("not an RSS feed: %w", err)
		}
		for _, it := range d.Items {
			date := it.PubDate
			if date == "" {
				date = it.DCDate
			}
			items = append(items, item{ID: strings.TrimSpace(it.GUID), Title: strings.TrimSpace(it.Title), Link: strings.TrimSpace(it.Link),
				Date: date, Content: it.Encoded, Summary: it.Description})
		}
		return "rss", items, nil
	case root.Name.Local == "feed" && root.Name.Space == "http://www.w3.org/2005/Atom":
		var d atomDoc
		if err := xml.Unmarshal(raw, &d); err != nil {
			return "", nil, fmt.Errorf("not an Atom feed: %w", err)
		}
		for _, e := range d.Entries {
			var link string
			for _, l := range e.Links {
				if (l.Rel == "" || l.Rel == "alternate") && link == "" {
					link = strings.TrimSpace(l.Href)
				}
			}
			date := e.Published
			if date == "" {
				date = e.Updated
			}
			items = append(items, item{ID: strings.TrimSpace(e.ID), Title: strings.TrimSpace(atomPlain(e.Title)), Link: link, Date: date,
				Content: atomBody(e.Content), Summary: atomBody(e.Summary)})
		}
		return "atom", items, nil
	}
	return "", nil, errors.New("not a feed: the root element is neither <rss> nor an Atom <feed>")
}

// atomBody is an Atom text construct as HTML: type html holds escaped
// HTML (the inner XML unescaped once), xhtml a <div> of markup, text plain
// text.
func atomBody(t atomText) string {
	if strings.TrimSpace(t.Body) == "" {
		return ""
	}
	switch t.Type {
	case "xhtml":
		return t.Body
	case "html":
		return unescapeXML(t.Body)
	}
	return "<p>" + t.Body + "</p>" // text: already escaped for HTML
}

func atomPlain(t atomText) string {
	if t.Type == "xhtml" {
		return t.Body
	}
	s := unescapeXML(t.Body)
	if t.Type == "html" {
		s = unescapeXML(s)
	}
	return s
}

// unescapeXML reads character data as XML would (entities, CDATA).
func unescapeXML(s string) string {
	var out struct {
		S string `xml:",chardata"`
	}
	if xml.Unmarshal([]byte("<x>"+s+"</x>"), &out) != nil {
		return s
	}
	return out.S
}

// dateLayouts are the date forms feeds write (RFC 822 with its variants,
// RFC 3339).
var dateLayouts = []string{time.RFC1123Z, time.RFC1123, "Mon, 2 Jan 2006 15:04:05 -0700", "Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700", "02 Jan 2006 15:04:05 -0700", "Mon, 02 Jan 2006 15:04 -0700", "Mon, 2 Jan 2006 15:04 -0700",
	time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"}

// itemDate parses an item's date: zero and no error when it has none, an
// error when it is not a date or not a plausible publication date
// (sources.PlausibleDate: before 1900, or in the future).
func itemDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if err := sources.PlausibleDate(t); err != nil {
				return time.Time{}, err
			}
			return t.UTC(), nil
		}
	}
	return time.Time{}, errors.New("not a date")
}
