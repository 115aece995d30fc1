package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestExportDemo: export on a demo run writes one line per active question,
// each with its question, answer and ground-truth contexts, and the same
// lines through a running engine that holds the data dir (its read-only
// SQL API) as from the data dir opened directly.
func TestExportDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline and starts an engine")
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "demo", "--data-dir", data, "--log-level", "error"}, &out, &errb); code != 0 {
		t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	active := sqlCount(t, "SELECT uniqExact(question_id) FROM robustream.active_questions", "--data-dir", data)
	retired := sqlCount(t, "SELECT uniqExact(question_id) FROM robustream.question_retirements", "--data-dir", data)
	if active == 0 {
		t.Fatal("the demo made no questions")
	}
	lines := exportLines(t, data, "jsonl")
	if int64(len(lines)) != active {
		t.Fatalf("export wrote %d lines for %d active questions (%d retired)", len(lines), active, retired)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		id, _ := l["id"].(string)
		ctxs, _ := l["contexts"].([]any)
		ids, _ := l["context_ids"].([]any)
		if id == "" || seen[id] || l["question"] == "" || l["answer"] == "" || len(ctxs) == 0 || len(ctxs) != len(ids) ||
			l["pattern"] == "" || l["hops"] == nil || l["d_r"] == nil || l["curated"] != false {
			t.Fatalf("export line %v", l)
		}
		seen[id] = true
	}
	// The engine now holds the data dir: export goes through its API and
	// writes the same bytes.
	direct := robustream(t, "export", "--data-dir", data)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	startEngineProcess(t, addr, nil, "--data-dir", data, "--source", "none")
	viaAPI := robustream(t, "export", "--data-dir", data)
	if viaAPI != direct {
		t.Errorf("export through the running engine differs: %d bytes, %d directly\n%s", len(viaAPI), len(direct), tail(viaAPI, 400))
	}
	if strings.Count(viaAPI, "\n") != int(active) {
		t.Errorf("through the engine: %d lines, want %d", strings.Count(viaAPI, "\n"), active)
	}
}
