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
