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

// metrics writes vLLM's metrics that a client sizing its in-flight window
// reads, under vLLM's names and in the Prometheus text format: the gauges
// of running and waiting sequences, the prefix cache counters (in tokens)
// and the successes by finish reason.
func (s *Server) metrics(_ context.Context, w http.ResponseWriter, _ *http.Request, l *life) {
	s.mu.Lock()
	running, waiting := l.slots.running, l.slots.queue.Len()
	v := l.vllm
	success := make([]int, len(finishReasons))
	for i, r := range finishReasons {
		success[i] = v.success[r]
	}
	s.mu.Unlock()

	label := `model_name="` + escapeLabel(s.cfg.Model) + `"`
	var b strings.Builder
	metric := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
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
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write([]byte(b.String())) // a failed write means the scraper is gone
}

// escapeLabel escapes a label value for the text format.
func escapeLabel(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}
