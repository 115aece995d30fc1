package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/sources/dir"
	"github.com/robustream/robustream/sources/jsonl"
	"github.com/robustream/robustream/streams"
)

// benchFormats are the formats `bench sources` measures, by the extension
// their files get (jsonl: one file of records).
var benchFormats = []struct{ name, ext string }{
	{"markdown", ".md"}, {"text", ".txt"}, {"html", ".html"}, {"pdf", ".pdf"}, {"jsonl", ".jsonl"},
}

// cmdBenchSources measures each format's way in: a folder of Markdown,
// text, HTML or PDF files read by the dir: source, a file of JSONL records
// read by the jsonl: source, each against the raw read of the same bytes
// (os.ReadFile of every file) in the same run on the same files, page cache
// warm for both. The source's work is everything up to the record it
// emits: reading, checks, conversion (HTML main content, pdftotext),
// dates, hashing, encoding. Inputs are the demo feed's reports written in
// each format (HTML pages with a site's header, menu, sidebar and footer
// around the text; PDFs of a few pages), repeated up to -mb megabytes per
// format, or the files of -samples. A format that emits fewer documents
// than it was given fails the bench.
func cmdBenchSources(ctx context.Context, args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("bench sources", flag.ContinueOnError)
	mb := fset.Float64("mb", 4, "megabytes of input per format")
	samples := fset.String("samples", "", "a folder whose .md, .txt, .html, .pdf and .jsonl files are the inputs of their formats (the demo feed's reports for the others)")
	only := fset.String("formats", "", "comma-separated formats (default: markdown,text,html,pdf,jsonl)")
	fset.SetOutput(stdout)
	if err := fset.Parse(args); err != nil {
		return err
	}
	if *mb <= 0 {
		return errors.New("bench sources: -mb must be positive")
	}
	formats := benchFormats
	if *only != "" {
		formats = nil
		for _, f := range strings.Split(*only, ",") {
			i := slices.IndexFunc(benchFormats, func(b struct{ name, ext string }) bool { return b.name == strings.TrimSpace(f) })
			if i < 0 {
				return fmt.Errorf("bench sources: unknown format %q (markdown, text, html, pdf, jsonl)", f)
			}
			formats = append(formats, benchFormats[i])
		}
	}
	inputs, err := benchSourceInputs(*samples)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "robustream-bench-sources-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fmt.Fprintf(stdout, "robustream bench sources: %.1f MB per format; inputs: %s\n\n", *mb,
		map[bool]string{true: "the demo feed's reports, and the files of " + *samples, false: "the demo feed's reports"}[*samples != ""])
	fmt.Fprintf(stdout, "%-9s %7s %8s %11s %10s %10s %9s\n", "format", "docs", "MB", "raw MB/s", "docs/s", "MB/s", "of raw")
	for _, f := range formats {
		row, err := benchSourceFormat(ctx, filepath.Join(tmp, f.name), f.ext, inputs[f.ext], int64(*mb*(1<<20)))
		if err != nil {
			return fmt.Errorf("bench sources: %s: %w", f.name, err)
		}
		fmt.Fprintf(stdout, "%-9s %7d %8.2f %11.0f %10.0f %10.3g %8.3g%%\n", f.name, row.docs, row.mb, row.rawMBs,
			float64(row.docs)/row.source.Seconds(), row.mb/row.source.Seconds(), 100*row.mb/row.source.Seconds()/row.rawMBs)
	}
	fmt.Fprintf(stdout, "\nraw: os.ReadFile of the same files (warm page cache); docs/s and MB/s: the source's one pass\n"+
		"(dir: or jsonl:) up to the encoded document records, input bytes per second; of raw: MB/s over raw MB/s.\n")
	return nil
}

type sourceRow struct {
	docs   int
	mb     float64
	rawMBs float64
	source time.Duration
}

// benchSourceFormat writes the samples of one format under folder until they
// hold target bytes, reads them raw, then through their source, and
// checks that the source emitted one document per file (per record for
// JSONL).
func benchSourceFormat(ctx context.Context, folder, ext string, samples [][]byte, target int64) (sourceRow, error) {
	if len(samples) == 0 {
		return sourceRow{}, errors.New("no input")
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return sourceRow{}, err
	}
	var files []string
	var size int64
	docs := 0
	if ext == ".jsonl" {
		var b bytes.Buffer
		for i := 0; int64(b.Len()) < target; i++ {
			for _, s := range samples {
				for _, line := range bytes.Split(bytes.TrimSpace(s), []byte("\n")) {
					var r map[string]any
					if err := json.Unmarshal(line, &r); err != nil {
						return sourceRow{}, fmt.Errorf("a sample line is not a record: %w", err)
					}
					r["id"] = fmt.Sprintf("%v-%d", r["id"], i) // each copy a document of its own
					out, _ := json.Marshal(r)
					b.Write(append(out, '\n'))
					docs++
				}
			}
		}
		p := filepath.Join(folder, "records.jsonl")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			return sourceRow{}, err
		}
		files, size = []string{p}, int64(b.Len())
	} else {
		for i := 0; size < target; i++ {
			s := samples[i%len(samples)]
			p := filepath.Join(folder, fmt.Sprintf("%05d%s", i, ext))
			if err := os.WriteFile(p, s, 0o644); err != nil {
				return sourceRow{}, err
			}
			files = append(files, p)
			size += int64(len(s))
		}
		docs = len(files)
	}
	read := func() (time.Duration, error) {
		start := time.Now()
		var n int64
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				return 0, err
			}
			n += int64(len(b))
		}
		if n != size {
			return 0, fmt.Errorf("raw read %d of %d bytes", n, size)
		}
		return time.Since(start), nil
	}
	if _, err := read(); err != nil { // warm the page cache for both
		return sourceRow{}, err
	}
	raw, err := read()
	if err != nil {
		return sourceRow{}, err
	}
	var src streams.Source
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if ext == ".jsonl" {
		src, err = jsonl.New(jsonl.Config{Path: files[0]}, log)
	} else {
		src, err = dir.New(dir.Config{Path: folder, MaxBytes: 64 << 20}, log)
	}
	if err != nil {
		return sourceRow{}, err
	}
	emitted := 0
	start := time.Now()
	err = src.Run(ctx, func(_ context.Context, recs ...streams.Record) error {
		for _, r := range recs {
			if r.Topic == streams.TopicDocuments && len(r.Value) > 0 {
				emitted++
			}
		}
		return nil
	})
	took := time.Since(start)
	if err != nil {
		return sourceRow{}, err
	}
	if emitted != docs {
		return sourceRow{}, fmt.Errorf("the source emitted %d documents of %d given (a bench that processed nothing, or part, measured nothing)", emitted, docs)
	}
	mb := float64(size) / (1 << 20)
	return sourceRow{docs: docs, mb: mb, rawMBs: mb / max(raw.Seconds(), 1e-9), source: max(took, time.Nanosecond)}, nil
}

// benchSourceInputs returns the sample files of each format (by
// extension): the demo feed's reports written in it, replaced by the
// files of samples (a folder, searched recursively) for the formats it
// has.
func benchSourceInputs(samples string) (map[string][][]byte, error) {
	in := map[string][][]byte{}
	var records bytes.Buffer
	for p := 0; p < 4; p++ {
		for _, d := range demo.Generate(7, p) {
			in[".md"] = append(in[".md"], []byte(d.Text))
			in[".txt"] = append(in[".txt"], []byte(plainText(d.Text)))
			in[".html"] = append(in[".html"], benchHTMLPage(d.Title, d.Text))
			in[".pdf"] = append(in[".pdf"], benchPDF(d.Title, plainText(d.Text)))
			b, err := json.Marshal(jsonl.Record{ID: fmt.Sprintf("%s-p%d", d.DocID, p), Title: d.Title, Text: d.Text,
				PublishedAt: d.PublishedAt.Format(time.RFC3339), Domain: d.Domain})
			if err != nil {
				return nil, err
			}
			records.Write(append(b, '\n'))
		}
	}
	in[".jsonl"] = [][]byte{records.Bytes()}
	if samples == "" {
		return in, nil
	}
	found := map[string][][]byte{}
	err := filepath.WalkDir(samples, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		ext := strings.ToLower(filepath.Ext(p))
		if ext == ".htm" {
			ext = ".html"
		}
		if _, ok := in[ext]; ok {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			found[ext] = append(found[ext], b)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bench sources: -samples: %w", err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("bench sources: -samples: no .md, .txt, .html, .pdf or .jsonl file in %s", samples)
	}
	for ext, f := range found {
		in[ext] = f
	}
	return in, nil
}

// plainText is Markdown without its heading and list markers.
func plainText(md string) string {
	var b strings.Builder
	for _, l := range strings.Split(md, "\n") {
		b.WriteString(strings.TrimLeft(l, "#- ") + "\n")
	}
	return b.String()
}

// benchHTMLPage writes a report as a page of a web site: a header with the
// site's name, a menu, a sidebar of links, a footer, and the report's
// paragraphs, headings, lists and tables between them, so that the
// main-content rules have their usual work.
func benchHTMLPage(title, md string) []byte {
	var b strings.Builder
	esc := html.EscapeString
	fmt.Fprintf(&b, "<!doctype html><html><head><meta charset=\"utf-8\"><title>%s</title></head><body>\n", esc(title))
	b.WriteString(`<header><a href="/">Northwind Observer</a><nav><ul><li><a href="/news">News</a></li><li><a href="/markets">Markets</a></li>` +
		`<li><a href="/about">About</a></li></ul></nav></header>` + "\n<main><article>\n")
	for _, para := range strings.Split(md, "\n\n") {
		lines := strings.Split(strings.TrimSpace(para), "\n")
		switch {
		case lines[0] == "":
		case strings.HasPrefix(lines[0], "#"):
			level := min(len(lines[0])-len(strings.TrimLeft(lines[0], "#")), 6)
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", level, esc(strings.TrimSpace(strings.TrimLeft(lines[0], "#"))), level)
		case strings.HasPrefix(lines[0], "|"):
			b.WriteString("<table>")
			for i, l := range lines {
				if i == 1 && strings.Trim(l, "|-: ") == "" {
					continue
				}
				cell := map[bool]string{true: "th", false: "td"}[i == 0]
				b.WriteString("<tr>")
				for _, c := range strings.Split(strings.Trim(l, "| "), "|") {
					fmt.Fprintf(&b, "<%s>%s</%s>", cell, esc(strings.TrimSpace(c)), cell)
				}
				b.WriteString("</tr>")
			}
			b.WriteString("</table>\n")
		case strings.HasPrefix(lines[0], "- "):
			b.WriteString("<ul>")
			for _, l := range lines {
				fmt.Fprintf(&b, "<li>%s</li>", esc(strings.TrimPrefix(l, "- ")))
			}
			b.WriteString("</ul>\n")
		default:
			fmt.Fprintf(&b, "<p>%s</p>\n", esc(strings.Join(lines, " ")))
		}
	}
	b.WriteString("</article></main>\n<aside><h3>Most read</h3><ul><li><a href=\"/a\">Ports reopen after the storm</a></li>" +
		"<li><a href=\"/b\">Rates held for a third quarter</a></li></ul></aside>\n" +
		"<footer><p>© Northwind Observer · <a href=\"/privacy\">Privacy</a> · <a href=\"/contact\">Contact</a></p></footer></body></html>\n")
	return []byte(b.String())
}

// benchPDF writes text as a PDF of letter pages (Helvetica, 50 lines a
// page, lines wrapped at 90 characters), the title set larger on the first
// page, with the cross-reference table a reader needs.
func benchPDF(title, text string) []byte {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		for len(l) > 90 {
			cut := strings.LastIndex(l[:90], " ")
			if cut <= 0 {
				cut = 90
			}
			lines = append(lines, l[:cut])
			l = strings.TrimLeft(l[cut:], " ")
		}
		lines = append(lines, l)
	}
	var pages [][]string
	for len(lines) > 0 {
		n := min(50, len(lines))
		pages = append(pages, lines[:n])
		lines = lines[n:]
	}
	pdfString := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			switch {
			case r == '(' || r == ')' || r == '\\':
				b.WriteString(`\` + string(r))
			case r < 32 || r > 126:
				b.WriteByte('?')
			default:
				b.WriteRune(r)
			}
		}
		return "(" + b.String() + ")"
	}
	var objs []string
	kids := make([]string, len(pages))
	for i, pg := range pages {
		var c strings.Builder
		if i == 0 {
			fmt.Fprintf(&c, "BT /F1 18 Tf 72 740 Td %s Tj ET\n", pdfString(title))
		}
		c.WriteString("BT /F1 11 Tf 14 TL 72 710 Td\n")
		for _, l := range pg {
			fmt.Fprintf(&c, "%s Tj T*\n", pdfString(l))
		}
		c.WriteString("ET\n")
		page := 4 + 2*i
		kids[i] = fmt.Sprintf("%d 0 R", page)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", page+1),
			fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", c.Len(), c.String()))
	}
	objs = append([]string{"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}, objs...)
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
