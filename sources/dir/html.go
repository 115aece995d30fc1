package dir

import (
	"errors"
	"fmt"

	"github.com/robustream/robustream/sources/htmltext"
)

// htmlText returns the title and the main content of an HTML page as text
// (sources/htmltext): navigation, headers, footers, sidebars and link
// tables left out, headings, lists and tables in their Markdown forms. A
// page that is all navigation is empty.
func htmlText(src []byte) (title, text string, err error) {
	title, text, err = htmltext.Extract(src)
	if errors.Is(err, htmltext.ErrNoMainContent) {
		return title, "", fmt.Errorf("%w: %v", ErrEmpty, err)
	}
	return title, text, err
}
