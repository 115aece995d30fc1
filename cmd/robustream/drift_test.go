package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/drift"
	"github.com/robustream/robustream/processors/provider/simserver"
	"github.com/robustream/robustream/sinks/alert"
	"github.com/robustream/robustream/sinks/alert/alerttest"
	"github.com/robustream/robustream/sources/demo"
)

// fakeClock is the engine's clock in the drift scenario: it stands still
// until the test moves it, so that an hour of evaluations takes seconds.
type fakeClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *fakeClock) Set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = at
}

// webhookAlert is the part of the generic webhook's payload the scenario
// reads.
type webhookAlert struct {
	AlertID   string            `json:"alert_id"`
	Series    string            `json:"series"`
	State     string            `json:"state"`
	Labels    map[string]string `json:"labels"`
	Baseline  float64           `json:"baseline"`
	Recent    float64           `json:"recent"`
	PValue    float64           `json:"p_value"`
	Summary   string            `json:"summary"`
	Dashboard string            `json:"dashboard_url"`
}

// writePeriod writes the demo world's documents of one period into dir as
// Markdown files dated by their front matter.
func writePeriod(t *testing.T, dir string, period int) {
	t.Helper()
	for i, d := range demo.Generate(7, period) {
		text := fmt.Sprintf("---\npublished_at: %s\n---\n%s\n", d.PublishedAt.Format(time.DateOnly), d.Text)
		name := filepath.Join(dir, fmt.Sprintf("p%d-%02d.md", period, i))
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// postSQL runs a read-only query through the engine's /api/sql.
func postSQL(base, query string) (string, error) {
	status, body, err := httpPost(base+"/api/sql", query)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("status %d: %s", status, body)
	}
	return body, err
}

// settle waits until both scenario models have the same number of
// outcomes, more than after, unchanged for eight seconds (the dir source
// polls every five), and returns it.
func settle(t *testing.T, base string, after int64, within time.Duration) int64 {
	t.Helper()
	var last string
	stable := 0
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(time.Second) {
		body, err := postSQL(base, "SELECT uniqExactIf(outcome_id, model_id = 'gpu-a'), uniqExactIf(outcome_id, model_id = 'gpu-b') FROM robustream.outcomes")
		if err != nil {
			continue
		}
		f := strings.Fields(body)
		if len(f) != 2 || f[0] != f[1] {
			stable, last = 0, body
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		if n <= after || body != last {
			stable, last = 0, body
			continue
		}
		if stable++; stable >= 8 {
			return n
		}
	}
	t.Fatalf("the outcomes did not settle above %d within %s (last %q)", after, within, last)
	return 0
}

// outcomeMix is the scenario models' clean accuracy per evaluation time
// and question pattern, for a failure's message.
func outcomeMix(base string) string {
	mix, err := postSQL(base, `SELECT model_id, evaluated_at, pattern, count(), round(avg(value), 3) FROM robustream.outcomes
WHERE model_id IN ('gpu-a', 'gpu-b') AND axis = 'original' GROUP BY ALL ORDER BY ALL`)
	if err != nil {
		return err.Error()
	}
	return mix
}

// alertRows are the alerts table's rows, one line each: series, state.
func alertRows(t *testing.T, base string) string {
	t.Helper()
	body, err := postSQL(base, "SELECT series, state FROM robustream.alerts FINAL WHERE rule = 'robustness_drop' ORDER BY series")
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// isRetrievalAlert says whether a notification or an alerts row is about a
// retriever's recall series (docs/methods.md, Retrieval metrics). Those
// have a cause of their own: the built-in BM25 retriever's recall falls as
// each new period adds reports much like the last ones, for every model
// alike. The scenario is about a model's change, one cause with one alert,
// so it leaves them out of its counts and logs them.
func isRetrievalAlert(b []byte) bool {
	return retrievalAlert.Match(b)
}

// retrievalAlert matches a retriever's series where each format names its
// alert (not where a summary mentions it): an alerts row's first column,
// the webhook's series, the Slack text's `series`, Alertmanager's family
// label.
var retrievalAlert = regexp.MustCompile(`^[^\t|]*\|` + drift.RetrievalFamily + `\|` + drift.RetrievalMetric + `\||"series":"[^"]*\|` +
	drift.RetrievalFamily + `\|` + drift.RetrievalMetric + `\||"text":"[^"]*` + "`" + `[^` + "`" + `"]*\|` + drift.RetrievalFamily + `\|` +
	drift.RetrievalMetric + `\||"family":"` + drift.RetrievalFamily + `"`)

// readerBodies is rec.Bodies(kind) without the retrievers' alerts.
func readerBodies(rec *alerttest.Receivers, kind string) [][]byte {
	var out [][]byte
	for _, b := range rec.Bodies(kind) {
		if !isRetrievalAlert(b) {
			out = append(out, b)
		}
	}
	return out
}

// readerAlertRows is alertRows without the retrievers' recall series, which
// it logs.
func readerAlertRows(t *testing.T, base string) string {
	t.Helper()
	var keep, retr []string
	for _, line := range strings.SplitAfter(alertRows(t, base), "\n") {
		if line == "" {
			continue
		}
		if isRetrievalAlert([]byte(line)) {
			retr = append(retr, strings.TrimSpace(line))
			continue
		}
		keep = append(keep, line)
	}
	if len(retr) > 0 {
		t.Logf("retriever alerts (a cause of their own, not counted here): %s", strings.Join(retr, "; "))
	}
	// A built-in retriever is shared by every model: one alert, whichever
	// model's series carries it.
	models := map[string][]string{}
	for _, r := range retr {
		model, rest, _ := strings.Cut(r, "|")
		models[rest] = append(models[rest], model)
	}
	for series, ms := range models {
		if len(ms) > 1 {
			t.Errorf("one retriever's recall alerted once per model (%s): %s", strings.Join(ms, ", "), series)
		}
	}
	return strings.Join(keep, "")
}

// waitNotified waits until every receiver has n notifications, and says
// whether they did within the time given.
func waitNotified(t *testing.T, rec *alerttest.Receivers, n int, within time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		done := true
		for _, kind := range []string{alert.Webhook, alert.Slack, alert.Alertmanager} {
			if len(readerBodies(rec, kind)) < n {
				done = false
			}
		}
		if done {
			return true
		}
		if time.Now().After(deadline) {
			t.Errorf("receivers got %d webhook, %d slack, %d alertmanager notifications within %s, want %d each",
				len(readerBodies(rec, alert.Webhook)), len(readerBodies(rec, alert.Slack)), len(readerBodies(rec, alert.Alertmanager)), within, n)
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// driftScenario runs the engine of this process (embedded Kafka and chDB,
// the dashboard on a free port) over a folder of documents, with two models
// on OpenAI-compatible test servers, gpu-a and gpu-b, and the three kinds
// of receivers, on a clock the test moves:
//
//   - at T (three hours ago), two periods of documents: the baseline;
//   - at T+60m gpu-a's entry in models.yaml changes (its timeout), gpu-a
//     starts refusing, and a third period arrives: exactly
//     one alert fires, for gpu-a's clean accuracy (the series its every
//     other drop follows from, named in it), and reaches the three
//     receivers; onFiring runs then, with the dashboard's address and the
//     alert;
//   - at T+120m gpu-a answers again and a fourth period arrives: the alert
//     resolves, and nothing else ever fires (not for gpu-b, evaluated over
//     the same documents, nor for gpu-a's series the refusals had lifted).
//
// The drift windows are 10 minutes against 6 hours, evaluated every second.
func driftScenario(t *testing.T, data string, onFiring func(base string, fired webhookAlert)) {
	t0 := time.Now().UTC().Truncate(5 * time.Minute).Add(-3 * time.Hour)
	fc := &fakeClock{at: t0}
	defer func(c func() time.Time) { clock = c }(clock)
	clock = fc.Now

	sims := map[string]*simserver.Server{}
	for i, id := range []string{"gpu-a", "gpu-b"} {
		sim, err := simserver.Start(simserver.Config{MaxNumSeqs: 32, PrefillPerToken: time.Microsecond, DecodePerToken: 50 * time.Microsecond,
			OutputTokens: func(*rand.Rand) int { return 8 }, Seed: uint64(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		defer sim.Close()
		sims[id] = sim
	}
	dir := t.TempDir()
	models := filepath.Join(dir, "models.yaml")
	modelsYAML := func(timeoutA string) string {
		yaml := "models:\n  - {id: builtin:lexical, kind: builtin}\n"
		for _, id := range []string{"gpu-a", "gpu-b"} {
			timeout := "5s"
			if id == "gpu-a" {
				timeout = timeoutA
			}
			yaml += fmt.Sprintf("  - {id: %s, kind: openai, base_url: %q, model: %s, timeout: %s}\n", id, sims[id].BaseURL(), simserver.DefaultModel, timeout)
		}
		return yaml
	}
	rec := alerttest.Start(t)
	config := filepath.Join(dir, "robustream.yaml")
	// Without WordNet (an empty dictionary directory), so that the
	// dashboard's coverage shows a kind skipped and why.
	cfg := fmt.Sprintf(`stages:
  perturb:
    wordnet_dir: %q
alerts:
  interval: 1s
  recent_window: 10m
  baseline_window: 6h
  min_samples: 30
  alpha: 0.01
  max_drop: 0.1
  cooldown: 30m
  receivers:
    - {name: hook, kind: webhook, url: %q}
    - {name: chat, kind: slack, url: %q}
    - {name: am, kind: alertmanager, url: %q}
`, t.TempDir(), rec.URL(alert.Webhook), rec.URL(alert.Slack), rec.URL(alert.Alertmanager))
	for p, text := range map[string]string{models: modelsYAML("5s"), config: cfg} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	corpus := filepath.Join(dir, "corpus")
	if err := os.Mkdir(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	writePeriod(t, corpus, 0)
	writePeriod(t, corpus, 1)

	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	base := "http://" + addr
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- cmdRun(ctx, []string{"--data-dir", data, "--http", addr, "--source", "dir:" + corpus, "--models", models,
			"--config", config, "--log-level", "error"}, &out)
	}()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the engine ended with %v\n%s", err, tail(out.String(), 2000))
			}
		case <-time.After(time.Minute):
			t.Error("the engine did not stop within a minute")
		}
	}()
	waitListening(t, addr, time.Minute)

	// The baseline.
	n := settle(t, base, 0, 3*time.Minute)
	t.Logf("T: %d outcomes per model", n)
	if rows := readerAlertRows(t, base); rows != "" {
		t.Fatalf("alerts before any change:\n%s", rows)
	}

	// gpu-a's entry in models.yaml changes, and gpu-a starts refusing.
	fc.Set(t0.Add(60 * time.Minute))
	if err := os.WriteFile(models, []byte(modelsYAML("6s")), 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if n, _ := postSQL(base, "SELECT uniqExact(revision) FROM robustream.model_revisions WHERE model_id = 'gpu-a'"); strings.TrimSpace(n) == "2" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the engine did not record gpu-a's new revision of models.yaml within 30s")
		}
	}
	// phase sets gpu-a's faults, feeds a period of documents, waits for its
	// outcomes and for the receivers' notifications, then for three more
	// evaluations, which must change nothing.
	phase := func(name string, f simserver.Faults, period, notifications int) {
		t.Helper()
		if err := sims["gpu-a"].SetFaults(f); err != nil {
			t.Fatal(err)
		}
		writePeriod(t, corpus, period)
		n = settle(t, base, n, 3*time.Minute)
		t.Logf("%s: %d outcomes per model", name, n)
		if !waitNotified(t, rec, notifications, 30*time.Second) {
			t.Fatalf("%s: no notification %d\n%s", name, notifications, outcomeMix(base))
		}
		time.Sleep(3 * time.Second)
	}
	phase("T+60m", simserver.Faults{Refusal: 1}, 2, 1)
	const series = "gpu-a|rare|f|original/original|*"
	if rows, want := readerAlertRows(t, base), series+"\tfiring\n"; rows != want {
		detail, _ := postSQL(base, "SELECT series, state, baseline, recent, p_value FROM robustream.alerts FINAL ORDER BY series")
		detail += "\n" + outcomeMix(base)
		t.Fatalf("alerts while gpu-a refuses:\n%s\nwant\n%s\n%s", rows, want, detail)
	}
	fired := checkFormats(t, rec, 1, series, drift.Firing)
	t.Logf("fired: %s", fired.Summary)
	if fired.Recent > 0.05 || fired.Baseline < 0.3 || fired.PValue > 1e-6 {
		t.Errorf("fired with baseline %.3f, recent %.3f, p %.3g", fired.Baseline, fired.Recent, fired.PValue)
	}
	for _, want := range []string{"it explains", "gpu-a|rare|f|query/char|*", "a new period of documents", "the entry of gpu-a in models.yaml changed at"} {
		if !strings.Contains(fired.Summary, want) {
			t.Errorf("the summary does not say %q: %s", want, fired.Summary)
		}
	}
	if strings.Contains(fired.Summary, "gpu-b") {
		t.Errorf("the summary names gpu-b: %s", fired.Summary)
	}
	if fired.Dashboard != base+"/" {
		t.Errorf("dashboard link %q, want %q", fired.Dashboard, base+"/")
	}
	if onFiring != nil {
		onFiring(base, fired)
	}

	// gpu-a recovers.
	fc.Set(t0.Add(120 * time.Minute))
	phase("T+120m", simserver.Faults{}, 3, 2)
	if rows, want := readerAlertRows(t, base), series+"\tresolved\n"; rows != want {
		t.Fatalf("alerts after the recovery:\n%s\nwant\n%s\n%s", rows, want, outcomeMix(base))
	}
	resolved := checkFormats(t, rec, 2, series, drift.Resolved)
	if resolved.AlertID != fired.AlertID {
		t.Errorf("resolution of alert %s, fired %s", resolved.AlertID, fired.AlertID)
	}
	t.Logf("resolved: %s", resolved.Summary)
}

// checkFormats checks that the webhook and Slack receivers got exactly n
// notifications and Alertmanager at least n (it also gets the firing
// alert's refreshes), the last about series in state, each in its own
// format, and returns the webhook's.
func checkFormats(t *testing.T, rec *alerttest.Receivers, n int, series, state string) webhookAlert {
	t.Helper()
	for _, kind := range []string{alert.Webhook, alert.Slack, alert.Alertmanager} {
		if got := len(readerBodies(rec, kind)); got != n && !(kind == alert.Alertmanager && got > n) {
			t.Errorf("%s receiver: %d notifications, want %d", kind, got, n)
		}
	}
	hook := readerBodies(rec, alert.Webhook)
	var w webhookAlert
	if err := json.Unmarshal(hook[len(hook)-1], &w); err != nil {
		t.Fatalf("webhook payload %s: %v", hook[len(hook)-1], err)
	}
	if w.Series != series || w.State != state || w.AlertID == "" || w.Labels["model_id"] != "gpu-a" {
		t.Errorf("webhook payload %s", hook[len(hook)-1])
	}
	slack := readerBodies(rec, alert.Slack)
	var s struct {
		Text   string `json:"text"`
		Blocks []any  `json:"blocks"`
	}
	if err := json.Unmarshal(slack[len(slack)-1], &s); err != nil || !strings.Contains(s.Text, "gpu-a") || len(s.Blocks) == 0 {
		t.Errorf("slack payload %s (%v)", slack[len(slack)-1], err)
	}
	am := readerBodies(rec, alert.Alertmanager)
	var as []struct {
		Labels   map[string]string `json:"labels"`
		StartsAt time.Time         `json:"startsAt"`
		EndsAt   *time.Time        `json:"endsAt"`
	}
	// A firing alert ends four minutes after it was sent unless refreshed;
	// a resolution ends when it resolved.
	if err := json.Unmarshal(am[len(am)-1], &as); err != nil || len(as) != 1 || as[0].Labels["model_id"] != "gpu-a" ||
		as[0].Labels["axis"] != "original" || as[0].EndsAt == nil || !as[0].EndsAt.After(as[0].StartsAt) {
		t.Errorf("alertmanager payload %s (%v)", am[len(am)-1], err)
	}
	return w
}

// TestDriftScenario: see driftScenario; the dashboard is checked while the
// alert fires (checkDashboardPage, in Chromium when installed).
func TestDriftScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline for minutes")
	}
	data := t.TempDir()
	robustream(t, "migrate", "--data-dir", data)
	seedDashboard(t, data, time.Now())
	driftScenario(t, data, func(base string, fired webhookAlert) {
		t.Run("dashboard", func(t *testing.T) { checkDashboardPage(t, base, fired.AlertID) })
	})
}
