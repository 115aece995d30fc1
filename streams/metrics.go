package streams

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the per-stage Prometheus series served on /metrics
// (docs/architecture.md, HTTP API): throughput, lag, errors, retries and dead
// letters. A nil *Metrics records nothing.
type Metrics struct {
	In      *prometheus.CounterVec
	Out     *prometheus.CounterVec
	Errors  *prometheus.CounterVec
	Retries *prometheus.CounterVec
	DLQ     *prometheus.CounterVec
	Lag     *prometheus.GaugeVec
	Batch   *prometheus.HistogramVec
}

// NewMetrics registers the stage metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		In: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "robustream_stage_messages_in_total", Help: "Messages a stage consumed and committed.",
		}, []string{"stage"}),
		Out: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "robustream_stage_records_out_total", Help: "Records a stage produced (or rows a sink wrote).",
		}, []string{"stage"}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "robustream_stage_errors_total", Help: "Failed attempts to process a message or write a batch.",
		}, []string{"stage"}),
		Retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "robustream_stage_retries_total", Help: "Retries after a transient error.",
		}, []string{"stage"}),
		DLQ: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "robustream_stage_dlq_total", Help: "Messages a stage sent to the dead-letter topic.",
		}, []string{"stage"}),
		Lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "robustream_stage_lag", Help: "Uncommitted messages on a stage's input topics.",
		}, []string{"stage"}),
		Batch: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "robustream_stage_batch_seconds", Help: "Time to process and commit one batch.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14),
		}, []string{"stage"}),
	}
	reg.MustRegister(m.In, m.Out, m.Errors, m.Retries, m.DLQ, m.Lag, m.Batch)
	return m
}

func (m *Metrics) add(vec func(*Metrics) *prometheus.CounterVec, stage string, n int) {
	if m == nil || n == 0 {
		return
	}
	vec(m).WithLabelValues(stage).Add(float64(n))
}

func (m *Metrics) observe(stage string, seconds float64) {
	if m == nil {
		return
	}
	m.Batch.WithLabelValues(stage).Observe(seconds)
}

// SetLag records the lag of a stage.
func (m *Metrics) SetLag(stage string, lag int64) {
	if m == nil {
		return
	}
	m.Lag.WithLabelValues(stage).Set(float64(lag))
}

func mIn(m *Metrics) *prometheus.CounterVec      { return m.In }
func mOut(m *Metrics) *prometheus.CounterVec     { return m.Out }
func mErrs(m *Metrics) *prometheus.CounterVec    { return m.Errors }
func mRetries(m *Metrics) *prometheus.CounterVec { return m.Retries }
func mDLQ(m *Metrics) *prometheus.CounterVec     { return m.DLQ }

// Init creates every series of stages at zero: an alert on the rate of
// errors, retries or dead letters has a series to read before the first
// one happens.
func (m *Metrics) Init(stages ...string) {
	if m == nil {
		return
	}
	for _, s := range stages {
		for _, v := range []*prometheus.CounterVec{m.In, m.Out, m.Errors, m.Retries, m.DLQ} {
			v.WithLabelValues(s)
		}
		m.Lag.WithLabelValues(s)
		m.Batch.WithLabelValues(s)
	}
}
