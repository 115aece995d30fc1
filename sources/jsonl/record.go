package jsonl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
)

// DefaultDomain is the domain of a record that names none.
const DefaultDomain = "general"

// Record is one document as a team's system writes it: a JSONL line, a
// Kafka message value, or an item of POST /v1/documents. Only id and text
// are required. Deleted, with no text, retires the document instead.
type Record struct {
	ID          string         `json:"id"`
	Title       string         `json:"title"`
	Text        string         `json:"text"`
	PublishedAt string         `json:"published_at"`
	URL         string         `json:"url"`
	Domain      string         `json:"domain"`
	Metadata    map[string]any `json:"metadata"`
	Deleted     bool           `json:"deleted"`
}

// Errors of a record that cannot become a document.
var (
	ErrNoID   = errors.New("record has no id")
	ErrNoText = errors.New("record has no text")
)

// maxIDBytes bounds a record id (it becomes a Kafka key and a URI part).
const maxIDBytes = 1024

// Parse decodes one record. Fields the record format does not have are an
// error naming them (a typo like "publish_date" would otherwise lose the
// date without a word); put extra fields under metadata. Bytes that are not
// UTF-8 are an error too: encoding/json would turn each into U+FFFD and the
// text would reach the questions garbled without a word.
func Parse(b []byte) (*Record, error) {
	if !utf8.Valid(b) {
		i := sources.InvalidUTF8At(string(b))
		return nil, fmt.Errorf("not a document record: %w: invalid byte 0x%02x at byte %d", sources.ErrInvalidUTF8, b[i], i)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a document record: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a document record: more than one JSON value")
	}
	return &r, r.Check()
}

// Check reports what makes the record unusable. The id, title, text and
// metadata strings must be text (sources.CheckText: valid UTF-8, no NUL,
// few control characters), whatever path the record came by: a JSON
// "\u0000" escape, or a Kafka message of plain bytes.
func (r *Record) Check() error {
	r.ID = strings.TrimSpace(r.ID)
	switch {
	case r.ID == "":
		return ErrNoID
	case len(r.ID) > maxIDBytes:
		return fmt.Errorf("record id is %d bytes, over %d", len(r.ID), maxIDBytes)
	}
	for _, f := range []struct{ name, s string }{{"id", r.ID}, {"title", r.Title}, {"text", r.Text}} {
		if err := sources.CheckText(f.s); err != nil {
			return fmt.Errorf("record %s: %w", f.name, err)
		}
	}
	switch {
	case r.Deleted:
		if r.Text != "" {
			return errors.New("a deleted record carries no text")
		}
		return nil
	case strings.TrimSpace(r.Text) == "":
		return ErrNoText
	}
	if _, err := r.Published(); err != nil {
		return err
	}
	for k, v := range r.Metadata {
		switch v := v.(type) {
		case string:
			if err := sources.CheckText(v); err != nil {
				return fmt.Errorf("metadata %q: %w", k, err)
			}
		case float64, bool, nil:
		default:
			return fmt.Errorf("metadata %q is not a string, number or boolean", k)
		}
	}
	return nil
}

// publishedLayouts are the forms published_at may take.
var publishedLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02",
	time.RFC1123Z, time.RFC1123}

// Published is the record's publication time in UTC, zero when it gives
// none (its questions then get no time anchor from the publication).
func (r *Record) Published() (time.Time, error) {
	s := strings.TrimSpace(r.PublishedAt)
	if s == "" {
		return time.Time{}, nil
	}
	for _, l := range publishedLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if err := sources.PlausibleDate(t); err != nil {
				return time.Time{}, fmt.Errorf("published_at %q is no publication date: %w", s, err)
			}
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("published_at %q is not a date (want RFC 3339, e.g. 2026-04-28 or 2026-04-28T09:30:00Z)", s)
}

// DocID is the document id of record id from source: the same record id
// from the same source is the same document, whatever else changed.
func DocID(source, id string) string { return schemas.ID(source, id) }

// Document converts a checked record to the document version source emits;
// uri is used when the record has no url.
func (r *Record) Document(source, uri string) (*schemas.DocumentVersion, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if r.URL != "" {
		uri = r.URL
	}
	id := DocID(source, r.ID)
	if r.Deleted {
		return sources.Deletion(source, id, uri), nil
	}
	published, _ := r.Published()
	domain := strings.TrimSpace(r.Domain)
	if domain == "" {
		domain = DefaultDomain
	}
	text := strings.ReplaceAll(r.Text, "\r\n", "\n")
	sum := sha256.Sum256([]byte(text))
	meta := map[string]string{"record_id": r.ID}
	for k, v := range r.Metadata {
		switch v := v.(type) {
		case string:
			meta[k] = v
		case float64:
			meta[k] = strconv.FormatFloat(v, 'f', -1, 64)
		case bool:
			meta[k] = strconv.FormatBool(v)
		}
	}
	if published.IsZero() {
		meta["published_at_from"] = "none"
	} else {
		meta["published_at_from"] = "record"
	}
	title := strings.TrimSpace(r.Title)
	if title == "" {
		title = r.ID
	}
	d := &schemas.DocumentVersion{
		DocID:       id,
		Version:     1, // sources.Versioned assigns versions
		Source:      source,
		URI:         uri,
		Title:       title,
		Domain:      domain,
		PublishedAt: published,
		FetchedAt:   time.Now().UTC(),
		ContentHash: hex.EncodeToString(sum[:]),
		MIME:        "text/plain",
		Text:        text,
		Metadata:    meta,
	}
	schemas.Stamp(d, schemas.ID(d.DocID, d.ContentHash))
	return d, nil
}
