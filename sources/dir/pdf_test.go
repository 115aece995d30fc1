package dir

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// TestFolderPDF: a PDF in a folder (made by the test: two pages with a
// running footer) is a document with its title, headings and text and
// without its footer; a broken PDF is skipped with the others kept.
func TestFolderPDF(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed (Debian package poppler-utils)")
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "report.pdf"), twoPagePDF())
	write(t, filepath.Join(root, "broken.pdf"), []byte("%PDF-1.4\nnot really\n"))
	write(t, filepath.Join(root, "note.txt"), []byte("Globex hired 450 engineers.\n"))
	s, err := New(Config{Path: root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var docs []schemas.DocumentVersion
	err = s.Run(context.Background(), func(_ context.Context, recs ...streams.Record) error {
		for _, r := range recs {
			var d schemas.DocumentVersion
			if err := schemas.Decode(r.Value, &d); err != nil {
				return err
			}
			docs = append(docs, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || s.Stats().Skipped != 1 {
		t.Fatalf("%d documents, %d skipped; want the PDF and the note, the broken PDF skipped", len(docs), s.Stats().Skipped)
	}
	d := docs[1] // broken.pdf, note.txt, report.pdf: in lexical order
	if d.MIME != mimePDF || d.Title != "Quarterly Review" || strings.Contains(d.Text, "Internal use only") ||
		!strings.Contains(d.Text, "## Quarterly Review") || !strings.Contains(d.Text, "Northwind Bank opened 12 new branches.") ||
		!strings.Contains(d.Text, "Northwind Bank hired 300 engineers.") || d.PublishedAt.Format("2006-01-02") != "2026-04-28" {
		t.Errorf("PDF document: mime %q title %q published %v text:\n%s", d.MIME, d.Title, d.PublishedAt, d.Text)
	}
}

// twoPagePDF writes a two-page PDF by hand: a title, a dated line, body
// text, and the same footer on both pages.
func twoPagePDF() []byte {
	pages := [][]string{
		{"BT /F1 20 Tf 72 700 Td (Quarterly Review) Tj ET", "BT /F1 11 Tf 72 670 Td (Published: 2026-04-28) Tj ET",
			"BT /F1 11 Tf 72 640 Td (Northwind Bank opened 12 new branches.) Tj ET", "BT /F1 8 Tf 72 40 Td (Internal use only) Tj ET"},
		{"BT /F1 11 Tf 72 700 Td (Northwind Bank hired 300 engineers.) Tj ET", "BT /F1 8 Tf 72 40 Td (Internal use only) Tj ET"},
	}
	var b bytes.Buffer
	var offs []int
	obj := func(s string) {
		offs = append(offs, b.Len())
		b.WriteString(strings.Join([]string{itoa(len(offs)) + " 0 obj", s, "endobj", ""}, "\n"))
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, p := range pages {
		content := strings.Join(p, "\n") + "\n"
		obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents " + itoa(5+2*i) + " 0 R >>")
		obj("<< /Length " + itoa(len(content)) + " >>\nstream\n" + content + "endstream")
	}
	xref := b.Len()
	b.WriteString("xref\n0 " + itoa(len(offs)+1) + "\n0000000000 65535 f \n")
	for _, o := range offs {
		s := itoa(o)
		b.WriteString(strings.Repeat("0", 10-len(s)) + s + " 00000 n \n")
	}
	b.WriteString("trailer\n<< /Size " + itoa(len(offs)+1) + " /Root 1 0 R >>\nstartxref\n" + itoa(xref) + "\n%%EOF\n")
	return b.Bytes()
}

func itoa(n int) string { return strconv.Itoa(n) }
