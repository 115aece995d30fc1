//go:build !cgo || !unix

package clickhouse

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Allocator returns the allocator to build records for InsertArrow with:
// C memory in builds with chDB, Go memory otherwise.
func Allocator() memory.Allocator { return memory.DefaultAllocator }

func openChDB(context.Context, Config) (Engine, error) {
	return nil, fmt.Errorf("%w: this binary was built without cgo; use --clickhouse URL for a server", ErrNoChDB)
}
