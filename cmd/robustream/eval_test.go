package main

import (
	"strings"
	"testing"
)

// TestEvalOnceDir is the first acceptance check: eval --once over a folder
// of Markdown/HTML/text exits 0, outcomes exist, and every single-hop
// question's answer occurs in its ground-truth chunk.
func TestEvalOnceDir(t *testing.T) {
	corpus := writeCorpus(t)
	data := t.TempDir()
	out := robustream(t, "eval", "--once", "--source", "dir:"+corpus, "--data-dir", data)
	if !strings.Contains(out, "RARE robustness") || !strings.Contains(out, "builtin:lexical (baseline)") {
		t.Errorf("summary lacks the score table:\n%s", out)
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes", "--data-dir", data); n <= 0 {
		t.Fatalf("outcomes = %d, want > 0", n)
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.questions WHERE pattern = 'single'", "--data-dir", data); n < 5 {
		t.Fatalf("only %d single-hop questions from the corpus", n)
	}
	missing := robustream(t, "sql", "--data-dir", data, `SELECT q.question, q.answer FROM robustream.questions AS q
		LEFT JOIN robustream.chunks AS c ON c.chunk_id = q.gt_chunk_ids[1]
		WHERE q.pattern = 'single' AND position(c.text, q.answer) = 0`)
	if strings.TrimSpace(missing) != "" {
		t.Fatalf("answers missing from their ground-truth chunk:\n%s", missing)
	}
	// Rolling totals agree with the raw outcomes.
	total := sqlCount(t, "SELECT sum(n) FROM robustream.robustness_1h", "--data-dir", data)
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes", "--data-dir", data); total != n {
		t.Fatalf("robustness_1h totals %d, outcomes %d", total, n)
	}
	// A second run over the same, unchanged folder adds nothing.
	robustream(t, "eval", "--once", "--source", "dir:"+corpus, "--data-dir", data)
	if n := sqlCount(t, "SELECT count() FROM robustream.documents", "--data-dir", data); n != 3 {
		t.Fatalf("documents after a rerun = %d, want 3", n)
	}
	if n, total2 := sqlCount(t, "SELECT count() FROM robustream.outcomes", "--data-dir", data), sqlCount(t, "SELECT sum(n) FROM robustream.robustness_1h", "--data-dir", data); n != total || total2 != total {
		t.Fatalf("rerun changed outcomes: %d → %d (rolling %d)", total, n, total2)
	}
}

func TestDryRunReportsEveryError(t *testing.T) {
	var out, errb strings.Builder
	code := run([]string{"run", "--dry-run", "--kafka-partitions", "0", "--log-level", "loud", "--source", "ftp:x"}, &out, &errb)
	if code == 0 {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"kafka.partitions", "log.level", "source"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("error output lacks %q:\n%s", want, errb.String())
		}
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"run", "--dry-run"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "valid") {
		t.Fatalf("default config: exit %d, %s %s", code, out.String(), errb.String())
	}
}
