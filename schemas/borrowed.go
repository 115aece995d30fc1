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
	if err == nil && len(rest) != 0 {
		// Unmarshal refuses trailing bytes; so does this.
		err = fmt.Errorf("invalid character %q after top-level value", rest[0])
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if v := e.meta().SchemaVersion; v != Version {
		return fmt.Errorf("%w: got %d, this build reads %d", ErrUnknownVersion, v, Version)
	}
	return nil
}
