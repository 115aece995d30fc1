package drift_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/drift"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/clickhouse"
)

// retrievals inserts n eval results of model through retriever, evaluated
// evenly over [from, from+span), each with recall 1 for a share rate of
// them and 0 for the rest; state is their index_state.
func retrievals(t *testing.T, ch clickhouse.Engine, model, retriever, state string, from time.Time, span time.Duration, n int, rate float64) {
	t.Helper()
	exec(t, ch, fmt.Sprintf(`INSERT INTO robustream.eval_results
    (request_id, variant_id, question_id, model_id, axis, kind, domain, pattern, retriever, retrieval_hit, retrieval_recall, index_state, published_at, evaluated_at, produced_at)
SELECT concat('%[1]s', '|', '%[2]s', '|', '%[5]s', '|', toString(%[3]d), '|', toString(number)), concat('v', toString(number)), concat('q', toString(number)),
    '%[1]s', 'original', 'original', 'finance', 'single', '%[2]s', if((number * 7919 %% 1000) < %[4]d, 1, 0), if((number * 7919 %% 1000) < %[4]d, 1, 0),
    '%[5]s', toDateTime(%[3]d), toDateTime(%[3]d + intDiv(number * %[6]d, %[7]d)), toDateTime(%[3]d)
FROM numbers(%[7]d)`, model, retriever, from.Unix(), int(rate*1000), state, int64(span/time.Second), n))
}

// TestScenarioRetrieverDrops: shop-rag's retriever falls from a recall of
// 0.9 to 0.3, and its answers fall with it. The retriever's series
// (model|retrieval|recall|retriever/service|*) fires an alert of its own
// beside the clean-accuracy one, not held back by it; another model's
// steady retriever fires nothing, and neither do results that were not yet
// indexed (left out, although every one of them missed). The alert
// resolves once the retriever recovers.
func TestScenarioRetrieverDrops(t *testing.T) {
	ch := engine(t)
	docs := t0.AddDate(0, -1, 0)
	before, after := t0, t0.Add(6*time.Hour)
	retrievals(t, ch, "shop-rag", schemas.RetrieverService, "", before, 6*time.Hour, 400, 0.9)
	retrievals(t, ch, "shop-rag", schemas.RetrieverService, "", after, time.Hour, 200, 0.3)
	retrievals(t, ch, "shop-rag", schemas.RetrieverService, schemas.IndexNotIndexed, after, time.Hour, 300, 0)
	outcomes(t, ch, "shop-rag", "f", "original", "original", before, 6*time.Hour, 400, 0.8, docs, false)
	outcomes(t, ch, "shop-rag", "f", "original", "original", after, time.Hour, 200, 0.3, docs, false)
	// Its retrieval-hit outcomes fall with the recall: covered by the
	// retriever's alert.
	outcomes(t, ch, "shop-rag", "retrieval_hit", "query", "char", before, 6*time.Hour, 400, 0.9, docs, false)
	outcomes(t, ch, "shop-rag", "retrieval_hit", "query", "char", after, time.Hour, 200, 0.3, docs, false)
	retrievals(t, ch, "builtin:lexical", "bm25_top3", "", before, 6*time.Hour, 400, 0.7)
	retrievals(t, ch, "builtin:lexical", "bm25_top3", "", after, time.Hour, 200, 0.7)
	retrievals(t, ch, "steady-rag", schemas.RetrieverService, "", before, 6*time.Hour, 400, 0.8)
	retrievals(t, ch, "steady-rag", schemas.RetrieverService, schemas.IndexNotIndexed, after, time.Hour, 300, 0)
	retrievals(t, ch, "steady-rag", schemas.RetrieverService, "", after, time.Hour, 200, 0.8)

	ev, err := drift.New(scenarioConfig(), ch)
	if err != nil {
		t.Fatal(err)
	}
	const series = "shop-rag|retrieval|recall|retriever/service|*"
	got := map[string]schemas.Alert{}
	for _, m := range step(t, ev, after.Add(time.Hour)) {
		a := decode(t, m)
		got[a.Series] = a
		t.Logf("%s %s: %s", a.State, a.Series, a.Summary)
	}
	want := []string{series, "shop-rag|rare|f|original/original|*"}
	if len(got) != len(want) {
		t.Fatalf("alerts %v, want exactly %v", keys(got), want)
	}
	for _, s := range want {
		if got[s].State != drift.Firing {
			t.Errorf("no firing alert for %s", s)
		}
	}
	a := got[series]
	if a.Baseline < 0.85 || a.Baseline > 0.95 || a.Recent < 0.25 || a.Recent > 0.35 {
		t.Errorf("retriever alert baseline %.3f recent %.3f, want about 0.9 → 0.3", a.Baseline, a.Recent)
	}
	if a.Labels["family"] != drift.RetrievalFamily || a.Labels["kind"] != schemas.RetrieverService || strings.Contains(a.Summary, "context unavailable") {
		t.Errorf("retriever alert labels %v, summary %s", a.Labels, a.Summary)
	}
	if !strings.Contains(a.Summary, "shop-rag|rare|retrieval_hit|query/char|*") {
		t.Errorf("the retriever's alert does not name the retrieval-hit series it covers: %s", a.Summary)
	}
	if strings.Contains(got[want[1]].Summary, "retrieval|recall") {
		t.Errorf("the clean-accuracy alert holds the retriever's: %s", got[want[1]].Summary)
	}
	// The retriever recovers.
	later := after.Add(2 * time.Hour)
	retrievals(t, ch, "shop-rag", schemas.RetrieverService, "", later, time.Hour, 200, 0.9)
	outcomes(t, ch, "shop-rag", "f", "original", "original", later, time.Hour, 200, 0.8, docs, false)
	resolved := false
	for _, m := range step(t, ev, later.Add(time.Hour)) {
		if a := decode(t, m); a.Series == series && a.State == drift.Resolved {
			resolved = true
		}
	}
	if !resolved {
		t.Error("the retriever's alert did not resolve after it recovered")
	}
}

func keys(m map[string]schemas.Alert) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
