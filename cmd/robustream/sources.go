package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/sources/dir"
	"github.com/robustream/robustream/sources/feed"
	"github.com/robustream/robustream/sources/goldens"
	"github.com/robustream/robustream/sources/jsonl"
	kafkasrc "github.com/robustream/robustream/sources/kafka"
	"github.com/robustream/robustream/streams"
)

// sourceKind is one kind of --source: the prefix before ":" and how to
// build it from the rest.
type sourceKind struct {
	name string
	// usage shows the spec's form, e.g. "dir:PATH".
	usage string
	// check validates arg without building anything (for --dry-run).
	check func(arg string) error
	// build makes the source; finite makes an unbounded source finite
	// (eval --once).
	build func(e *engine, arg string, finite bool) (streams.Source, error)
}

// sourceKinds is the source registry: adding a kind is a file defining it
// and one line here.
var sourceKinds = []sourceKind{demoSource, dirSource, jsonlSource, goldensSource, kafkaSource, feedSource("rss"), feedSource("atom")}

// plannedSources are kinds the documentation names that this build does not
// have: asking for one is a clear error, not "unknown".
var plannedSources = []string{}

var goldensSource = sourceKind{
	name:  "goldens",
	usage: "goldens:PATH",
	check: func(arg string) error {
		if arg == "" {
			return fmt.Errorf("goldens: needs a path (goldens:PATH)")
		}
		return nil
	},
	build: func(e *engine, arg string, _ bool) (streams.Source, error) {
		return goldens.New(goldens.Config{Path: arg, Score: question.ScoreCurated}, e.log)
	},
}

var demoSource = sourceKind{
	name:  "demo",
	usage: "demo",
	check: func(string) error { return nil },
	build: func(e *engine, _ string, finite bool) (streams.Source, error) {
		dc := demo.Config{Seed: e.cfg.Demo.Seed, Periods: e.cfg.Demo.Periods, Interval: e.cfg.Demo.Interval}
		if finite && dc.Periods == 0 {
			dc.Periods = 2
		}
		return demo.New(dc)
	},
}

var dirSource = sourceKind{
	name:  "dir",
	usage: "dir:PATH",
	check: func(arg string) error {
		if arg == "" {
			return fmt.Errorf("dir: needs a path (dir:PATH)")
		}
		return nil
	},
	build: func(e *engine, arg string, finite bool) (streams.Source, error) {
		// The memory of emitted files lets a scan notice a file removed
		// while no engine ran (dir.Config.Memory); Run restores it.
		mem := streams.NewState(e.kafka, dir.MemoryStage)
		return dir.New(dir.Config{Path: arg, Watch: !finite, Memory: mem, Partitions: e.kafka.Partitions()}, e.log)
	},
}

var jsonlSource = sourceKind{
	name:  "jsonl",
	usage: "jsonl:PATH[?speed=N]",
	check: func(arg string) error {
		_, _, err := jsonlArg(arg)
		return err
	},
	build: func(e *engine, arg string, finite bool) (streams.Source, error) {
		path, speed, err := jsonlArg(arg)
		if err != nil {
			return nil, err
		}
		if finite {
			speed = 0 // eval --once reads to the end without pauses
		}
		return jsonl.New(jsonl.Config{Path: path, Speed: speed}, e.log)
	},
}

var kafkaSource = sourceKind{
	name:  "kafka",
	usage: "kafka:TOPIC",
	check: func(arg string) error {
		if !validTopic(arg) {
			return fmt.Errorf("kafka: %q is not a topic name (kafka:TOPIC; letters, digits, '.', '_', '-', at most 249)", arg)
		}
		return nil
	},
	build: func(e *engine, arg string, finite bool) (streams.Source, error) {
		return kafkasrc.New(kafkasrc.Config{Topic: arg, Finite: finite}, e.kafka, e.log)
	},
}

// feedSource is rss:URL or atom:URL: polled every 5 minutes under run,
// once under eval --once.
func feedSource(kind string) sourceKind {
	return sourceKind{
		name:  kind,
		usage: kind + ":URL",
		check: func(arg string) error {
			_, err := feed.New(feed.Config{Kind: kind, URL: arg}, nil)
			return err
		},
		build: func(e *engine, arg string, finite bool) (streams.Source, error) {
			return feed.New(feed.Config{Kind: kind, URL: arg, Finite: finite}, e.log)
		},
	}
}

// validTopic is Kafka's rule for topic names.
func validTopic(s string) bool {
	if s == "" || len(s) > 249 || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// jsonlArg splits "PATH?speed=N": N seconds of publication time replayed
// per second (default 0, no pauses).
func jsonlArg(arg string) (path string, speed float64, err error) {
	path = arg
	if p, v, ok := strings.Cut(arg, "?speed="); ok {
		if speed, err = strconv.ParseFloat(v, 64); err != nil || speed < 0 || math.IsInf(speed, 0) || math.IsNaN(speed) {
			return "", 0, fmt.Errorf("jsonl: speed %q is not a number >= 0 (jsonl:PATH?speed=N)", v)
		}
		path = p
	}
	if path == "" {
		return "", 0, fmt.Errorf("jsonl: needs a path (jsonl:PATH)")
	}
	return path, speed, nil
}

// parseSourceSpec finds the kind of a --source value and checks its
// argument.
func parseSourceSpec(s string) (*sourceKind, string, error) {
	name, arg, _ := strings.Cut(s, ":")
	var usages []string
	for i := range sourceKinds {
		k := &sourceKinds[i]
		if k.name == name {
			return k, arg, k.check(arg)
		}
		usages = append(usages, k.usage)
	}
	for _, p := range plannedSources {
		if p == name {
			return nil, "", fmt.Errorf("%s: sources are not supported by this build yet (use %s)", name, strings.Join(usages, " or "))
		}
	}
	return nil, "", fmt.Errorf("unknown source %q (want %s)", s, strings.Join(usages, " or "))
}

// newSource builds the source of spec, wrapped so that unchanged documents
// are not re-emitted and changed ones get a new version.
func (e *engine) newSource(ctx context.Context, spec string, finite bool) (*sources.Versioned, error) {
	kind, arg, err := parseSourceSpec(spec)
	if err != nil {
		return nil, err
	}
	src, err := kind.build(e, arg, finite)
	if err != nil {
		return nil, err
	}
	st := streams.NewState(e.kafka, "source."+src.Name())
	if err := st.RestoreAll(ctx); err != nil {
		return nil, err
	}
	return sources.NewVersioned(src, st, e.kafka.Partitions()), nil
}
