package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// evalRun is one run of the binary that may fail.
type evalRun struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runGated runs the robustream binary in dir (the test's working
// directory when ""), killing it after limit.
func runGated(t *testing.T, dir string, limit time.Duration, args ...string) evalRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := evalRun{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("robustream %s: still running after %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), limit, tail(r.stdout, 2000), tail(r.stderr, 3000))
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return r
}

// junitDoc is the JUnit XML as a CI system reads it.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Out string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d junitDoc
	if err := xml.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s is not XML: %v\n%s", path, err, b)
	}
	if len(d.Suites) != 1 {
		t.Fatalf("%s: %d suites", path, len(d.Suites))
	}
	return d
}

// TestEvalNeedsSource: eval --once without --source is a usage error (it
// used to run the demo feed into ./data), in --dry-run too, and nothing is
// created.
func TestEvalNeedsSource(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	for _, args := range [][]string{{"eval", "--once", "--data-dir", data}, {"eval", "--once", "--data-dir", data, "--dry-run"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "source: eval --once needs --source") {
			t.Errorf("%v: exit %d\n%s", args, code, errb.String())
		}
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("the data dir was created: %v", err)
	}
}

// TestGateUsageErrors: an unknown metric lists the valid ones; a model a
// threshold names must be in the run; a bad share is refused.
func TestGateUsageErrors(t *testing.T) {
	corpus := writeCorpus(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fail-under", "rare.overal=0.7"}, `unknown metric "rare.overal"; valid: rare.overall, rare.query, rare.document, rare.retrieval, sure.rr, prgb.score, prgb.all_correct`},
		{[]string{"--fail-under", "gpu-x:rare.overall=0.7"}, `no model "gpu-x" in the run (models: builtin:lexical, builtin:lexical-strict)`},
		{[]string{"--max-failed", "10"}, `"10" is not a share between 0 and 1`},
		{[]string{"--baseline", filepath.Join(corpus, "missing.json")}, "--baseline: stat"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"eval", "--once", "--source", "dir:" + corpus, "--data-dir", t.TempDir()}, c.args...)
		if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", c.args, code, c.want, errb.String())
		}
	}
}

// TestGateExitCauses runs eval --once once, then gates its data again
// (a rerun on the same data dir finds nothing new and re-checks) with each
// exit cause alone: a score under --fail-under, a significant drop against
// a --baseline report; and a baseline without a drop passes. Each failure
// is named on stderr and in the JUnit XML, parsed by encoding/xml.
func TestGateExitCauses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	corpus, data, dir := writeCorpus(t), t.TempDir(), t.TempDir()
	eval := func(extra ...string) evalRun {
		t.Helper()
		return runGated(t, "", 5*time.Minute, append([]string{"eval", "--once", "--source", "dir:" + corpus, "--data-dir", data, "--http", "", "--log-level", "error"}, extra...)...)
	}
	report, junit := filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml")
	r := eval("--report", report, "--junit", junit, "--fail-under", "rare.overall=0.05")
	if r.code != 0 || !strings.Contains(r.stdout, "gate: 4 check(s), 0 failed") {
		t.Fatalf("a passing run exited %d\n%s\n%s", r.code, r.stdout, tail(r.stderr, 2000))
	}
	j := readJUnit(t, junit)
	if j.Tests != 4 || j.Failures != 0 || j.Suites[0].Cases[0].Classname != "robustream.requests" || !strings.Contains(j.Suites[0].Cases[0].Out, "request(s) failed") {
		t.Errorf("JUnit of a passing run: %+v", j)
	}
	var rep struct {
		RARE []struct {
			Model    string  `json:"model"`
			Outcomes int64   `json:"outcomes"`
			Overall  float64 `json:"overall"`
		} `json:"rare"`
	}
	b, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(b, &rep) != nil || len(rep.RARE) != 2 || rep.RARE[0].Outcomes == 0 {
		t.Fatalf("--report: %v %s", err, b)
	}
	strict := rep.RARE[1]

	// A score below its threshold, named with the figures.
	r = eval("--junit", junit, "--fail-under", "builtin:lexical-strict:rare.overall=0.999")
	want := fmt.Sprintf("model builtin:lexical-strict: rare.overall = %.3f is below 0.999", strict.Overall)
	if r.code == 0 || !strings.Contains(r.stderr, "the run failed its gate") || !strings.Contains(r.stderr, want) {
		t.Errorf("--fail-under: exit %d, stderr lacks %q:\n%s", r.code, want, tail(r.stderr, 2000))
	}
	j = readJUnit(t, junit)
	failed := 0
	for _, c := range j.Suites[0].Cases {
		if c.Failure != nil {
			failed++
			if c.Name != "builtin:lexical-strict rare.overall>=0.999" || c.Classname != "robustream.fail-under" || c.Failure.Message != want ||
				!strings.Contains(c.Failure.Text, fmt.Sprintf("rare.overall = %.3f", strict.Overall)) || !strings.Contains(c.Failure.Text, "questions (threshold 0.999)") {
				t.Errorf("failed case %+v", c)
			}
		}
	}
	if failed != 1 || j.Failures != 1 {
		t.Errorf("%d failed cases, %d counted: %+v", failed, j.Failures, j)
	}

	// A baseline whose builtin:lexical-strict held every outcome: the
	// drop is significant (and over max_drop) whatever this run scored
	// below 0.85.
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, row := range raw["rare"].([]any) {
		m := row.(map[string]any)
		if m["model"] == "builtin:lexical-strict" {
			m["pooled"].(map[string]any)["overall"] = 1.0
		}
	}
	high := filepath.Join(dir, "high.json")
	hb, _ := json.Marshal(raw)
	if err := os.WriteFile(high, hb, 0o600); err != nil {
		t.Fatal(err)
	}
	r = eval("--baseline", high)
	if r.code == 0 || !strings.Contains(r.stderr, "model builtin:lexical-strict: rare.overall fell from 1.000 to ") || strings.Contains(r.stderr, "builtin:lexical: ") {
		t.Errorf("--baseline with a drop: exit %d\n%s", r.code, tail(r.stderr, 2000))
	}
	// The run's own report as the baseline: no drop, a pass.
	if r = eval("--baseline", report, "--junit", junit); r.code != 0 {
		t.Errorf("--baseline without a drop: exit %d\n%s", r.code, tail(r.stderr, 2000))
	}
	j = readJUnit(t, junit)
	baselineCases := 0
	for _, c := range j.Suites[0].Cases {
		if c.Classname == "robustream.baseline" {
			baselineCases++
		}
	}
	if baselineCases == 0 {
		t.Errorf("no baseline case in the JUnit XML: %+v", j)
	}
}

// ragAnswering is a RAG service that answers every question with the
// refusal and no contexts.
func ragAnswering(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"answer": "no such info", "contexts": []}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestGateDeadEndpoint: a model whose endpoint is dead ends eval --once
// non-zero within 60 s, named on stderr and in the JUnit XML with the
// reason, while the other models' outcomes are the same as in a run
// without it.
func TestGateDeadEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	corpus, dir := writeCorpus(t), t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/ask"
	ln.Close()
	rag := ragAnswering(t)
	models := func(name string, withDead bool) string {
		y := fmt.Sprintf("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: rag-up, kind: rag-endpoint, url: %q, contexts_field: contexts}\n", rag+"/ask")
		if withDead {
			y += fmt.Sprintf("  - {id: rag-dead, kind: rag-endpoint, url: %q}\n", dead)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(y), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ref, broken := filepath.Join(dir, "ref"), filepath.Join(dir, "broken")
	if r := runGated(t, "", 5*time.Minute, "eval", "--once", "--source", "dir:"+corpus, "--data-dir", ref, "--models", models("ok.yaml", false), "--http", "", "--log-level", "error"); r.code != 0 {
		t.Fatalf("reference run: exit %d\n%s", r.code, tail(r.stderr, 2000))
	}
	junit := filepath.Join(dir, "junit.xml")
	r := runGated(t, "", 60*time.Second, "eval", "--once", "--source", "dir:"+corpus, "--data-dir", broken, "--models", models("dead.yaml", true),
		"--http", "", "--log-level", "error", "--junit", junit)
	t.Logf("eval --once with a dead endpoint took %s", r.took.Round(time.Millisecond))
	if r.code == 0 || !strings.Contains(r.stderr, "model rag-dead: every request failed") || !strings.Contains(r.stderr, dead) || !strings.Contains(r.stderr, "model down") {
		t.Fatalf("exit %d; stderr does not name the dead endpoint:\n%s", r.code, tail(r.stderr, 3000))
	}
	if strings.Contains(r.stderr, "model builtin:lexical:") || strings.Contains(r.stderr, "model rag-up:") || !strings.Contains(r.stdout, "open pairings 0") {
		t.Errorf("another model named, or pairings left open:\n%s\n%s", r.stdout, r.stderr)
	}
	j := readJUnit(t, junit)
	if j.Failures != 1 {
		t.Errorf("JUnit: %d failures: %+v", j.Failures, j)
	}
	// The other models: the same outcomes as without the dead one.
	outcomes := func(data string) string {
		return robustream(t, "sql", "--data-dir", data, `SELECT model_id, question_id, variant_id, metric, value FROM robustream.outcomes FINAL
 WHERE model_id != 'rag-dead' ORDER BY model_id, question_id, variant_id, metric`)
	}
	want, got := outcomes(ref), outcomes(broken)
	if want == "" || got != want {
		t.Errorf("outcomes of the working models differ with a dead model beside them: %d lines against %d", strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
	if !strings.Contains(want, "rag-up\t") || !strings.Contains(want, "builtin:lexical\t") {
		t.Errorf("the reference run lacks a model's outcomes:\n%s", tail(want, 500))
	}
}

// TestSameCorpusTwoFolders: the same files under two different folders
// give the same question ids, variants and scores; the second run gates
// against the first run's data dir as its baseline.
func TestSameCorpusTwoFolders(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	src := writeCorpus(t)
	a, b := filepath.Join(t.TempDir(), "team-a", "docs"), filepath.Join(t.TempDir(), "elsewhere", "deeper", "copy")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(src)
		for _, e := range entries {
			body, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, e.Name()), body, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	da, db := t.TempDir(), t.TempDir()
	robustream(t, "eval", "--once", "--source", "dir:"+a, "--data-dir", da, "--http", "", "--log-level", "error")
	// The second run's baseline is the first run's data dir.
	robustream(t, "eval", "--once", "--source", "dir:"+b, "--data-dir", db, "--http", "", "--log-level", "error", "--baseline", da)
	for _, q := range []string{
		"SELECT question_id, question FROM robustream.questions ORDER BY question_id",
		"SELECT variant_id, question_id, kind, query FROM robustream.variants ORDER BY variant_id",
		"SELECT model_id, question_id, variant_id, metric, value FROM robustream.outcomes FINAL ORDER BY model_id, question_id, variant_id, metric",
	} {
		x, y := robustream(t, "sql", "--data-dir", da, q), robustream(t, "sql", "--data-dir", db, q)
		if x == "" || x != y {
			t.Errorf("%s: %d rows in one folder, %d in the other, or they differ", q, strings.Count(x, "\n"), strings.Count(y, "\n"))
		}
	}
	ra := robustream(t, "report", "--format", "json", "--data-dir", da)
	rb := robustream(t, "report", "--format", "json", "--data-dir", db)
	if ra != rb || !strings.Contains(ra, `"overall"`) {
		t.Errorf("the reports differ:\n%s\n%s", tail(ra, 1500), tail(rb, 1500))
	}
}

// TestReadmeCIExample runs the robustream line of the README's CI job, as
// written there, in a folder holding what the job expects (docs/ and
// models.yaml): it passes, and writes JUnit XML that parses and the JSON
// report.
func TestReadmeCIExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const marker = "<!-- ci-gate-example:"
	i := bytes.Index(readme, []byte(marker))
	if i < 0 {
		t.Fatal("README.md has no CI gate example marker")
	}
	block := string(readme[i:])
	start := strings.Index(block, "```yaml\n")
	end := strings.Index(block[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("no yaml block after the marker")
	}
	var line string
	collecting := false
	for _, l := range strings.Split(block[start+8:start+8+end], "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "robustream eval") {
			collecting = true
		}
		if !collecting {
			continue
		}
		cont := strings.HasSuffix(l, `\`)
		line += strings.TrimSuffix(l, `\`) + " "
		if !cont {
			break
		}
	}
	args := strings.Fields(line)
	if len(args) < 3 || args[0] != "robustream" || strings.ContainsAny(line, `"'$`) {
		t.Fatalf("the README's command line %q is not one this test can run as written", line)
	}
	t.Logf("README command: %s", line)
	dir := t.TempDir()
	if err := os.Rename(writeCorpus(t), filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models.yaml"), []byte("models:\n  - {id: builtin:lexical, kind: builtin}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("ROBUSTREAM_CHDB_LIB") == "" {
		// Run from the job's folder, the binary does not find the
		// repository's .chdb by itself.
		if lib, err := filepath.Abs("../../.chdb/lib/libchdb.so"); err == nil {
			t.Setenv("ROBUSTREAM_CHDB_LIB", lib)
		}
	}
	r := runGated(t, dir, 5*time.Minute, args[1:]...)
	if r.code != 0 {
		t.Fatalf("the README's CI command exited %d\n%s\n%s", r.code, r.stdout, tail(r.stderr, 3000))
	}
	j := readJUnit(t, filepath.Join(dir, "robustness.xml"))
	if j.Tests != 2 || j.Failures != 0 || j.Suites[0].Cases[1].Classname != "robustream.fail-under" {
		t.Errorf("robustness.xml: %+v", j)
	}
	var rep struct {
		RARE []struct {
			Model string `json:"model"`
		} `json:"rare"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "robustness.json"))
	if err != nil || json.Unmarshal(b, &rep) != nil || len(rep.RARE) != 1 || rep.RARE[0].Model != "builtin:lexical" {
		t.Errorf("robustness.json: %v\n%s", err, tail(string(b), 500))
	}
}
