package pdf

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func needPdftotext(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed (Debian package poppler-utils)")
	}
}

// TestReadReport reads a PDF the test makes: reading order (the left
// column before the right), headings and the title kept, a hyphenated word
// mended, and the running header and page-number footer of every page
// dropped.
func TestReadReport(t *testing.T) {
	needPdftotext(t)
	d, err := Read(context.Background(), reportPDF())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages, %d lines dropped:\n%s", d.Pages, d.Dropped, d.Text)
	if d.Pages != 3 || d.Title != "Northwind Freight Annual Report" {
		t.Errorf("pages %d title %q", d.Pages, d.Title)
	}
	for _, bad := range []string{"Annual Report 2025", "Page 1", "Page 3 of 3"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("running header or footer %q kept", bad)
		}
	}
	if d.Dropped != 6 {
		t.Errorf("%d lines dropped, want 6 (a header and a footer on each of 3 pages)", d.Dropped)
	}
	in := func(parts ...string) {
		t.Helper()
		at := -1
		for _, p := range parts {
			i := strings.Index(d.Text, p)
			if i < 0 || i < at {
				t.Errorf("%q missing or out of order in the text", p)
				return
			}
			at = i
		}
	}
	in("## Northwind Freight Annual Report", "## 1. Overview",
		"Northwind Freight operates 40 trucks in Norway and employs 310 people. The company opened a new depot in Bergen in March 2025 to serve western customers.",
		"## 2. Results", "Revenue rose to NOK 412 million in 2025.",
		"Left column first line.", "Left column second line.", "Right column first line.", "Right column second line.")
}

func TestReadRefuses(t *testing.T) {
	needPdftotext(t)
	if _, err := Read(context.Background(), []byte("hello")); !errors.Is(err, ErrNotPDF) {
		t.Errorf("not a PDF: %v", err)
	}
	if _, err := Read(context.Background(), []byte("%PDF-1.4\ngarbage with no objects\n")); err == nil {
		t.Error("a broken PDF was read without an error")
	}
}

// TestReadStopsWithContext: pdftotext is killed when the caller's context
// ends (an upload whose client went away), and the error says so rather
// than blaming the file or the time limit. Read without the cancel would
// take over Timeout on this file.
func TestReadStopsWithContext(t *testing.T) {
	needPdftotext(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := Read(ctx, slowPDF(200))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "pdftotext stopped") {
		t.Errorf("cancelled during pdftotext: %v, want it stopped with context.Canceled", err)
	}
	if _, err := Read(ctx, slowPDF(1)); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "not started") {
		t.Errorf("cancelled before: %v, want context.Canceled, pdftotext not started", err)
	}
}

// TestStructure pins the rules on blocks as pdftotext gives them.
func TestStructure(t *testing.T) {
	body := func(s string) Line { return Line{Height: 10, Text: s} }
	page := func(n string, blocks ...Block) Page {
		return append(append(Page{{Top: 20, Bottom: 30, Lines: []Line{{Height: 8, Text: "ACME Quarterly"}}}}, blocks...),
			Block{Top: 760, Bottom: 770, Lines: []Line{{Height: 8, Text: "Confidential - page " + n}}})
	}
	d := Structure([]Page{
		page("3", Block{Top: 60, Lines: []Line{{Height: 16, Text: "Intro"}}},
			Block{Top: 100, Lines: []Line{body("Acme sold 12 ships. It hired 40 engi-"), body("neers")}}),
		page("4", Block{Top: 60, Lines: []Line{body("in Oslo and Bergen. Acme opened a")}}, Block{Top: 80, Lines: []Line{body("plant.")}},
			Block{Top: 100, Lines: []Line{body("Globex sold 3 ships.")}}),
	})
	want := "## Intro\n\nAcme sold 12 ships. It hired 40 engineers in Oslo and Bergen. Acme opened a plant.\n\nGlobex sold 3 ships.\n"
	if d.Text != want || d.Pages != 2 || d.Dropped != 4 || d.Title != "Intro" {
		t.Errorf("text %q pages %d dropped %d title %q; want %q", d.Text, d.Pages, d.Dropped, d.Title, want)
	}
}
