package dir

import (
	"context"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	day := time.Date(2026, 4, 28, 0, 0, 0, 0, time.UTC)
	f := func(in string, want time.Time) {
		t.Helper()
		got, ok := parseDate(in)
		if !want.IsZero() && (!ok || !got.Equal(want)) || want.IsZero() && ok {
			t.Errorf("parseDate(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	f("2026-04-28", day)
	f("2026-04-28T09:30:00+02:00", time.Date(2026, 4, 28, 7, 30, 0, 0, time.UTC))
	f("2026-04-28T07:30Z", time.Date(2026, 4, 28, 7, 30, 0, 0, time.UTC))
	f("April 28, 2026", day)
	f("Apr. 28th 2026", day)
	f("28 April 2026", day)
	f("28th Apr, 2026 (revised)", day)
	f("Tue, 28 Apr 2026 00:00:00 +0000", day)
	f("Sept 3, 2025", time.Date(2025, 9, 3, 0, 0, 0, 0, time.UTC))
	f("yesterday", time.Time{})
	f("2026-13-45", time.Time{})
	f("1850-01-01", time.Time{})
	f("2999-01-01", time.Time{}) // the future is no publication date
	f("", time.Time{})
}

func TestPublishedAt(t *testing.T) {
	day := time.Date(2026, 4, 28, 0, 0, 0, 0, time.UTC)
	f := func(mime, raw string, want time.Time, from string) {
		t.Helper()
		_, text, err := extract(context.Background(), mime, []byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		got, gotFrom := publishedAt(mime, []byte(raw), text)
		if !got.Equal(want) || gotFrom != from {
			t.Errorf("%s %q: %v from %s; want %v from %s", mime, raw, got, gotFrom, want, from)
		}
	}
	f("text/markdown", "---\ntitle: Q1 report\ndate: 2026-04-28\n---\n# Northwind\n\nNorthwind operates 12 branches.\n", day, PublishedFromMetadata)
	f("text/markdown", "# Northwind report\n\nPublished: 2026-04-28\n\nNorthwind operates 12 branches.\n", day, PublishedFromText)
	f("text/markdown", "# Northwind report\n\n**Release date:** April 28, 2026\n\nNorthwind operates 12 branches.\n", day, PublishedFromText)
	f("text/html", `<html><head><meta property="article:published_time" content="2026-04-28T00:00:00Z"></head><body><p>Northwind operates 12 branches.</p></body></html>`, day, PublishedFromMetadata)
	f("text/html", `<html><body><p>Posted <time datetime="2026-04-28">last spring</time>.</p><p>Northwind operates 12 branches.</p></body></html>`, day, PublishedFromMetadata)
	f("text/plain", "Northwind operates 12 branches.\nIt was founded on 2001-02-03.\n", time.Time{}, PublishedFromNone) // a date in a fact is not the document's
	f("text/plain", "Release notes\nDate: someday\nNorthwind operates 12 branches.\n", time.Time{}, PublishedFromNone)
}

// TestFrontMatterIsNotText: a Markdown file's front matter gives its title
// and date and is left out of its text.
func TestFrontMatterIsNotText(t *testing.T) {
	title, text, err := extract(context.Background(), "text/markdown", []byte("---\ntitle: \"Q1 report\"\ndate: 2026-04-28\n---\nNorthwind operates 12 branches.\n"))
	if err != nil || title != "Q1 report" || text != "Northwind operates 12 branches.\n" {
		t.Errorf("title %q text %q err %v", title, text, err)
	}
	if _, text, _ := extract(context.Background(), "text/markdown", []byte("--- not front matter\nNorthwind.\n")); text != "--- not front matter\nNorthwind.\n" {
		t.Errorf("text %q", text)
	}
}
