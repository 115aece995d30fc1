package simserver

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// scrape reads /metrics as a Prometheus text-format parser would and
// returns each sample's value by its name with labels, as written.
func scrape(t *testing.T, s *Server) map[string]float64 {
	t.Helper()
	resp, err := newClient(t).Get(strings.TrimSuffix(s.BaseURL(), "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	typed := map[string]bool{}
	for sc := bufio.NewScanner(strings.NewReader(string(b))); sc.Scan(); {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			f := strings.Fields(name)
			if len(f) != 2 || (f[1] != "gauge" && f[1] != "counter") {
				t.Errorf("bad TYPE line %q", line)
			}
			typed[f[0]] = true
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("bad sample line %q", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad value in %q: %v", line, err)
		}
		series := line[:i]
		if name, _, _ := strings.Cut(series, "{"); !typed[name] {
			t.Errorf("sample %q before its TYPE line", line)
		}
		out[series] = v
	}
	return out
}

func TestMetrics(t *testing.T) {
	s, g := startGated(t, with(Config{MaxNumSeqs: 2, Model: "m"}))
	gauge := func(m map[string]float64, name string) float64 {
		t.Helper()
		v, ok := m[name+`{model_name="m"}`]
		if !ok {
			t.Fatalf("no %s in %v", name, m)
		}
		return v
	}
	m := scrape(t, s)
	if gauge(m, "vllm:num_requests_running") != 0 || gauge(m, "vllm:num_requests_waiting") != 0 {
		t.Errorf("idle server: %v", m)
	}

	const n = 5
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			prompt := fmt.Sprint("hold ", i, strings.Repeat(" shared words of a long prefix", 10))
			if r := post(nil, s, "/completions", map[string]any{"model": "m", "prompt": prompt}); r.status != http.StatusOK {
				t.Errorf("request %d: %v %d", i, r.err, r.status)
			}
		})
	}
	waitFor(t, "a queue", func() bool { st := s.Stats(); return st.Running == 2 && st.Waiting == n-2 })
	m = scrape(t, s)
	if gauge(m, "vllm:num_requests_running") != 2 || gauge(m, "vllm:num_requests_waiting") != n-2 {
		t.Errorf("saturated server: running %v waiting %v", gauge(m, "vllm:num_requests_running"), gauge(m, "vllm:num_requests_waiting"))
	}
	g.release()
	wg.Wait()

	m = scrape(t, s)
	st := s.Stats()
	if q, h := gauge(m, "vllm:prefix_cache_queries_total"), gauge(m, "vllm:prefix_cache_hits_total"); q != float64(st.PromptTokens) || h != float64(st.CachedTokens) {
		t.Errorf("prefix cache counters %v/%v, stats %d/%d", h, q, st.CachedTokens, st.PromptTokens)
	}
	success := m[`vllm:request_success_total{finished_reason="stop",model_name="m"}`] + m[`vllm:request_success_total{finished_reason="length",model_name="m"}`]
	if success != n || gauge(m, "vllm:prompt_tokens_total") != float64(st.PromptTokens) || gauge(m, "vllm:generation_tokens_total") != float64(st.CompletionTokens) {
		t.Errorf("after %d requests: %v", n, m)
	}

	// A restarted server starts its counters afresh; Stats carry over.
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	m = scrape(t, s)
	if gauge(m, "vllm:prefix_cache_queries_total") != 0 || m[`vllm:request_success_total{finished_reason="stop",model_name="m"}`] != 0 {
		t.Errorf("after restart: %v", m)
	}
	if s.Stats().Completed != n {
		t.Errorf("Stats lost by a restart: %+v", s.Stats())
	}
}

func TestEscapeLabel(t *testing.T) {
	if got := escapeLabel("a\"b\\c\nd"); got != `a\"b\\c\nd` {
		t.Errorf("escapeLabel = %s", got)
	}
}
