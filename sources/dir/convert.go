package dir

import (
	"errors"
	"fmt"
	"time"
)

// Converted is a file's content as a document: what the folder source
// reads from a file, for other sources that receive files (uploads).
type Converted struct {
	Title, Text, MIME string
	// PublishedAt is the date the file gives itself, zero when none;
	// PublishedFrom says where it came from (MetaPublishedFrom's values).
	PublishedAt   time.Time
	PublishedFrom string
}

// ErrUnsupported is a file whose name has no format this source reads.
var ErrUnsupported = errors.New("not a Markdown, text or HTML file")

// Convert reads raw as the folder source would read a file called name:
// by its extension, with the same checks (binary, UTF-8, empty) and the
// same conversion and date rules.
func Convert(name string, raw []byte) (Converted, error) {
	mime := mimeOf(name)
	if mime == "" {
		return Converted{}, fmt.Errorf("%s: %w", name, ErrUnsupported)
	}
	title, text, err := extract(mime, raw)
	if err != nil {
		return Converted{}, fmt.Errorf("%s: %w", name, err)
	}
	published, from := publishedAt(mime, raw, text)
	return Converted{Title: title, Text: text, MIME: mime, PublishedAt: published, PublishedFrom: from}, nil
}
