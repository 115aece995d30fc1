package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider/simserver"
)

// embedRequests records the inputs of every embeddings request that passes
// through it on the way to the simulated server.
type embedRequests struct {
	mu   sync.Mutex
	reqs [][]string
}

func (e *embedRequests) proxy(target string) http.Handler {
	u, _ := url.Parse(target)
	p := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Input json.RawMessage `json:"input"`
		}
		if strings.HasSuffix(r.URL.Path, "/embeddings") && json.Unmarshal(body, &req) == nil {
			var in []string
			if json.Unmarshal(req.Input, &in) != nil {
				var one string
				json.Unmarshal(req.Input, &one)
				in = []string{one}
			}
			e.mu.Lock()
			e.reqs = append(e.reqs, in)
			e.mu.Unlock()
		}
		p.ServeHTTP(w, r)
	})
}

// chunkBatches counts, per chunk text, its receipts in requests made only
// of chunk texts: the embedding retriever's, and the question stage's D_r
// requests whose question it had embedded already.
func (e *embedRequests) chunkBatches(chunks map[string]bool) (map[string]int, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	got, batches := map[string]int{}, 0
	for _, in := range e.reqs {
		all := len(in) > 0
		for _, t := range in {
			all = all && chunks[t]
		}
		if !all {
			continue
		}
		batches++
		for _, t := range in {
			got[t]++
		}
	}
	return got, batches
}

// TestEvalRetrievers is the engine-level check of the retrieval axis:
// eval --once over a folder of reports with the built-in readers and an
// embedder on the simulated server writes a bm25_top3 and an emb_e5_top3
// variant for every question, GRADE outcomes with more than one hop row in
// grade_matrix and a RARE retrieval robustness; a second run on the same
// data dir, with one more report, embeds the new report's chunks and none
// of the others again (chunk_vectors shows it; the retriever's own calls
// are counted exactly in processors/retrieve's dense test).
func TestEvalRetrievers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline twice")
	}
	sim, err := simserver.Start(simserver.Config{Model: "e5"})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	rec := &embedRequests{}
	front := httptest.NewServer(rec.proxy("http://" + sim.Addr()))
	defer front.Close()
	models := filepath.Join(t.TempDir(), "models.yaml")
	yaml := fmt.Sprintf("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: builtin:lexical-strict, kind: builtin}\nembedder: {id: e5, base_url: %q, model: e5, timeout: 10s}\n", front.URL+"/v1")
	if err := os.WriteFile(models, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs("../../testdata/corpora/reports")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(src, "*.md"))
	if err != nil || len(files) < 3 {
		t.Fatalf("reports corpus: %v, %d files", err, len(files))
	}
	corpus := t.TempDir()
	copyFile := func(f string) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(corpus, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files[:len(files)-1] {
		copyFile(f)
	}
	data := t.TempDir()
	eval := func() string {
		return robustream(t, "eval", "--once", "--source", "dir:"+corpus, "--data-dir", data, "--models", models, "--log-level", "warn")
	}
	chunkTexts := func() map[string]bool {
		out := map[string]bool{}
		for _, r := range sqlRows(t, data, "SELECT DISTINCT hex(text) FROM robustream.chunks") {
			b, err := hex.DecodeString(r[0])
			if err != nil {
				t.Fatal(err)
			}
			out[string(b)] = true
		}
		return out
	}

	out := eval()
	if !strings.Contains(out, "retrieval") {
		t.Fatalf("no RARE retrieval column in the summary:\n%s", out)
	}
	questions := sqlCount(t, "SELECT uniqExact(question_id) FROM robustream.questions", "--data-dir", data)
	for _, kind := range []string{"bm25_top3", "emb_e5_top3"} {
		made := sqlCount(t, "SELECT uniqExact(question_id) FROM robustream.variants WHERE axis = 'retrieval' AND kind = '"+kind+"'", "--data-dir", data)
		if made == 0 || made > questions {
			t.Errorf("%s variants for %d of %d questions", kind, made, questions)
		}
		rows := sqlCount(t, "SELECT count() FROM robustream.outcomes FINAL WHERE family = 'grade' AND kind = '"+kind+"'", "--data-dir", data)
		if rows == 0 {
			t.Errorf("no GRADE outcomes on %s", kind)
		}
	}
	if hops := sqlCount(t, "SELECT uniqExact(hops) FROM robustream.grade_matrix", "--data-dir", data); hops < 2 {
		t.Errorf("grade_matrix has %d hop rows, want at least 2", hops)
	}
	rare := strings.TrimSpace(sqlOut(t, data, "SELECT count() FROM robustream.rare_scores WHERE NOT isNaN(retrieval_robustness)"))
	if rare == "0" {
		t.Error("no model has a RARE retrieval robustness")
	}
	stored := sqlCount(t, "SELECT uniqExact(chunk_id) FROM robustream.chunk_vectors WHERE embedder = 'emb_e5'", "--data-dir", data)
	chunks := sqlCount(t, "SELECT uniqExact(chunk_id) FROM robustream.chunks WHERE text != ''", "--data-dir", data)
	if stored != chunks {
		t.Errorf("%d chunk vectors stored, %d chunks", stored, chunks)
	}

	// Restart with one more report: only its chunks are embedded. The
	// question stage embeds chunk texts too (for D_r, remembered in memory
	// only), so the requests cannot tell whose a chunk text was; the table
	// can: the retriever inserts a vector right after embedding it, so an
	// old chunk embedded again would have a second row or, once merged, a
	// later embedded_at.
	type vecRow struct{ rows, at string }
	vectors := func() map[string]vecRow {
		out := map[string]vecRow{}
		for _, r := range sqlRows(t, data, "SELECT chunk_id, count(), toString(toUnixTimestamp(max(embedded_at))) FROM robustream.chunk_vectors WHERE embedder = 'emb_e5' GROUP BY chunk_id") {
			out[r[0]] = vecRow{r[1], r[2]}
		}
		return out
	}
	before := vectors()
	if len(before) == 0 {
		t.Fatal("no chunk vectors after the first run")
	}
	time.Sleep(1100 * time.Millisecond) // embedded_at has seconds: a second run's rows are later
	requests := len(rec.reqs)
	copyFile(files[len(files)-1])
	eval()
	after := vectors()
	for id, b := range before {
		if a := after[id]; a != b || b.rows != "1" {
			t.Errorf("chunk %s: %s row(s) embedded at %s before the restart, %s row(s) at %s after: embedded again", id, b.rows, b.at, a.rows, a.at)
		}
	}
	added := 0
	for id, a := range after {
		if _, ok := before[id]; !ok {
			added++
			if a.rows != "1" {
				t.Errorf("new chunk %s: %s rows", id, a.rows)
			}
		}
	}
	if want := sqlCount(t, "SELECT uniqExact(chunk_id) FROM robustream.chunks WHERE text != ''", "--data-dir", data) - chunks; int64(added) != want || added == 0 {
		t.Errorf("%d chunks embedded after the restart, %d new chunks", added, want)
	}
	// Every chunk text reached the server, in requests of chunk texts alone.
	texts := chunkTexts()
	got, batches := rec.chunkBatches(texts)
	for text := range texts {
		if strings.TrimSpace(text) != "" && got[text] == 0 {
			t.Errorf("chunk %.50q never sent to the embedder on its own", text)
		}
	}
	t.Logf("%d questions, %d chunk vectors, %d chunk-only requests, %d embedding requests in all (%d after the restart; server: %d requests)",
		questions, len(after), batches, len(rec.reqs), len(rec.reqs)-requests, sim.Stats().Requests)
}

// TestEvalOnceDemoRetrieval: on the demo feed with the built-in readers,
// every question gets a bm25_top3 variant (or a not-made marker when no
// chunk matches), GRADE outcomes fill at least two hop rows of
// grade_matrix, and every model has a RARE retrieval robustness.
func TestEvalOnceDemoRetrieval(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	data := t.TempDir()
	out := robustream(t, "eval", "--once", "--source", "demo", "--data-dir", data, "--log-level", "warn")
	questions := sqlCount(t, "SELECT uniqExact(question_id) FROM robustream.questions", "--data-dir", data)
	made := sqlCount(t, "SELECT uniqExact(question_id) FROM robustream.variants WHERE axis = 'retrieval' AND kind = 'bm25_top3'", "--data-dir", data)
	notMade := sqlCount(t, "SELECT uniqExact(question_id) FROM robustream.eval_results WHERE axis = 'retrieval' AND error != ''", "--data-dir", data)
	if made == 0 || made+notMade < questions {
		t.Errorf("%d questions: %d with a bm25_top3 variant, %d not made", questions, made, notMade)
	}
	if hops := sqlCount(t, "SELECT uniqExact(hops) FROM robustream.grade_matrix", "--data-dir", data); hops < 2 {
		t.Errorf("grade_matrix has %d hop rows, want at least 2", hops)
	}
	models := sqlCount(t, "SELECT uniqExact(model_id) FROM robustream.outcomes", "--data-dir", data)
	scored := sqlCount(t, "SELECT count() FROM robustream.rare_scores WHERE NOT isNaN(retrieval_robustness)", "--data-dir", data)
	if models == 0 || scored != models {
		t.Errorf("%d of %d models have a RARE retrieval robustness", scored, models)
	}
	if !strings.Contains(out, "retrieval") {
		t.Errorf("the summary has no retrieval column:\n%s", out)
	}
}
