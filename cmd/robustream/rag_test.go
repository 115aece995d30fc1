package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/provider"
)

// bm25 is a small BM25 index over passages, the retriever of the RAG
// service below.
type bm25 struct {
	docs  [][]string
	text  []string
	df    map[string]int
	avgdl float64
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+`)

func words(s string) []string { return wordRE.FindAllString(strings.ToLower(s), -1) }

func newBM25(passages []string) *bm25 {
	b := &bm25{df: map[string]int{}, text: passages}
	total := 0
	for _, p := range passages {
		w := words(p)
		b.docs = append(b.docs, w)
		total += len(w)
		seen := map[string]bool{}
		for _, t := range w {
			if !seen[t] {
				b.df[t]++
				seen[t] = true
			}
		}
	}
	b.avgdl = float64(total) / float64(len(passages))
	return b
}

func (b *bm25) top(query string, k int) []string {
	const k1, bb = 1.2, 0.75
	type scored struct {
		i int
		s float64
	}
	var all []scored
	n := float64(len(b.docs))
	for i, d := range b.docs {
		tf := map[string]int{}
		for _, t := range d {
			tf[t]++
		}
		s := 0.0
		for _, q := range words(query) {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(b.df[q])+0.5)/(float64(b.df[q])+0.5))
			s += idf * f * (k1 + 1) / (f + k1*(1-bb+bb*float64(len(d))/b.avgdl))
		}
		all = append(all, scored{i, s})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].s > all[j].s })
	var out []string
	for _, s := range all[:min(k, len(all))] {
		out = append(out, b.text[s.i])
	}
	return out
}

// ragService is a RAG service as a team would run one: BM25 over the
// corpus's paragraphs, top 2, and the built-in extractive reader over them.
// Its reply nests the answer and the passages ({"data": {"answer": …,
// "sources": [{"text": …}]}}), and it wants the question at input.query.
func ragService(t *testing.T, corpus string) *httptest.Server {
	t.Helper()
	var passages []string
	files, _ := filepath.Glob(filepath.Join(corpus, "*"))
	tags := regexp.MustCompile(`<script.*?</script>|<[^>]+>`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.HasSuffix(f, ".html") {
			text = tags.ReplaceAllString(strings.ReplaceAll(text, "</p>", "\n\n"), "\n\n")
		}
		for _, p := range strings.Split(text, "\n\n") {
			if p = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(p), "# ")); len(p) > 20 {
				passages = append(passages, p)
			}
		}
	}
	index := newBM25(passages)
	reader := provider.Builtins()[provider.IDLexical]
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input struct {
				Query string `json:"query"`
			} `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Input.Query == "" {
			http.Error(w, `{"error": "input.query is required"}`, http.StatusBadRequest)
			return
		}
		ctxs := index.top(req.Input.Query, 2)
		a, err := reader.Answer(r.Context(), provider.Query{Question: req.Input.Query, Contexts: ctxs})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var sources []map[string]string
		for _, c := range ctxs {
			sources = append(sources, map[string]string{"text": c})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"answer": a.Text, "sources": sources}})
	}))
}

// TestRAGEndpoint: a RAG service behind rag-endpoint is asked the original
// and perturbed questions alone; its query-robustness outcomes and its
// retrieval hit rate reach ClickHouse; it gets no document or cross cells
// and no closed-book request, and every pairing set closes.
func TestRAGEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	corpus := writeCorpus(t)
	svc := ragService(t, corpus)
	defer svc.Close()
	models := filepath.Join(t.TempDir(), "models.yaml")
	yaml := fmt.Sprintf("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: support-bot, kind: rag-endpoint, url: %q, question_field: input.query, answer_field: data.answer, contexts_field: data.sources}\n", svc.URL)
	if err := os.WriteFile(models, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "dir:" + corpus, "--data-dir", data, "--models", models, "--log-level", "error"}, &out, &errb); code != 0 {
		t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	if !strings.Contains(out.String(), "open pairings 0") {
		t.Errorf("pairings left open:\n%s", out.String())
	}
	q := func(sql string) int64 { return sqlCount(t, sql, "--data-dir", data) }
	if n := q("SELECT count() FROM robustream.outcomes WHERE model_id = 'support-bot' AND metric = 'f' AND axis = 'query'"); n == 0 {
		t.Error("no query-robustness outcome for the RAG service")
	}
	if n := q("SELECT count() FROM robustream.outcomes WHERE model_id = 'support-bot' AND axis NOT IN ('original', 'query')"); n != 0 {
		t.Errorf("%d outcomes of axes that do not apply to a RAG service", n)
	}
	if n := q("SELECT count() FROM robustream.eval_results WHERE model_id = 'support-bot' AND (closed_book OR error != '')"); n != 0 {
		t.Errorf("%d closed-book or failed results for the RAG service", n)
	}
	hits := q("SELECT count() FROM robustream.outcomes WHERE model_id = 'support-bot' AND metric = 'retrieval_hit'")
	fs := q("SELECT count() FROM robustream.outcomes WHERE model_id = 'support-bot' AND metric = 'f'")
	if hits == 0 || hits != fs {
		t.Errorf("%d retrieval-hit outcomes for %d f outcomes: want one per answer", hits, fs)
	}
	rate := robustream(t, "sql", "--data-dir", data, "SELECT round(hit_rate, 3), n FROM robustream.retrieval_hit_rates WHERE model_id = 'support-bot'")
	var r float64
	var n int64
	if _, err := fmt.Sscan(rate, &r, &n); err != nil || n != hits || r <= 0 || r > 1 {
		t.Errorf("retrieval_hit_rates: %q (want a rate in (0, 1] over %d answers)", rate, hits)
	}
	// The built-in reader still gets the whole product, closed book included.
	if n := q("SELECT count() FROM robustream.outcomes WHERE model_id = 'builtin:lexical' AND axis IN ('document', 'cross')"); n == 0 {
		t.Error("the built-in model lost its document and cross cells")
	}
	t.Logf("RAG service: %d answers, retrieval hit rate %s", fs, strings.TrimSpace(rate))
}
