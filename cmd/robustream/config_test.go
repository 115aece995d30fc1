package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestConfigPrecedence checks defaults < YAML file < environment < flags.
func TestConfigPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "robustream.yaml")
	yaml := "data_dir: /from/file\nhttp: 127.0.0.1:9000\nkafka:\n  brokers: [a:1, b:2]\n  partitions: 8\ndemo:\n  interval: 3s\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ROBUSTREAM_HTTP", "127.0.0.1:9100")
	t.Setenv("ROBUSTREAM_KAFKA_PARTITIONS", "6")
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l := newLoader(fs)
	if err := fs.Parse([]string{"--config", file, "--kafka-partitions", "5", "--clickhouse", "clickhouse://h:9000/db"}); err != nil {
		t.Fatal(err)
	}
	cfg, errs := l.load()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	f := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	f("data_dir (file)", cfg.DataDir, "/from/file")
	f("http (env over file)", cfg.HTTP, "127.0.0.1:9100")
	f("kafka.partitions (flag over env)", cfg.Kafka.Partitions, 5)
	f("kafka.brokers (file)", cfg.Kafka.Brokers, []string{"a:1", "b:2"})
	f("clickhouse.url (flag tag)", cfg.ClickHouse.URL, "clickhouse://h:9000/db")
	f("demo.interval (file)", cfg.Demo.Interval, 3*time.Second)
	f("log.level (default)", cfg.Log.Level, "info")
}

func TestConfigRejectsUnknownKeysAndBadValues(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(file, []byte("kafka:\n  brokerz: [x]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ROBUSTREAM_DEMO_INTERVAL", "soon")
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l := newLoader(fs)
	if err := fs.Parse([]string{"--config", file}); err != nil {
		t.Fatal(err)
	}
	_, errs := l.load()
	var all []string
	for _, e := range errs {
		all = append(all, e.Error())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{"brokerz", "ROBUSTREAM_DEMO_INTERVAL", "demo.interval"} {
		if !strings.Contains(joined, want) {
			t.Errorf("errors lack %q:\n%s", want, joined)
		}
	}
}

// TestDryRunChecksDurationsAndCounts checks the sign and sanity of every
// duration and count as the user meets them: `run --dry-run` with a flag or a
// configuration file, exit 1, the key path in the error output.
func TestDryRunChecksDurationsAndCounts(t *testing.T) {
	f := func(args []string, wantErrs ...string) {
		t.Helper()
		dryRun(t, args, wantErrs...)
	}
	// conf writes a configuration file; run has no flags for the sql.* and
	// http_allowed_hosts keys.
	conf := func(yaml string) []string {
		p := filepath.Join(t.TempDir(), "robustream.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"--config", p}
	}

	f(nil) // the defaults are valid

	// demo.interval: the demo feed would write periods back to back.
	f([]string{"--demo-interval=-5s"}, "demo.interval: -5s must be ≥ 1s", "back to back")
	f([]string{"--demo-interval=0s"}, "demo.interval: 0s must be ≥ 1s", "back to back")
	f([]string{"--demo-interval=999ms"}, "demo.interval: 999ms must be ≥ 1s")
	f([]string{"--demo-interval=1s"})
	f([]string{"--demo-interval=0s", "--source", "none"}) // no demo feed, no pause
	f([]string{"--demo-interval=-5s", "--source", "none"}, "demo.interval: -5s must not be negative")
	f(conf("demo:\n  interval: 0s\n"), "demo.interval: 0s must be ≥ 1s")
	f([]string{"--demo-periods=-1"}, "demo.periods: -1 must be ≥ 0")
	f([]string{"--demo-periods=3", "--demo-seed=-7"})

	f([]string{"--kafka-partitions=0"}, "kafka.partitions: 0 is out of range 1..1024")
	f([]string{"--kafka-partitions=1025"}, "kafka.partitions: 1025 is out of range 1..1024")
	f([]string{"--kafka-partitions=1024"})

	f([]string{"--clickhouse-cluster", "analytics"}, "clickhouse.cluster: \"analytics\" needs clickhouse.url")
	f([]string{"--clickhouse-cluster", "my-cluster", "--clickhouse", "clickhouse://h:9000"}, "clickhouse.cluster: invalid cluster name")
	f([]string{"--clickhouse-cluster", "analytics", "--clickhouse", "clickhouse://h:9000"})

	f(conf("sql:\n  timeout: 0s\n"), "sql.timeout: 0s is out of range 1s..1h")
	f(conf("sql:\n  timeout: -1s\n"), "sql.timeout: -1s is out of range")
	f(conf("sql:\n  timeout: 2h\n"), "sql.timeout: 2h0m0s is out of range")
	f(conf("sql:\n  timeout: 1h\n"))
	f(conf("sql:\n  max_memory_mb: 15\n"), "sql.max_memory_mb: 15 is out of range 16..1048576")
	f(conf("sql:\n  max_memory_mb: 1048577\n"), "sql.max_memory_mb: 1048577 is out of range")
	f(conf("sql:\n  max_result_rows: 0\n"), "sql.max_result_rows: 0 must be ≥ 1")
	f(conf("sql:\n  max_result_mb: 0\n"), "sql.max_result_mb: 0 is out of range 1..4096")
	f(conf("sql:\n  max_result_mb: 4097\n"), "sql.max_result_mb: 4097 is out of range 1..4096")
	f(conf("sql:\n  max_threads: -1\n"), "sql.max_threads: -1 must be ≥ 0")
	f(conf("sql:\n  max_threads: 0\n  max_concurrency: 64\n  max_memory_mb: 16\n  max_result_mb: 4096\n"))
	f(conf("sql:\n  max_concurrency: 0\n"), "sql.max_concurrency: 0 is out of range 1..64")
	f(conf("sql:\n  max_concurrency: 65\n"), "sql.max_concurrency: 65 is out of range 1..64")
	f(conf("sql:\n  databases: []\n"), "sql.databases: must list at least one database")
	f(conf("sql:\n  databases: [robustream, \"robustream; DROP\", my-db, 1db]\n"),
		`sql.databases[1]: "robustream; DROP" is not a plain identifier`,
		`sql.databases[2]: "my-db" is not a plain identifier`,
		`sql.databases[3]: "1db" is not a plain identifier`)
	f(conf("sql:\n  databases: [robustream, _tmp2]\n"))

	f(conf("http_allowed_hosts: [\"https://robustream.internal\"]\n"), `http_allowed_hosts[0]: "https://robustream.internal" has a scheme`)
	f(conf("http_allowed_hosts: [ok.internal, robustream.internal/api]\n"), `http_allowed_hosts[1]: "robustream.internal/api" has a path`)
	f(conf("http_allowed_hosts: [\"\"]\n"), "http_allowed_hosts[0]: must not be empty")
	f(conf("http_allowed_hosts: [\"h:99999\", \":8080\", \"a b\"]\n"),
		`http_allowed_hosts[0]: "h:99999": port "99999" is not 1..65535`,
		`http_allowed_hosts[1]: ":8080" has no host`,
		`http_allowed_hosts[2]: "a b" is not host or host:port`)
	f(conf("http_allowed_hosts: [robustream.internal, \"robustream.internal:8080\", \"[::1]:8080\", \"[::1]\", 10.0.0.1]\n"))

	f([]string{"--data-dir="}, "data_dir: must not be empty")
	f([]string{"--log-level=loud", "--log-format=xml"}, `log.level: "loud"`, `log.format: "xml"`)

	// Every error at once.
	f(append(conf("sql:\n  timeout: 0s\n  max_concurrency: 0\n"), "--demo-interval=0s", "--kafka-partitions=0"),
		"4 configuration error(s)", "sql.timeout", "sql.max_concurrency", "demo.interval", "kafka.partitions")
}
