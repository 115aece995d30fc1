package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// queueGauges are, per server, its gauges of the requests it is running and
// of those waiting in its queue, as each server names them in its
// Prometheus metrics (GET /metrics beside /v1). The first pair found for
// this client's model is read.
var queueGauges = []struct{ server, running, waiting string }{
	// vLLM's "Production Metrics" page; labelled model_name.
	{"vLLM", "vllm:num_requests_running", "vllm:num_requests_waiting"},
	// SGLang's "Production Metrics" reference (server started with
	// --enable-metrics); labelled model_name.
	{"SGLang", "sglang:num_running_reqs", "sglang:num_queue_reqs"},
	// Text Generation Inference's metrics reference: the current batch
	// and the queue; unlabelled, one model per server.
	{"TGI", "tgi_batch_current_size", "tgi_queue_size"},
	// llama.cpp's llama-server (started with --metrics),
	// tools/server/README.md "Available metrics"; unlabelled.
	{"llama.cpp", "llamacpp:requests_processing", "llamacpp:requests_deferred"},
}

// ErrNoLoad says that a server publishes no queue gauges this client can
// use: no /metrics, none of queueGauges, or gauges for other served models
// only (the error then names them). It does not pass with time, so a
// caller stops asking and goes by latency and errors instead.
var ErrNoLoad = errors.New("no queue gauges")

// ErrNoLoadForModel is the ErrNoLoad of a server that publishes queue
// gauges, but for other served model names only (a vLLM started with
// --served-model-name other than the model asked for, a shared gateway):
// worth a warning, since the window then goes without the gauges.
var ErrNoLoadForModel = fmt.Errorf("%w for this model", ErrNoLoad)

// Load returns how many requests the server is running and how many wait in
// its queue, read from the gauges of vLLM, SGLang, TGI or llama.cpp's server
// (queueGauges) for this client's model when they are labelled by model.
// The infer stage's automatic window steers by it, so that a few requests
// always wait on the server and its batch never runs short. A server
// without any of them (OpenAI, Ollama, a server started without its metrics
// flag), or with them for another served model name only, answers an error
// wrapping ErrNoLoad, and the window then goes by latency and errors
// instead; other errors (the server unreachable for a moment) may pass.
func (c *OpenAI) Load(ctx context.Context) (running, waiting float64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.metricsURL.String(), nil)
	if err != nil {
		return 0, 0, err
	}
	c.remote.setHeaders(req.Header)
	resp, err := c.remote.client.Do(req)
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s: %w", c.id, c.metricsURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("%s %s: HTTP %d: %w", c.id, c.metricsURL, resp.StatusCode, ErrNoLoad)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		// Not Prometheus text (an HTML page, a proxy's answer): asking
		// again will not change that.
		return 0, 0, fmt.Errorf("%s %s: %v: %w", c.id, c.metricsURL, err, ErrNoLoad)
	}
	var others []string // served names of the gauges that are not ours
	for _, g := range queueGauges {
		r, okR := c.gauge(families[g.running])
		w, okW := c.gauge(families[g.waiting])
		if okR && okW {
			return r, w, nil
		}
		for _, name := range []string{g.running, g.waiting} {
			others = append(others, modelNames(families[name])...)
		}
	}
	if len(others) > 0 {
		slices.Sort(others)
		return 0, 0, fmt.Errorf("%s %s: queue gauges for model_name %s, none for %q: %w",
			c.id, c.metricsURL, strings.Join(slices.Compact(others), ", "), c.model, ErrNoLoadForModel)
	}
	return 0, 0, fmt.Errorf("%s %s: %w (none of vLLM's, SGLang's, TGI's or llama.cpp's)", c.id, c.metricsURL, ErrNoLoad)
}

// modelNames returns the model_name labels of a family's metrics.
func modelNames(f *dto.MetricFamily) []string {
	var names []string
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "model_name" {
				names = append(names, l.GetValue())
			}
		}
	}
	return names
}

// gauge sums a family's gauges of this client's model (all of them when
// they carry no model_name label).
func (c *OpenAI) gauge(f *dto.MetricFamily) (float64, bool) {
	if f == nil {
		return 0, false
	}
	sum, found := 0.0, false
	for _, m := range f.GetMetric() {
		mine := true
		for _, l := range m.GetLabel() {
			if l.GetName() == "model_name" && l.GetValue() != c.model {
				mine = false
			}
		}
		if mine && m.GetGauge() != nil {
			sum += m.GetGauge().GetValue()
			found = true
		}
	}
	return sum, found
}
