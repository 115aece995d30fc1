package streams

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// DiskFullError is a write that failed for want of space. Its message
// starts with "disk full" and names where, so that an operator reading one
// log line knows what to free, instead of a Kafka "unexpected server error"
// or a ClickHouse exception number.
type DiskFullError struct {
	Path string // the file or directory the write was for
	Err  error
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("disk full: %s (free space on its filesystem, then restart): %v", e.Path, e.Err)
}

func (e *DiskFullError) Unwrap() error { return e.Err }

// IsDiskFull reports whether err says the disk (or the user's quota) is
// full: ENOSPC or EDQUOT from the kernel, or ClickHouse's report of the same
// (NOT_ENOUGH_SPACE, code 243; "Cannot reserve … space"; or the kernel's
// text relayed in an exception, which carries no errno Go can see).
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	var dfe *DiskFullError
	if errors.As(err, &dfe) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"No space left on device", "no space left on device", "NOT_ENOUGH_SPACE", "Code: 243.", "Cannot reserve", "Disk quota exceeded", "disk quota exceeded"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// DiskFull returns err as a *DiskFullError for path when it is a disk-full
// error, and err unchanged otherwise (nil stays nil; an error that already
// names its path keeps it).
func DiskFull(err error, path string) error {
	if !IsDiskFull(err) {
		return err
	}
	var dfe *DiskFullError
	if errors.As(err, &dfe) {
		return err
	}
	return &DiskFullError{Path: path, Err: err}
}
