package feed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/sources/dir"
	"github.com/robustream/robustream/sources/jsonl"
	"github.com/robustream/robustream/streams"
)

// Defaults applied by New.
const (
	DefaultPollInterval = 5 * time.Minute
	DefaultTimeout      = 30 * time.Second
	DefaultMaxFeedBytes = 8 << 20
	DefaultMaxPageBytes = 4 << 20
	DefaultMaxRedirects = 5
)

// Config configures a feed source.
type Config struct {
	// Kind is "rss" or "atom": the source's name (either format is read).
	Kind string
	// URL is the feed, http or https.
	URL string
	// Finite polls once and returns (eval --once).
	Finite bool
	// PollInterval is the pause between polls; 0 means DefaultPollInterval.
	PollInterval time.Duration
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxFeedBytes and MaxPageBytes bound what is read of the feed and of
	// an article; 0 means the defaults.
	MaxFeedBytes, MaxPageBytes int64
	// MaxRedirects bounds the redirects of a request; 0 means
	// DefaultMaxRedirects.
	MaxRedirects int
	// Domain is written to every document; "" means jsonl.DefaultDomain.
	Domain string
}

// Stats counts what the source did.
type Stats struct {
	Polls, NotModified, Emitted, ArticlesFetched, ArticleErrors, BadItems int64
}

// Source polls a feed. It implements streams.Source.
type Source struct {
	cfg    Config
	log    *slog.Logger
	client *http.Client
	// etag and modified are the validators of the last 200 (owned by Run).
	etag, modified string
	stats          struct {
		polls, notModified, emitted, fetched, fetchErrors, bad atomic.Int64
	}
}

var _ streams.Source = (*Source)(nil)

// ErrScheme is a URL that is not http or https.
var ErrScheme = errors.New("only http and https URLs are fetched")

// errPrivate is an article address the feed may not make us reach.
var errPrivate = errors.New("address is loopback, private or link-local")

// New checks cfg. A nil log means slog.Default().
func New(cfg Config, log *slog.Logger) (*Source, error) {
	if cfg.Kind != "rss" && cfg.Kind != "atom" {
		return nil, fmt.Errorf("feed: kind %q is neither rss nor atom", cfg.Kind)
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%s: %q is not a URL (%s:https://host/feed.xml)", cfg.Kind, cfg.URL, cfg.Kind)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s: %w, not %q", cfg.Kind, ErrScheme, u.Scheme)
	}
	if cfg.PollInterval < 0 || cfg.Timeout < 0 || cfg.MaxFeedBytes < 0 || cfg.MaxPageBytes < 0 || cfg.MaxRedirects < 0 {
		return nil, fmt.Errorf("%s: limits must be >= 0", cfg.Kind)
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxFeedBytes == 0 {
		cfg.MaxFeedBytes = DefaultMaxFeedBytes
	}
	if cfg.MaxPageBytes == 0 {
		cfg.MaxPageBytes = DefaultMaxPageBytes
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Source{cfg: cfg, log: log.With("source", cfg.Kind, "url", cfg.URL)}
	s.client = s.newClient(privateHost(u.Hostname()))
	return s, nil
}

// privateHost reports whether the feed itself is on a loopback, private
// or link-local address (or localhost): then its article links may be too.
func privateHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && isPrivate(ip)
}

func isPrivate(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified()
}

// articleCtx marks a request for an article link (not the feed itself).
type articleKey struct{}

// newClient is the HTTP client of every request: bounded redirects, each
// to http or https, a time limit, and for article requests a dialer that
// refuses private addresses unless allowPrivate.
func (s *Source) newClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	strict := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || isPrivate(ap.Addr()) {
			return fmt.Errorf("article link to %s: %w", address, errPrivate)
		}
		return nil
	}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if ctx.Value(articleKey{}) != nil && !allowPrivate {
			return strict.DialContext(ctx, network, addr)
		}
		return dialer.DialContext(ctx, network, addr)
	}
	return &http.Client{
		Transport: tr,
		Timeout:   s.cfg.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > s.cfg.MaxRedirects {
				return fmt.Errorf("more than %d redirects", s.cfg.MaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to %s: %w", req.URL.Scheme, ErrScheme)
			}
			return nil
		},
	}
}

// Name implements streams.Source.
func (s *Source) Name() string { return s.cfg.Kind }

// Stats returns the counters; safe while Run runs.
func (s *Source) Stats() Stats {
	return Stats{Polls: s.stats.polls.Load(), NotModified: s.stats.notModified.Load(), Emitted: s.stats.emitted.Load(),
		ArticlesFetched: s.stats.fetched.Load(), ArticleErrors: s.stats.fetchErrors.Load(), BadItems: s.stats.bad.Load()}
}

// Run implements streams.Source. Finite, it polls once and returns the
// poll's error; otherwise a failed poll is logged and retried at the next
// interval, until ctx is cancelled (nil). An emit error is returned.
func (s *Source) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	for {
		err := s.poll(ctx, emit)
		if ctx.Err() != nil {
			return nil
		}
		var emitErr *emitError
		switch {
		case errors.As(err, &emitErr):
			return err
		case err != nil && s.cfg.Finite:
			return err
		case err != nil:
			s.log.Warn("feed poll failed; retrying at the next poll", "err", err)
		}
		if s.cfg.Finite {
			return nil
		}
		t := time.NewTimer(s.cfg.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

type emitError struct{ err error }

func (e *emitError) Error() string { return fmt.Sprintf("%s: emit: %v", "feed", e.err) }
func (e *emitError) Unwrap() error { return e.err }

// poll fetches the feed (conditionally) and emits its items.
func (s *Source) poll(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	s.stats.polls.Add(1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.URL, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8")
	req.Header.Set("User-Agent", "robustream (feed source)")
	if s.etag != "" {
		req.Header.Set("If-None-Match", s.etag)
	}
	if s.modified != "" {
		req.Header.Set("If-Modified-Since", s.modified)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", s.cfg.Kind, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified:
		s.stats.notModified.Add(1)
		return nil
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s: %s answered %s", s.cfg.Kind, s.cfg.URL, resp.Status)
	}
	raw, err := readLimited(resp.Body, s.cfg.MaxFeedBytes)
	if err != nil {
		return fmt.Errorf("%s: feed: %w", s.cfg.Kind, err)
	}
	_, items, err := parse(raw)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", s.cfg.Kind, s.cfg.URL, err)
	}
	// Items are converted (their articles fetched) and written a batch at
	// a time: a feed of thousands of summary-only items must not hold
	// thousands of articles in memory.
	var recs []streams.Record
	var at []int // the item of each record
	var batchBytes int
	flush := func() error {
		n, err := sources.EmitSkippingTooLarge(ctx, emit, recs, func(i int, err error) *streams.Record {
			s.stats.bad.Add(1)
			it := items[at[i]]
			s.log.Warn("feed item skipped", "item", at[i], "id", it.ID, "link", it.Link, "reason", err)
			return nil
		})
		s.stats.emitted.Add(int64(n))
		if err != nil {
			return &emitError{err}
		}
		recs, at, batchBytes = recs[:0], at[:0], 0
		return nil
	}
	for i, it := range items {
		d, err := s.document(ctx, it)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.stats.bad.Add(1)
			s.log.Warn("feed item skipped", "item", i, "id", it.ID, "link", it.Link, "reason", err)
			continue
		}
		b, err := schemas.Encode(d)
		if err != nil {
			return err
		}
		r := streams.Record{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b}
		recs, at = append(recs, r), append(at, i)
		if batchBytes += sources.RecordBytes(r); len(recs) >= sources.BatchRecords || batchBytes >= sources.BatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	// The validators are kept only once every item is written: a failed
	// write is retried in full at the next poll (sources.Versioned drops
	// the items of earlier batches that were written).
	s.etag, s.modified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	return nil
}

// readLimited reads at most max bytes, failing beyond.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > max {
		return nil, fmt.Errorf("over the %d-byte limit", max)
	}
	return raw, nil
}

// document turns an item into a document version: its full content, else
// its linked article, else its summary. An article that cannot be fetched
// or read as text (an error page, a PDF, a page that is all navigation)
// leaves the summary, with a warning.
func (s *Source) document(ctx context.Context, it item) (*schemas.DocumentVersion, error) {
	id := it.ID
	if id == "" {
		id = it.Link
	}
	if id == "" {
		return nil, errors.New("item has neither a guid/id nor a link")
	}
	var c dir.Converted
	from := "content"
	if strings.TrimSpace(it.Content) == "" {
		from = "summary"
		if it.Link != "" {
			page, err := s.article(ctx, it.Link)
			if err == nil {
				c, err = dir.Convert(ctx, "item.html", []byte(page))
			}
			if err != nil && ctx.Err() != nil {
				return nil, ctx.Err() // shutting down: not the article's fault
			}
			if err != nil {
				s.stats.fetchErrors.Add(1)
				s.log.Warn("linked article not read; the item's summary is used", "link", it.Link, "err", err)
			} else {
				from = "article"
				s.stats.fetched.Add(1)
			}
		}
	}
	if from != "article" {
		body := it.Content
		if from == "summary" {
			body = it.Summary
		}
		var err error
		if c, err = dir.Convert(ctx, "item.html", []byte(body)); err != nil {
			return nil, fmt.Errorf("item %s: %w", from, err)
		}
	}
	title := it.Title
	if title == "" {
		title = c.Title
	}
	rec := &jsonl.Record{ID: id, Title: title, Text: c.Text, URL: it.Link, Domain: s.cfg.Domain,
		Metadata: map[string]any{"feed": s.cfg.URL, "text_from": from}}
	// Only a real date becomes published_at: a question must never get a
	// bogus time anchor, so an implausible one leaves the item undated.
	t, err := itemDate(it.Date)
	if err != nil {
		s.log.Warn("feed item date is no publication date; ignored", "id", id, "date", it.Date, "reason", err)
	}
	switch {
	case !t.IsZero():
		rec.PublishedAt = t.Format(time.RFC3339)
	case from == "article" && !c.PublishedAt.IsZero():
		rec.PublishedAt = c.PublishedAt.Format(time.RFC3339) // the article's own <meta> date
	}
	uri := it.Link
	if uri == "" {
		uri = s.cfg.URL + "#" + url.QueryEscape(id)
	}
	return rec.Document(s.cfg.Kind, uri)
}

// article fetches a linked page (http or https, bounded like the feed).
func (s *Source) article(ctx context.Context, link string) (string, error) {
	u, err := url.Parse(link)
	if err != nil {
		return "", err
	}
	if base, err := url.Parse(s.cfg.URL); err == nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%s: %w", link, ErrScheme)
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, articleKey{}, true), http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "text/html, application/xhtml+xml;q=0.9, text/plain;q=0.5")
	req.Header.Set("User-Agent", "robustream (feed source)")
	resp, err := s.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered %s", u, resp.Status)
	}
	raw, err := readLimited(resp.Body, s.cfg.MaxPageBytes)
	if err != nil {
		return "", err
	}
	return string(raw), nil
}
