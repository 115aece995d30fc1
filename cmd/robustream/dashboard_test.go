package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// TestDashboardShowsBaselineScores is the `make run` acceptance check: the
// engine started with its defaults (embedded broker and chDB, demo feed,
// built-in models) serves a dashboard that shows robustness scores for the
// built-in reader within two minutes, in a real browser, while the other
// HTTP endpoints and `robustream sql` against the held data dir work.
func TestDashboardShowsBaselineScores(t *testing.T) {
	data := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	base := "http://" + addr
	started := time.Now()
	engine := startBackground(t, "run", "--data-dir", data, "--http", addr, "--demo-periods", "1")
	engine.waitListening(t, addr, time.Minute)

	// Scores appear within two minutes of the start.
	var scores scoresResponse
	for {
		status, body, err := httpGet(base + "/api/scores")
		if err == nil && status == http.StatusOK {
			scores = scoresResponse{}
			if err := json.Unmarshal([]byte(body), &scores); err != nil {
				t.Fatalf("/api/scores is not JSON: %v\n%s", err, body)
			}
			if hasModel(scores, "builtin:lexical") {
				break
			}
		}
		if engine.exited() {
			t.Fatalf("robustream run exited (%v):\n%s", engine.err, tail(engine.output(), 4000))
		}
		if time.Since(started) > 2*time.Minute {
			t.Fatalf("no scores for builtin:lexical after %s (last: status %d, err %v, body %.300s)\nengine output:\n%s",
				time.Since(started).Round(time.Second), status, err, body, tail(engine.output(), 4000))
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("scores for builtin:lexical after %s", time.Since(started).Round(time.Millisecond))

	// Probes and metrics.
	for _, path := range []string{"/healthz", "/readyz"} {
		if status, body, err := httpGet(base + path); err != nil || status != http.StatusOK {
			t.Errorf("GET %s: status %d, err %v, body %q", path, status, err, body)
		}
	}
	if status, body, err := httpGet(base + "/metrics"); err != nil || status != http.StatusOK ||
		!strings.Contains(body, "robustream_stage_messages_in_total") ||
		!strings.Contains(body, `robustream_perturbations_skipped_total{kind="wordnet"}`) ||
		!strings.Contains(body, `robustream_questions_rejected_total{reason="subject_named"}`) {
		t.Errorf("GET /metrics: status %d, err %v; stage, perturbation-coverage or question-rejection series missing:\n%.2000s", status, err, body)
	}

	// `sql` on the data dir the engine holds (chDB locks it) goes through
	// the engine's HTTP API.
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes", "--data-dir", data); n <= 0 {
		t.Errorf("outcomes through the running engine = %d, want > 0", n)
	}

	// /api/sql answers a read-only statement and refuses anything else.
	if status, body, err := httpPost(base+"/api/sql", "SELECT 1"); err != nil || status != http.StatusOK || strings.TrimSpace(body) != "1" {
		t.Errorf("POST /api/sql SELECT 1: status %d, err %v, body %q", status, err, body)
	}
	for _, q := range []string{
		"DROP DATABASE robustream",
		"INSERT INTO robustream.alerts (alert_id) VALUES ('x')",
		"SELECT 1; DROP DATABASE robustream",
		"TRUNCATE TABLE robustream.outcomes",
	} {
		// 403 with the reason for a statement the read-only path refuses;
		// 400 with the engine's message for one it cannot parse (two
		// statements).
		status, body, err := httpPost(base+"/api/sql", q)
		if err != nil || (status != http.StatusForbidden && status != http.StatusBadRequest) || strings.TrimSpace(body) == "" {
			t.Errorf("POST /api/sql %q: status %d, err %v, body %q; want 403 or 400 with the reason", q, status, err, body)
		}
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.outcomes", "--data-dir", data); n <= 0 {
		t.Errorf("outcomes after the refused statements = %d, want > 0", n)
	}

	t.Run("browser", func(t *testing.T) {
		chromium := findChromium()
		if chromium == "" {
			t.Skip("chromium not found (/usr/bin/chromium or chromium on PATH): the browser check needs it " +
				"(apt-get install chromium chromium-driver; CI installs them)")
		}
		// The rendered DOM, after the page's script fetched /api/scores. A
		// fetch can lose a race with a busy engine, so look again until
		// the row shows up.
		deadline := time.Now().Add(90 * time.Second)
		for attempt := 1; ; attempt++ {
			dom, stderr, err := runChromium(t, chromium, "--dump-dom", "--virtual-time-budget=10000", base+"/")
			problem := ""
			if err != nil {
				problem = "chromium: " + err.Error()
			} else {
				problem = checkScoreRow(dom, "builtin:lexical")
			}
			if problem == "" {
				t.Logf("dashboard row for builtin:lexical rendered (attempt %d)", attempt)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("dashboard after %d attempts: %s\nDOM:\n%.4000s\nchromium stderr:\n%s",
					attempt, problem, dom, tail(stderr, 2000))
			}
			time.Sleep(time.Second)
		}

		// A screenshot of the same page.
		dir := os.Getenv("ROBUSTREAM_TEST_SCREENSHOT_DIR")
		if dir == "" {
			dir = t.TempDir()
		} else if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		shot := filepath.Join(dir, "dashboard.png")
		os.Remove(shot)
		if _, stderr, err := runChromium(t, chromium, "--screenshot="+shot, "--window-size=1200,800",
			"--virtual-time-budget=10000", base+"/"); err != nil {
			t.Fatalf("chromium --screenshot: %v\n%s", err, tail(stderr, 2000))
		}
		b, err := os.ReadFile(shot)
		if err != nil {
			t.Fatalf("no screenshot: %v", err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("screenshot %s is not a PNG: %v", shot, err)
		}
		if cfg.Width != 1200 || cfg.Height != 800 {
			t.Errorf("screenshot is %dx%d, want 1200x800", cfg.Width, cfg.Height)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("screenshot %s does not decode: %v", shot, err)
		}
		t.Logf("dashboard screenshot: %s (%d bytes; set ROBUSTREAM_TEST_SCREENSHOT_DIR to keep it)", shot, len(b))
	})
}

// TestDashboardRAREIntervals is issue 16's and 17's dashboard acceptance
// for RARE: on the data dir of a demo `eval --once` (BM25 retrieval
// variants, questions of one and two hops), served by `run --source
// none`, headless Chromium shows for each model the four RARE scores with
// their 95% intervals (the API's, to three decimals) drawn as bars, a row
// per retriever (bm25_top3) with its retrieval score and interval, and
// GRADE's heatmap with at least two hop rows. A screenshot at 1200 px
// width goes to ROBUSTREAM_TEST_SCREENSHOT_DIR (default a temporary dir);
// the score table must fit that width (it was cut off at its right edge).
func TestDashboardRAREIntervals(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("chromium not found (/usr/bin/chromium or chromium on PATH)")
	}
	data := t.TempDir()
	// The whole demo feed: its two-hop questions fill GRADE's second row.
	robustream(t, "eval", "--once", "--source", "demo", "--data-dir", data, "--http", "", "--log-level", "error")
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	base := "http://" + addr
	engine := startBackground(t, "run", "--source", "none", "--data-dir", data, "--http", addr, "--log-level", "warn")
	engine.waitListening(t, addr, time.Minute)

	status, body, err := httpGet(base + "/api/scores")
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET /api/scores: status %d, err %v, body %.300s", status, err, body)
	}
	var scores scoresResponse
	if err := json.Unmarshal([]byte(body), &scores); err != nil {
		t.Fatal(err)
	}
	if len(scores.Models) == 0 {
		t.Fatalf("/api/scores has no model: %s", body)
	}
	var grade struct {
		Rows []struct {
			Model string
			Hops  int
		}
	}
	if status, body, err := httpGet(base + "/api/grade?window=all"); err != nil || status != http.StatusOK || json.Unmarshal([]byte(body), &grade) != nil {
		t.Fatalf("GET /api/grade: status %d, err %v, body %.300s", status, err, body)
	}
	hops := map[int]bool{}
	for _, r := range grade.Rows {
		hops[r.Hops] = true
	}
	if len(hops) < 2 {
		t.Errorf("GRADE cells have hops %v, want at least two hop rows", hops)
	}

	dom, stderr, err := runChromium(t, chromium, "--dump-dom", "--window-size=1200,1000", "--virtual-time-budget=10000", base+"/")
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(stderr, 2000))
	}
	for _, m := range scores.Models {
		if p := checkRAREScores(dom, m); p != "" {
			t.Errorf("%s\nDOM:\n%.3000s", p, dom)
		}
	}
	// The heatmap: a row label per hop count, a cell per hop and quartile
	// with data, each cell's interval under its rate.
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		t.Fatal(err)
	}
	box := find(doc, func(n *html.Node) bool { return attr(n, "id") == "grade-chart" })
	if box == nil {
		t.Fatal("no #grade-chart")
	}
	if got, want := attr(box, "data-marks"), strconv.Itoa(len(grade.Rows)); got != want {
		t.Errorf("GRADE heatmap has %s cells, the API %s", got, want)
	}
	labels := map[string]bool{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "text" {
			labels[strings.TrimSpace(text(n))] = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(box)
	for h := range hops {
		label := strconv.Itoa(h) + " hops"
		if h == 1 {
			label = "1 hop"
		}
		if !labels[label] {
			t.Errorf("GRADE heatmap has no row %q", label)
		}
	}

	// Nothing of the score table lies beyond its panel or the page at
	// 1200 px: the page, laid out at that width, reports the edges.
	b := startBrowser(t, chromium, base+"/")
	b.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 1400, "deviceScaleFactor": 1, "mobile": false})
	b.waitFor(t, `document.body.dataset.loaded === "true" && !!document.querySelector('#scores tr.retr td.retrieval .cibar')`)
	edges, _ := b.eval(t, `(() => { const t = document.getElementById("scores"), s = t.closest("section");
		return [t.getBoundingClientRect().right, s.getBoundingClientRect().right, document.documentElement.scrollWidth, window.innerWidth]; })()`).([]any)
	if len(edges) != 4 {
		t.Fatalf("edges: %v", edges)
	}
	table, section, page, viewport := edges[0].(float64), edges[1].(float64), edges[2].(float64), edges[3].(float64)
	if viewport != 1200 || table > section || page > viewport {
		t.Errorf("at %v px: score table ends at %v, its panel at %v, the page is %v wide; want the table inside its panel and no page wider than the window",
			viewport, table, section, page)
	}
	// No other table runs out of its panel either (into the next one);
	// tables in a scrolling box scroll instead.
	over := b.eval(t, `[...document.querySelectorAll("main table")].filter(t => !t.closest(".scroll") &&
		t.getBoundingClientRect().right > t.closest("section").getBoundingClientRect().right + 0.5).map(t => t.id)`)
	if l, ok := over.([]any); !ok || len(l) > 0 {
		t.Errorf("at 1200 px these tables run out of their panels: %v", over)
	}
	dir := os.Getenv("ROBUSTREAM_TEST_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "dashboard-rare.png")
	img := b.screenshot(t)
	if cfg, err := png.DecodeConfig(bytes.NewReader(img)); err != nil || cfg.Width != 1200 {
		t.Errorf("screenshot: %v, %+v; want a PNG 1200 px wide", err, cfg)
	}
	if err := os.WriteFile(shot, img, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("dashboard screenshot: %s", shot)
}

func hasModel(s scoresResponse, model string) bool {
	for _, m := range s.Models {
		if m.Model == model {
			return true
		}
	}
	return false
}

func httpGet(url string) (int, string, error) {
	return httpDo(http.MethodGet, url, "")
}

func httpPost(url, body string) (int, string, error) {
	return httpDo(http.MethodPost, url, body)
}

func httpDo(method, url, body string) (int, string, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func findChromium() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runChromium runs headless Chromium once, root-safe, with a profile of its
// own, and returns its stdout and stderr. Chromium runs in a process group
// of its own, killed afterwards so that no helper outlives the call.
func runChromium(t *testing.T, chromium string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(),
	}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftover helpers, if any
	}
	return stdout.String(), stderr.String(), err
}

// checkScoreRow looks in the rendered DOM for the score table's row of
// model and returns what is wrong with it, or "" when it has the baseline
// tag and an overall score in [0, 1].
func checkScoreRow(dom, model string) string {
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		return "cannot parse the DOM: " + err.Error()
	}
	table := find(doc, func(n *html.Node) bool { return n.Data == "table" && attr(n, "id") == "scores" })
	if table == nil {
		return "no table#scores"
	}
	row := find(table, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-model") == model })
	if row == nil {
		return "no row with data-model=" + strconv.Quote(model) + " in #scores"
	}
	tag := find(row, func(n *html.Node) bool { return n.Data == "span" && hasClass(n, "tag") })
	if tag == nil || strings.TrimSpace(text(tag)) != "baseline" {
		return "the row of " + model + " has no baseline tag"
	}
	cell := find(row, func(n *html.Node) bool { return n.Data == "td" && hasClass(n, "overall") })
	if cell == nil {
		return "the row of " + model + " has no td.overall"
	}
	if _, problem := scoreCell(cell); problem != "" {
		return "the overall score of " + model + ": " + problem
	}
	return ""
}

// checkRAREScores looks in the rendered DOM for RARE's four scores of
// model, each with its interval as the API gives it (overall_ci, …; the
// page rounds to three decimals), and one row per retriever of the API
// with its retrieval score. It returns what is wrong, or "".
func checkRAREScores(dom string, m scoreRow) string {
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		return "cannot parse the DOM: " + err.Error()
	}
	table := find(doc, func(n *html.Node) bool { return n.Data == "table" && attr(n, "id") == "scores" })
	if table == nil {
		return "no table#scores"
	}
	row := find(table, func(n *html.Node) bool {
		return n.Data == "tr" && attr(n, "data-model") == m.Model && !hasClass(n, "retr")
	})
	if row == nil {
		return "no row of " + m.Model + " in #scores"
	}
	check := func(where *html.Node, class string, v *float64, ci *[2]float64) string {
		cell := find(where, func(n *html.Node) bool { return n.Data == "td" && hasClass(n, class) })
		if cell == nil {
			return "no td." + class
		}
		got, problem := scoreCell(cell)
		if problem != "" {
			return class + ": " + problem
		}
		if v == nil || !shows(got.value, *v) {
			return fmt.Sprintf("%s shows %s, the API says %v", class, got.value, v)
		}
		if ci == nil {
			return class + ": the API gives no interval (want one: the model has many questions)"
		}
		lo, hi, ok := strings.Cut(got.ci, "–")
		if !ok || !shows(lo, ci[0]) || !shows(hi, ci[1]) || ci[0] > *v || *v > ci[1] {
			return fmt.Sprintf("%s's interval shows %q, the API's is %v around %v", class, got.ci, *ci, *v)
		}
		if !got.bar {
			return class + ": no interval drawn (svg.cibar with a .ci-range line)"
		}
		return ""
	}
	for _, c := range []struct {
		class string
		v     *float64
		ci    *[2]float64
	}{{"overall", m.Overall, m.OverallCI}, {"query", m.Query, m.QueryCI}, {"document", m.Document, m.DocumentCI}, {"retrieval", m.Retrieval, m.RetrievalCI}} {
		if p := check(row, c.class, c.v, c.ci); p != "" {
			return m.Model + ": " + p
		}
	}
	if len(m.Retrievers) == 0 {
		return m.Model + ": the API gives no retriever"
	}
	for _, r := range m.Retrievers {
		rr := find(table, func(n *html.Node) bool {
			return n.Data == "tr" && hasClass(n, "retr") && attr(n, "data-model") == m.Model && attr(n, "data-retriever") == r.Retriever
		})
		if rr == nil {
			return m.Model + ": no row for retriever " + r.Retriever
		}
		if !strings.Contains(text(rr), r.Retriever) {
			return m.Model + ": the row of " + r.Retriever + " does not name it"
		}
		if p := check(rr, "retrieval", r.Retrieval, r.RetrievalCI); p != "" {
			return m.Model + " " + r.Retriever + ": " + p
		}
	}
	return ""
}

// shows says whether s is v to three decimals (the page rounds half up,
// Go's formatting to even: compare the numbers).
func shows(s string, v float64) bool {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil && len(s) == len("0.000") && math.Abs(f-v) <= 0.0005+1e-9
}

// shownScore is what a score cell of #scores shows.
type shownScore struct {
	value, ci string
	bar       bool
}

// scoreCell reads a score cell: its value (the link), its interval text
// and whether the interval is drawn; problem says what is wrong.
func scoreCell(cell *html.Node) (shownScore, string) {
	var s shownScore
	a := find(cell, func(n *html.Node) bool { return n.Data == "a" })
	if a == nil {
		return s, "no link to the model's kinds"
	}
	s.value = strings.TrimSpace(text(a))
	v, err := strconv.ParseFloat(s.value, 64)
	if err != nil || !(v >= 0 && v <= 1) { // NaN fails too
		return s, strconv.Quote(s.value) + ", want a number in [0, 1]"
	}
	if ci := find(cell, func(n *html.Node) bool { return n.Data == "span" && hasClass(n, "ci") }); ci != nil {
		s.ci = strings.TrimSpace(text(ci))
	}
	if bar := find(cell, func(n *html.Node) bool { return n.Data == "svg" && hasClass(n, "cibar") }); bar != nil {
		s.bar = find(bar, func(n *html.Node) bool { return n.Data == "line" && hasClass(n, "ci-range") }) != nil
	}
	return s, ""
}

// find returns the first element under n (n included, depth first) that
// matches.
func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if m := find(c, match); m != nil {
			return m
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

func text(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(text(c))
	}
	return b.String()
}
