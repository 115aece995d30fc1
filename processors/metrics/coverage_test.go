package metrics

import (
	"testing"
	"time"

	"github.com/robustream/robustream/sinks/clickhouse"
)

// TestCoverageCountsEveryFamily: coverage counts each family's scored
// cells per kind (SURE's instances once, not its two rows; a retriever's
// kind that RARE and GRADE both score once, as the larger count).
func TestCoverageCountsEveryFamily(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		now := time.Now()
		writeGRADEFixture(t, e, now)
		insert(t, e, now, 1000, append(baseOutcomes(),
			outcome{family: "rare", metric: MetricF, model: "m1", question: "q01", axis: "retrieval", kind: "bm25_top3", value: 1}))
		got := map[string]int64{}
		for _, r := range rowsOf(t, e, CoverageQuery("robustream.robustness_1d")) {
			got[r["model"]+" "+r["axis"]+"/"+r["kind"]] = r.Count("cnt")
		}
		for key, want := range map[string]int64{
			"m original/original":         3,
			"m query/char":                2,
			"m retrieval/bm25_top3":       2,
			"m spurious/format_json":      4, // four instances, eight rows
			"m placeholder/placeholder_1": 4,
			"m1 retrieval/bm25_top3":      12, // GRADE's 12 (RARE's 1 is the smaller)
			"m1 retrieval/emb_x_top3":     12,
			"m2 retrieval/bm25_top3":      12,
		} {
			if got[key] != want {
				t.Errorf("coverage %s = %d, want %d (all: %v)", key, got[key], want, got)
			}
		}
	})
}
