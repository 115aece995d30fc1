package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/streams"
)

// inferInFlight is the infer stage's window per partition: how many
// requests may be under way at once, across its models, before the stage
// stops fetching. Each model's own window (max_in_flight) bounds the calls
// to its server; this one only has to be wide enough to keep every model's
// window full.
const inferInFlight = 256

// inferStage is the registry entry of the infer stage: a windowed stage
// (no batch barrier) whose answers also go to its changelog.
func inferStage() stageSpec {
	outputs := reader.Outputs()
	return stageSpec{name: reader.StageName, inputs: []string{streams.TopicEvalRequests}, outputs: outputs,
		build: func(e *engine) (streams.Stage, error) {
			rc := e.cfg.Stages.Infer.Config
			rc.Models = e.models.byID
			cache, err := e.answerCache()
			if err != nil {
				return streams.Stage{}, fmt.Errorf("stage %s: %w", reader.StageName, err)
			}
			rc.Cache = cache
			rc.Now = clock
			if e.models.embedder != nil {
				rc.Embedder = e.models.embedder
			}
			if e.models.generator != nil {
				rc.Generator = e.models.generator
			}
			if rc.Budget, err = e.budget(); err != nil {
				return streams.Stage{}, fmt.Errorf("stage %s: %w", reader.StageName, err)
			}
			st, err := reader.NewStage(rc)
			if err != nil {
				return streams.Stage{}, fmt.Errorf("stage %s: %w", reader.StageName, err)
			}
			e.infer = st
			if err := e.restoreFreshness(st); err != nil {
				return streams.Stage{}, fmt.Errorf("stage %s: %w", reader.StageName, err)
			}
			e.exposeWindows(st)
			stage := streams.Stage{Name: reader.StageName, Inputs: []string{streams.TopicEvalRequests}, Outputs: outputs, Processor: st}
			if hasRemote(e.models) {
				stage.InFlight = inferInFlight
			}
			return stage, nil
		}}
}

// fanoutConfigOf is base (stages.fanout) with the models of set.
func fanoutConfigOf(base fanout.Config, set modelSet) fanout.Config {
	cfg := base
	cfg.Models, cfg.Decoding, cfg.Retrieving = set.ids(), set.decodings(), nil
	cfg.Prompts = set.prompts
	cfg.AxisFamilies = axisFamilies(metricFamilies)
	for _, id := range cfg.Models {
		if provider.Retrieves(set.byID[id]) {
			cfg.Retrieving = append(cfg.Retrieving, id)
		}
	}
	return cfg
}

// hasRemote reports whether a model of set is served over the network.
// Only then is the infer stage windowed: the built-in readers answer in
// microseconds, and batches (one produce call per batch, no goroutine per
// request) serve them twice as fast. A remote model added by a reload of
// models.yaml to an engine started with built-ins only is served in
// batches until the next start.
func hasRemote(set modelSet) bool {
	for _, m := range set.byID {
		if _, remote := provider.LimitsOf(m); remote {
			return true
		}
	}
	return false
}

// answerCache loads the answers already received from the infer stage's
// changelog, once per process (nil without Kafka: --dry-run builds).
func (e *engine) answerCache() (*reader.Cache, error) {
	if e.answers != nil || e.kafka == nil {
		return e.answers, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := streams.NewState(e.kafka, reader.StageName)
	if err := st.RestoreAll(ctx); err != nil {
		return nil, fmt.Errorf("cannot load the answers already received: %w", err)
	}
	c := reader.NewCache()
	st.Range(func(k string, v []byte) bool {
		c.Load(k, v)
		return true
	})
	e.answers = c
	e.log.Info("answers already received", "stage", reader.StageName, "n", c.Len())
	return c, nil
}

// exposeWindows publishes each model's in-flight window and the size of the
// answer cache.
func (e *engine) exposeWindows(st *reader.Stage) {
	if e.windowsExposed {
		return
	}
	e.windowsExposed = true
	for id := range st.Windows() {
		e.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "robustream_infer_window",
			Help:        "Requests a model may have in flight (its in-flight window, adjusted when max_in_flight is auto).",
			ConstLabels: prometheus.Labels{"model": id},
		}, func() float64 { return float64(st.Windows()[id]) }))
	}
	if e.answers != nil {
		c := e.answers
		e.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "robustream_infer_cached_answers",
			Help: "Answers held by request id, never asked for again.",
		}, func() float64 { return float64(c.Len()) }))
	}
}

// modelsPoll is how often `run` looks at models.yaml for changes.
const modelsPoll = 2 * time.Second

// watchModels reloads models.yaml when it changes while the engine runs: a
// model added gets its requests from the next variant on, a model removed
// gets no new ones, a changed one a new dispatcher. A file with errors is
// reported and ignored: the models in use stay.
func (e *engine) watchModels(ctx context.Context, path string, every time.Duration) {
	last := fileStamp(path)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		stamp := fileStamp(path)
		if stamp == last {
			continue
		}
		last = stamp
		set, errs := readModels(path)
		if len(errs) > 0 {
			e.log.Error("models.yaml changed but has errors; the models in use stay", "path", path, "err", errors.Join(errs...))
			continue
		}
		cfg := fanoutConfigOf(e.cfg.Stages.Fanout.Config, set)
		if e.fanout != nil {
			if err := e.fanout.SetModels(cfg); err != nil {
				e.log.Error("models.yaml changed but cannot be used; the models in use stay", "path", path, "err", err)
				continue
			}
		}
		if e.infer != nil {
			e.infer.SetModels(set.byID)
		}
		if e.selfSource != nil {
			e.selfSource.SetModels(selfModels(set)) // a model added gets its source_self cells
		}
		if e.modelMetrics != nil {
			e.modelMetrics.init(set.ids()...) // a model added: its series at zero
		}
		e.recordRevisions(ctx, set)
		e.log.Info("models.yaml reloaded", "path", path, "models", strings.Join(set.ids(), ","))
	}
}

// fileStamp identifies a version of a file by size and modification time.
func fileStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
}
