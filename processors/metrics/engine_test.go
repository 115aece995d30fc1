package metrics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/sinks/clickhouse"
)

// The tests run the families' SQL on real ClickHouse: embedded chDB, and
// the clickhouse-server of ROBUSTREAM_TEST_CLICKHOUSE (18.16) when set.

var chdbShared struct {
	e   clickhouse.Engine
	err error
	dir string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chdbShared.e != nil {
		chdbShared.e.Close()
	}
	if chdbShared.dir != "" {
		os.RemoveAll(chdbShared.dir)
	}
	os.Exit(code)
}

// forEachEngine runs fn per engine on a freshly migrated database.
func forEachEngine(t *testing.T, fn func(t *testing.T, e clickhouse.Engine)) {
	t.Helper()
	for _, kind := range []string{"chdb", "server"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			var e clickhouse.Engine
			if kind == "chdb" {
				if chdbShared.e == nil && chdbShared.err == nil {
					chdbShared.dir, chdbShared.err = os.MkdirTemp("", "robustream-metrics-test-")
					if chdbShared.err == nil {
						chdbShared.e, chdbShared.err = clickhouse.Open(ctx, clickhouse.Config{DataDir: chdbShared.dir})
					}
				}
				if errors.Is(chdbShared.err, clickhouse.ErrNoChDB) {
					t.Skipf("chDB unavailable: %v", chdbShared.err)
				}
				if chdbShared.err != nil {
					t.Fatal(chdbShared.err)
				}
				e = chdbShared.e
			} else {
				url := os.Getenv("ROBUSTREAM_TEST_CLICKHOUSE")
				if url == "" {
					t.Skip("ROBUSTREAM_TEST_CLICKHOUSE is unset: no clickhouse-server to test against (export ROBUSTREAM_TEST_CLICKHOUSE=$(scripts/clickhouse-test-server.sh start))")
				}
				var err error
				if e, err = clickhouse.Open(ctx, clickhouse.Config{URL: url}); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { e.Close() })
			}
			if err := e.Exec(ctx, "DROP DATABASE IF EXISTS "+clickhouse.Database); err != nil {
				t.Fatal(err)
			}
			if err := clickhouse.Migrate(ctx, e, nil); err != nil {
				t.Fatal(err)
			}
			fn(t, e)
		})
	}
}

// outcome is one row of robustream.outcomes as a test writes it.
type outcome struct {
	family, metric, model, question, axis, kind string
	hops                                        int
	dr                                          float64
	known, golden                               int
	value                                       float64
	age                                         time.Duration // evaluated_at = now − age
}

// insert writes outcomes (ids numbered from first) evaluated relative to
// now.
func insert(t *testing.T, e clickhouse.Engine, now time.Time, first int, os []outcome) {
	t.Helper()
	if len(os) == 0 {
		return
	}
	// INSERT … SELECT, not VALUES: over the native protocol an INSERT
	// with VALUES waits for data blocks the client never sends.
	var sel []string
	for i, o := range os {
		at := now.Add(-o.age).Unix()
		sel = append(sel, fmt.Sprintf("SELECT 'o%06d', '%s', '%s', '%s', '%s', 'v-%s-%s-%d', '%s', '%s', 'single', toUInt8(%d), toFloat64(%g), 'finance', toUInt8(%d), toUInt8(%d), toFloat64(%g), toDateTime(%d), toDateTime(%d), toDateTime(%d)",
			first+i, o.family, o.metric, o.model, o.question, o.question, o.kind, first+i, o.axis, o.kind, o.hops, o.dr, o.known, o.golden, o.value, at-86400*30, at, at))
	}
	if err := e.Exec(context.Background(), `INSERT INTO robustream.outcomes
 (outcome_id, family, metric, model_id, question_id, variant_id, axis, kind, pattern, hops, d_r, domain, known, golden, value, published_at, evaluated_at, produced_at)
 `+strings.Join(sel, "\n UNION ALL ")); err != nil {
		t.Fatal(err)
	}
}

// rowsOf runs sql and returns its rows by column name.
func rowsOf(t *testing.T, e clickhouse.Engine, sql string) []Row {
	t.Helper()
	rows, err := Rows(context.Background(), e.Query, sql)
	if err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
	return rows
}
