package feed

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/streams"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

const rssFeed = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Northwind news</title>
<item><title>Branches</title><link>%BASE%/news/branches</link><guid>nw-1</guid><pubDate>Tue, 28 Apr 2026 09:00:00 +0000</pubDate>
<description>Short teaser.</description>
<content:encoded><![CDATA[<p>Northwind Bank opened 12 new branches.</p>]]></content:encoded></item>
<item><title>Hiring</title><link>%BASE%/news/hiring</link><guid>nw-2</guid><pubDate>Sat, 2 May 2026 10:00:00 GMT</pubDate>
<description>Northwind is hiring.</description></item>
<item><title>Local file</title><link>file:///etc/passwd</link><guid>nw-3</guid>
<description>Only a summary here, and a link that is not http.</description></item>
</channel></rss>`

const atomFeed = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Globex</title><id>urn:globex</id><updated>2026-05-01T00:00:00Z</updated>
<entry><id>urn:globex:1</id><title type="html">Globex &amp;amp; engineers</title><link rel="alternate" href="%BASE%/news/globex"/>
<published>2026-03-01T08:00:00Z</published><updated>2026-03-02T08:00:00Z</updated>
<content type="html">&lt;p&gt;Globex Industries hired 450 engineers.&lt;/p&gt;</content></entry>
<entry><id>urn:globex:2</id><title>Plant</title><link href="%BASE%/news/plant"/><updated>2026-04-01T00:00:00Z</updated>
<summary>Globex opened a plant.</summary></entry>
</feed>`

const article = `<html><head><title>Hiring at Northwind</title></head><body><article><h1>Hiring</h1>
<p>Northwind Bank hired 300 engineers in Bergen.</p></article></body></html>`

// feedServer serves both feeds with ETag and Last-Modified validators and
// the linked articles, counting requests.
type feedServer struct {
	*httptest.Server
	mu       sync.Mutex
	hits     map[string]int
	notMod   int
	feeds    map[string]string
	modified time.Time
}

func newFeedServer(t *testing.T) *feedServer {
	fs := &feedServer{hits: map[string]int{}, modified: time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		fs.hits[r.URL.Path]++
		switch r.URL.Path {
		case "/rss.xml", "/atom.xml":
			body := strings.ReplaceAll(fs.feeds[r.URL.Path], "%BASE%", fs.URL)
			etag := `"` + schemas.ID(body)[:16] + `"`
			if r.Header.Get("If-None-Match") == etag {
				fs.notMod++
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", etag)
			w.Header().Set("Last-Modified", fs.modified.Format(http.TimeFormat))
			io.WriteString(w, body)
		case "/last-modified-only.xml":
			if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !fs.modified.After(ims) {
				fs.notMod++
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("Last-Modified", fs.modified.Format(http.TimeFormat))
			io.WriteString(w, strings.ReplaceAll(fs.feeds["/atom.xml"], "%BASE%", fs.URL))
		case "/news/hiring":
			io.WriteString(w, article)
		case "/news/plant":
			io.WriteString(w, `<html><head><meta name="date" content="2026-04-01"></head><body><p>Globex Industries opened a plant in Oslo.</p></body></html>`)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/huge.xml":
			io.WriteString(w, "<rss><channel>"+strings.Repeat("<item><title>x</title></item>", 100000)+"</channel></rss>")
		default:
			http.NotFound(w, r)
		}
	}))
	fs.feeds = map[string]string{"/rss.xml": rssFeed, "/atom.xml": atomFeed}
	t.Cleanup(fs.Close)
	return fs
}

func poll(t *testing.T, s *Source) []schemas.DocumentVersion {
	t.Helper()
	var docs []schemas.DocumentVersion
	err := s.Run(context.Background(), func(_ context.Context, recs ...streams.Record) error {
		for _, r := range recs {
			var d schemas.DocumentVersion
			if err := schemas.Decode(r.Value, &d); err != nil {
				t.Fatal(err)
			}
			docs = append(docs, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestRSSAndAtomWithConditionalGET: both formats become documents with
// their items' own dates; an item with only a summary has its linked
// article read (a non-http link is not fetched: the summary stays); the
// second poll sends the validators, gets 304 and emits nothing; a changed
// feed is read again.
func TestRSSAndAtomWithConditionalGET(t *testing.T) {
	srv := newFeedServer(t)
	rss, err := New(Config{Kind: "rss", URL: srv.URL + "/rss.xml", Finite: true}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	docs := poll(t, rss)
	if len(docs) != 3 {
		t.Fatalf("%d RSS documents, want 3", len(docs))
	}
	want := []struct{ title, text, date string }{
		{"Branches", "Northwind Bank opened 12 new branches.", "2026-04-28"},
		{"Hiring", "Northwind Bank hired 300 engineers in Bergen.", "2026-05-02"},
		{"Local file", "Only a summary here, and a link that is not http.", ""},
	}
	for i, w := range want {
		d := docs[i]
		date := ""
		if !d.PublishedAt.IsZero() {
			date = d.PublishedAt.Format("2006-01-02")
		}
		if d.Title != w.title || !strings.Contains(d.Text, w.text) || date != w.date || d.Source != "rss" {
			t.Errorf("item %d: title %q date %q source %q text %q; want %+v", i, d.Title, date, d.Source, d.Text, w)
		}
	}
	if srv.hits["/news/branches"] != 0 || srv.hits["/news/hiring"] != 1 {
		t.Errorf("article fetches: %v (only the summary-only item's link should be read)", srv.hits)
	}
	if st := rss.Stats(); st.ArticlesFetched != 1 || st.ArticleErrors != 1 {
		t.Errorf("stats %+v: want one article read, one refused (file:)", st)
	}
	if again := poll(t, rss); len(again) != 0 || srv.notMod != 1 {
		t.Fatalf("second poll emitted %d documents, %d 304s; want none and one", len(again), srv.notMod)
	}
	srv.mu.Lock()
	srv.feeds["/rss.xml"] = strings.Replace(rssFeed, "12 new branches", "14 new branches", 1)
	srv.mu.Unlock()
	if changed := poll(t, rss); len(changed) != 3 || !strings.Contains(changed[0].Text, "14 new branches") {
		t.Fatalf("a changed feed: %d documents", len(changed))
	}

	atom, err := New(Config{Kind: "atom", URL: srv.URL + "/atom.xml", Finite: true}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	docs = poll(t, atom)
	if len(docs) != 2 || docs[0].Title != "Globex & engineers" || docs[0].Text != "Globex Industries hired 450 engineers." ||
		docs[0].PublishedAt.Format("2006-01-02") != "2026-03-01" || docs[0].URI != srv.URL+"/news/globex" {
		t.Fatalf("atom entry 1: %+v", docs)
	}
	if !strings.Contains(docs[1].Text, "opened a plant in Oslo") || docs[1].PublishedAt.Format("2006-01-02") != "2026-04-01" || docs[1].DocID == docs[0].DocID {
		t.Errorf("atom entry 2 (summary only, article read): %+v", docs[1])
	}
	if again := poll(t, atom); len(again) != 0 {
		t.Errorf("atom second poll emitted %d", len(again))
	}

	// A server with Last-Modified only: If-Modified-Since gets the 304.
	lm, _ := New(Config{Kind: "atom", URL: srv.URL + "/last-modified-only.xml", Finite: true}, quiet)
	if first := poll(t, lm); len(first) != 2 {
		t.Fatalf("Last-Modified feed: %d documents", len(first))
	}
	before := srv.notMod
	if again := poll(t, lm); len(again) != 0 || srv.notMod != before+1 {
		t.Errorf("If-Modified-Since: %d documents, 304s %d→%d", len(again), before, srv.notMod)
	}
}

// TestFeedLimits: a redirect loop, a feed over the size limit, a non-feed
// and a non-http URL are errors of a finite poll, not hangs or crashes;
// an article link to a private address is refused when the feed is not
// on one.
func TestFeedLimits(t *testing.T) {
	srv := newFeedServer(t)
	for path, want := range map[string]string{"/loop": "redirects", "/huge.xml": "limit", "/news/hiring": "not a feed", "/missing": "404"} {
		s, err := New(Config{Kind: "rss", URL: srv.URL + path, Finite: true, MaxFeedBytes: 1 << 20}, quiet)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Run(context.Background(), func(context.Context, ...streams.Record) error { return nil })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", path, err, want)
		}
	}
	for _, u := range []string{"file:///etc/passwd", "ftp://example.org/feed", "not a url"} {
		if _, err := New(Config{Kind: "rss", URL: u}, quiet); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
	// The feed is "public" (the check is told so); its article link points
	// at the loopback test server: refused at dial time.
	s, _ := New(Config{Kind: "rss", URL: "http://feeds.example.org/rss.xml"}, quiet)
	s.client = s.newClient(false)
	if _, err := s.article(context.Background(), srv.URL+"/news/hiring"); err == nil || !strings.Contains(err.Error(), errPrivate.Error()) {
		t.Errorf("article on loopback from a public feed: %v", err)
	}
}

// serveFeed serves body at /feed.xml and pages at their paths.
func serveFeed(t *testing.T, body string, pages map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/feed.xml" {
			io.WriteString(w, strings.ReplaceAll(body, "%BASE%", "http://"+r.Host))
			return
		}
		page, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func rssOf(items ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">` +
		`<channel><title>t</title>` + strings.Join(items, "") + `</channel></rss>`
}

// TestImplausibleItemDates: an item dated in the far future or before 1900
// (a placeholder, a typo) is kept, with no date and a warning, instead of
// being dropped or anchoring its questions to year 1 or 9999; a real date
// is kept, and an article's own date still stands in for a bad item date.
func TestImplausibleItemDates(t *testing.T) {
	item := func(id, date string) string {
		return `<item><title>` + id + `</title><guid>` + id + `</guid><pubDate>` + date + `</pubDate>` +
			`<content:encoded><![CDATA[<p>Northwind Bank opened 12 branches (` + id + `).</p>]]></content:encoded></item>`
	}
	body := rssOf(item("future", "Fri, 01 Jan 9999 00:00:00 +0000"), item("zero", "0001-01-01T00:00:00Z"),
		item("old", "Sun, 31 Dec 1899 12:00:00 +0000"), item("garbled", "yesterday-ish"), item("real", "Tue, 28 Apr 2026 09:00:00 +0000"),
		`<item><title>art</title><guid>art</guid><link>%BASE%/art</link><pubDate>9999-01-01</pubDate><description>Teaser.</description></item>`)
	srv := serveFeed(t, body, map[string]string{"/art": `<html><head><meta name="date" content="2026-03-01"></head><body><p>Globex opened a plant in Oslo.</p></body></html>`})
	var logs strings.Builder
	s, err := New(Config{Kind: "rss", URL: srv.URL + "/feed.xml", Finite: true}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	docs := poll(t, s)
	got := map[string]string{}
	for _, d := range docs {
		date := ""
		if !d.PublishedAt.IsZero() {
			date = d.PublishedAt.Format(time.DateOnly)
		}
		got[d.Title] = date
	}
	want := map[string]string{"future": "", "zero": "", "old": "", "garbled": "", "real": "2026-04-28", "art": "2026-03-01"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("item dates %v, want %v", got, want)
	}
	for _, says := range []string{"in the future", "before 1900", "not a date"} {
		if !strings.Contains(logs.String(), says) {
			t.Errorf("no warning says %q:\n%s", says, logs.String())
		}
	}
	if st := s.Stats(); st.BadItems != 0 || st.Emitted != 6 {
		t.Errorf("stats %+v, want 6 emitted, none bad", st)
	}
}

// TestUnreadableArticleKeepsSummary: a summary-only item whose linked page
// is fetched but cannot be read as text (binary, not UTF-8, all
// navigation, a PDF) keeps its summary instead of being dropped.
func TestUnreadableArticleKeepsSummary(t *testing.T) {
	item := func(id string) string {
		return `<item><title>` + id + `</title><guid>` + id + `</guid><link>%BASE%/` + id + `</link>` +
			`<description>Summary of ` + id + `: Initech hired 40 people.</description></item>`
	}
	pages := map[string]string{
		"/binary": "\x00\x01\x02\x03 GIF89a",
		"/latin1": "<html><body><p>Caf\xe9 cr\xe8me</p></body></html>",
		"/nav":    `<html><body><nav><a href="/">Home</a> <a href="/a">About</a></nav></body></html>`,
		"/pdf":    "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< >>\nendobj\n",
		"/ok":     `<html><body><article><p>Initech hired 40 people in Bergen.</p></article></body></html>`,
	}
	srv := serveFeed(t, rssOf(item("binary"), item("latin1"), item("nav"), item("pdf"), item("missing"), item("ok")), pages)
	s, err := New(Config{Kind: "rss", URL: srv.URL + "/feed.xml", Finite: true}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	docs := poll(t, s)
	if len(docs) != 6 {
		t.Fatalf("%d documents, want all 6 items", len(docs))
	}
	for _, d := range docs {
		from := d.Metadata["text_from"]
		switch {
		case d.Title == "ok" && (from != "article" || !strings.Contains(d.Text, "in Bergen")):
			t.Errorf("ok: text from %s: %q", from, d.Text)
		case d.Title != "ok" && (from != "summary" || d.Text != "Summary of "+d.Title+": Initech hired 40 people."):
			t.Errorf("%s: text from %s: %q, want the summary", d.Title, from, d.Text)
		}
	}
	if st := s.Stats(); st.ArticlesFetched != 1 || st.ArticleErrors != 5 || st.BadItems != 0 {
		t.Errorf("stats %+v, want 1 article read, 5 not", st)
	}
}

// TestItemsWrittenInBatches: a feed of many items is converted and written
// sources.BatchRecords at a time, not held whole; an item whose record is
// too large for Kafka is skipped with a warning and the rest written.
func TestItemsWrittenInBatches(t *testing.T) {
	var items []string
	for i := range 150 {
		text := fmt.Sprintf("Northwind Bank opened %d branches.", i)
		if i == 70 {
			text = strings.Repeat("&lt;", 2000) // 12 KB once escaped in JSON
		}
		items = append(items, fmt.Sprintf(`<item><title>n%d</title><guid>n%d</guid><content:encoded><![CDATA[<p>%s</p>]]></content:encoded></item>`, i, i, text))
	}
	srv := serveFeed(t, rssOf(items...), nil)
	var logs strings.Builder
	s, err := New(Config{Kind: "rss", URL: srv.URL + "/feed.xml", Finite: true}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var calls []int
	var written []string
	err = s.Run(context.Background(), func(_ context.Context, recs ...streams.Record) error {
		calls = append(calls, len(recs))
		for _, r := range recs {
			if len(r.Value) > 10_000 {
				return fmt.Errorf("%w: a %d-byte record", streams.ErrTooLarge, len(r.Value))
			}
		}
		for _, r := range recs {
			var d schemas.DocumentVersion
			if err := schemas.Decode(r.Value, &d); err != nil {
				t.Fatal(err)
			}
			written = append(written, d.Title)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(written) != 149 || slices.Contains(written, "n70") || written[148] != "n149" {
		t.Fatalf("%d items written (n70 among them: %v), want the 149 others", len(written), slices.Contains(written, "n70"))
	}
	for i, n := range calls {
		if n > sources.BatchRecords {
			t.Errorf("emit call %d holds %d items, over %d", i, n, sources.BatchRecords)
		}
	}
	if !strings.Contains(logs.String(), "feed item skipped") || !strings.Contains(logs.String(), "id=n70") {
		t.Errorf("no warning names n70:\n%s", logs.String())
	}
	if st := s.Stats(); st.Emitted != 149 || st.BadItems != 1 {
		t.Errorf("stats %+v, want 149 emitted, 1 bad", st)
	}
}
