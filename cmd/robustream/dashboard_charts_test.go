package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// dashModels are the models of the seeded history: the two built-in readers
// the eval run scores, and one more.
var dashModels = []string{"builtin:lexical", "builtin:lexical-strict", "qwen2.5-7b"}

// dashCharts are the data-chart boxes of the dashboard that must hold marks.
var dashCharts = []string{"series-rare", "series-grade", "series-prgb", "kinds", "grade", "sure", "prgb", "throughput"}

// seedDashboard adds, to the data dir an eval run filled, a history of
// outcomes of every family for dashModels over the last ten days (the
// pipeline makes RARE outcomes; SURE, GRADE and PRGB rows are written as
// their families would write them).
func seedDashboard(t *testing.T, data string, now time.Time) {
	t.Helper()
	rng := rand.New(rand.NewSource(7))
	var vals []string
	add := func(family, metric, model, question, axis, kind string, hops int, dr float64, known, golden int, value float64, at time.Time) {
		id := fmt.Sprintf("dash-%05d", len(vals))
		u := at.Unix()
		vals = append(vals, fmt.Sprintf("('%s','%s','%s','%s','%s','v-%s','%s','%s','single',%d,%g,'finance',%d,%d,%g,toDateTime(%d),toDateTime(%d),toDateTime(%d))",
			id, family, metric, model, question, id, axis, kind, hops, dr, known, golden, value, u-86400, u, u))
	}
	bernoulli := func(p float64) float64 {
		if rng.Float64() < p {
			return 1
		}
		return 0
	}
	kinds := [][2]string{{"original", "original"}, {"query", "char"}, {"query", "qwerty"}, {"query", "wordnet"}, {"document", "answer_removed"}}
	// Every 30 minutes over the last day, every 6 hours before that.
	var times []time.Time
	for a := 10 * time.Minute; a < 24*time.Hour; a += 30 * time.Minute {
		times = append(times, now.Add(-a))
	}
	for a := 24 * time.Hour; a < 10*24*time.Hour; a += 6 * time.Hour {
		times = append(times, now.Add(-a))
	}
	for mi, m := range dashModels {
		skill := 0.55 + 0.15*float64(mi)
		for ti, at := range times {
			drift := 0.05 * float64(ti%7) / 7
			for ki, k := range kinds {
				p := skill - drift - 0.08*float64(ki)
				if k[0] == "original" {
					p = skill + 0.2
				}
				add("rare", "f", m, fmt.Sprintf("q%d", ti), k[0], k[1], 1, 0, 1, 1, bernoulli(p), at)
			}
			add("grade", "correct", m, fmt.Sprintf("g%d", ti), "retrieval", "bm25_top3", 1+ti%3, rng.Float64(), 0, 1, bernoulli(skill-0.1*float64(ti%3)), at)
			for v := 0; v < 3; v++ {
				add("prgb", []string{"filtering", "combination", "reasoning"}[ti%3], m, fmt.Sprintf("p%d", ti), "placeholder", "entity", 1, 0, 0, 1, bernoulli(skill), at)
			}
			if ti%4 == 0 {
				for _, k := range kinds[1:] {
					c := 0.0
					switch r := rng.Float64(); {
					case r < 0.12:
						c = -1
					case r < 0.12+0.25*(1-skill):
						c = 1
					}
					add("sure", "c", m, fmt.Sprintf("s%d", ti), k[0], k[1], 1, 0, ti%2, 1, c, at)
				}
			}
		}
	}
	// In slices: one command-line argument holds at most 128 KiB.
	for len(vals) > 0 {
		n := min(len(vals), 400)
		robustream(t, "sql", "--data-dir", data, `INSERT INTO robustream.outcomes
 (outcome_id, family, metric, model_id, question_id, variant_id, axis, kind, pattern, hops, d_r, domain, known, golden, value, published_at, evaluated_at, produced_at)
 VALUES `+strings.Join(vals[:n], ","))
		vals = vals[n:]
	}
}

// checkDashboardPage checks the dashboard of the engine at base, whose data
// dir holds outcomes of every family (seedDashboard), which runs without
// WordNet and whose drift evaluator fired alert alertID: every JSON endpoint answers with rows, and
// in headless Chromium at 1366×768 every chart has data points and the
// alert list shows the alert firing. Screenshots go to
// ROBUSTREAM_TEST_SCREENSHOT_DIR (default a temporary dir) and to
// /tmp/dashboard-shots.
func checkDashboardPage(t *testing.T, base, alertID string) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("chromium not found (/usr/bin/chromium or chromium on PATH)")
	}
	// Every endpoint answers JSON with rows.
	for _, path := range []string{"/api/series?window=24h", "/api/series?window=1h", "/api/series?window=7d", "/api/series?window=all",
		"/api/kinds?window=24h", "/api/grade", "/api/sure", "/api/prgb", "/api/alerts", "/api/coverage", "/api/health",
		"/api/grade?window=7d", "/api/sure?window=7d", "/api/prgb?window=7d",
		"/api/grade?window=all", "/api/sure?window=all", "/api/prgb?window=all"} {
		key := "rows"
		switch {
		case strings.HasPrefix(path, "/api/coverage"):
			key = "kinds"
		case strings.HasPrefix(path, "/api/health"):
			key = "stages" // the stages report once they start
		}
		// The engine may still be starting: look again for a minute.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
			status, body, err := httpGet(base + path)
			var resp map[string]json.RawMessage
			var rows []json.RawMessage
			if err == nil && status == http.StatusOK && json.Unmarshal([]byte(body), &resp) == nil &&
				json.Unmarshal(resp[key], &rows) == nil && len(rows) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: status %d, err %v, no %s in %.500s", path, status, err, key, body)
			}
		}
	}
	// Coverage: every skip is counted by its reason; the engine runs
	// without WordNet, so its kind is never made.
	if status, body, err := httpGet(base + "/api/coverage"); err != nil || status != http.StatusOK {
		t.Errorf("GET /api/coverage: status %d, err %v", status, err)
	} else {
		var cov struct{ Kinds []coverageKind }
		sawWordNet := false
		if err := json.Unmarshal([]byte(body), &cov); err != nil {
			t.Fatal(err)
		}
		for _, k := range cov.Kinds {
			var n int64
			for _, c := range k.Reasons {
				n += c
			}
			if n != k.Skipped || (k.Skipped > 0) != (k.Reason != "") {
				t.Errorf("coverage of %s: %d skipped, reasons %v (%d), %q", k.Kind, k.Skipped, k.Reasons, n, k.Reason)
			}
			if k.Skipped > 0 {
				t.Logf("coverage: %s: %s", k.Kind, k.Reason)
			}
			if k.Kind == "wordnet" {
				sawWordNet = true
				if k.Variants != 0 || k.Skipped == 0 || k.Reasons["perturbation kind unavailable: the WordNet dictionary is missing"] != k.Skipped {
					t.Errorf("coverage of wordnet without a dictionary: %+v", k)
				}
			}
		}
		if !sawWordNet {
			t.Errorf("the coverage does not list wordnet:\n%s", body)
		}
	}
	if status, _, _ := httpGet(base + "/api/series?window=1y"); status != http.StatusBadRequest {
		t.Errorf("GET /api/series?window=1y: status %d, want 400", status)
	}

	dir := os.Getenv("ROBUSTREAM_TEST_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	// The rendered DOM, once the page's script has loaded every panel.
	deadline := time.Now().Add(90 * time.Second)
	for attempt := 1; ; attempt++ {
		dom, stderr, err := runChromium(t, chromium, "--window-size=1366,768", "--dump-dom", "--virtual-time-budget=15000", base+"/")
		problem := ""
		if err != nil {
			problem = "chromium: " + err.Error()
		} else {
			problem = checkDashboard(dom, alertID)
		}
		if problem == "" {
			t.Logf("every chart has data, the alerts show (attempt %d)", attempt)
			break
		}
		if time.Now().After(deadline) {
			os.WriteFile(filepath.Join(dir, "dashboard-dom.html"), []byte(dom), 0o644)
			t.Fatalf("dashboard after %d attempts: %s\nchromium stderr:\n%s", attempt, problem, tail(stderr, 2000))
		}
		time.Sleep(time.Second)
	}

	// Screenshots: the laptop viewport, and the whole page.
	shots := map[string]string{"dashboard-1366x768.png": "1366,768", "dashboard-full.png": "1366,2300"}
	os.MkdirAll("/tmp/dashboard-shots", 0o755)
	for name, size := range shots {
		shot := filepath.Join(dir, name)
		os.Remove(shot)
		if _, stderr, err := runChromium(t, chromium, "--screenshot="+shot, "--window-size="+size, "--hide-scrollbars",
			"--virtual-time-budget=15000", base+"/"); err != nil {
			t.Fatalf("chromium --screenshot: %v\n%s", err, tail(stderr, 2000))
		}
		b, err := os.ReadFile(shot)
		if err != nil || len(b) < 10000 {
			t.Fatalf("screenshot %s: %d bytes, %v", shot, len(b), err)
		}
		os.WriteFile(filepath.Join("/tmp/dashboard-shots", name), b, 0o644)
		t.Logf("screenshot %s (%d bytes), copied to /tmp/dashboard-shots", shot, len(b))
	}
}

// checkDashboard returns what is missing from the rendered dashboard, or "".
func checkDashboard(dom, alertID string) string {
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		return "cannot parse the DOM: " + err.Error()
	}
	if body := find(doc, func(n *html.Node) bool { return n.Data == "body" }); body == nil || attr(body, "data-loaded") != "true" {
		return "the page script has not finished loading"
	}
	var problems []string
	for _, c := range dashCharts {
		box := find(doc, func(n *html.Node) bool { return attr(n, "data-chart") == c })
		if box == nil {
			problems = append(problems, "no chart "+c)
			continue
		}
		marks, _ := strconv.Atoi(attr(box, "data-marks"))
		drawn := 0
		var count func(*html.Node)
		count = func(n *html.Node) {
			if n.Type == html.ElementNode && hasClass(n, "mark") {
				drawn++
			}
			for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
				count(ch)
			}
		}
		count(box)
		if marks == 0 || drawn != marks {
			problems = append(problems, fmt.Sprintf("chart %s: %d marks drawn, %q recorded", c, drawn, attr(box, "data-marks")))
		}
	}
	if row := find(doc, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-alert") == alertID }); row == nil {
		problems = append(problems, "alert "+alertID+" not listed")
	} else if !strings.Contains(text(row), "robustness_drop") || !strings.Contains(text(row), "firing") || !strings.Contains(text(row), "gpu-a") {
		problems = append(problems, "alert "+alertID+" lacks its rule, series or state: "+text(row))
	}
	if said := find(doc, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-said") == alertID }); said == nil ||
		!strings.Contains(text(said), "it explains") {
		problems = append(problems, "the alert list does not show what alert "+alertID+" said")
	}
	// Several kinds have a why row (the LLM kinds need a generator): the
	// one under wordnet's row must say what it lacks.
	if why := find(doc, func(n *html.Node) bool {
		return n.Data == "tr" && hasClass(n, "why") && n.PrevSibling != nil && attr(n.PrevSibling, "data-kind") == "wordnet"
	}); why == nil || !strings.Contains(text(why), "the WordNet dictionary is missing") {
		problems = append(problems, "the coverage does not say why wordnet was skipped")
	}
	for _, id := range []string{"coverage", "stages", "inference"} {
		tbl := find(doc, func(n *html.Node) bool { return n.Data == "table" && attr(n, "id") == id })
		if tbl == nil || find(tbl, func(n *html.Node) bool { return n.Data == "td" }) == nil {
			problems = append(problems, "table "+id+" is empty")
		}
	}
	if msg := checkScoreRow(dom, "builtin:lexical"); msg != "" {
		problems = append(problems, msg)
	}
	return strings.Join(problems, "; ")
}
