package dir

import (
	"context"
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

// ErrUnsupported is a file whose name has no format this source reads; its
// message names every format that is read.
var ErrUnsupported = errors.New("not a supported file type: want " + supportedTypes())

// Supported reports whether a file called name is of a format Convert reads.
func Supported(name string) bool { return mimeOf(name) != "" }

// Convert reads raw as the folder source would read a file called name:
// by its extension, with the same checks (binary, UTF-8, empty) and the
// same conversion and date rules. A PDF's conversion (pdftotext) stops when
// ctx ends.
func Convert(ctx context.Context, name string, raw []byte) (Converted, error) {
	mime := mimeOf(name)
	if mime == "" {
		return Converted{}, fmt.Errorf("%s: %w", name, ErrUnsupported)
	}
	title, text, err := extract(ctx, mime, raw)
	if err != nil {
		return Converted{}, fmt.Errorf("%s: %w", name, err)
	}
	published, from := publishedAt(mime, raw, text)
	return Converted{Title: title, Text: text, MIME: mime, PublishedAt: published, PublishedFrom: from}, nil
}
