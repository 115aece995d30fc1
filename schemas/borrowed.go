package schemas

import (
	"fmt"

	"github.com/segmentio/encoding/json"
)

// DecodeBorrowed is Decode for an event that does not outlive b: its
// strings point into b rather than being copied (a string with escapes is
// still copied). A sink that copies every value into its insert and then
// drops the event saves most of decoding's allocations this way, which is
// most of its cost. b must not change while the event is in use.
func DecodeBorrowed(b []byte, e Event) error {
	rest, err := json.Parse(b, e, json.ZeroCopy)
	if err != nil || len(rest) != 0 {
		// Refused (trailing bytes included, as Unmarshal does): Decode
		// says why in its own words, so both paths give one message.
		return Decode(b, e)
	}
	if v := e.meta().SchemaVersion; v != Version {
		return fmt.Errorf("%w: got %d, this build reads %d", ErrUnknownVersion, v, Version)
	}
	return nil
}
