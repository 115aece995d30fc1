package main

import (
	"context"
	"strings"
	"testing"
)

func TestMigrateClusterPrints(t *testing.T) {
	var out strings.Builder
	// No engine is opened: the data dir need not exist.
	err := cmdMigrate(context.Background(), []string{"--data-dir", t.TempDir() + "/none", "--cluster", "prod"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"CREATE DATABASE IF NOT EXISTS robustream ON CLUSTER prod;",
		"ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/robustream/outcomes_local', '{replica}', produced_at)",
		"ENGINE = Distributed(prod, robustream, outcomes_local, cityHash64(question_id));",
		"TO robustream.robustness_1h_local",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestMigrateClusterInvalidName(t *testing.T) {
	for _, name := range []string{"", "a-b", "1x", "x;DROP"} {
		var out strings.Builder
		err := cmdMigrate(context.Background(), []string{"--data-dir", t.TempDir(), "--cluster", name}, &out)
		if err == nil || !strings.Contains(err.Error(), "invalid cluster name") {
			t.Errorf("--cluster %q: error %v, want invalid cluster name", name, err)
		}
		if out.Len() != 0 {
			t.Errorf("--cluster %q printed %q", name, out.String())
		}
	}
}
