package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of one conversion.
const (
	Timeout      = 30 * time.Second
	MaxTextBytes = 16 << 20
)

// ErrNoPdftotext is returned when poppler-utils is not installed.
var ErrNoPdftotext = errors.New("reading PDF needs pdftotext (Debian package poppler-utils)")

// ErrNotPDF is a file that does not start like a PDF.
var ErrNotPDF = errors.New("not a PDF file")

// Document is a PDF's text with its structure.
type Document struct {
	Title string
	Text  string // Markdown: paragraphs, "## " headings, pages separated by blank lines
	Pages int
	// Dropped counts the header and footer lines left out.
	Dropped int
}

// Read converts raw, a PDF file's bytes. pdftotext is killed when ctx ends
// (an upload whose client went away, a shutdown) or after Timeout; the
// error then wraps ctx's error, or says the time limit was reached.
func Read(ctx context.Context, raw []byte) (*Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pdftotext not started: %w", err)
	}
	if !bytes.HasPrefix(bytes.TrimLeft(raw[:min(len(raw), 1024)], "\x00\t\r\n "), []byte("%PDF-")) {
		return nil, ErrNotPDF
	}
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		return nil, ErrNoPdftotext
	}
	dir, err := os.MkdirTemp("", "robustream-pdf-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, raw, 0o600); err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-enc", "UTF-8", "-bbox-layout", in, "-")
	cmd.Env = []string{}
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &limitWriter{w: &stderr, n: 4096}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pdftotext: %w", err)
	}
	text, readErr := io.ReadAll(io.LimitReader(out, MaxTextBytes+1))
	if len(text) > MaxTextBytes {
		cmd.Process.Kill()
	}
	err = cmd.Wait()
	switch {
	case len(text) > MaxTextBytes:
		return nil, fmt.Errorf("pdftotext: text over %d bytes", MaxTextBytes)
	case parent.Err() != nil:
		return nil, fmt.Errorf("pdftotext stopped: %w", parent.Err())
	case ctx.Err() != nil:
		return nil, fmt.Errorf("pdftotext: over the %s limit", Timeout)
	case readErr != nil:
		return nil, readErr
	case err != nil:
		return nil, fmt.Errorf("pdftotext: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if !utf8.Valid(text) {
		text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
	}
	pages, err := parseLayout(text)
	if err != nil {
		return nil, fmt.Errorf("pdftotext: %w", err)
	}
	return Structure(pages), nil
}

type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
