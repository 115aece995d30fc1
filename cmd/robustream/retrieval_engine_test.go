package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/alert"
	"github.com/robustream/robustream/sinks/alert/alerttest"
)

// shopRAG is a RAG service written for these tests: BM25 over the
// paragraphs of a folder of documents, top 3, the built-in extractive
// reader over them, each passage returned with its file and BM25 score.
// It reads the folder at every request, indexing a file only once delay
// has passed on clock since it first saw it (0: at once), and, when worse
// is set, returns the three lowest-ranked matching passages instead of
// the best.
type shopRAG struct {
	dir   string
	clock func() time.Time
	delay time.Duration
	worse atomic.Bool

	mu    sync.Mutex
	first map[string]time.Time // file → when first seen
}

type scoredPassage struct {
	text, source string
	score        float64
}

func (s *shopRAG) passages() []scoredPassage {
	s.mu.Lock()
	defer s.mu.Unlock()
	files, _ := filepath.Glob(filepath.Join(s.dir, "*.md"))
	sort.Strings(files)
	now := s.clock()
	var out []scoredPassage
	for _, f := range files {
		at, ok := s.first[f]
		if !ok {
			s.first[f], at = now, now
		}
		if now.Sub(at) < s.delay {
			continue // not indexed yet
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		text := string(b)
		if _, body, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n"); ok {
			text = body // without the front matter
		}
		for _, p := range strings.Split(text, "\n\n") {
			if p = strings.TrimSpace(p); len(p) > 20 {
				out = append(out, scoredPassage{text: p, source: filepath.Base(f)})
			}
		}
	}
	return out
}

func (s *shopRAG) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Question string `json:"question"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Question == "" {
		http.Error(w, `{"error": "question is required"}`, http.StatusBadRequest)
		return
	}
	ps := s.passages()
	var hits []scoredPassage
	if len(ps) > 0 {
		texts := make([]string, len(ps))
		for i, p := range ps {
			texts[i] = p.text
		}
		idx := newBM25(texts)
		const k1, b = 1.2, 0.75
		n := float64(len(idx.docs))
		for i, d := range idx.docs {
			tf := map[string]int{}
			for _, t := range d {
				tf[t]++
			}
			score := 0.0
			for _, q := range words(req.Question) {
				if f := float64(tf[q]); f > 0 {
					idf := math.Log(1 + (n-float64(idx.df[q])+0.5)/(float64(idx.df[q])+0.5))
					score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(d))/idx.avgdl))
				}
			}
			if score > 0 {
				hits = append(hits, scoredPassage{ps[i].text, ps[i].source, score})
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
		if s.worse.Load() {
			sort.SliceStable(hits, func(i, j int) bool { return hits[i].score < hits[j].score })
		}
		hits = hits[:min(3, len(hits))]
	}
	ctxs := make([]string, len(hits))
	out := make([]map[string]any, len(hits))
	for i, h := range hits {
		ctxs[i] = h.text
		out[i] = map[string]any{"text": h.text, "source": h.source, "score": h.score}
	}
	a, err := provider.Builtins()[provider.IDLexical].Answer(r.Context(), provider.Query{Question: req.Question, Contexts: ctxs})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"answer": a.Text, "passages": out})
}

// startShopEngine runs the engine on data with a shop-rag model served by
// svc beside the built-in reader, the engine's clock fc, and extra
// robustream.yaml; it returns the dashboard's base URL and a stop
// function.
func startShopEngine(t *testing.T, data, corpus string, svc *shopRAG, extra string) (string, func()) {
	t.Helper()
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	models := filepath.Join(dir, "models.yaml")
	config := filepath.Join(dir, "robustream.yaml")
	yaml := fmt.Sprintf("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: shop-rag, kind: rag-endpoint, url: %q, contexts_field: passages}\n", srv.URL)
	for p, text := range map[string]string{models: yaml, config: fmt.Sprintf("stages:\n  perturb:\n    wordnet_dir: %q\n", t.TempDir()) + extra} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- cmdRun(ctx, []string{"--data-dir", data, "--http", addr, "--source", "dir:" + corpus, "--models", models,
			"--config", config, "--log-level", "error"}, &out)
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the engine ended with %v\n%s", err, tail(out.String(), 2000))
			}
		case <-time.After(time.Minute):
			t.Error("the engine did not stop within a minute")
		}
	}
	t.Cleanup(stop)
	waitListening(t, addr, time.Minute)
	return "http://" + addr, stop
}

// query runs a read-only query through the dashboard's /api/sql and
// returns its fields, failing the test on an error.
func query(t *testing.T, base, sql string) []string {
	t.Helper()
	body, err := postSQL(base, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return strings.Fields(body)
}

// settleOn waits until sql's output (a count) is above after and unchanged
// for eight seconds, and returns it.
func settleOn(t *testing.T, base, sql string, after int64, within time.Duration) int64 {
	t.Helper()
	var last string
	stable := 0
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(time.Second) {
		body, err := postSQL(base, sql)
		if err != nil {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSpace(body), 10, 64)
		if n <= after || body != last {
			stable, last = 0, body
			continue
		}
		if stable++; stable >= 8 {
			return n
		}
	}
	t.Fatalf("%s did not settle above %d within %s (last %q)", sql, after, within, last)
	return 0
}

// TestRAGEndpointRetrieval: a rag-endpoint service (BM25 written above,
// on loopback) answers with passages, sources and scores. Its passages are
// stored in eval_results.retrieved with their sources and scores, its
// retrieval metrics are in the dashboard and in report --format json; its
// retriever made worse mid-run fires the retriever's own alert
// (shop-rag|retrieval|recall|retriever/service|*).
func TestRAGEndpointRetrieval(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	t0 := time.Now().UTC().Truncate(5 * time.Minute).Add(-3 * time.Hour)
	fc := &fakeClock{at: t0}
	defer func(c func() time.Time) { clock = c }(clock)
	clock = fc.Now
	corpus := t.TempDir()
	writePeriod(t, corpus, 0)
	writePeriod(t, corpus, 1)
	svc := &shopRAG{dir: corpus, clock: fc.Now, first: map[string]time.Time{}}
	rec := alerttest.Start(t)
	data := t.TempDir()
	base, stop := startShopEngine(t, data, corpus, svc, fmt.Sprintf(`alerts:
  interval: 1s
  recent_window: 10m
  baseline_window: 6h
  min_samples: 30
  alpha: 0.01
  max_drop: 0.1
  cooldown: 30m
  receivers:
    - {name: hook, kind: webhook, url: %q}
`, rec.URL(alert.Webhook)))
	results := "SELECT count() FROM robustream.eval_results FINAL WHERE model_id = 'shop-rag'"
	n := settleOn(t, base, results, 0, 4*time.Minute)
	f := query(t, base, `SELECT count(), countIf(retriever = 'service'), countIf(length(retrieved) > 0),
    countIf(length(retrieved_sources) = length(retrieved) AND length(retrieved_scores) = length(retrieved) AND length(retrieved) > 0),
    countIf(arrayExists(s -> s LIKE 'p%.md', retrieved_sources)), countIf(retrieval_hit), countIf(index_state != '')
FROM robustream.eval_results FINAL WHERE model_id = 'shop-rag'`)
	if len(f) != 7 || f[0] != strconv.FormatInt(n, 10) || f[1] != f[0] || f[2] == "0" || f[3] != f[2] || f[4] != f[2] || f[5] == "0" || f[6] != "0" {
		t.Fatalf("shop-rag's stored results (all, retriever service, with passages, with a source and score each, sources the files, hits, index states): %v", f)
	}
	// A reader given its contexts has retrieved passages only on the
	// retrieval axis (a built-in retriever's variant).
	if m := query(t, base, "SELECT count() FROM robustream.eval_results FINAL WHERE model_id = 'builtin:lexical' AND axis != 'retrieval' AND (retriever != '' OR length(retrieved) > 0)"); m[0] != "0" {
		t.Errorf("%s results of the built-in reader off the retrieval axis have retrieved passages", m[0])
	}
	// The dashboard's retrieval table.
	var panel struct {
		Rows []map[string]any `json:"rows"`
	}
	// It has a row per model and retriever: shop-rag's service, and the
	// built-in reader's rows of the built-in BM25 retriever (its retrieval
	// axis variants), which may still be growing: their n is bracketed by
	// counts taken before and after the request.
	bm25 := `SELECT count() FROM robustream.eval_results FINAL
WHERE model_id = 'builtin:lexical' AND retriever = 'bm25_top3' AND error = '' AND index_state != '` + schemas.IndexNotIndexed + `'`
	bm25Before := query(t, base, bm25)[0]
	status, body, err := httpGet(base + "/api/retrieval?window=all")
	bm25After := query(t, base, bm25)[0]
	if err != nil || status != http.StatusOK || json.Unmarshal([]byte(body), &panel) != nil {
		t.Fatalf("/api/retrieval: %d %v %s", status, err, body)
	}
	var service, builtin map[string]any
	for _, r := range panel.Rows {
		switch {
		case r["model_id"] == "shop-rag" && r["retriever"] == "service":
			service = r
		case r["model_id"] == "builtin:lexical" && r["retriever"] == "bm25_top3":
			builtin = r
		default:
			t.Errorf("/api/retrieval row %v: neither shop-rag's service nor the built-in reader's bm25_top3", r)
		}
	}
	if service == nil || fmt.Sprint(service["n"]) != f[0] || fmt.Sprint(service["k"]) != "3" {
		t.Errorf("/api/retrieval rows %v, want shop-rag's service row over its %s results, k 3", panel.Rows, f[0])
	}
	if builtin == nil {
		t.Fatalf("/api/retrieval rows %v lack the built-in reader's bm25_top3 row", panel.Rows)
	}
	num := func(r map[string]any, key string) float64 {
		v, err := strconv.ParseFloat(fmt.Sprint(r[key]), 64)
		if err != nil {
			t.Errorf("/api/retrieval row %v: %s = %v is not a number", r, key, r[key])
		}
		return v
	}
	lo, _ := strconv.ParseFloat(bm25Before, 64)
	hi, _ := strconv.ParseFloat(bm25After, 64)
	if bn, k := num(builtin, "n"), num(builtin, "k"); bn <= 0 || bn < lo || bn > hi || k < 1 || k > 3 {
		t.Errorf("bm25_top3 row %v: n %v not within the stored results %v..%v, or k %v outside 1..3", builtin, bn, lo, hi, k)
	}
	for _, r := range []map[string]any{service, builtin} {
		hit := num(r, "hit_rate")
		for _, m := range []string{"hit_rate", "recall", "precision", "mrr"} {
			v := num(r, m)
			// recall, precision and reciprocal rank are 0 on every result
			// without a hit, so their means cannot pass the hit rate.
			if v < 0 || v > 1 || v > hit+1e-9 || num(r, m+"_ci_lo") > v+1e-9 || num(r, m+"_ci_hi") < v-1e-9 {
				t.Errorf("/api/retrieval row %v: %s %v outside [0, hit rate %v] or its interval", r, m, v, hit)
			}
		}
	}
	t.Logf("T: %d results of shop-rag, %s with a hit; dashboard %v", n, f[5], panel.Rows)

	// The retriever gets worse an hour later.
	fc.Set(t0.Add(60 * time.Minute))
	svc.worse.Store(true)
	writePeriod(t, corpus, 2)
	n = settleOn(t, base, results, n, 4*time.Minute)
	const series = "shop-rag|retrieval|recall|retriever/service|*"
	var rows string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		if rows = alertRows(t, base); strings.Contains(rows, series+"\tfiring") {
			break
		}
	}
	if !strings.Contains(rows, series+"\tfiring") {
		detail, _ := postSQL(base, `SELECT evaluated_at, count(), round(avg(retrieval_recall), 3) FROM robustream.eval_results FINAL
WHERE model_id = 'shop-rag' GROUP BY evaluated_at ORDER BY evaluated_at`)
		t.Fatalf("no firing alert for %s:\n%s\nrecall per evaluation time:\n%s", series, rows, detail)
	}
	t.Logf("T+60m: %d results; alerts:\n%s", n, rows)
	if strings.Contains(rows, "|retrieval_hit|") {
		t.Errorf("retrieval-hit series alert apart from the retriever's alert that covers them:\n%s", rows)
	}
	stop()

	// The report, from the data directory.
	type retrievalRep struct {
		Model     string   `json:"model"`
		Retriever string   `json:"retriever"`
		K         int64    `json:"k"`
		N         int64    `json:"n"`
		Hit       *float64 `json:"hit_rate"`
		Rec       *float64 `json:"recall"`
		Prec      *float64 `json:"precision"`
		MRR       *float64 `json:"mrr"`
	}
	var rep struct {
		Retrieval []retrievalRep `json:"retrieval"`
	}
	out := robustream(t, "report", "--data-dir", data, "--format", "json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report --format json: %v\n%s", err, tail(out, 2000))
	}
	si := slices.IndexFunc(rep.Retrieval, func(r retrievalRep) bool { return r.Model == "shop-rag" && r.Retriever == "service" })
	bi := slices.IndexFunc(rep.Retrieval, func(r retrievalRep) bool { return r.Model == "builtin:lexical" && r.Retriever == "bm25_top3" })
	if len(rep.Retrieval) != 2 || si < 0 || bi < 0 {
		t.Fatalf("report retrieval rows %+v, want shop-rag's service and the built-in reader's bm25_top3", rep.Retrieval)
	}
	if b := rep.Retrieval[bi]; b.K < 1 || b.K > 3 || b.N <= 0 || b.Hit == nil || b.Rec == nil || b.Prec == nil || b.MRR == nil ||
		*b.Hit < 0 || *b.Hit > 1 || *b.Rec < 0 || *b.Rec > *b.Hit || *b.Prec < 0 || *b.Prec > *b.Hit || *b.MRR < 0 || *b.MRR > *b.Hit {
		t.Errorf("report bm25_top3 row %+v (hit %v recall %v precision %v mrr %v), want k 1..3, results, 0 ≤ recall, precision, mrr ≤ hit ≤ 1",
			b, deref(b.Hit), deref(b.Rec), deref(b.Prec), deref(b.MRR))
	}
	r := rep.Retrieval[si]
	if r.Model != "shop-rag" || r.Retriever != "service" || r.K != 3 || r.N != n || r.Hit == nil || r.Rec == nil || r.Prec == nil || r.MRR == nil ||
		*r.Hit <= 0 || *r.Hit >= 1 || *r.Rec > *r.Hit || *r.MRR > *r.Hit {
		t.Errorf("report retrieval row %+v (hit %v recall %v precision %v mrr %v), want shop-rag's %d results, k 3, 0 < recall ≤ hit < 1, mrr ≤ hit",
			r, deref(r.Hit), deref(r.Rec), deref(r.Prec), deref(r.MRR), n)
	}
	t.Logf("report: %+v hit %v recall %v precision %v mrr %v", r, deref(r.Hit), deref(r.Rec), deref(r.Prec), deref(r.MRR))
	text := robustream(t, "report", "--data-dir", data)
	if !strings.Contains(text, "Retrieval (means over results") || !strings.Contains(text, "shop-rag") {
		t.Errorf("the text report has no retrieval section for shop-rag:\n%s", tail(text, 3000))
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestRAGFreshness: a RAG service that indexes a document 3 minutes after
// it first sees it, on the engine's test clock, tracked with the schedule
// 1m, 5m, 15m and stale_after 2m. Its first answers and those asked again
// at 1m are stored as not_indexed and enter no score; the stale-index alert
// fires at 2m while the documents wait; the asks at 5m retrieve the chunks,
// the service's outcomes appear (none evaluated before 5m), the alert
// resolves, and the report's time-to-knowledge is 5m: the step of the
// schedule after the 3-minute delay.
func TestRAGFreshness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	t0 := time.Now().UTC().Truncate(5 * time.Minute).Add(-3 * time.Hour)
	fc := &fakeClock{at: t0}
	defer func(c func() time.Time) { clock = c }(clock)
	clock = fc.Now
	corpus := t.TempDir()
	writePeriod(t, corpus, 0)
	svc := &shopRAG{dir: corpus, clock: fc.Now, delay: 3 * time.Minute, first: map[string]time.Time{}}
	data := t.TempDir()
	base, stop := startShopEngine(t, data, corpus, svc, `  infer:
    freshness:
      models: [shop-rag]
      schedule: [1m, 5m, 15m]
      stale_after: 2m
      interval: 200ms
`)
	results := "SELECT count() FROM robustream.eval_results FINAL WHERE model_id = 'shop-rag'"
	states := func() string {
		body, _ := postSQL(base, "SELECT index_state, count() FROM robustream.eval_results FINAL WHERE model_id = 'shop-rag' GROUP BY index_state ORDER BY index_state")
		return strings.ReplaceAll(strings.TrimSpace(body), "\n", "; ")
	}
	staleRows := func() string {
		body, _ := postSQL(base, "SELECT series, state FROM robustream.alerts FINAL WHERE rule = 'stale_index' ORDER BY series")
		return strings.TrimSpace(body)
	}
	outcomesOf := func(model string) int64 {
		f := query(t, base, "SELECT count() FROM robustream.outcomes WHERE model_id = '"+model+"'")
		n, _ := strconv.ParseInt(f[0], 10, 64)
		return n
	}
	n := settleOn(t, base, results, 0, 4*time.Minute)
	if s := states(); s != fmt.Sprintf("not_indexed\t%d", n) {
		t.Fatalf("first asks: index states %q, want all %d not_indexed", s, n)
	}
	if outcomesOf("shop-rag") != 0 || outcomesOf("builtin:lexical") == 0 {
		t.Fatalf("at t0: %d outcomes of shop-rag (want none: nothing indexed), %d of the built-in reader", outcomesOf("shop-rag"), outcomesOf("builtin:lexical"))
	}
	t.Logf("t0: %d requests (a question's original and query variants) asked, none retrieved", n)

	fc.Set(t0.Add(time.Minute))
	n1 := settleOn(t, base, results, n, 2*time.Minute)
	if s := states(); s != fmt.Sprintf("not_indexed\t%d", n1) || n1 != 2*n {
		t.Fatalf("asked again at 1m: %d results, index states %q; want %d, all not_indexed", n1, s, 2*n)
	}
	if rows := staleRows(); rows != "" {
		t.Fatalf("stale alert before stale_after: %s", rows)
	}

	fc.Set(t0.Add(2 * time.Minute))
	const series = "shop-rag|freshness|stale_index|retriever/service|*"
	waitFor := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if staleRows() == want {
				return
			}
		}
		waiting, _ := postSQL(base, `SELECT q.question, q.answer, r.asks FROM (SELECT question_id, argMax(index_state, evaluated_at) AS state, count() AS asks
    FROM robustream.eval_results FINAL WHERE model_id = 'shop-rag' GROUP BY question_id) AS r
INNER JOIN (SELECT question_id, any(question) AS question, any(answer) AS answer FROM robustream.questions GROUP BY question_id) AS q ON q.question_id = r.question_id
WHERE r.state != 'indexed' ORDER BY q.question`)
		t.Fatalf("stale-index alerts %q, want %q; questions whose latest ask retrieved no ground-truth chunk (question, answer, asks):\n%s", staleRows(), want, waiting)
	}
	waitFor(series + "\tfiring")
	said, _ := postSQL(base, "SELECT summary FROM robustream.alert_summaries FINAL WHERE state = 'firing' AND alert_id IN (SELECT alert_id FROM robustream.alerts WHERE series = '"+series+"')")
	if want := fmt.Sprintf("shop-rag has not indexed the documents of %d questions older than 2m0s", n/3); !strings.Contains(said, want) {
		t.Errorf("stale alert said %q, want %q (each question has its original and two query variants)", said, want)
	}
	// Nobody answered since 1m: the waiting questions are all there.
	if s := states(); s != fmt.Sprintf("not_indexed\t%d", n1) {
		t.Errorf("at 2m: index states %q", s)
	}

	fc.Set(t0.Add(5 * time.Minute))
	n5 := settleOn(t, base, results, n1, 2*time.Minute)
	waitFor(series + "\tresolved")
	s := states()
	t.Logf("t0+5m: %d results; index states %s", n5, s)
	// At least every variant once more; a variant whose miss came in before
	// its question's hit is asked once more at once (a recheck).
	if !strings.Contains(s, "indexed\t") || n5 < 3*n || n5 > 4*n {
		t.Errorf("asked again at 5m: %d results (want %d, plus rechecks), index states %q: want indexed ones", n5, 3*n, s)
	}
	early := query(t, base, fmt.Sprintf("SELECT count() FROM robustream.outcomes WHERE model_id = 'shop-rag' AND evaluated_at < toDateTime(%d)", t0.Add(5*time.Minute).Unix()))
	if outcomesOf("shop-rag") == 0 || early[0] != "0" {
		t.Errorf("shop-rag's outcomes: %d, %s of them evaluated before it had indexed (want some, none early)", outcomesOf("shop-rag"), early[0])
	}
	checkRetrievalPanels(t, base)
	stop()
	// Counted from the stopped engine's data, as the report reads it.
	indexed, _ := strconv.ParseInt(strings.TrimSpace(robustream(t, "sql", "--data-dir", data,
		"SELECT count() FROM robustream.eval_results FINAL WHERE model_id = 'shop-rag' AND index_state = 'indexed'")), 10, 64)

	var rep struct {
		Freshness []struct {
			Model     string   `json:"model"`
			Questions int64    `json:"questions"`
			Indexed   int64    `json:"indexed"`
			Waiting   int64    `json:"waiting"`
			P50       *float64 `json:"p50_seconds"`
			Max       *float64 `json:"max_seconds"`
		} `json:"freshness"`
		Retrieval []struct {
			Model string `json:"model"`
			N     int64  `json:"n"`
		} `json:"retrieval"`
	}
	out := robustream(t, "report", "--data-dir", data, "--format", "json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report --format json: %v", err)
	}
	if len(rep.Freshness) != 1 {
		t.Fatalf("freshness rows %+v, want shop-rag's", rep.Freshness)
	}
	f := rep.Freshness[0]
	t.Logf("time to knowledge: %+v p50 %v max %v", f, deref(f.P50), deref(f.Max))
	// The delay is 3m: the asks at 1m miss, the asks at 5m are the first
	// that can hit.
	if f.Model != "shop-rag" || f.Indexed == 0 || f.Indexed+f.Waiting != f.Questions || f.P50 == nil || *f.P50 != 300 || f.Max == nil || *f.Max != 300 {
		t.Errorf("time to knowledge %+v (p50 %v, max %v): want the indexed questions at 300 s", f, deref(f.P50), deref(f.Max))
	}
	// The retrieval metrics count the indexed results: the asks at 5m,
	// less a variant's miss that came in before its question's hit (its
	// recheck is counted instead).
	for _, r := range rep.Retrieval {
		if r.Model == "shop-rag" && (r.N != indexed || indexed == 0) {
			t.Errorf("shop-rag's retrieval metrics over %d results, want the %d indexed ones (of the %d asked at 5m)", r.N, indexed, n5-n1)
		}
	}
	if text := robustream(t, "report", "--data-dir", data); !strings.Contains(text, "Time to knowledge") {
		t.Errorf("the text report has no time-to-knowledge section:\n%s", tail(text, 2000))
	}
}

// checkRetrievalPanels renders the dashboard in headless Chromium (when
// installed) and checks that its Retrieval and Time-to-knowledge tables
// show shop-rag: the retriever "service", and a time to knowledge of 5m.
// A screenshot of the page goes to ROBUSTREAM_TEST_SCREENSHOT_DIR (default
// a temporary dir).
func checkRetrievalPanels(t *testing.T, base string) {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Log("no chromium: the dashboard's tables are not rendered")
		return
	}
	dom, stderr, err := runChromium(t, chromium, "--window-size=1366,768", "--dump-dom", "--virtual-time-budget=15000", base+"/")
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, tail(stderr, 2000))
	}
	table := func(id string) string {
		i := strings.Index(dom, `<table id="`+id+`"`)
		if i < 0 {
			return ""
		}
		j := strings.Index(dom[i:], "</table>")
		return dom[i : i+j]
	}
	if r := table("retrieval"); !strings.Contains(r, "<td>shop-rag</td><td>service</td><td>3</td>") {
		t.Errorf("the dashboard's retrieval table has no row for shop-rag's service:\n%s", r)
	}
	if f := table("freshness"); !strings.Contains(f, "<td>shop-rag</td>") || !strings.Contains(f, "<td>5m</td>") || !strings.Contains(f, "<td>≤5m: ") {
		t.Errorf("the dashboard's time-to-knowledge table does not show shop-rag at 5m:\n%s", f)
	}
	dir := os.Getenv("ROBUSTREAM_TEST_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	shot := filepath.Join(dir, "dashboard-retrieval.png")
	if _, stderr, err := runChromium(t, chromium, "--screenshot="+shot, "--window-size=1366,2600", "--hide-scrollbars",
		"--virtual-time-budget=15000", base+"/"); err != nil {
		t.Errorf("chromium --screenshot: %v\n%s", err, tail(stderr, 2000))
	}
	t.Logf("dashboard screenshot: %s", shot)
}
