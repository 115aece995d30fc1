// Command robustream continuously measures how robust RAG systems are: it
// turns streaming documents into questions with known answers, perturbs them,
// asks the models under test, judges and pairs the answers, and keeps rolling
// robustness metrics in ClickHouse.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"syscall"

	"github.com/robustream/robustream/streams"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout io.Writer) error
}

func commands() []command {
	return []command{
		{"run", "run the pipeline (embedded broker, ClickHouse and demo feed by default)", cmdRun},
		{"broker", "run the embedded Kafka broker alone", cmdBroker},
		{"eval", "eval --once: process a finite source to completion, print a summary, exit", cmdEval},
		{"models", "models check: probe every model of models.yaml once and name what is wrong", cmdModels},
		{"ingest", "send documents (FILE, DIR or - for stdin) to a running engine's POST /v1/documents", cmdIngest},
		{"sql", "run a query against the configured ClickHouse", cmdSQL},
		{"report", "print the robustness metrics (RARE, SURE, GRADE, PRGB) per model", cmdReportMetrics},
		{"migrate", "apply the ClickHouse DDL (idempotent)", cmdMigrate},
		{"export", "write the active test set (questions, answers, contexts) as jsonl, ragas or deepeval", cmdExport},
		{"topics", "print the Kafka topics a cluster needs (partitions, cleanup policy), for creating them by hand", cmdTopics},
		{"bench", "measure stage and sink throughput against raw baselines", cmdBench},
		{"version", "print the version", cmdVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "robustream — streaming robustness evaluation for RAG\n\nUsage: robustream <command> [flags]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun `robustream <command> -h` for its flags.\n")
}

func main() {
	// Everything robustream writes (the data dir, engine.json, the broker's
	// log, chDB's parts) is private to the user running it: documents and
	// answers can be confidential.
	syscall.Umask(0o077)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout)
			if err == nil || errors.Is(err, flag.ErrHelp) || errors.Is(err, errDryRunOK) {
				return 0
			}
			fmt.Fprintf(stderr, "robustream %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "robustream: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

var errDryRunOK = errors.New("configuration is valid")

// parseConfig parses a command's flags and loads the configuration.
// With --dry-run it reports the verdict and returns errDryRunOK or the errors.
func parseConfig(fs *flag.FlagSet, args []string, stdout io.Writer, keys ...string) (*Config, error) {
	return parseConfigWith(fs, args, stdout, configHooks{}, keys...)
}

// configHooks let a command change the defaults before the file,
// environment and flags apply, and add checks of its own that --dry-run
// reports with the rest.
type configHooks struct {
	defaults func(*Config)
	validate func(*Config) []error
}

// parseConfigWith is parseConfig with the command's hooks.
func parseConfigWith(fs *flag.FlagSet, args []string, stdout io.Writer, hooks configHooks, keys ...string) (*Config, error) {
	own := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { own[f.Name] = true })
	l := newLoaderWith(fs, hooks.defaults, keys...)
	if err := parseFlags(fs, args, stdout, own); err != nil {
		return nil, err
	}
	cfg, errs := l.load()
	if hooks.validate != nil && cfg != nil {
		errs = append(errs, hooks.validate(cfg)...)
	}
	if l.dryRun && cfg != nil {
		errs = append(errs, dryRunChecks(cfg)...)
		if slices.Contains(keys, "stages.*") {
			errs = append(errs, dryBuild(cfg)...)
		}
	}
	if cfg != nil && fs.Name() == "run" {
		// The one command that serves HTTP: its access rule is checked
		// before anything is opened (and by --dry-run).
		if err := checkHTTPAccess(context.Background(), cfg); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		msg := fmt.Sprintf("%d configuration error(s):", len(errs))
		for _, e := range errs {
			msg += "\n  " + e.Error()
		}
		return nil, errors.New(msg)
	}
	if l.dryRun {
		fmt.Fprintln(stdout, "configuration is valid")
		return nil, errDryRunOK
	}
	return cfg, nil
}

func cmdVersion(_ context.Context, _ []string, stdout io.Writer) error {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok && v == "dev" {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v += "+" + s.Value
			}
		}
	}
	fmt.Fprintf(stdout, "robustream %s\n", v)
	return nil
}

func cmdBroker(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("broker", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:9092", "address to listen on (127.0.0.1 only)")
	cfg, err := parseConfig(fs, args, stdout, "data_dir", "kafka.partitions", "log.level", "log.format")
	if err != nil {
		return err
	}
	log := newLogger(cfg.Log)
	if err := lockDataDir(cfg.DataDir, lockKafka); err != nil {
		return err
	}
	defer unlockDataDir()
	dir := cfg.DataDir + "/kafka"
	b, err := streams.StartBroker(dir, *listen, cfg.Kafka.Partitions, streams.BrokerLogger(log))
	if err != nil {
		return err
	}
	defer b.Close()
	log.Info("embedded Kafka broker listening", "addr", b.Addr(), "dir", dir, "sasl_mechanism", streams.BrokerMechanism,
		"sasl_user", streams.BrokerUser, "password_file", b.PasswordFile())
	fmt.Fprintf(stdout, "broker listening on %s\n%s\n", b.Addr(), b.ConnectHelp())
	<-ctx.Done()
	log.Info("broker stopping")
	return nil
}
