package dir

import (
	"context"
	"fmt"
	"strings"

	"github.com/robustream/robustream/sources/pdf"
)

// mimePDF is the MIME type of .pdf files, read with sources/pdf
// (pdftotext, with its limits): text in reading order, headings and page
// breaks kept as paragraphs, running headers and footers dropped.
const mimePDF = "application/pdf"

// pdfText converts raw with pdftotext, which is stopped when ctx ends (a
// client that went away, a shutdown) or after pdf.Timeout.
func pdfText(ctx context.Context, raw []byte) (title, text string, err error) {
	d, err := pdf.Read(ctx, raw)
	if err != nil {
		return "", "", fmt.Errorf("cannot read PDF: %w", err)
	}
	if strings.TrimSpace(d.Text) == "" {
		return "", "", fmt.Errorf("%w (a PDF of scanned pages has no text layer)", ErrEmpty)
	}
	return d.Title, d.Text, nil
}
