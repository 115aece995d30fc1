package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pipelineCounts are the distinct ids at every step of the pipeline: the
// same in any run over the same demo periods, however it was interrupted.
const pipelineCounts = `SELECT
 (SELECT uniqExact(doc_id, version) FROM robustream.documents),
 (SELECT uniqExact(chunk_id) FROM robustream.chunks),
 (SELECT uniqExact(question_id) FROM robustream.questions),
 (SELECT uniqExact(variant_id) FROM robustream.variants),
 (SELECT uniqExact(outcome_id) FROM robustream.outcomes)`

// TestRestartKeepsNewData is the acceptance check of the restart findings:
// an engine run to idle, its consumed records trimmed, then stopped
// (gracefully, and once with kill -9) and restarted with more documents,
// must end up with exactly what one uninterrupted run over the same
// documents produces. Before the fix the embedded broker came back at offset
// 0 while the consumer groups kept their offsets, and every new document was
// skipped silently.
//
// It also checks that a second process started on the held data dir is
// refused with the lock message and leaves every file byte-identical.
func TestRestartKeepsNewData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts several engines")
	}
	want := map[int]string{}
	for _, periods := range []int{4, 6} {
		ref := t.TempDir()
		robustream(t, "eval", "--once", "--source", "demo", "--demo-periods", fmt.Sprint(periods), "--data-dir", ref)
		want[periods] = strings.TrimSpace(robustream(t, "sql", "--data-dir", ref, pipelineCounts))
		t.Logf("uninterrupted run of %d periods: %s", periods, want[periods])
	}

	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	start := func(periods int) (*exec.Cmd, *syncBuffer) {
		cmd, out := startRobustream(t, "run", "--data-dir", dir, "--http", addr, "--source", "demo",
			"--demo-periods", fmt.Sprint(periods), "--demo-interval", "1s")
		waitListening(t, addr, 2*time.Minute)
		return cmd, out
	}

	// 1. Two periods to idle; wait for the trimmer (every 10 s) to drop
	// everything consumed; stop gracefully.
	cmd, out := start(2)
	first := waitStable(t, addr, out)
	time.Sleep(25 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("graceful stop: %v\n%s", err, tail(out.String(), 3000))
	}
	assertTrimmed(t, dir)
	t.Logf("after 2 periods: %s", first)

	// 2. Restart with four periods: the two new ones must flow through.
	cmd, out = start(4)
	waitCounts(t, addr, want[4], out)
	time.Sleep(25 * time.Second) // trimmed again before the kill

	// A second process on the held dir: refused, and it touches nothing.
	// The first engine is frozen meanwhile, so that only the second one
	// could change a file.
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	before := hashTree(t, dir)
	for _, args := range [][]string{
		{"eval", "--once", "--source", "demo", "--data-dir", dir},
		{"run", "--data-dir", dir, "--http", "127.0.0.1:0"},
		{"broker", "--data-dir", dir, "--listen", "127.0.0.1:0"},
	} {
		c := exec.Command(binary, args...)
		b, err := c.CombinedOutput()
		if err == nil || !strings.Contains(string(b), "in use by another robustream process") {
			t.Errorf("robustream %s on a held data dir: err=%v, output:\n%s", args[0], err, b)
		}
	}
	if after := hashTree(t, dir); after != before {
		t.Errorf("a refused process changed the data dir:\n%s", diffTrees(before, after))
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}

	// 3. kill -9 at idle, restart with six periods.
	cmd.Process.Kill()
	cmd.Wait()
	cmd, out = start(6)
	waitCounts(t, addr, want[6], out)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
}

// apiCounts reads pipelineCounts through the running engine's SQL API.
func apiCounts(addr string) (string, error) {
	resp, err := http.Post("http://"+addr+"/api/sql", "text/plain", strings.NewReader(pipelineCounts))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, b)
	}
	return strings.TrimSpace(string(b)), err
}

// waitCounts waits until the running engine's counts equal want.
func waitCounts(t *testing.T, addr, want string, out *syncBuffer) {
	t.Helper()
	var got string
	var err error
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		if got, err = apiCounts(addr); err == nil && got == want {
			return
		}
	}
	t.Fatalf("counts (documents, chunks, questions, variants, outcomes) = %q (err %v), want %q as in an uninterrupted run\n%s",
		got, err, want, tail(out.String(), 3000))
}

// waitStable waits until the engine has outcomes and its counts stop moving.
func waitStable(t *testing.T, addr string, out *syncBuffer) string {
	t.Helper()
	last, same := "", 0
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(3 * time.Second) {
		got, err := apiCounts(addr)
		if err != nil || strings.HasSuffix(got, "\t0") {
			continue
		}
		if got == last {
			if same++; same == 3 {
				return got
			}
		} else {
			last, same = got, 0
		}
	}
	t.Fatalf("the engine did not become idle: last counts %q\n%s", last, tail(out.String(), 3000))
	return ""
}

// assertTrimmed checks, on the snapshots a graceful stop wrote, that every
// partition of rs.documents holding records was trimmed to its last record:
// the situation in which offsets used to be lost.
func assertTrimmed(t *testing.T, dir string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "kafka", "partitions", "rs.documents-*", "snapshot.json"))
	if len(paths) == 0 {
		t.Fatal("no rs.documents snapshots after a graceful stop")
	}
	trimmed := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var snap struct {
			HWM      int64 `json:"high_watermark"`
			LogStart int64 `json:"log_start_offset"`
		}
		if err := json.Unmarshal(b, &snap); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if snap.HWM > 1 && snap.LogStart != snap.HWM-1 {
			t.Errorf("%s: log starts at %d of %d: consumed records were not trimmed", p, snap.LogStart, snap.HWM)
		}
		if snap.HWM > 1 {
			trimmed++
		}
	}
	if trimmed == 0 {
		t.Fatal("no rs.documents partition held more than one record: the test does not exercise trimming")
	}
}

// hashTree lists every file under dir with its mode and content hash.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/ %v\n", rel, info.Mode())
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			fmt.Fprintf(&b, "%s -> %s\n", rel, target)
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s %v %s\n", rel, info.Mode(), hex.EncodeToString(sum[:8]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func diffTrees(before, after string) string {
	in := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		in[l] = true
	}
	var b strings.Builder
	for _, l := range strings.Split(after, "\n") {
		if !in[l] {
			fmt.Fprintf(&b, "  changed or new: %s\n", l)
		}
	}
	return b.String()
}
