package clickhouse

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
)

// rollup is a rolling target table and the bucket function of the view that
// feeds it (schemas/sql/020_rolling.sql: keep the two in step).
type rollup struct{ table, bucket string }

var rollups = []rollup{
	{"robustness_5m", "toStartOfFiveMinute"},
	{"robustness_1h", "toStartOfHour"},
	{"robustness_1d", "toStartOfDay"},
}

// ReconcileRollups repairs the rolling tables after a crash. ClickHouse
// writes an insert's block to outcomes and to each view's target as separate
// parts, so a process killed in between leaves outcomes whose rollup rows
// were never written; the sink's retry then skips those outcomes (their ids
// are stored), and the gap would stay for good. This compares, per bucket,
// count() of outcomes with sum(n) of each rollup and rebuilds the buckets
// that disagree from outcomes.
//
// It must run while no one else writes outcomes: the engine calls it at
// start-up on embedded chDB, whose data-directory lock guarantees one
// writer. It returns the number of buckets rebuilt.
func ReconcileRollups(ctx context.Context, e Engine, log *slog.Logger) (int, error) {
	rebuilt := 0
	for _, r := range rollups {
		want, err := bucketCounts(ctx, e, fmt.Sprintf(
			"SELECT toUInt32(%s(evaluated_at)) AS b, count() FROM %s.outcomes GROUP BY b", r.bucket, Database))
		if err != nil {
			return rebuilt, err
		}
		have, err := bucketCounts(ctx, e, fmt.Sprintf(
			"SELECT toUInt32(bucket) AS b, sum(n) FROM %s.%s GROUP BY b", Database, r.table))
		if err != nil {
			return rebuilt, err
		}
		var bad []string
		for b, n := range want {
			if have[b] != n {
				bad = append(bad, b)
			}
		}
		for b := range have {
			if _, ok := want[b]; !ok {
				bad = append(bad, b)
			}
		}
		if len(bad) == 0 {
			continue
		}
		sort.Strings(bad)
		in := strings.Join(bad, ",")
		if err := e.Exec(ctx, fmt.Sprintf("ALTER TABLE %s.%s DELETE WHERE toUInt32(bucket) IN (%s) SETTINGS mutations_sync = 2",
			Database, r.table, in)); err != nil {
			return rebuilt, fmt.Errorf("cannot clear rollup %s: %w", r.table, err)
		}
		// insert_deduplicate=0: with a deduplication window, a rebuilt block
		// identical to one inserted (and deleted) before would be dropped.
		if err := e.Exec(ctx, fmt.Sprintf(`INSERT INTO %[1]s.%[2]s (bucket, model_id, family, metric, axis, kind, pattern, domain, n, value_sum)
SETTINGS insert_deduplicate = 0
SELECT %[3]s(evaluated_at) AS bucket, model_id, family, metric, axis, kind, pattern, domain, count(), sum(value)
FROM %[1]s.outcomes WHERE toUInt32(%[3]s(evaluated_at)) IN (%[4]s)
GROUP BY bucket, model_id, family, metric, axis, kind, pattern, domain`, Database, r.table, r.bucket, in)); err != nil {
			return rebuilt, fmt.Errorf("cannot rebuild rollup %s: %w", r.table, err)
		}
		if log != nil {
			log.Warn("rebuilt rollup buckets that disagreed with outcomes (an earlier run stopped mid-insert)", "table", r.table, "buckets", len(bad))
		}
		rebuilt += len(bad)
	}
	return rebuilt, nil
}

// bucketCounts runs a two-column (bucket, count) query.
func bucketCounts(ctx context.Context, e Engine, q string) (map[string]uint64, error) {
	out, err := e.Query(ctx, q, "TabSeparated")
	if err != nil {
		return nil, err
	}
	m := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		b, n, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("unexpected row %q", line)
		}
		v, err := strconv.ParseUint(n, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("unexpected count in %q", line)
		}
		m[b] = v
	}
	return m, nil
}
