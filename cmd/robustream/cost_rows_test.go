package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/robustream/robustream/sinks/clickhouse"
)

// TestCostRowsSharedRequestOrderFree: a request id shared by an original
// cell and a retrieval cell (the same prompt, one call) is counted once
// and labelled the baseline's, whichever of its rows was stored first; a
// request shared by two perturbation axes takes the first axis by name.
// The labels once followed any(axis), so the same corpus gave different
// cost rows from one run to the next.
func TestCostRowsSharedRequestOrderFree(t *testing.T) {
	ctx := context.Background()
	rows := map[string]string{
		"orig":  "('m', 'r-shared', 'original', 0, 100, 5)",
		"retr":  "('m', 'r-shared', 'retrieval', 0, 100, 5)",
		"query": "('m', 'r-two', 'query', 0, 40, 2)",
		"doc":   "('m', 'r-two', 'document', 0, 40, 2)",
		"cb":    "('m', 'r-cb', 'closed_book', 1, 10, 1)",
	}
	// chDB opens one data dir per process: the table is emptied between
	// the two orders.
	ch, err := clickhouse.Open(ctx, clickhouse.Config{DataDir: t.TempDir()})
	if errors.Is(err, clickhouse.ErrNoChDB) {
		t.Skipf("chDB unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	if err := clickhouse.Migrate(ctx, ch, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	var got [2][]costRow
	for i, order := range [][]string{{"orig", "retr", "query", "doc", "cb"}, {"retr", "doc", "cb", "query", "orig"}} {
		if err := ch.Exec(ctx, "TRUNCATE TABLE robustream.eval_results"); err != nil {
			t.Fatal(err)
		}
		// One insert per row: each its own part, in this run's order.
		for _, k := range order {
			if err := ch.Exec(ctx, "INSERT INTO robustream.eval_results (model_id, request_id, axis, closed_book, tokens_in, tokens_out) VALUES "+rows[k]); err != nil {
				t.Fatal(err)
			}
		}
		got[i], err = costRows(ctx, ch.Query, "", nil, metricFamilies)
		if err != nil {
			t.Fatal(err)
		}
	}
	fams := axisFamilies(metricFamilies)
	byFamily := map[string]costRow{}
	var requests int64
	for _, r := range got[0] {
		byFamily[r.Family] = r
		requests += r.Requests
	}
	if requests != 3 {
		t.Errorf("%d requests counted, want 3 (each request id once): %+v", requests, got[0])
	}
	if b := byFamily["baseline"]; b.Requests != 2 || b.TokensIn != 110 || b.TokensOut != 6 {
		t.Errorf("baseline row %+v, want the shared original/retrieval call and the closed-book one (2 requests, 110 in, 6 out)", b)
	}
	docFamily := ""
	for _, r := range got[0] {
		if r.Family != "baseline" {
			docFamily = r.Family
		}
	}
	if len(fams["document"]) == 0 || docFamily == "" || byFamily[docFamily].Requests != 1 || byFamily[docFamily].TokensIn != 40 {
		t.Errorf("the call shared by document and query cells is not one request under document's families %v: %+v", fams["document"], got[0])
	}
	if len(got[0]) != len(got[1]) {
		t.Fatalf("rows differ with the insert order:\n%+v\n%+v", got[0], got[1])
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Errorf("row %d differs with the insert order: %+v against %+v", i, got[0][i], got[1][i])
		}
	}
}
