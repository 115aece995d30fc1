package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc/pool"
	"golang.org/x/term"

	"github.com/robustream/robustream/processors/drift"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/streams"
)

// errDrained ends eval --once: every stage has drained.
var errDrained = errors.New("drained")

var runKeys = []string{"data_dir", "http", "stages.*", "source", "models", "kafka.brokers", "kafka.sasl_mechanism",
	"kafka.sasl_user", "kafka.sasl_password_env", "kafka.sasl_password_file", "kafka.tls", "kafka.tls_ca_file", "kafka.partitions",
	"clickhouse.url", "clickhouse.chdb_lib", "clickhouse.cluster", "demo.seed", "demo.periods", "demo.interval", "log.level", "log.format",
	"http_token_env", "http_allowed_hosts", "http_metrics_public", "http_read_timeout", "http_idle_timeout",
	"http_max_conns", "http_max_conns_per_client", "http_auth_failures_per_minute", "sql.timeout", "sql.max_memory_mb",
	"sql.max_result_rows", "sql.max_result_mb", "sql.max_threads", "sql.max_concurrency", "alerts.*"}

func cmdRun(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	skipCheck := fs.Bool("skip-models-check", false, "start without probing every model first (robustream models check)")
	cfg, err := parseConfig(fs, args, stdout, runKeys...)
	if err != nil {
		return err
	}
	log := newLogger(cfg.Log)
	if !*skipCheck && (len(cfg.Stages.Run) == 0 || contains(cfg.Stages.Run, reader.StageName)) {
		if err := checkBeforeStart(ctx, cfg, log); err != nil {
			return err
		}
	}
	withSinks := len(cfg.Stages.Run) == 0 || hasSinks(cfg.Stages.Run) || contains(cfg.Stages.Run, drift.StageName)
	e, err := startEngine(ctx, cfg, log, withSinks)
	if err != nil {
		return err
	}
	defer e.close()
	stages, inputs, err := e.stages(cfg.Stages.Run)
	if err != nil {
		return err
	}
	periodic, err := e.periodic(cfg.Stages.Run)
	if err != nil {
		return err
	}
	if err := e.runner.CheckCommitted(ctx, inputs); err != nil {
		return err
	}
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
	if cfg.HTTP != "" {
		srv, err := newServer(e, cfg.HTTP)
		if err != nil {
			return err
		}
		api, src, err := e.startIngest(ctx, srv.token)
		if err != nil {
			return err
		}
		srv.ingest = api
		p.Go(func(ctx context.Context) error {
			return e.runner.RunSource(ctx, src, streams.SourceOptions{MaxLag: 20000, Watch: map[string][]string{"chunk": {streams.TopicDocuments}}})
		})
		p.Go(srv.serve)
		if err := writeEngineInfo(cfg.DataDir, srv.addr); err != nil {
			return err
		}
		defer os.Remove(infoPath(cfg.DataDir))
		fmt.Fprintf(stdout, "robustream is running: dashboard http://%s/  (Ctrl-C to stop)\n", srv.addr)
	}
	p.Go(func(ctx context.Context) error { return e.runner.RunAll(ctx, stages) })
	for _, src := range periodic {
		p.Go(func(ctx context.Context) error { return e.runner.RunSource(ctx, src, streams.SourceOptions{}) })
	}
	if cfg.Models != "" {
		p.Go(func(ctx context.Context) error { e.watchModels(ctx, cfg.Models, modelsPoll); return nil })
	}
	if cfg.Source != "" && cfg.Source != "none" && (len(cfg.Stages.Run) == 0 || contains(cfg.Stages.Run, "source")) {
		src, err := e.newSource(ctx, cfg.Source, false)
		if err != nil {
			return err
		}
		p.Go(func(ctx context.Context) error {
			return e.runner.RunSource(ctx, src, streams.SourceOptions{MaxLag: 20000, Watch: map[string][]string{"chunk": {streams.TopicDocuments}}})
		})
	}
	var trim *streams.Trimmer
	if e.broker != nil {
		if trim, err = streams.NewTrimmer(e.runner); err != nil {
			return err
		}
		defer trim.Close()
	}
	p.Go(func(ctx context.Context) error {
		// Lag gauges for /metrics; on the embedded broker, which holds every
		// record in memory, also drop what every consumer has committed and
		// compact the changelogs, so a long run stays bounded.
		for {
			if _, err := e.runner.Lags(ctx, inputs); err != nil && ctx.Err() == nil {
				log.Debug("cannot measure lag", "err", err)
			}
			if trim != nil {
				if err := trim.Trim(ctx, trimmable(inputs)); err != nil && ctx.Err() == nil {
					log.Warn("cannot trim consumed records", "err", err)
				}
				e.broker.Compact()
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(10 * time.Second):
			}
		}
	})
	log.Info("pipeline running", "stages", len(stages))
	err = p.Wait()
	log.Info("shutting down")
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// trimmable maps each topic to the running stages that consume it, keeping
// only topics all of whose consumers in the registry run here: a topic read
// by a stage running elsewhere must not be trimmed under it.
func trimmable(running map[string][]string) map[string][]string {
	all := map[string][]string{}
	for _, spec := range registry() {
		for _, t := range spec.inputs {
			all[t] = append(all[t], spec.name)
		}
	}
	out := map[string][]string{}
	for topic, stages := range all {
		ok := true
		for _, st := range stages {
			if _, here := running[st]; !here {
				ok = false
			}
		}
		if ok {
			out[topic] = stages
		}
	}
	return out
}

func hasSinks(stages []string) bool {
	for _, s := range stages {
		if s == "sinks" || strings.HasPrefix(s, "sink.") {
			return true
		}
	}
	return false
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func cmdEval(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	once := fs.Bool("once", false, "process the source to completion and exit (required)")
	skipCheck := fs.Bool("skip-models-check", false, "start without probing every model first (robustream models check)")
	g := registerGate(fs)
	cfg, err := parseConfigWith(fs, args, stdout, configHooks{
		// No default source: eval --once on nothing in particular used to
		// run the demo feed into ./data without a word.
		defaults: func(c *Config) { c.Source = "" },
		validate: func(c *Config) []error {
			var errs []error
			if c.Source == "" || c.Source == "none" {
				errs = append(errs, errors.New("source: eval --once needs --source (dir:PATH for a folder of documents, or demo for the built-in feed)"))
			}
			return append(errs, g.validate(c)...)
		},
	}, runKeys...)
	if err != nil {
		return err
	}
	if !*once {
		return errors.New("only `eval --once` exists; use `robustream run` for continuous evaluation")
	}
	log := newLogger(cfg.Log)
	started := time.Now()
	if fm := cfg.Stages.Infer.Config.Freshness.Models; len(fm) > 0 {
		// One pass asks nothing again: a miss is the answer.
		log.Warn("eval --once does not track freshness (run does): stages.infer.freshness ignored", "models", fm)
		cfg.Stages.Infer.Config.Freshness.Models = nil
	}
	if err := g.loadBaseline(ctx, cfg); err != nil {
		return err
	}
	if !*skipCheck {
		if err := checkBeforeStart(ctx, cfg, log); err != nil {
			return err
		}
	}
	e, err := startEngine(ctx, cfg, log, true)
	if err != nil {
		return err
	}
	defer e.close()
	stages, inputs, err := e.stages(nil)
	if err != nil {
		return err
	}
	if err := e.runner.CheckCommitted(ctx, inputs); err != nil {
		return err
	}
	src, err := e.newSource(ctx, cfg.Source, true)
	if err != nil {
		return err
	}
	var sourceDone atomic.Bool
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
	p.Go(func(ctx context.Context) error { return e.runner.RunAll(ctx, stages) })
	p.Go(func(ctx context.Context) error {
		err := e.runner.RunSource(ctx, src, streams.SourceOptions{})
		sourceDone.Store(err == nil)
		return err
	})
	prog := newProgress(stdout, log)
	p.Go(func(ctx context.Context) error {
		if err := e.runner.WaitDrained(ctx, inputs, 300*time.Millisecond, sourceDone.Load, prog.update); err != nil {
			return err
		}
		// Sets still open once everything drained can never complete (a
		// result was dead-lettered): count them while the state is loaded.
		e.openPairings = e.countOpenPairings()
		return errDrained // stops the stages
	})
	err = p.Wait()
	if !errors.Is(err, errDrained) {
		if ctx.Err() != nil {
			return errors.New("interrupted before the pipeline drained")
		}
		if err == nil {
			err = errors.New("pipeline stopped before draining")
		}
		return err
	}
	if err := printSummary(ctx, e, src.Emitted.Load(), src.Unchanged.Load(), time.Since(started), stdout); err != nil {
		return err
	}
	return g.run(ctx, e, cfg, started, stdout)
}

// checkBeforeStart probes the models of cfg (preflight) before the engine
// starts.
func checkBeforeStart(ctx context.Context, cfg *Config, log *slog.Logger) error {
	set, err := loadModels(cfg.Models)
	if err != nil {
		return err
	}
	return preflight(ctx, set, log)
}

// progress renders stage progress: bars on a terminal, log lines otherwise.
type progress struct {
	w       io.Writer
	log     *slog.Logger
	tty     bool
	last    time.Time
	printed bool
}

func newProgress(w io.Writer, log *slog.Logger) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &progress{w: w, log: log, tty: tty}
}

func (p *progress) update(lags map[string]streams.Lag) {
	names := make([]string, 0, len(lags))
	for n := range lags {
		if !strings.HasPrefix(n, "sink.") {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return stageOrder(names[i]) < stageOrder(names[j]) })
	var sinkDone, sinkAll int64
	for n, l := range lags {
		if strings.HasPrefix(n, "sink.") {
			sinkDone += l.Ends - l.Remaining
			sinkAll += l.Ends
		}
	}
	if p.tty {
		var b strings.Builder
		if p.printed {
			fmt.Fprintf(&b, "\x1b[%dA", len(names)+1)
		}
		for _, n := range names {
			l := lags[n]
			fmt.Fprintf(&b, "\r\x1b[K%-10s %s %d/%d\n", n, bar(l.Ends-l.Remaining, l.Ends), l.Ends-l.Remaining, l.Ends)
		}
		fmt.Fprintf(&b, "\r\x1b[K%-10s %s %d/%d\n", "clickhouse", bar(sinkDone, sinkAll), sinkDone, sinkAll)
		fmt.Fprint(p.w, b.String())
		p.printed = true
		return
	}
	if time.Since(p.last) < 5*time.Second {
		return
	}
	p.last = time.Now()
	attrs := []any{}
	for _, n := range names {
		attrs = append(attrs, n, fmt.Sprintf("%d/%d", lags[n].Ends-lags[n].Remaining, lags[n].Ends))
	}
	attrs = append(attrs, "clickhouse", fmt.Sprintf("%d/%d", sinkDone, sinkAll))
	p.log.Info("progress", attrs...)
}

func bar(done, all int64) string {
	const width = 30
	n := width
	if all > 0 {
		n = int(done * width / all)
	}
	return "[" + strings.Repeat("█", n) + strings.Repeat("·", width-n) + "]"
}

func stageOrder(name string) int {
	for i, n := range stageNames() {
		if n == name {
			return i
		}
	}
	return 1 << 20
}
