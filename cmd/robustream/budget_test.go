package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// pricedServer is an OpenAI-compatible chat server whose every completion
// reports 100 prompt and 10 completion tokens; it counts the calls of the
// run (not the models check's probe).
func pricedServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
		case "/v1/chat/completions":
			b, _ := io.ReadAll(r.Body)
			if !strings.Contains(string(b), "robustream probe") {
				calls.Add(1)
			}
			fmt.Fprint(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"no such info"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":10}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestCostAndBudget: with prices in models.yaml, eval --once reports the
// cost per model and family (summary and JSON report), equal to the calls
// the server received times their tokens' price; with --budget the priced
// model stops being asked once its answers cost the budget, the rest of
// its requests end as "budget exhausted" error results, every pairing
// closes, the built-in model is asked in full, and the summary says so.
func TestCostAndBudget(t *testing.T) {
	srv, calls := pricedServer(t)
	dir := t.TempDir()
	models := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(models, []byte(fmt.Sprintf(`models:
  - {id: builtin:lexical, kind: builtin}
  - {id: gpu, kind: openai, base_url: %s/v1, model: m, price_per_1k_input: 0.5, price_per_1k_output: 2}
`, srv.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	const perCall = 100*0.5/1000 + 10*2.0/1000 // 0.07
	corpus := writeCorpus(t)

	// Without a budget: the cost is every call's.
	data, report := filepath.Join(dir, "d1"), filepath.Join(dir, "r1.json")
	out, err := runBinary(nil, "eval", "--once", "--source", "dir:"+corpus, "--models", models, "--data-dir", data, "--report", report, "--log-level", "warn")
	if err != nil {
		t.Fatalf("eval --once: %v\n%s", err, out)
	}
	full := calls.Load()
	if full < 20 {
		t.Fatalf("the server got %d calls", full)
	}
	var rep struct {
		Cost []costRow `json:"cost"`
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var requests, tokensIn int64
	var cost float64
	families := map[string]bool{}
	for _, r := range rep.Cost {
		switch r.Model {
		case "gpu":
			if !r.Priced {
				t.Errorf("gpu's row is not priced: %+v", r)
			}
			requests += r.Requests
			tokensIn += r.TokensIn
			cost += r.Cost
			families[r.Family] = true
		case "builtin:lexical":
			if r.Priced || r.Cost != 0 {
				t.Errorf("the built-in reader has a price: %+v", r)
			}
		}
	}
	if requests != full || tokensIn != 100*full || math.Abs(cost-float64(full)*perCall) > 1e-6 {
		t.Errorf("report: gpu %d requests, %d tokens in, cost %.4f; the server got %d calls, costing %.4f", requests, tokensIn, cost, full, float64(full)*perCall)
	}
	if !families["baseline"] || len(families) < 2 {
		t.Errorf("cost families of gpu: %v, want baseline and the perturbed families", families)
	}
	if want := fmt.Sprintf("cost %.4f", float64(full)*perCall); !strings.Contains(out, want) {
		t.Errorf("the summary does not say %q:\n%s", want, out)
	}

	// The engine on that data dir serves the same figures on /api/cost and
	// the dashboard's cost table.
	costOnDashboard(t, data, models, rep.Cost)

	// With a budget of 0.5: about seven calls, then no more.
	calls.Store(0)
	data = filepath.Join(dir, "d2")
	out, err = runBinary(nil, "eval", "--once", "--source", "dir:"+corpus, "--models", models, "--data-dir", data, "--budget", "0.5",
		"--max-failed", "1", "--log-level", "warn")
	if err != nil {
		t.Fatalf("eval --once --budget: %v\n%s", err, out)
	}
	sent := calls.Load()
	// The calls in flight when the budget is reached still finish: at most
	// the model's window more than the seven the budget pays for.
	if float64(sent) < 0.5/perCall || sent >= full {
		t.Errorf("with a budget of 0.5 the server got %d calls (%d without; %.4f each)", sent, full, perCall)
	}
	_, block, _ := strings.Cut(out, "\nbudget exhausted: ")
	block, _, _ = strings.Cut(block, "\n\n")
	if !strings.Contains(block, "\n  gpu: ") || strings.Contains(block, "builtin:lexical") {
		t.Errorf("the summary does not say the budget stopped gpu (and gpu only):\n%s", out)
	}
	// The spend passes the budget by at most one call.
	if float64(sent)*perCall > 0.5+perCall+1e-9 {
		t.Errorf("%d calls cost %.4f, more than one call beyond the budget of 0.5", sent, float64(sent)*perCall)
	}
	if !strings.Contains(out, "open pairings 0") {
		t.Errorf("pairings left open:\n%s", out)
	}
	count := func(q string) int64 {
		s, err := runBinary(nil, "sql", "--data-dir", data, q)
		if err != nil {
			t.Fatalf("%s: %v\n%s", q, err, s)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			t.Fatalf("%s: %q", q, s)
		}
		return n
	}
	stopped := count("SELECT uniqExact(request_id) FROM robustream.eval_results WHERE model_id = 'gpu' AND startsWith(error, 'budget exhausted')")
	answered := count("SELECT uniqExact(request_id) FROM robustream.eval_results WHERE model_id = 'gpu' AND error = ''")
	if stopped == 0 || answered != sent || answered+stopped != full {
		t.Errorf("gpu: %d requests answered, %d stopped by the budget; the server got %d calls, %d without a budget", answered, stopped, sent, full)
	}
	if n := count("SELECT count() FROM robustream.eval_results WHERE model_id = 'builtin:lexical' AND error != ''"); n != 0 {
		t.Errorf("the unpriced built-in reader has %d failed results", n)
	}
}

// costOnDashboard starts the engine on data with models (no source) and
// checks that /api/cost gives want and that the dashboard, rendered in
// headless Chromium, shows each priced row and the total.
func costOnDashboard(t *testing.T, data, models string, want []costRow) {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	engine := startBackground(t, "run", "--data-dir", data, "--http", addr, "--source", "none", "--models", models, "--skip-models-check")
	engine.waitListening(t, addr, time.Minute)
	status, body, err := httpGet("http://" + addr + "/api/cost?window=all")
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET /api/cost: %d %v %s", status, err, body)
	}
	var api struct {
		Rows  []costRow `json:"rows"`
		Total float64   `json:"total"`
	}
	if err := json.Unmarshal([]byte(body), &api); err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, r := range want {
		total += r.Cost
	}
	if !reflect.DeepEqual(api.Rows, want) || math.Abs(api.Total-total) > 1e-9 {
		t.Errorf("/api/cost = %+v (total %v), the report says %+v", api.Rows, api.Total, want)
	}
	chromium := findChromium()
	if chromium == "" {
		t.Log("chromium not found: the dashboard's cost table is not rendered")
		return
	}
	var dom string
	for attempt := 0; attempt < 5; attempt++ {
		dom, _, err = runChromium(t, chromium, "--window-size=1366,768", "--dump-dom", "--virtual-time-budget=15000", "http://"+addr+"/")
		if err == nil && strings.Contains(dom, "total "+strconv.FormatFloat(total, 'f', 4, 64)) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	_, table, _ := strings.Cut(dom, `<table id="cost">`)
	table, _, _ = strings.Cut(table, "</table>")
	for _, r := range want {
		if !r.Priced {
			continue
		}
		row := fmt.Sprintf("<td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%.4f</td>", r.Model, r.Family, r.Requests, r.TokensIn, r.TokensOut, r.Cost)
		if !strings.Contains(table, row) {
			t.Errorf("the dashboard's cost table lacks %s:\n%s", row, table)
		}
	}
	if strings.Contains(table, "builtin:lexical") {
		t.Errorf("the dashboard lists the unpriced built-in reader:\n%s", table)
	}
	if !strings.Contains(dom, `<p class="note" id="cost-total">total `+strconv.FormatFloat(total, 'f', 4, 64)) {
		t.Errorf("the dashboard does not show the total %.4f", total)
	}
}
