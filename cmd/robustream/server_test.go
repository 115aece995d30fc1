package main

import (
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robustream/robustream/streams"
)

// TestServerModeMatchesEmbedded is the server-mode acceptance check: the same
// `eval --once` over the same folder gives the same results whether it runs
// fully embedded (kfake + chDB in one process) or against a separately
// started `robustream broker` and a real clickhouse-server (Debian's 18.16 on
// CI).
//
// What "the same counts" means here: the raw tables are ReplacingMergeTree
// keyed by an id, and the server sinks are at-least-once on 18.16 (it has no
// insert deduplication tokens), so a raw count() may include rows a merge has
// not collapsed yet. The logical count of a table is the number of distinct
// keys (its ORDER BY), which is what both engines must agree on. The rolling
// table robustness_1h is a SummingMergeTree whose sum(n) is exact whether or
// not parts have merged; it must equal the number of outcomes on both sides.
// Ids are deterministic, so beyond the counts the id sets must match too.
//
// The test drops and recreates the database robustream on the server it is
// given: point ROBUSTREAM_TEST_CLICKHOUSE at a private server
// (scripts/clickhouse-test-server.sh), never at one holding data you keep.
// scripts/test.sh runs packages one at a time, so the ClickHouse conformance
// tests in sinks/clickhouse, which also reset that database, do not overlap.
func TestServerModeMatchesEmbedded(t *testing.T) {
	url := os.Getenv("ROBUSTREAM_TEST_CLICKHOUSE")
	if url == "" {
		t.Skip("ROBUSTREAM_TEST_CLICKHOUSE is unset: this test needs a clickhouse-server. " +
			"Run it with: export ROBUSTREAM_TEST_CLICKHOUSE=$(scripts/clickhouse-test-server.sh start); " +
			"go test -run TestServer ./cmd/robustream; scripts/clickhouse-test-server.sh stop " +
			"(CI and `make test` set it)")
	}
	corpus := writeCorpus(t)

	brokerAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	brokerDir := t.TempDir()
	broker := startBackground(t, "broker", "--data-dir", brokerDir, "--listen", brokerAddr)
	broker.waitListening(t, brokerAddr, time.Minute)
	// The embedded broker admits only holders of its data dir's credential.
	kafkaArgs := testBroker{addr: brokerAddr, passFile: streams.BrokerPasswordFile(filepath.Join(brokerDir, "kafka"))}.args()

	// `sql --clickhouse` must run DDL against a server, not only SELECTs.
	robustream(t, "sql", "--clickhouse", url, "DROP DATABASE IF EXISTS robustream")
	if got := strings.TrimSpace(robustream(t, "sql", "--clickhouse", url,
		"SELECT count() FROM system.databases WHERE name = 'robustream'")); got != "0" {
		t.Fatalf("database robustream still exists after DROP DATABASE (count %q)", got)
	}

	start := time.Now()
	serverOut := robustream(t, append(append([]string{"eval", "--once", "--source", "dir:" + corpus}, kafkaArgs...),
		"--clickhouse", url, "--data-dir", t.TempDir())...)
	t.Logf("server mode (broker %s, %s): %s", brokerAddr, url, time.Since(start).Round(time.Millisecond))
	embeddedData := t.TempDir()
	start = time.Now()
	embeddedOut := robustream(t, "eval", "--once", "--source", "dir:"+corpus, "--data-dir", embeddedData)
	t.Logf("embedded mode: %s", time.Since(start).Round(time.Millisecond))
	for name, out := range map[string]string{"server": serverOut, "embedded": embeddedOut} {
		if !strings.Contains(out, "builtin:lexical (baseline)") {
			t.Errorf("%s eval summary lacks the score table:\n%s", name, out)
		}
	}
	if broker.exited() {
		t.Fatalf("the broker exited during the run:\n%s", tail(broker.output(), 4000))
	}

	server := []string{"--clickhouse", url}
	embedded := []string{"--data-dir", embeddedData}

	// Logical counts: distinct keys per table, and the rolling total.
	counts := []struct{ name, expr string }{
		{"documents", "(SELECT uniqExact(doc_id, version) FROM robustream.documents)"},
		{"chunks", "(SELECT uniqExact(chunk_id) FROM robustream.chunks)"},
		{"triplets", "(SELECT uniqExact(triplet_id) FROM robustream.triplets)"},
		{"questions", "(SELECT uniqExact(question_id) FROM robustream.questions)"},
		{"variants", "(SELECT uniqExact(variant_id) FROM robustream.variants)"},
		{"eval_results", "(SELECT uniqExact(request_id, variant_id) FROM robustream.eval_results)"},
		{"outcomes", "(SELECT uniqExact(outcome_id) FROM robustream.outcomes)"},
		{"sum(n) of robustness_1h", "(SELECT sum(n) FROM robustream.robustness_1h)"},
		// What the engine writes itself at start (the models in use).
		{"model revisions", "(SELECT uniqExact(model_id, revision) FROM robustream.model_revisions)"},
	}
	exprs := make([]string, len(counts))
	for i, c := range counts {
		exprs[i] = c.expr
	}
	query := "SELECT " + strings.Join(exprs, ", ")
	want := parseCounts(t, "embedded", robustream(t, append(append([]string{"sql"}, embedded...), query)...), len(counts))
	got := parseCounts(t, "server", robustream(t, append(append([]string{"sql"}, server...), query)...), len(counts))
	for i, c := range counts {
		t.Logf("%-24s embedded %6d  server %6d", c.name, want[i], got[i])
		if want[i] <= 0 {
			t.Errorf("embedded %s = %d, want > 0", c.name, want[i])
		}
		if got[i] != want[i] {
			t.Errorf("%s: server %d, embedded %d", c.name, got[i], want[i])
		}
	}
	if want[0] != 3 {
		t.Errorf("embedded documents = %d, want the 3 files of the corpus", want[0])
	}
	const outcomes, rolling = 6, 7
	if got[rolling] != got[outcomes] || want[rolling] != want[outcomes] {
		t.Errorf("robustness_1h totals (server %d, embedded %d) differ from the outcomes (server %d, embedded %d)",
			got[rolling], want[rolling], got[outcomes], want[outcomes])
	}

	// The same ids, not only as many. Sorted here: 18.16 has no positional
	// ORDER BY, and the two engines need not sort alike.
	for _, q := range []string{
		"SELECT DISTINCT question_id FROM robustream.questions",
		"SELECT DISTINCT variant_id FROM robustream.variants",
		"SELECT DISTINCT outcome_id FROM robustream.outcomes",
	} {
		e := sortedLines(robustream(t, append(append([]string{"sql"}, embedded...), q)...))
		s := sortedLines(robustream(t, append(append([]string{"sql"}, server...), q)...))
		if !slices.Equal(e, s) {
			t.Errorf("%s: the engines hold different ids\nembedded: %v\nserver:   %v", q, e, s)
		}
	}

	// RARE scores per model agree to 1e-9 (the same float sums, possibly
	// added in another order).
	const scoresQuery = "SELECT model_id, n, overall, query_robustness, document_robustness, retrieval_robustness FROM robustream.rare_scores"
	es := parseScores(t, "embedded", robustream(t, append(append([]string{"sql"}, embedded...), scoresQuery)...))
	ss := parseScores(t, "server", robustream(t, append(append([]string{"sql"}, server...), scoresQuery)...))
	if _, ok := es["builtin:lexical"]; !ok {
		t.Fatalf("embedded rare_scores has no row for builtin:lexical: %v", es)
	}
	if len(es) != len(ss) {
		t.Errorf("rare_scores: embedded has models %v, server %v", es, ss)
	}
	for model, ev := range es {
		sv, ok := ss[model]
		if !ok {
			t.Errorf("rare_scores: server has no row for %s", model)
			continue
		}
		for i := range ev {
			same := math.Abs(ev[i]-sv[i]) <= 1e-9 || (math.IsNaN(ev[i]) && math.IsNaN(sv[i]))
			if !same {
				t.Errorf("rare_scores %s column %d: server %v, embedded %v", model, i+1, sv[i], ev[i])
			}
		}
	}
}

// parseCounts parses one TabSeparated row of n integers.
func parseCounts(t *testing.T, engine, out string, n int) []int64 {
	t.Helper()
	f := strings.Split(strings.TrimSpace(out), "\t")
	if len(f) != n {
		t.Fatalf("%s: want %d counts, got %q", engine, n, out)
	}
	c := make([]int64, n)
	for i, s := range f {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: count %d is %q: %v", engine, i+1, s, err)
		}
		c[i] = v
	}
	return c
}

// parseScores reads rare_scores rows into model → [n, overall, query,
// document, retrieval].
func parseScores(t *testing.T, engine, out string) map[string][]float64 {
	t.Helper()
	scores := map[string][]float64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			t.Fatalf("%s: rare_scores row %q has %d columns, want 6", engine, line, len(f))
		}
		v := make([]float64, 5)
		for i, s := range f[1:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: rare_scores %s: %q is not a number", engine, f[0], s)
			}
			v[i] = x
		}
		if _, dup := scores[f[0]]; dup {
			t.Fatalf("%s: rare_scores has two rows for %s", engine, f[0])
		}
		scores[f[0]] = v
	}
	return scores
}

func sortedLines(out string) []string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	slices.Sort(lines)
	return lines
}

// background is a robustream process running beside the test. Unlike
// startRobustream it knows when the process has exited and can read the
// output while the process writes it.
type background struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error
}

// startBackground starts the binary; at the end of the test it is
// interrupted (so that it shuts down cleanly), then killed if it lingers.
func startBackground(t *testing.T, args ...string) *background {
	t.Helper()
	p := &background{cmd: exec.Command(binary, args...), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		if p.exited() {
			return
		}
		p.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *background) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *background) output() string { return p.out.String() }

// waitListening waits until addr accepts connections, failing at once with
// the process output if the process exits first.
func (p *background) waitListening(t *testing.T, addr string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if p.exited() {
			t.Fatalf("robustream %s exited (%v) before listening on %s:\n%s",
				strings.Join(p.cmd.Args[1:], " "), p.err, addr, tail(p.output(), 4000))
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s is not listening after %s:\n%s", addr, within, tail(p.output(), 4000))
}
