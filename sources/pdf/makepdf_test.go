package pdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// line is one run of text the test places on a page.
type line struct {
	x, y, size int
	text       string
}

// makePDF writes a PDF of the given pages with the standard Helvetica
// font, every object and the cross-reference table laid out by hand.
func makePDF(pages [][]line) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) int {
		offsets = append(offsets, b.Len())
		n := len(offsets)
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
		return n
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	// Object 2 (the page tree) is written last but numbered now.
	offsets = append(offsets, 0)
	font := obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, p := range pages {
		var c strings.Builder
		for _, l := range p {
			esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l.text)
			fmt.Fprintf(&c, "BT /F1 %d Tf %d %d Td (%s) Tj ET\n", l.size, l.x, l.y, esc)
		}
		content := obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", c.Len(), c.String()))
		page := obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", font, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	offsets[1] = b.Len()
	fmt.Fprintf(&b, "2 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n", strings.Join(kids, " "), len(kids))
	return finish(&b, offsets)
}

// reportPDF is a three-page report: a running header and a numbered
// footer on every page, a title, headings, a paragraph whose lines wrap
// (one word hyphenated across them), and a page of two columns.
func reportPDF() []byte {
	frame := func(n int, body ...line) []line {
		return append([]line{{72, 760, 9, "Northwind Freight - Annual Report 2025"}},
			append(body, line{280, 40, 9, fmt.Sprintf("Page %d of 3", n)})...)
	}
	return makePDF([][]line{
		frame(1,
			line{72, 700, 20, "Northwind Freight Annual Report"},
			line{72, 660, 14, "1. Overview"},
			line{72, 630, 11, "Northwind Freight operates 40 trucks in Norway and employs 310"},
			line{72, 616, 11, "people. The company opened a new depot in Bergen in March 2025 to serve west-"},
			line{72, 602, 11, "ern customers."},
		),
		frame(2,
			line{72, 700, 14, "2. Results"},
			line{72, 670, 11, "Revenue rose to NOK 412 million in 2025."},
			line{72, 640, 11, "Cold-chain logistics grew fastest."},
		),
		frame(3,
			line{72, 700, 11, "Left column first line."},
			line{72, 686, 11, "Left column second line."},
			line{320, 700, 11, "Right column first line."},
			line{320, 686, 11, "Right column second line."},
		),
	})
}

// slowPDF is a small PDF that takes pdftotext long to read: every one of
// its pages draws one shared, Flate-compressed content stream of a million
// no-op operators (save and restore the graphics state). 4 KB of file, a
// fifth of a second per page; at 200 pages, past Timeout.
func slowPDF(pages int) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(bytes.Repeat([]byte("q Q\n"), 1_000_000))
	zw.Close()
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+i))
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
	obj(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()))
	for range pages {
		obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>")
	}
	return finish(&b, offsets)
}

// finish writes a PDF's cross-reference table (the objects' offsets) and
// trailer after its objects, object 1 the catalogue.
func finish(b *bytes.Buffer, offsets []int) []byte {
	xref := b.Len()
	fmt.Fprintf(b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
