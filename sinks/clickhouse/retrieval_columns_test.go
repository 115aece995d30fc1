package clickhouse

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// oldEvalResults is eval_results as data directories made before the
// retrieval columns have it: 010's CREATE without them.
func oldEvalResults(t *testing.T) string {
	t.Helper()
	ms, err := schemas.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	added := map[string]bool{}
	create := ""
	for _, m := range ms {
		for _, s := range m.Statements {
			if add, ok := schemas.AddColumn(s); ok && add.Table == "eval_results" {
				added[add.Column] = true
			}
			if strings.HasPrefix(s, "CREATE TABLE IF NOT EXISTS robustream.eval_results\n") {
				create = s
			}
		}
	}
	if create == "" || len(added) == 0 {
		t.Fatalf("no eval_results CREATE (%v) or no added columns (%v)", create != "", added)
	}
	var lines []string
	col := regexp.MustCompile(`^\s*(\w+)\s`)
	for _, l := range strings.Split(create, "\n") {
		if m := col.FindStringSubmatch(l); m != nil && added[m[1]] {
			continue
		}
		lines = append(lines, l)
	}
	old := strings.Join(lines, "\n")
	// The last column left ends without its comma.
	return regexp.MustCompile(`,(\s*\n\))`).ReplaceAllString(old, "$1")
}

// TestRetrievalColumnsUpgradeInPlace: a data directory whose eval_results
// predates the retrieval columns gets them from Migrate, on chDB and on
// clickhouse-server 18.16 (which parses no ADD COLUMN IF NOT EXISTS); its
// old rows read as empty, migrating again changes nothing, and a result
// with passages, sources and scores is stored and read back whole.
func TestRetrievalColumnsUpgradeInPlace(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		ctx := context.Background()
		for _, s := range []string{"DROP DATABASE IF EXISTS " + Database, "CREATE DATABASE " + Database, oldEvalResults(t),
			"INSERT INTO robustream.eval_results (request_id, variant_id, model_id) SELECT 'old', 'v0', 'm'"} {
			if err := e.Exec(ctx, s); err != nil {
				t.Fatalf("%.80s: %v", s, err)
			}
		}
		if n := scalar(t, e, "SELECT count() FROM system.columns WHERE database = 'robustream' AND table = 'eval_results' AND name = 'retrieved'"); n != "0" {
			t.Fatalf("the old table already has retrieved (%s)", n)
		}
		for range 2 {
			if err := Migrate(ctx, e, nil); err != nil {
				t.Fatalf("migrate: %v", err)
			}
		}
		var want []string
		for _, c := range schemas.EvalResultsTable.Columns {
			want = append(want, c.Name+"\t"+c.Type)
		}
		got := scalar(t, e, "SELECT name, type FROM system.columns WHERE database = 'robustream' AND table = 'eval_results'")
		if got != strings.Join(want, "\n") {
			t.Errorf("columns after the upgrade:\n got %q\nwant %q", got, strings.Join(want, "\n"))
		}
		if got := scalar(t, e, "SELECT length(retrieved), retriever, retrieval_hit, index_state FROM robustream.eval_results WHERE request_id = 'old'"); got != "0\t\t0\t" {
			t.Errorf("old row after the upgrade: %q", got)
		}
		at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		res := stamped(&schemas.EvalResult{RequestID: "new", VariantID: "v1", ModelID: "shop-rag", Retrieves: true,
			Retriever: schemas.RetrieverService, Retrieved: []string{"first passage", "second, with a 'quote'"},
			RetrievedSources: []string{"a.md", "b.md"}, RetrievedScores: []float64{2.5, 1.25}, RetrievalHit: true,
			RetrievalRecall: 0.5, RetrievalPrecision: 0.5, RetrievalRR: 1, IndexState: schemas.IndexNotIndexed, EvaluatedAt: at}, "new")
		plain := stamped(&schemas.EvalResult{RequestID: "plain", VariantID: "v2", ModelID: "builtin:lexical", EvaluatedAt: at}, "plain")
		s := newSink(t, e, streams.TopicEvalResults)
		if err := s.Write(ctx, batchOf(t, streams.TopicEvalResults, 0, res, plain)); err != nil {
			t.Fatal(err)
		}
		got = scalar(t, e, `SELECT request_id, retriever, retrieved, retrieved_sources, retrieved_scores, retrieval_hit,
    retrieval_recall, retrieval_precision, retrieval_rr, index_state
FROM robustream.eval_results WHERE request_id IN ('new', 'plain') ORDER BY request_id`)
		wantRows := "new\tservice\t['first passage','second, with a \\'quote\\'']\t['a.md','b.md']\t[2.5,1.25]\t1\t0.5\t0.5\t1\tnot_indexed\n" +
			"plain\t\t[]\t[]\t[]\t0\t0\t0\t0\t"
		if got != wantRows {
			t.Errorf("stored rows:\n got %q\nwant %q", got, wantRows)
		}
	})
}

// TestClusterAddColumn: a column add becomes an ALTER of the shards' table
// and one of the Distributed table, both ON CLUSTER, and both parse.
func TestClusterAddColumn(t *testing.T) {
	const s = "ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS retrieved Array(String)"
	got, err := clusterStatement(s, "c1", " ON CLUSTER c1", map[string]bool{"eval_results": true})
	want := []string{
		"ALTER TABLE robustream.eval_results" + LocalSuffix + " ON CLUSTER c1 ADD COLUMN IF NOT EXISTS retrieved Array(String)",
		"ALTER TABLE robustream.eval_results ON CLUSTER c1 ADD COLUMN IF NOT EXISTS retrieved Array(String)",
	}
	if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rewrite: %q, %v\nwant %q", got, err, want)
	}
	if _, err := clusterStatement(s, "c1", " ON CLUSTER c1", map[string]bool{}); err == nil {
		t.Error("a column add to a table that is not a MergeTree table was rewritten")
	}
	e := sharedChDB(t)
	for _, q := range got {
		if _, err := e.Query(context.Background(), "EXPLAIN AST "+q, "TabSeparated"); err != nil {
			t.Errorf("%s does not parse: %v", q, err)
		}
	}
}
