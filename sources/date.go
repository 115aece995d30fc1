package sources

import (
	"fmt"
	"time"
)

// MaxDateSkew is how far past the current time a publication date may lie:
// clocks and time zones disagree by hours, a date days ahead is a typo or a
// placeholder.
const MaxDateSkew = 24 * time.Hour

// minDateYear is the earliest year taken for a publication date: earlier
// ones are placeholders (0001-01-01, the zero time of many languages) or
// typos, not the date of a document this engine asks questions about.
const minDateYear = 1900

// PlausibleDate returns why t cannot be a document's publication date, or
// nil when it can: before 1900, or more than MaxDateSkew in the future. A
// date that fails is never used as a time anchor (a question about "the
// latest figures" must not be dated 9999): the record sources refuse the
// record, the feed and dir: sources keep the document without a date.
func PlausibleDate(t time.Time) error {
	t = t.UTC()
	switch {
	case t.Year() < minDateYear:
		return fmt.Errorf("%s is before %d", t.Format(time.DateOnly), minDateYear)
	case t.After(time.Now().Add(MaxDateSkew)):
		return fmt.Errorf("%s is in the future", t.Format(time.RFC3339))
	}
	return nil
}
