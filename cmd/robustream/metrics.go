package main

import (
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robustream/robustream/processors/provider"
)

// modelMetrics are the per-model series of /metrics, fed by the remote
// clients (provider.SetObserver): every HTTP call by status class with its
// latency, and the tokens completions report. A model of models.yaml has
// its series from start, at zero.
type modelMetrics struct {
	calls   *prometheus.CounterVec
	latency *prometheus.HistogramVec
	tokens  *prometheus.CounterVec
}

func newModelMetrics(reg prometheus.Registerer) *modelMetrics {
	m := &modelMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "robustream_model_requests_total",
			Help: "HTTP calls to a model's server (answers, embeddings, probes) by status class: 2xx, 4xx, 5xx, timeout (no complete reply within the model's timeout) or error (no reply).",
		}, []string{"model", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "robustream_model_request_seconds",
			Help:    "Time from sending a call to a model's server to its whole reply, every status class.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 14), // 10ms .. ~82s
		}, []string{"model"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "robustream_model_tokens_total",
			Help: "Tokens the completions of a model reported (usage): direction in (prompt) or out (completion). Answers from the cache are not counted.",
		}, []string{"model", "direction"}),
	}
	reg.MustRegister(m.calls, m.latency, m.tokens)
	return m
}

// init creates the series of models at zero.
func (m *modelMetrics) init(models ...string) {
	for _, id := range models {
		for _, s := range provider.StatusClasses {
			m.calls.WithLabelValues(id, s)
		}
		m.latency.WithLabelValues(id)
		m.tokens.WithLabelValues(id, "in")
		m.tokens.WithLabelValues(id, "out")
	}
}

// Call implements provider.Observer.
func (m *modelMetrics) Call(model, status string, d time.Duration) {
	m.calls.WithLabelValues(model, status).Inc()
	m.latency.WithLabelValues(model).Observe(d.Seconds())
}

// Tokens implements provider.Observer.
func (m *modelMetrics) Tokens(model string, in, out int) {
	m.tokens.WithLabelValues(model, "in").Add(float64(in))
	m.tokens.WithLabelValues(model, "out").Add(float64(out))
}

// exposeMetrics registers the per-model series and creates every series
// the process will have at zero: the stages it runs (errors, retries, dead
// letters and the rest) and its models, generator and embedder.
func (e *engine) exposeMetrics() {
	e.modelMetrics = newModelMetrics(e.reg)
	provider.SetObserver(e.modelMetrics)
	ids := e.models.ids()
	for _, s := range []any{e.models.generator, e.models.embedder} {
		if s, ok := s.(interface{ ID() string }); ok && s != nil && !slices.Contains(ids, s.ID()) {
			ids = append(ids, s.ID())
		}
	}
	e.modelMetrics.init(ids...)
	var stages []string
	for _, s := range selectStages(e.cfg.Stages.Run) {
		stages = append(stages, s.name)
	}
	for _, s := range periodicStages() {
		if len(e.cfg.Stages.Run) == 0 || slices.Contains(e.cfg.Stages.Run, s.name) {
			stages = append(stages, s.name)
		}
	}
	e.metrics.Init(stages...)
}
