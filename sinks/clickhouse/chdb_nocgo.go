//go:build !cgo || !unix

package clickhouse

import (
	"context"
	"fmt"
)

func openChDB(context.Context, Config) (Engine, error) {
	return nil, fmt.Errorf("%w: this binary was built without cgo; use --clickhouse URL for a server", ErrNoChDB)
}
