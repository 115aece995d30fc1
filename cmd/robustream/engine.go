package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

// engine is the running infrastructure of one process: broker (embedded or
// not), Kafka clients, ClickHouse, models, metrics.
type engine struct {
	cfg    *Config
	log    *slog.Logger
	broker *streams.Broker
	kafka  *streams.Kafka
	runner *streams.Runner
	ch     clickhouse.Engine
	// sql runs untrusted SQL (the HTTP API) read-only, within cfg.SQL, on
	// connections of its own.
	sql clickhouse.Reader
	// dash runs the dashboard's own fixed queries, read-only, on sessions
	// apart from sql's: heavy /api/sql queries cannot stall the panels.
	dash      clickhouse.Reader
	models    modelSet
	reg       *prometheus.Registry
	metrics   *streams.Metrics
	pairState *streams.State
	// openPairings is measured when eval --once has drained.
	openPairings int
	// answers are the answers already received (the infer changelog),
	// loaded once; windowsExposed guards its metrics.
	answers *reader.Cache
	// fanout and infer are the stages built from the models, for a reload
	// of models.yaml while running.
	fanout         *fanout.Stage
	questions      *question.Stage
	infer          *reader.Stage
	perturb        *perturb.Stage     // for the coverage's skip reasons
	selfSource     *perturb.SelfStage // source_self's producer, for a reload
	windowsExposed bool
	// cleanup runs last in close (a benchmark's temporary data dir).
	cleanup        []func()
	skippedExposed bool
	// callsExposed guards fan-out's calls collector (cost.go).
	callsExposed bool
	// modelMetrics are the per-model call series (metrics.go).
	modelMetrics *modelMetrics
	// spend is the run's budget (cost.go), nil without one.
	spend *reader.Budget
	// rejectedExposed guards the question stage's rejection counters.
	rejectedExposed bool
	// unscorableExposed guards the pair stage's unscorable-set counters.
	unscorableExposed bool
}

// exposeSkipped publishes, per perturbation kind, how many variants could not
// be made (no eligible word, no WordNet, the answer would leak): coverage
// gaps show on /metrics instead of silently thinning the metrics.
func (e *engine) exposeSkipped(st *perturb.Stage) {
	if e.skippedExposed {
		return // a stage built again (bench) keeps the first one's series
	}
	e.skippedExposed = true
	e.perturb = st
	kinds := st.Skipped()
	for kind := range kinds {
		e.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "robustream_perturbations_skipped_total",
			Help:        "Variants of a perturbation kind that could not be made.",
			ConstLabels: prometheus.Labels{"kind": kind},
		}, func() float64 { return float64(st.Skipped()[kind]) }))
	}
}

// exposeUnscorable publishes, per metric family and reason, how many
// (model, question) sets the family could not score (their closed-book
// request failed, so known/unknown is undefined): sets left out of the
// scores show on /metrics instead of silently counting as unknown.
func (e *engine) exposeUnscorable(st *pair.Stage) {
	if e.unscorableExposed {
		return // a stage built again (bench) keeps the first one's series
	}
	e.unscorableExposed = true
	for key := range st.Unscorable() {
		e.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "robustream_pairings_unscorable_total",
			Help:        "Completed (model, question) sets a metric family emitted no outcome for, by reason.",
			ConstLabels: prometheus.Labels{"family": key.Family, "reason": key.Reason},
		}, func() float64 { return float64(st.Unscorable()[key]) }))
	}
}

// exposeRejected publishes, per reason, how many triplets gave no question
// (no template fits, or a rule check failed), so that a corpus that yields
// few questions says why.
func (e *engine) exposeRejected(st *question.Stage) {
	if e.rejectedExposed {
		return
	}
	e.rejectedExposed = true
	for _, reason := range question.Reasons {
		e.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "robustream_questions_rejected_total",
			Help:        "Triplets that gave no question, by reason: no template fits, or the rule check it failed.",
			ConstLabels: prometheus.Labels{"reason": reason},
		}, func() float64 { return float64(st.Rejected()[reason]) }))
	}
}

// countOpenPairings counts (model, question) sets still waiting for results.
func (e *engine) countOpenPairings() int {
	n := 0
	if e.pairState != nil {
		e.pairState.Range(func(_ string, v []byte) bool {
			if pair.Open(v) {
				n++
			}
			return true
		})
	}
	return n
}

func newLogger(c LogConfig) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: lv}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// startEngine brings up Kafka (the embedded broker unless brokers are
// configured) and ClickHouse (migrated), and loads the models.
func startEngine(ctx context.Context, cfg *Config, log *slog.Logger, withClickHouse bool) (*engine, error) {
	// Locks first: a process refused here has touched no file of the data
	// dir (see datadir.go).
	var parts []string
	if len(cfg.Kafka.Brokers) == 0 {
		parts = append(parts, lockKafka)
	}
	if withClickHouse && cfg.ClickHouse.URL == "" {
		parts = append(parts, lockClickHouse)
	}
	if len(parts) > 0 {
		if err := lockDataDir(cfg.DataDir, parts...); err != nil {
			return nil, err
		}
	}
	e := &engine{cfg: cfg, log: log, reg: prometheus.NewRegistry()}
	ok := false
	defer func() {
		if !ok {
			e.close() // releases the locks too
		}
	}()
	e.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	e.metrics = streams.NewMetrics(e.reg)
	var err error
	if e.models, err = loadModels(cfg.Models); err != nil {
		return nil, err
	}
	e.exposeMetrics()
	kcfg := cfg.Kafka
	if len(kcfg.Brokers) == 0 {
		if e.broker, err = streams.StartBroker(filepath.Join(cfg.DataDir, "kafka"), "", kcfg.Partitions, streams.BrokerLogger(log)); err != nil {
			return nil, err
		}
		// The embedded broker admits only its own SASL user: every client
		// of this process connects with the data dir's credential.
		bc := e.broker.ClientConfig()
		kcfg.Brokers, kcfg.SASLMechanism, kcfg.SASLUser = bc.Brokers, bc.SASLMechanism, bc.SASLUser
		kcfg.SASLPasswordEnv, kcfg.SASLPasswordFile, kcfg.TLS = "", bc.SASLPasswordFile, false
		log.Info("embedded Kafka broker started", "addr", e.broker.Addr(), "dir", filepath.Join(cfg.DataDir, "kafka"))
	}
	if e.kafka, err = streams.NewKafka(kcfg); err != nil {
		return nil, err
	}
	e.runner = streams.NewRunner(e.kafka, log, e.metrics)
	if err := e.kafka.EnsureTopics(ctx, allTopics()...); err != nil {
		return nil, err
	}
	if withClickHouse {
		if e.ch, err = openClickHouse(ctx, cfg); err != nil {
			return nil, err
		}
		if err := clickhouse.MigrateOn(ctx, e.ch, cfg.ClickHouse.Cluster, log); err != nil {
			return nil, err
		}
		if e.ch.Kind() == "chdb" {
			// One writer is guaranteed by chDB's directory lock: repair
			// rollups a crash left behind before any sink writes.
			if _, err := clickhouse.ReconcileRollups(ctx, e.ch, log); err != nil {
				return nil, err
			}
		}
		if e.sql, err = e.ch.ReadOnly(ctx, sqlLimits(cfg.SQL)); err != nil {
			return nil, fmt.Errorf("cannot open the read-only SQL path: %w", err)
		}
		dashLim := sqlLimits(cfg.SQL)
		dashLim.Concurrency = 2
		if e.dash, err = e.ch.ReadOnly(ctx, dashLim); err != nil {
			return nil, fmt.Errorf("cannot open the dashboard's read-only path: %w", err)
		}
		if !e.ch.SupportsDedup() {
			log.Warn("this ClickHouse has no insert deduplication tokens: retried raw inserts are at-least-once (outcomes stay exactly-once by id)")
		}
		e.recordRevisions(ctx, e.models)
	}
	ok = true
	return e, nil
}

func allTopics() []string { return streams.TopicNames() }

func openClickHouse(ctx context.Context, cfg *Config) (clickhouse.Engine, error) {
	if cfg.ClickHouse.URL == "" {
		if err := lockDataDir(cfg.DataDir, lockClickHouse); err != nil {
			return nil, err
		}
	}
	ch, err := clickhouse.Open(ctx, clickhouse.Config{URL: cfg.ClickHouse.URL, DataDir: cfg.DataDir, LibPath: cfg.ClickHouse.ChDBLib})
	if errors.Is(err, clickhouse.ErrNoChDB) {
		return nil, fmt.Errorf("%w\n  run `make setup` to fetch it, or point --clickhouse at a server", err)
	}
	return ch, err
}

// sqlLimits converts the sql.* configuration.
func sqlLimits(c SQLConfig) clickhouse.Limits {
	return clickhouse.Limits{Timeout: c.Timeout, MaxMemoryBytes: c.MaxMemoryMB << 20, MaxResultRows: c.MaxResultRows,
		MaxResultBytes: c.MaxResultMB << 20, MaxThreads: c.MaxThreads, Databases: c.Databases, Concurrency: c.MaxConcurrency}
}

func (e *engine) close() {
	if e.runner != nil {
		e.runner.Close()
	}
	if e.kafka != nil {
		e.kafka.Close()
	}
	if e.sql != nil {
		e.sql.Close()
	}
	if e.dash != nil {
		e.dash.Close()
	}
	if e.ch != nil {
		e.ch.Close()
	}
	if e.broker != nil {
		e.broker.Close()
	}
	unlockDataDir()
	for _, f := range e.cleanup {
		f()
	}
}

// stages builds the named stages (all when empty).
func (e *engine) stages(names []string) ([]streams.Stage, map[string][]string, error) {
	if err := checkTopology(registry(), e.kinds()); err != nil {
		return nil, nil, err
	}
	var out []streams.Stage
	inputs := map[string][]string{}
	for _, spec := range selectStages(names) {
		if e.ch == nil && strings.HasPrefix(spec.name, "sink.") {
			continue
		}
		if spec.enabled != nil && !spec.enabled(e.cfg) {
			continue
		}
		st, err := spec.build(e)
		if err != nil {
			return nil, nil, err
		}
		opts, _ := e.cfg.Stages.options(spec.name)
		opts.Apply(&st)
		out = append(out, st)
		inputs[spec.name] = spec.inputs
	}
	return out, inputs, nil
}

// engineInfo is written to <data-dir>/engine.json while an engine runs, so
// that `sql` and `report` reach it through its HTTP API (chDB locks the data
// directory).
type engineInfo struct {
	PID  int    `json:"pid"`
	HTTP string `json:"http"`
}

func infoPath(dataDir string) string { return filepath.Join(dataDir, "engine.json") }

func writeEngineInfo(dataDir, addr string) error {
	b, _ := json.Marshal(engineInfo{PID: os.Getpid(), HTTP: addr})
	return os.WriteFile(infoPath(dataDir), b, 0o600)
}

// runningEngine returns the info of a live engine on dataDir, if any.
func runningEngine(dataDir string) (engineInfo, bool) {
	b, err := os.ReadFile(infoPath(dataDir))
	if err != nil {
		return engineInfo{}, false
	}
	var info engineInfo
	if json.Unmarshal(b, &info) != nil || info.PID <= 0 || info.HTTP == "" {
		return engineInfo{}, false
	}
	if err := syscall.Kill(info.PID, 0); err != nil {
		return engineInfo{}, false
	}
	return info, true
}
