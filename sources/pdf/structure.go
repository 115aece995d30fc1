package pdf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is a line of text with its height (about its font size, in points).
type Line struct {
	Height float64
	Text   string
}

// Block is what pdftotext takes for a paragraph: lines in reading order,
// with the block's top and bottom on the page.
type Block struct {
	Top, Bottom float64
	Lines       []Line
}

// Page is a page's blocks in reading order.
type Page []Block

// parseLayout reads `pdftotext -bbox-layout` output: pages of flows of
// blocks of lines of words.
func parseLayout(raw []byte) ([]Page, error) {
	dec := xml.NewDecoder(bytes.NewReader(raw))
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	var pages []Page
	var blk *Block
	var ln *Line
	var words []string
	var inWord bool
	var word strings.Builder
	attr := func(se xml.StartElement, name string) float64 {
		for _, a := range se.Attr {
			if a.Name.Local == name {
				f, _ := strconv.ParseFloat(a.Value, 64)
				return f
			}
		}
		return 0
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "page":
				pages = append(pages, nil)
			case "block":
				blk = &Block{Top: attr(t, "yMin"), Bottom: attr(t, "yMax")}
			case "line":
				ln = &Line{Height: attr(t, "yMax") - attr(t, "yMin")}
				words = words[:0]
			case "word":
				inWord = true
				word.Reset()
			}
		case xml.CharData:
			if inWord {
				word.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "word":
				inWord = false
				if w := strings.TrimSpace(word.String()); w != "" {
					words = append(words, w)
				}
			case "line":
				if ln != nil && blk != nil && len(words) > 0 {
					ln.Text = strings.Join(words, " ")
					blk.Lines = append(blk.Lines, *ln)
				}
				ln = nil
			case "block":
				if blk != nil && len(blk.Lines) > 0 && len(pages) > 0 {
					pages[len(pages)-1] = append(pages[len(pages)-1], *blk)
				}
				blk = nil
			}
		}
	}
	if len(pages) == 0 {
		return nil, errors.New("no pages in its output")
	}
	return pages, nil
}

// Structure turns pages of blocks into the document's Markdown text.
func Structure(pages []Page) *Document {
	d := &Document{Pages: len(pages)}
	d.Dropped = dropRunning(pages)
	body := bodyHeight(pages)
	var out []string
	continues := false // the last paragraph stops mid-sentence
	for _, p := range pages {
		for _, b := range p {
			if len(b.Lines) == 0 {
				continue
			}
			text := joinLines(b.Lines)
			if isHeading(b, text, body) {
				if d.Title == "" {
					d.Title = text
				}
				out = append(out, "## "+text)
				continues = false
				continue
			}
			if r, _ := utf8.DecodeRuneInString(text); continues && (unicode.IsLower(r) || unicode.IsDigit(r)) {
				// pdftotext cut a paragraph in two (a page break, a
				// change of line spacing): mend it.
				out[len(out)-1] = joinLines([]Line{{Text: out[len(out)-1]}, {Text: text}})
			} else {
				out = append(out, text)
			}
			continues = !strings.ContainsAny(text[len(text)-1:], ".!?:;")
		}
	}
	d.Text = strings.Join(out, "\n\n")
	if d.Text != "" {
		d.Text += "\n"
	}
	return d
}

// bodyHeight is the line height most words are set in: the median over
// words.
func bodyHeight(pages []Page) float64 {
	var hs []float64
	for _, p := range pages {
		for _, b := range p {
			for _, l := range b.Lines {
				for range strings.Fields(l.Text) {
					hs = append(hs, l.Height)
				}
			}
		}
	}
	if len(hs) == 0 {
		return 0
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// joinLines makes a block's lines one paragraph, mending a word hyphenated
// across a line end ("west-" + "ern").
func joinLines(lines []Line) string {
	var b strings.Builder
	for i, l := range lines {
		s := b.String()
		r, _ := utf8.DecodeRuneInString(l.Text)
		switch {
		case i == 0:
		case strings.HasSuffix(s, "-") && len(s) > 1 && unicode.IsLetter(rune(s[len(s)-2])) && unicode.IsLower(r):
			b.Reset()
			b.WriteString(s[:len(s)-1])
		default:
			b.WriteByte(' ')
		}
		b.WriteString(l.Text)
	}
	return b.String()
}

var numbered = regexp.MustCompile(`^(?:\d+(?:\.\d+)*\.?|[A-Z]\.|[IVX]+\.)\s+\S`)

// isHeading: a block of at most two lines set larger than the body text,
// short, without a sentence's final punctuation, starting with a capital
// or a section number.
func isHeading(b Block, text string, body float64) bool {
	if body == 0 || len(b.Lines) > 2 {
		return false
	}
	for _, l := range b.Lines {
		if l.Height < body*1.15 {
			return false
		}
	}
	if n := len(strings.Fields(text)); n == 0 || n > 15 {
		return false
	}
	switch text[len(text)-1] {
	case '.', ',', ';', ':', '?', '!':
		return false
	}
	r, _ := utf8.DecodeRuneInString(text)
	return unicode.IsUpper(r) || numbered.MatchString(text)
}

// edgeBlocks is how many blocks at the top and at the bottom of a page may
// be a running header or footer.
const edgeBlocks = 2

var digits = regexp.MustCompile(`\d+`)

// running is a block's text as compared across pages: digits (page
// numbers), case and spacing do not count.
func running(s string) string {
	return strings.Join(strings.Fields(digits.ReplaceAllString(strings.ToLower(s), "#")), " ")
}

// dropRunning removes the blocks at the top or bottom of pages whose text
// recurs there on at least half of the pages (and at least two): running
// headers, footers and page numbers. It returns how many it removed.
func dropRunning(pages []Page) int {
	if len(pages) < 2 {
		return 0
	}
	// edges are the indexes of a page's top and bottom blocks by position.
	edges := func(p Page) []int {
		idx := make([]int, len(p))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case p[a].Top < p[b].Top:
				return -1
			case p[a].Top > p[b].Top:
				return 1
			}
			return 0
		})
		if len(idx) <= 2*edgeBlocks {
			return idx
		}
		return append(idx[:edgeBlocks:edgeBlocks], idx[len(idx)-edgeBlocks:]...)
	}
	count := map[string]int{}
	for _, p := range pages {
		seen := map[string]bool{}
		for _, i := range edges(p) {
			if k := running(joinLines(p[i].Lines)); !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	need := max(2, (len(pages)+1)/2)
	dropped := 0
	for pi, p := range pages {
		drop := map[int]bool{}
		for _, i := range edges(p) {
			if count[running(joinLines(p[i].Lines))] >= need {
				drop[i] = true
			}
		}
		if len(drop) == 0 {
			continue
		}
		kept := p[:0:0]
		for i, b := range p {
			if !drop[i] {
				kept = append(kept, b)
			}
		}
		dropped += len(drop)
		pages[pi] = kept
	}
	return dropped
}
