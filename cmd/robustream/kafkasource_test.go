package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKafkaSourceWithKcat: kcat, as another system, writes documents to a
// topic of a running broker; eval --once --source kafka:TOPIC reads them up
// to the end offsets seen at its start (a malformed message dead-lettered),
// a second run finds nothing new, and a tombstone kcat writes retires
// exactly that document's questions.
func TestKafkaSourceWithKcat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker and the pipeline")
	}
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed")
	}
	data := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	startRobustream(t, "broker", "--data-dir", data, "--listen", addr)
	waitListening(t, addr, time.Minute)
	passFile := filepath.Join(data, "kafka", "sasl-password")
	pass, err := os.ReadFile(passFile)
	if err != nil {
		t.Fatal(err)
	}
	produce := func(lines ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, kcat, "-b", addr, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=SCRAM-SHA-256",
			"-X", "sasl.username=robustream", "-X", "sasl.password="+strings.TrimSpace(string(pass)), "-P", "-t", "team.docs", "-K", "|", "-Z")
		cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kcat: %v\n%s", err, out)
		}
	}
	produce(
		`nw|{"title":"Northwind","text":"Northwind Bank appointed Maria Lopez as chief financial officer. Northwind Bank opened 12 new branches.","published_at":"2026-04-28"}`,
		`gx|Globex Industries hired 450 engineers. Globex Industries is based in Springfield.`,
		`bad|{oops`,
	)
	eval := func() string {
		return robustream(t, "eval", "--once", "--source", "kafka:team.docs", "--data-dir", data, "--log-level", "error",
			"--kafka-brokers", addr, "--kafka-sasl-mechanism", "scram-sha-256", "--kafka-sasl-user", "robustream",
			"--kafka-sasl-password-file", passFile)
	}
	q := func(query string) string { return strings.TrimSpace(robustream(t, "sql", "--data-dir", data, query)) }
	if out := eval(); !strings.Contains(out, "2 new document version(s)") || !strings.Contains(out, "dead letters 1") {
		t.Fatalf("first eval:\n%s", out)
	}
	if got := q("SELECT title, toDate(published_at), source FROM robustream.documents ORDER BY title"); got != "Northwind\t2026-04-28\tkafka\ngx\t1970-01-01\tkafka" {
		t.Errorf("documents:\n%s", got)
	}
	if out := eval(); !strings.Contains(out, "0 new document version(s), 0 unchanged") {
		t.Fatalf("second eval read the topic again:\n%s", out)
	}
	gx := q("SELECT doc_id FROM robustream.documents WHERE title = 'gx'")
	gxQuestions := q("SELECT count() FROM robustream.questions WHERE doc_id = '" + gx + "'")
	if gxQuestions == "0" {
		t.Fatal("gx has no questions to retire")
	}
	produce(`gx|`) // a tombstone
	eval()
	if got := q("SELECT q.doc_id, count() FROM robustream.question_retirements r JOIN robustream.questions q USING question_id GROUP BY q.doc_id"); got != gx+"\t"+gxQuestions {
		t.Errorf("retired after the tombstone: %q, want %s questions of %s only", got, gxQuestions, gx)
	}
}
