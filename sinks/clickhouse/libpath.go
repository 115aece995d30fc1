package clickhouse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// libRel is where scripts/fetch-chdb.sh (make setup) puts the library,
// relative to the repository root.
var libRel = filepath.Join(".chdb", "lib", "libchdb.so")

// resolveLibPath finds libchdb.so: explicit path, $ROBUSTREAM_CHDB_LIB,
// then .chdb/lib/ in the binary's directory or any parent (bin/robustream in
// a checkout), then in the working directory or any parent (go test runs in
// the package directory), so that a fresh `make run` and `go test` both find
// what `make setup` fetched.
func resolveLibPath(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if p := os.Getenv("ROBUSTREAM_CHDB_LIB"); p != "" {
		return p, nil
	}
	var looked []string
	var starts []string
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			p := filepath.Join(dir, libRel)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
			looked = append(looked, p)
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("%w: libchdb.so not found (run `make setup`, or set ROBUSTREAM_CHDB_LIB); looked in %s",
		ErrNoChDB, strings.Join(dedupe(looked), ", "))
}

func dedupe(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
