package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// vLLM's gauges of the requests a server is running and holding in its
// queue, per served model (label model_name).
const (
	gaugeRunning = "vllm:num_requests_running"
	gaugeWaiting = "vllm:num_requests_waiting"
)

// ErrNoLoad says that a server does not publish vLLM's queue gauges.
var ErrNoLoad = errors.New("no vLLM queue gauges")

// Load returns how many requests the server is running and how many wait in
// its queue, read from vLLM's Prometheus metrics (GET /metrics beside /v1),
// for this client's model when the gauges are labelled by model. The infer
// stage's automatic window steers by it, so that a few requests always
// wait on the server and its batch never runs short; a server without the
// gauges (OpenAI, most other servers) answers ErrNoLoad, and the window
// then goes by errors and latency instead.
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
		return 0, 0, fmt.Errorf("%s %s: %w", c.id, c.metricsURL, err)
	}
	r, okR := c.gauge(families[gaugeRunning])
	w, okW := c.gauge(families[gaugeWaiting])
	if !okR || !okW {
		return 0, 0, fmt.Errorf("%s %s: %w", c.id, c.metricsURL, ErrNoLoad)
	}
	return r, w, nil
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
