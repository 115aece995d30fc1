package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider/simserver"
)

// writeSimModels writes a models.yaml with the built-in reader and one openai
// model on sim.
func writeSimModels(t *testing.T, sim *simserver.Server, extra string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "models.yaml")
	yaml := fmt.Sprintf("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: vllm-sim, kind: openai, base_url: %q, model: %s, max_in_flight: auto, timeout: 2s%s}\n",
		sim.BaseURL(), simserver.DefaultModel, extra)
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// fastRetries makes the infer stage's retries quick, for tests.
func fastRetries(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "robustream.yaml")
	if err := os.WriteFile(p, []byte("stages:\n  infer:\n    retry: {max_attempts: 6, base: 20ms, max: 400ms}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalOnceAgainstOpenAIServer: eval --once with an openai model on an
// OpenAI-compatible server runs to completion with outcomes for it, every
// outcome id once, nothing left open; a second run on the same data dir
// over a changed corpus sends only the prompts that are new.
func TestEvalOnceAgainstOpenAIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	sim, err := simserver.Start(simserver.Config{MaxNumSeqs: 8, PrefillPerToken: time.Microsecond, DecodePerToken: 100 * time.Microsecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	models := writeSimModels(t, sim, "")
	corpus, data := writeCorpus(t), t.TempDir()
	eval := func() string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run([]string{"eval", "--once", "--source", "dir:" + corpus, "--data-dir", data, "--models", models, "--log-level", "error"}, &out, &errb); code != 0 {
			t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
		}
		if !strings.Contains(out.String(), "open pairings 0") {
			t.Errorf("pairings left open:\n%s", out.String())
		}
		return out.String()
	}
	eval()
	q := func(sql string) int64 { return sqlCount(t, sql, "--data-dir", data) }
	if n := q("SELECT count() FROM robustream.outcomes WHERE model_id = 'vllm-sim'"); n == 0 {
		t.Fatal("no outcomes for the openai model")
	}
	if n := q("SELECT countIf(error != '') FROM robustream.eval_results WHERE model_id = 'vllm-sim'"); n != 0 {
		t.Errorf("%d failed results against a healthy server", n)
	}
	first := sim.Stats()
	if first.Prompts == 0 || first.Duplicates != 0 || first.Prompts != first.Distinct {
		t.Errorf("first run: %d prompts, %d distinct, %d duplicates", first.Prompts, first.Distinct, first.Duplicates)
	}

	// A new paragraph in one document: a new version, re-chunked and
	// re-asked; the prompts answered before come from the cache.
	f := filepath.Join(corpus, "notes.txt")
	b, _ := os.ReadFile(f)
	if err := os.WriteFile(f, append(b, []byte("\nInitech opened a new office in Austin in 2025.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	eval()
	second := sim.Stats()
	if second.Duplicates != 0 {
		t.Errorf("the second run sent %d prompts already answered", second.Duplicates)
	}
	if second.Prompts == first.Prompts {
		t.Error("the second run asked nothing about the new paragraph")
	}
	if n, u := q("SELECT count() FROM robustream.outcomes FINAL"), q("SELECT uniqExact(outcome_id) FROM robustream.outcomes"); n != u {
		t.Errorf("%d outcome rows for %d ids", n, u)
	}
}

// TestInferenceFaults: against a server that fails a third of its calls,
// hangs a tenth, rate-limits in bursts, sends broken JSON and is killed and
// restarted mid-run, every request ends as a result or a terminal error
// with its reason, none twice; the built-in model keeps flowing; eval
// --once exits 0 when its gate lets any share of failures pass (--max-failed 1).
func TestInferenceFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	sim, err := simserver.Start(simserver.Config{MaxNumSeqs: 8, PrefillPerToken: time.Microsecond, DecodePerToken: 100 * time.Microsecond, Seed: 2,
		Faults: simserver.Faults{ServerError: 0.3, Timeout: 0.1, RateLimitBurst: 0.02, RateLimitFor: 300 * time.Millisecond, Malformed: 0.05, HangFor: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	models := writeSimModels(t, sim, "")
	data := t.TempDir()
	killed, finished := make(chan bool, 1), make(chan struct{})
	go func() {
		for sim.Stats().Answered < 30 {
			select {
			case <-finished: // the run ended first: say so, do not wait forever
				killed <- false
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		defer func() { killed <- true }()
		sim.Kill()
		time.Sleep(time.Second)
		if err := sim.Restart(); err != nil {
			t.Error(err)
		}
	}()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--config", fastRetries(t), "--source", "demo", "--demo-periods", "1", "--data-dir", data, "--models", models, "--log-level", "error",
		"--max-failed", "1"}, &out, &errb); code != 0 {
		t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	close(finished)
	if !<-killed {
		t.Errorf("the run ended after %d answers, before the server was killed", sim.Stats().Answered)
	}
	if !strings.Contains(out.String(), "open pairings 0") {
		t.Errorf("pairings left open:\n%s", out.String())
	}
	q := func(sql string) int64 { return sqlCount(t, sql, "--data-dir", data) }
	builtin := q("SELECT count() FROM robustream.eval_results WHERE model_id = 'builtin:lexical'")
	sim1 := q("SELECT count() FROM robustream.eval_results WHERE model_id = 'vllm-sim'")
	distinct := q("SELECT uniqExact(request_id, variant_id) FROM robustream.eval_results WHERE model_id = 'vllm-sim'")
	if builtin == 0 || sim1 != builtin || distinct != sim1 {
		t.Errorf("results: %d of the built-in, %d of vllm-sim (%d distinct): every request must end once", builtin, sim1, distinct)
	}
	if n := q("SELECT countIf(error != '') FROM robustream.eval_results WHERE model_id = 'builtin:lexical'"); n != 0 {
		t.Errorf("%d failures of the built-in model: the faults of one server must not reach another model", n)
	}
	if n := q("SELECT countIf(error != '' AND position(error, 'vllm-sim') = 0) FROM robustream.eval_results WHERE model_id = 'vllm-sim'"); n != 0 {
		t.Errorf("%d terminal errors without their reason", n)
	}
	st := sim.Stats()
	if st.Failed == 0 || st.Duplicates != 0 {
		t.Errorf("server: %d faults injected, %d answered prompts sent again: %q", st.Failed, st.Duplicates, sim.DuplicatedPrompts())
	}
	if n := q("SELECT count() FROM robustream.outcomes WHERE model_id = 'vllm-sim'"); n == 0 {
		t.Error("no outcome for the faulty server's model")
	}
}

// TestKillDuringInference: the engine is SIGKILLed while a model server is
// answering, then run again to the end. The restarted engine loads every
// answer persisted before the kill, and sends none of them again: the only
// prompts the server sees twice are those it answered in the instant before
// the kill, whose answers had not reached the log yet. Every outcome id is
// stored once.
func TestKillDuringInference(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	sim, err := simserver.Start(simserver.Config{MaxNumSeqs: 4, PrefillPerToken: time.Microsecond, DecodePerToken: 2 * time.Millisecond, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	models, data := writeSimModels(t, sim, ""), t.TempDir()
	args := []string{"eval", "--once", "--source", "demo", "--demo-periods", "1", "--data-dir", data, "--models", models, "--log-level", "info"}

	cmd, out := startRobustream(t, args...)
	deadline := time.Now().Add(2 * time.Minute)
	for sim.Stats().Answered < 60 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	answeredAtKill := sim.Stats().Answered
	if answeredAtKill < 60 || strings.Contains(out.String(), "eval finished") {
		t.Fatalf("the kill came too late or too early: %d prompts answered\n%s", answeredAtKill, tail(out.String(), 2000))
	}

	final := robustreamWithStderr(t, args...)
	m := regexp.MustCompile(`answers already received.*?"?n"?[=:](\d+)`).FindStringSubmatch(final)
	if m == nil {
		t.Fatalf("the restart did not say how many answers it loaded:\n%s", tail(final, 3000))
	}
	loaded, _ := strconv.Atoi(m[1])
	st := sim.Stats()
	t.Logf("answered before the kill %d, persisted %d, sent again after the restart %d", answeredAtKill, loaded, st.Duplicates)
	if loaded == 0 || loaded > answeredAtKill {
		t.Errorf("the restart loaded %d answers, %d were answered before the kill", loaded, answeredAtKill)
	}
	if st.Duplicates > answeredAtKill-loaded {
		t.Errorf("%d answered prompts sent again, but only %d answers were not yet persisted at the kill", st.Duplicates, answeredAtKill-loaded)
	}
	q := func(sql string) int64 { return sqlCount(t, sql, "--data-dir", data) }
	if n, u := q("SELECT count() FROM robustream.outcomes"), q("SELECT uniqExact(outcome_id) FROM robustream.outcomes"); n != u || n == 0 {
		t.Errorf("%d outcomes for %d ids", n, u)
	}
	if n := q("SELECT count() FROM robustream.outcomes WHERE model_id = 'vllm-sim'"); n == 0 {
		t.Error("no outcomes for the served model")
	}
}

// robustreamWithStderr runs the binary to completion and returns its
// stdout and stderr together.
func robustreamWithStderr(t *testing.T, args ...string) string {
	t.Helper()
	cmd, out := startRobustream(t, args...)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("robustream %s: %v\n%s", strings.Join(args, " "), err, tail(out.String(), 4000))
	}
	return out.String()
}
