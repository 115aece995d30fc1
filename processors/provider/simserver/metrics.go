package simserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// vllmCounters are the /metrics counters of one life. They start at zero
// with every Restart, as a restarted vLLM's do; Prometheus's rate()
// handles the reset.
type vllmCounters struct {
	queried, hits                  int            // prompt tokens looked up in, and found in, the prefix cache
	promptTokens, generationTokens int            // of the sequences answered
	success                        map[string]int // by finish reason
}

// finishReasons are the finish reasons the server gives, all listed in
// /metrics even at zero, as vLLM lists its own.
var finishReasons = []string{"length", "stop"}

// MetricsFlavor names a server whose queue gauges /metrics publishes.
type MetricsFlavor string

// The flavors. Each publishes its server's gauges of running and queued
// requests under that server's own names, as documented by it:
//   - vLLM: vllm:num_requests_running, vllm:num_requests_waiting, labelled
//     model_name, with the prefix cache and success counters (vLLM's
//     "Production Metrics" page);
//   - SGLang (started with --enable-metrics): sglang:num_running_reqs,
//     sglang:num_queue_reqs, labelled model_name (SGLang's "Production
//     Metrics" reference);
//   - TGI: tgi_batch_current_size, tgi_queue_size, unlabelled (TGI's
//     metrics reference: one model per server);
//   - llama.cpp's llama-server (started with --metrics):
//     llamacpp:requests_processing, llamacpp:requests_deferred, unlabelled
//     (tools/server/README.md, "Available metrics");
//   - none: /metrics answers 404, as OpenAI, Ollama or a server started
//     without its metrics flag do.
const (
	MetricsVLLM     MetricsFlavor = "vllm"
	MetricsSGLang   MetricsFlavor = "sglang"
	MetricsTGI      MetricsFlavor = "tgi"
	MetricsLlamaCpp MetricsFlavor = "llamacpp"
	MetricsNone     MetricsFlavor = "none"
)

// metrics writes the metrics of cfg.Metrics's server that a client sizing
// its in-flight window reads, in the Prometheus text format: the gauges of
// running and waiting sequences and, for vLLM, the prefix cache counters (in
// tokens) and the successes by finish reason.
func (s *Server) metrics(_ context.Context, w http.ResponseWriter, _ *http.Request, l *life) {
	if s.cfg.Metrics == MetricsNone {
		http.NotFound(w, nil)
		return
	}
	s.mu.Lock()
	running, waiting := l.slots.running, l.slots.queue.Len()
	v := l.vllm
	success := make([]int, len(finishReasons))
	for i, r := range finishReasons {
		success[i] = v.success[r]
	}
	s.mu.Unlock()

	label := `model_name="` + escapeLabel(s.cfg.MetricsModel) + `"`
	var b strings.Builder
	metric := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	switch s.cfg.Metrics {
	case MetricsSGLang:
		metric("sglang:num_running_reqs", "gauge", "The number of running requests")
		fmt.Fprintf(&b, "sglang:num_running_reqs{%s} %d\n", label, running)
		metric("sglang:num_queue_reqs", "gauge", "The number of requests in the waiting queue")
		fmt.Fprintf(&b, "sglang:num_queue_reqs{%s} %d\n", label, waiting)
	case MetricsTGI:
		metric("tgi_batch_current_size", "gauge", "Current batch size")
		fmt.Fprintf(&b, "tgi_batch_current_size %d\n", running)
		metric("tgi_queue_size", "gauge", "Current queue size")
		fmt.Fprintf(&b, "tgi_queue_size %d\n", waiting)
	case MetricsLlamaCpp:
		metric("llamacpp:requests_processing", "gauge", "Number of requests processing.")
		fmt.Fprintf(&b, "llamacpp:requests_processing %d\n", running)
		metric("llamacpp:requests_deferred", "gauge", "Number of requests deferred.")
		fmt.Fprintf(&b, "llamacpp:requests_deferred %d\n", waiting)
	default:
		metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.")
		fmt.Fprintf(&b, "vllm:num_requests_running{%s} %d\n", label, running)
		metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.")
		fmt.Fprintf(&b, "vllm:num_requests_waiting{%s} %d\n", label, waiting)
		metric("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.")
		fmt.Fprintf(&b, "vllm:prefix_cache_queries_total{%s} %d\n", label, v.queried)
		metric("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.")
		fmt.Fprintf(&b, "vllm:prefix_cache_hits_total{%s} %d\n", label, v.hits)
		metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.")
		fmt.Fprintf(&b, "vllm:prompt_tokens_total{%s} %d\n", label, v.promptTokens)
		metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.")
		fmt.Fprintf(&b, "vllm:generation_tokens_total{%s} %d\n", label, v.generationTokens)
		metric("vllm:request_success_total", "counter", "Count of successfully processed requests.")
		for i, r := range finishReasons {
			fmt.Fprintf(&b, "vllm:request_success_total{finished_reason=\"%s\",%s} %d\n", escapeLabel(r), label, success[i])
		}
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write([]byte(b.String())) // a failed write means the scraper is gone
}

// escapeLabel escapes a label value for the text format.
func escapeLabel(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}
