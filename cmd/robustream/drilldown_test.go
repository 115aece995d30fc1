package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/robustream/robustream/processors/metrics"
)

// TestDrillDown is issue 17's drill-down acceptance: on the data dir of a
// demo `eval --once`, served by `run --source none`, the JSON API lists the
// questions behind a cell and shows one question whole, refuses or
// neutralizes hostile filter values; and in headless Chromium a user
// clicks from builtin:lexical's overall score to its kinds, from the char
// kind to its questions, and from the first question to its page, which
// shows its variants with each model's answer and verdict (the same as
// the API's). Screenshots of every step go to ROBUSTREAM_TEST_SCREENSHOT_DIR
// (default a temporary dir) and /tmp/drilldown-shots.
func TestDrillDown(t *testing.T) {
	data := t.TempDir()
	robustream(t, "eval", "--once", "--source", "demo", "--demo-periods", "1", "--data-dir", data, "--http", "", "--log-level", "error")
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	base := "http://" + addr
	engine := startBackground(t, "run", "--source", "none", "--data-dir", data, "--http", addr, "--log-level", "warn")
	engine.waitListening(t, addr, time.Minute)

	get := func(path string, into any) int {
		t.Helper()
		status, body, err := httpGet(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		if status == http.StatusOK && into != nil {
			if err := json.Unmarshal([]byte(body), into); err != nil {
				t.Fatalf("GET %s: not JSON: %v\n%.500s", path, err, body)
			}
		}
		return status
	}

	// The API: the cell's questions, every one scored for the model.
	var all, page metrics.QuestionPage
	if s := get("/api/questions?limit=500", &all); s != http.StatusOK || all.Total == 0 || int64(len(all.Items)) != all.Total {
		t.Fatalf("GET /api/questions: status %d, %d of %d items", s, len(all.Items), all.Total)
	}
	cell := "/api/questions?model=" + url.QueryEscape("builtin:lexical") + "&axis=query&kind=char&limit=10"
	if s := get(cell, &page); s != http.StatusOK || page.Family != "rare" || page.Total == 0 || len(page.Items) == 0 {
		t.Fatalf("GET %s: status %d, %+v", cell, s, page)
	}
	for _, it := range page.Items {
		if len(it.Scores) != 1 || it.Scores[0].Model != "builtin:lexical" || it.Scores[0].N != 1 || len(it.Documents) == 0 || it.Question == "" {
			t.Errorf("item %+v: want builtin:lexical's one char outcome and the question's document", it)
		}
	}
	for i := 1; i < len(page.Items); i++ {
		if page.Items[i].Scores[0].Score < page.Items[i-1].Scores[0].Score {
			t.Errorf("items not worst first: %v after %v", page.Items[i].Scores[0].Score, page.Items[i-1].Scores[0].Score)
		}
	}
	// A GRADE cell (hops × D_r quartile) leads to as many questions as it
	// counts.
	var grade struct {
		Rows []struct {
			Model     string
			Hops      int
			Quartile  int
			Questions int64
		}
	}
	if s := get("/api/grade?window=all", &grade); s != http.StatusOK || len(grade.Rows) == 0 {
		t.Fatalf("GET /api/grade: status %d, %d rows", s, len(grade.Rows))
	}
	for _, r := range grade.Rows {
		var p metrics.QuestionPage
		path := fmt.Sprintf("/api/questions?family=grade&model=%s&hops=%d&quartile=%d", url.QueryEscape(r.Model), r.Hops, r.Quartile)
		if get(path, &p); p.Total != r.Questions {
			t.Errorf("GRADE cell %s hops %d Q%d: %d questions, the cell counts %d", r.Model, r.Hops, r.Quartile, p.Total, r.Questions)
		}
	}
	// Hostile values are values: nothing matches, nothing breaks.
	for _, bad := range []string{`builtin:lexical' OR '1'='1`, `x\' OR 1=1 --`, `'); DROP DATABASE robustream; --`, `\`, "' UNION ALL SELECT 1 --"} {
		var p metrics.QuestionPage
		for _, key := range []string{"model", "kind", "document", "pattern", "axis"} {
			if s := get("/api/questions?"+key+"="+url.QueryEscape(bad), &p); s != http.StatusOK || p.Total != 0 || len(p.Items) != 0 {
				t.Errorf("%s=%q: status %d, %d questions; want 200 and none", key, bad, s, p.Total)
			}
		}
		if s := get("/api/questions/"+url.PathEscape(bad), nil); s != http.StatusNotFound {
			t.Errorf("/api/questions/%q: status %d, want 404", bad, s)
		}
	}
	for _, q := range []string{"verdict=maybe", "family=nope", "limit=100000", "offset=-3", "hops=x", "window=1y", "model=%FF"} {
		if s := get("/api/questions?"+q, nil); s != http.StatusBadRequest {
			t.Errorf("/api/questions?%s: status %d, want 400", q, s)
		}
	}
	var after metrics.QuestionPage
	if get("/api/questions?limit=1", &after); after.Total != all.Total {
		t.Errorf("questions after the hostile requests: %d, before %d", after.Total, all.Total)
	}

	chromium := findChromium()
	if chromium == "" {
		t.Skip("chromium not found (/usr/bin/chromium or chromium on PATH): the click-through needs it")
	}
	dir := os.Getenv("ROBUSTREAM_TEST_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll("/tmp/drilldown-shots", 0o755)
	b := startBrowser(t, chromium, base+"/")
	shot := func(name string) {
		t.Helper()
		png := b.screenshot(t)
		for _, d := range []string{dir, "/tmp/drilldown-shots"} {
			if err := os.WriteFile(filepath.Join(d, name), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("screenshot %s (%d bytes)", filepath.Join(dir, name), len(png))
	}

	// The dashboard, then a click on builtin:lexical's overall score.
	b.waitFor(t, `document.body.dataset.loaded === "true" && !!document.querySelector('#scores tr[data-model="builtin:lexical"] td.overall a')`)
	shot("drill-0-dashboard.png")
	b.click(t, `#scores tr[data-model="builtin:lexical"] td.overall a`)
	b.waitFor(t, `document.querySelector("#drill").dataset.view === "model" && document.querySelector("#drill").dataset.loaded === "true"`)
	if b.eval(t, `document.querySelector("main").hidden && !document.querySelector("#drill").hidden`) != true {
		t.Error("the model view does not replace the dashboard")
	}
	if n := b.eval(t, `document.querySelectorAll("#model-kinds tbody tr[data-kind]").length`); n.(float64) < 5 {
		t.Errorf("the model view lists %v kinds, want the demo's RARE kinds", n)
	}
	shot("drill-1-model.png")

	// From the char kind's score to its questions.
	b.click(t, `#model-kinds tr[data-kind="char"] td.score a`)
	b.waitFor(t, `document.querySelector("#drill").dataset.view === "questions" && document.querySelector("#drill").dataset.loaded === "true"`)
	rows := b.eval(t, `[...document.querySelectorAll("#questions tr.q")].map(r => r.dataset.question)`).([]any)
	if len(rows) == 0 || rows[0] != page.Items[0].QuestionID {
		t.Fatalf("the questions view lists %v; the API's first question of the cell is %s", rows, page.Items[0].QuestionID)
	}
	shot("drill-2-questions.png")

	// From the first question to its page.
	id := rows[0].(string)
	var detail metrics.QuestionDetail
	// The page opened from a model's cell shows that model's answers.
	if s := get("/api/questions/"+url.PathEscape(id)+"?model="+url.QueryEscape("builtin:lexical"), &detail); s != http.StatusOK ||
		len(detail.Variants) < 2 || len(detail.ClosedBook) != 1 {
		t.Fatalf("GET /api/questions/%s: status %d, %d variants, %d closed-book answers", id, s, len(detail.Variants), len(detail.ClosedBook))
	}
	b.click(t, `#questions tr.q a`)
	b.waitFor(t, `document.querySelector("#drill").dataset.view === "question" && document.querySelector("#drill").dataset.loaded === "true"`)
	if got := b.eval(t, `document.querySelector("#question h2").textContent`); got != detail.Question.Question {
		t.Errorf("question page heading %q, want %q", got, detail.Question.Question)
	}
	// Every variant's card shows builtin:lexical's answer and verdict as
	// the API has them.
	shown := b.eval(t, `Object.fromEntries([...document.querySelectorAll("#drill section.variant")].map(s => [s.dataset.variant,
		Object.fromEntries([...s.querySelectorAll("table.answers tr[data-model]")].map(r => [r.dataset.model,
			[r.children[1].textContent, r.querySelector("[data-verdict]").dataset.verdict]]))]))`).(map[string]any)
	if len(shown) != len(detail.Variants) {
		t.Errorf("the page shows %d variants, the API %d", len(shown), len(detail.Variants))
	}
	kinds := map[string]bool{}
	for _, v := range detail.Variants {
		kinds[v.Kind] = true
		card, _ := shown[v.VariantID].(map[string]any)
		if len(card) != len(v.Answers) {
			t.Errorf("variant %s/%s: the page shows the answers of %v, the API %d", v.Axis, v.Kind, card, len(v.Answers))
		}
		for _, a := range v.Answers {
			got, _ := card[a.Model].([]any)
			want := a.Answer
			if a.Error != "" {
				want = "error: " + a.Error
			}
			if len(got) != 2 || got[0] != want || got[1] != a.Verdict {
				t.Errorf("variant %s/%s, %s: the page shows %v, the API answer %q verdict %s", v.Axis, v.Kind, a.Model, got, want, a.Verdict)
			}
		}
	}
	if !kinds["original"] || !kinds["char"] {
		t.Errorf("variants %v: want the original and char among them", kinds)
	}
	if n := b.eval(t, `document.querySelectorAll("#closed-book tbody tr [data-verdict]").length`); int(n.(float64)) != len(detail.ClosedBook) {
		t.Errorf("closed-book verdicts shown %v, want %d", n, len(detail.ClosedBook))
	}
	if n := b.eval(t, `document.querySelectorAll("#documents .text").length`); int(n.(float64)) != len(detail.Chunks) || len(detail.Chunks) == 0 {
		t.Errorf("ground-truth chunks shown %v, API %d", n, len(detail.Chunks))
	}
	shot("drill-3-question.png")
	// The whole page, for a person to read.
	b.fullPage = true
	shot("drill-3-question-full.png")
}

// browser is a headless Chromium driven over the DevTools protocol: one
// page, JavaScript evaluated in it, mouse clicks, screenshots.
type browser struct {
	ws       *websocket.Conn
	next     int
	fullPage bool
}

func startBrowser(t *testing.T, chromium, page string) *browser {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--window-size=1366,900", "--remote-allow-origins=*",
		"--remote-debugging-port="+strconv.Itoa(port), "--user-data-dir="+t.TempDir(), page)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	var wsURL string
	for deadline := time.Now().Add(30 * time.Second); wsURL == ""; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("chromium's DevTools endpoint did not come up")
		}
		status, body, err := httpGet("http://127.0.0.1:" + strconv.Itoa(port) + "/json/list")
		if err != nil || status != http.StatusOK {
			continue
		}
		var targets []struct{ Type, URL, WebSocketDebuggerURL string }
		json.Unmarshal([]byte(body), &targets)
		for _, tg := range targets {
			if tg.Type == "page" && strings.HasPrefix(tg.URL, page) {
				wsURL = tg.WebSocketDebuggerURL
			}
		}
	}
	ws, err := websocket.Dial(wsURL, "", "http://127.0.0.1/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &browser{ws: ws}
}

// call sends one DevTools command and returns its result, skipping events.
func (b *browser) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	b.next++
	id := b.next
	if err := websocket.JSON.Send(b.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	b.ws.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := websocket.JSON.Receive(b.ws, &msg); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if msg.ID != id {
			continue
		}
		if msg.Error != nil {
			t.Fatalf("%s: %s", method, msg.Error.Message)
		}
		return msg.Result
	}
}

// eval evaluates expr in the page and returns its value (JSON types).
func (b *browser) eval(t *testing.T, expr string) any {
	t.Helper()
	res := b.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	var r struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	if r.ExceptionDetails != nil {
		t.Fatalf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	return r.Result.Value
}

// waitFor waits until cond is true in the page (the page fetches its data
// from an engine on a busy machine: a minute at most).
func (b *browser) waitFor(t *testing.T, cond string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		if b.eval(t, "(() => { try { return !!("+cond+"); } catch (e) { return false; } })()") == true {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never true: %s\npage text:\n%.2000v", cond, b.eval(t, "document.body.innerText"))
		}
	}
}

// click scrolls the element of selector into view and clicks its middle
// with the mouse, as a person would.
func (b *browser) click(t *testing.T, selector string) {
	t.Helper()
	sel, _ := json.Marshal(selector)
	box := b.eval(t, fmt.Sprintf(`(() => { const e = document.querySelector(%s); if (!e) return null;
		e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel))
	xy, ok := box.([]any)
	if !ok {
		t.Fatalf("nothing to click at %s\npage text:\n%.2000v", selector, b.eval(t, "document.body.innerText"))
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		b.call(t, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": xy[0], "y": xy[1], "button": "left", "clickCount": 1})
	}
}

// screenshot is a PNG of the viewport, or of the whole page when fullPage.
func (b *browser) screenshot(t *testing.T) []byte {
	t.Helper()
	params := map[string]any{"format": "png"}
	if b.fullPage {
		params["captureBeyondViewport"] = true
		size := b.eval(t, `[document.documentElement.scrollWidth, document.documentElement.scrollHeight]`).([]any)
		params["clip"] = map[string]any{"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(b.call(t, "Page.captureScreenshot", params), &r); err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || len(png) < 1000 {
		t.Fatalf("screenshot: %d bytes, %v", len(png), err)
	}
	return png
}
