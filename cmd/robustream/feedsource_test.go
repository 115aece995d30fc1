package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestFeedSourceEval: eval --once --source rss:URL and atom:URL against a
// real HTTP server: the items become documents with their own dates, a
// summary-only item's linked article is read, and the run's questions
// come from them.
func TestFeedSourceEval(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline")
	}
	var articles atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		switch r.URL.Path {
		case "/rss.xml":
			io.WriteString(w, `<rss version="2.0"><channel><title>Northwind</title>`+
				`<item><guid>nw-1</guid><title>Northwind branches</title><pubDate>Tue, 28 Apr 2026 09:00:00 +0000</pubDate>`+
				`<description>Northwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 12 new branches.</description></item>`+
				`<item><guid>nw-2</guid><title>Hiring</title><link>`+base+`/news/hiring</link><pubDate>Sat, 2 May 2026 10:00:00 GMT</pubDate>`+
				`<description>Teaser.</description></item></channel></rss>`)
		case "/atom.xml":
			io.WriteString(w, `<feed xmlns="http://www.w3.org/2005/Atom"><title>Globex</title><id>urn:g</id>`+
				`<entry><id>urn:g:1</id><title>Globex</title><published>2026-03-01T08:00:00Z</published>`+
				`<content type="html">&lt;p&gt;Globex Industries hired 450 engineers. Globex Industries is based in Springfield.&lt;/p&gt;</content></entry></feed>`)
		case "/news/hiring":
			articles.Add(1)
			io.WriteString(w, `<html><body><p>Fjordline Logistics operates 40 trucks. Fjordline Logistics appointed Ingrid Solberg as chief executive.</p></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	data := t.TempDir()
	for _, spec := range []string{"rss:" + srv.URL + "/rss.xml", "atom:" + srv.URL + "/atom.xml"} {
		robustream(t, "eval", "--once", "--source", spec, "--data-dir", data, "--log-level", "error")
	}
	got := strings.TrimSpace(robustream(t, "sql", "--data-dir", data,
		"SELECT source, title, toDate(published_at) FROM robustream.documents ORDER BY source, title"))
	want := "atom\tGlobex\t2026-03-01\nrss\tHiring\t2026-05-02\nrss\tNorthwind branches\t2026-04-28"
	if got != want || articles.Load() != 1 {
		t.Fatalf("documents:\n%s\nwant:\n%s\n(articles fetched: %d)", got, want, articles.Load())
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.questions WHERE question LIKE '%Fjordline%'", "--data-dir", data); n == 0 {
		t.Error("no question from the linked article")
	}
}
