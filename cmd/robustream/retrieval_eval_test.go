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
// of chunk texts: the embedding retriever's (the question stage's D_r
// requests start with a question, and the retriever's queries are
// questions).
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
// of the others again.
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

	// Restart with one more report: only its chunks are embedded.
	copyFile(files[len(files)-1])
	eval()
	texts := chunkTexts()
	got, batches := rec.chunkBatches(texts)
	if batches == 0 {
		t.Fatal("no request of chunk texts reached the embedder")
	}
	for text := range texts {
		if strings.TrimSpace(text) == "" {
			continue
		}
		if got[text] != 1 {
			t.Errorf("chunk %.50q embedded %d times by the retriever over two runs, want 1", text, got[text])
		}
	}
	if after := sqlCount(t, "SELECT count() FROM robustream.chunk_vectors WHERE embedder = 'emb_e5'", "--data-dir", data); after != int64(len(got)) {
		t.Errorf("chunk_vectors holds %d rows after the restart, %d chunks were embedded", after, len(got))
	}
	t.Logf("%d questions, %d chunks embedded in %d requests, %d embedding requests in all (server: %d requests)",
		questions, len(got), batches, len(rec.reqs), sim.Stats().Requests)
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
