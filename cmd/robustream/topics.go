package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/processors/retrieve"
	"github.com/robustream/robustream/sources/dir"
	"github.com/robustream/robustream/sources/ingest"
	"github.com/robustream/robustream/streams"
)

// neededTopic is one topic a cluster needs, as `robustream topics` prints it.
type neededTopic struct {
	name, cleanup, purpose string
}

// statefulStages are the stages that keep keyed state in a compacted
// changelog (streams.NewState with the stage's name). TestTopicsCreated
// checks the list against the topics a real run creates.
var statefulStages = []string{question.StageName, retrieve.StageName, reader.StageName, pair.StageName, reader.FreshnessStage}

// neededTopics lists the topics of the topology (cleanup policy delete:
// retention bounds them) and the changelogs (compact: the latest value per
// key is the state), for a configuration whose run source is source
// ("none" or "": no source changelog but the ingest API's).
func neededTopics(source string) ([]neededTopic, error) {
	var out []neededTopic
	for _, t := range streams.Topology {
		out = append(out, neededTopic{t.Name, "delete", t.Event + " keyed by " + t.Key})
	}
	for _, s := range statefulStages {
		out = append(out, neededTopic{streams.ChangelogTopic(s), "compact", "state of the " + s + " stage"})
	}
	out = append(out, neededTopic{streams.ChangelogTopic("source." + ingest.SourceName), "compact", "versions of documents sent to POST /v1/documents"})
	if source != "" && source != "none" {
		kind, _, err := parseSourceSpec(source)
		if err != nil {
			return nil, fmt.Errorf("source: %w", err)
		}
		if kind.name != ingest.SourceName {
			out = append(out, neededTopic{streams.ChangelogTopic("source." + kind.name), "compact", "versions of documents of the " + kind.name + " source"})
		}
		if kind.name == dir.SourceName {
			out = append(out, neededTopic{streams.ChangelogTopic(dir.MemoryStage), "compact", "files of each dir: folder whose documents were emitted"})
		}
	}
	return out, nil
}

// cmdTopics prints the topics a cluster needs, for clusters where topics
// are created by hand (auto-creation off, or no admin rights for the
// engine): the engine creates missing ones at start with the same
// settings.
func cmdTopics(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("topics", flag.ContinueOnError)
	format := fs.String("format", "table", "table, or kafka-topics: one kafka-topics.sh --create command per topic")
	replication := fs.Int("replication-factor", 3, "replication factor in the kafka-topics commands")
	cfg, err := parseConfig(fs, args, stdout, "kafka.brokers", "kafka.partitions", "source", "log.level", "log.format")
	if err != nil {
		return err
	}
	if *replication < 1 {
		return errors.New("--replication-factor: must be ≥ 1")
	}
	topics, err := neededTopics(cfg.Source)
	if err != nil {
		return err
	}
	n := cfg.Kafka.Partitions
	switch *format {
	case "table":
		fmt.Fprintf(stdout, "%-32s %10s  %-14s  %s\n", "TOPIC", "PARTITIONS", "CLEANUP.POLICY", "CONTENT")
		for _, t := range topics {
			fmt.Fprintf(stdout, "%-32s %10d  %-14s  %s\n", t.name, n, t.cleanup, t.purpose)
		}
		fmt.Fprintf(stdout, "\nPartitions: kafka.partitions (%d), the ceiling of useful replicas per stage. Records can be up to 8 MiB: set max.message.bytes (topic) or message.max.bytes (broker) to at least 16777216.\n", n)
	case "kafka-topics":
		brokers := "BROKER:9092"
		if len(cfg.Kafka.Brokers) > 0 {
			brokers = strings.Join(cfg.Kafka.Brokers, ",")
		}
		for _, t := range topics {
			fmt.Fprintf(stdout, "kafka-topics.sh --bootstrap-server %s --create --if-not-exists --topic %s --partitions %d --replication-factor %d --config cleanup.policy=%s --config max.message.bytes=16777216\n",
				brokers, t.name, n, *replication, t.cleanup)
		}
	default:
		return fmt.Errorf("--format: %q is not table or kafka-topics", *format)
	}
	return nil
}
