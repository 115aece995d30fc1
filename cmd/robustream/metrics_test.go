package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/robustream/robustream/processors/provider"
)

// TestMetricsFromStart: /metrics of a process that has just started lists
// the error, retry and dead-letter counters of every stage it runs and the
// per-model series (calls by status class, latency histogram, tokens) of
// every model, at zero, before any event.
func TestMetricsFromStart(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler()) // never called: --skip-models-check, no source
	defer srv.Close()
	models := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(models, []byte(fmt.Sprintf("models:\n  - {id: builtin:lexical, kind: builtin}\n  - {id: gpu-a, kind: openai, base_url: %s/v1, model: m}\n", srv.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	engine := startBackground(t, "run", "--data-dir", t.TempDir(), "--http", addr, "--source", "none", "--models", models,
		"--skip-models-check", "--stages", "fanout,infer,pair")
	engine.waitListening(t, addr, time.Minute)
	status, body, err := httpGet("http://" + addr + "/metrics")
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", status, err)
	}
	for _, stage := range []string{"fanout", "infer", "pair"} {
		for _, name := range []string{"robustream_stage_errors_total", "robustream_stage_retries_total", "robustream_stage_dlq_total", "robustream_stage_messages_in_total"} {
			if want := fmt.Sprintf(`%s{stage="%s"} 0`, name, stage); !strings.Contains(body, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		if want := fmt.Sprintf(`robustream_stage_batch_seconds_count{stage="%s"} 0`, stage); !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, `stage="chunk"`) {
		t.Error("/metrics has series of chunk, a stage this process does not run")
	}
	for _, model := range []string{"builtin:lexical", "gpu-a"} {
		for _, s := range provider.StatusClasses {
			if want := fmt.Sprintf(`robustream_model_requests_total{model="%s",status="%s"} 0`, model, s); !strings.Contains(body, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		for _, want := range []string{
			fmt.Sprintf(`robustream_model_request_seconds_count{model="%s"} 0`, model),
			fmt.Sprintf(`robustream_model_tokens_total{direction="in",model="%s"} 0`, model),
			fmt.Sprintf(`robustream_model_tokens_total{direction="out",model="%s"} 0`, model),
		} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	}
}

// TestMetricsModelCalls: the per-model series count real HTTP calls of an
// openai client: a 200 with usage (2xx, tokens in and out), a 500 (5xx), a
// 404 (4xx), a reply slower than the timeout (timeout) and a closed port
// (error), each with its latency observed.
func TestMetricsModelCalls(t *testing.T) {
	var mode string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode {
		case "ok":
			fmt.Fprint(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"42"},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":2}}`)
		case "500":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "404":
			http.NotFound(w, r)
		case "slow":
			time.Sleep(300 * time.Millisecond)
			fmt.Fprint(w, `{}`)
		}
	}))
	defer srv.Close()
	reg := prometheus.NewRegistry()
	m := newModelMetrics(reg)
	m.init("gpu-a", "gone")
	provider.SetObserver(m)
	defer provider.SetObserver(nil)
	c, err := provider.NewOpenAI("gpu-a", provider.OpenAIOptions{BaseURL: srv.URL + "/v1", Model: "m", Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, mode = range []string{"ok", "ok", "500", "404", "slow"} {
		_, _ = c.Answer(ctx, provider.Query{Question: "q?"})
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	g, err := provider.NewOpenAI("gone", provider.OpenAIOptions{BaseURL: deadURL + "/v1", Model: "m", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = g.Answer(ctx, provider.Query{Question: "q?"})
	for _, c := range []struct {
		model, status string
		want          float64
	}{{"gpu-a", "2xx", 2}, {"gpu-a", "5xx", 1}, {"gpu-a", "4xx", 1}, {"gpu-a", "timeout", 1}, {"gpu-a", "error", 0}, {"gone", "error", 1}, {"gone", "2xx", 0}} {
		if got := metricValue(t, m.calls.WithLabelValues(c.model, c.status)); got != c.want {
			t.Errorf("%s %s: %v calls, want %v", c.model, c.status, got, c.want)
		}
	}
	if in, out := metricValue(t, m.tokens.WithLabelValues("gpu-a", "in")), metricValue(t, m.tokens.WithLabelValues("gpu-a", "out")); in != 22 || out != 4 {
		t.Errorf("tokens in %v out %v, want 22 and 4", in, out)
	}
	for model, want := range map[string]uint64{"gpu-a": 5, "gone": 1} {
		var d dto.Metric
		if err := m.latency.WithLabelValues(model).(prometheus.Metric).Write(&d); err != nil {
			t.Fatal(err)
		}
		if got := d.GetHistogram().GetSampleCount(); got != want {
			t.Errorf("%s's latency histogram counts %d calls, want %d", model, got, want)
		}
		if model == "gpu-a" && d.GetHistogram().GetSampleSum() < 0.1 {
			t.Errorf("gpu-a's latencies sum to %vs; its timed-out call alone took 0.1s", d.GetHistogram().GetSampleSum())
		}
	}
}

// metricValue reads a counter.
func metricValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var d dto.Metric
	if err := c.Write(&d); err != nil {
		t.Fatal(err)
	}
	return d.GetCounter().GetValue()
}
