package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/robustream/robustream/processors/metrics"
	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

var sqlKeys = []string{"data_dir", "clickhouse.url", "clickhouse.chdb_lib", "clickhouse.cluster", "log.level", "log.format", "http_token_env"}

// querier runs read-only SQL: through a running engine's HTTP API when one
// holds the data directory, else by opening the configured ClickHouse.
type querier struct {
	cfg    *Config
	ch     clickhouse.Engine
	remote string
}

func newQuerier(ctx context.Context, cfg *Config) (*querier, error) {
	if cfg.ClickHouse.URL == "" {
		if info, ok := runningEngine(cfg.DataDir); ok {
			return &querier{cfg: cfg, remote: info.HTTP}, nil
		}
		if _, err := os.Stat(cfg.DataDir); err != nil {
			return nil, fmt.Errorf("data dir %s: %w (run `robustream eval --once` or `robustream run` first)", cfg.DataDir, err)
		}
	}
	ch, err := openClickHouse(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// Opened directly, the engine is the user's own (their data dir, their
	// server credentials): any statement runs, DDL included. Only the HTTP
	// API, which any local process or web page could reach, is read-only.
	return &querier{cfg: cfg, ch: ch}, nil
}

func (q *querier) query(ctx context.Context, sql, format string) ([]byte, error) {
	if q.ch != nil {
		return q.ch.Query(ctx, sql, format)
	}
	u := "http://" + q.remote + "/api/sql?" + url.Values{"format": {format}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(sql))
	if err != nil {
		return nil, err
	}
	if q.cfg.HTTPToken != "" {
		req.Header.Set("Authorization", "Bearer "+os.Getenv(q.cfg.HTTPToken))
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the running engine at %s: %w", q.remote, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("engine at %s: %s", q.remote, strings.TrimSpace(string(body)))
	}
	return body, nil
}

func (q *querier) close() {
	if q.ch != nil {
		q.ch.Close()
		unlockDataDir()
	}
}

func cmdSQL(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("sql", flag.ContinueOnError)
	format := fs.String("format", "TabSeparated", "ClickHouse output format")
	cfg, err := parseConfig(fs, args, stdout, sqlKeys...)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New(`usage: robustream sql [--data-dir D | --clickhouse URL] [--format F] "QUERY"`)
	}
	q, err := newQuerier(ctx, cfg)
	if err != nil {
		return err
	}
	defer q.close()
	out, err := q.query(ctx, fs.Arg(0), *format)
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

func cmdMigrate(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	cluster := fs.String("cluster", "", "print, without applying, the schema for the ClickHouse cluster `NAME`: "+
		"ON CLUSTER NAME everywhere, Replicated*MergeTree tables <table>_local on every shard and "+
		"Distributed tables <table> over them (run it with clickhouse-client --multiquery)")
	cfg, err := parseConfig(fs, args, stdout, sqlKeys...)
	if err != nil {
		return err
	}
	clusterSet := false
	fs.Visit(func(f *flag.Flag) { clusterSet = clusterSet || f.Name == "cluster" })
	if clusterSet {
		if err := clickhouse.ValidClusterName(*cluster); err != nil {
			return fmt.Errorf("--cluster: %w", err)
		}
		return clickhouse.WriteClusterDDL(stdout, *cluster)
	}
	ch, err := openClickHouse(ctx, cfg)
	if err != nil {
		return err
	}
	defer unlockDataDir()
	defer ch.Close()
	if err := clickhouse.MigrateOn(ctx, ch, cfg.ClickHouse.Cluster, newLogger(cfg.Log)); err != nil {
		return err
	}
	v, _ := ch.ServerVersion(ctx)
	if cfg.ClickHouse.Cluster != "" {
		v += ", cluster " + cfg.ClickHouse.Cluster
	}
	fmt.Fprintf(stdout, "schema is up to date (%s %s)\n", ch.Kind(), v)
	return nil
}

type queryFunc func(ctx context.Context, sql, format string) ([]byte, error)

// printSummary ends eval --once.
func printSummary(ctx context.Context, e *engine, emitted, unchanged int64, took time.Duration, w io.Writer) error {
	counts, err := e.ch.Query(ctx, `SELECT
 (SELECT count() FROM robustream.documents), (SELECT count() FROM robustream.chunks),
 (SELECT count() FROM robustream.triplets), (SELECT count() FROM robustream.questions),
 (SELECT count() FROM robustream.variants), (SELECT count() FROM robustream.eval_results),
 (SELECT count() FROM robustream.outcomes),
 (SELECT countIf(error != '') FROM robustream.eval_results)`, "TabSeparated")
	if err != nil {
		return err
	}
	c := strings.Fields(string(counts))
	if len(c) < 8 {
		return fmt.Errorf("unexpected summary row %q", counts)
	}
	dlq, err := e.kafka.EndOffsets(ctx, streams.TopicDLQ)
	if err != nil {
		return err
	}
	var dead int64
	for _, n := range dlq[streams.TopicDLQ] {
		dead += n
	}
	pending := e.openPairings
	fmt.Fprintf(w, "\neval finished in %s: %d new document version(s), %d unchanged\n", took.Round(time.Millisecond), emitted, unchanged)
	fmt.Fprintf(w, "documents %s · chunks %s · triplets %s · questions %s · variants %s · results %s (%s failed) · outcomes %s · dead letters %d · open pairings %d\n\n",
		c[0], c[1], c[2], c[3], c[4], c[5], c[7], c[6], dead, pending)
	if c[7] != "0" {
		fmt.Fprintf(w, "%s request(s) failed after their retries: their cells are left out of the scores (see SELECT model_id, error FROM robustream.eval_results WHERE error != '')\n\n", c[7])
	}
	// A (model, question) set whose closed-book request failed cannot say
	// whether the model knows the answer: the families that need it (RARE)
	// emitted nothing for it. Say how many and why, per model.
	unscorable, err := e.ch.Query(ctx, `SELECT model_id, uniqExact(question_id), any(error)
FROM robustream.eval_results WHERE closed_book = 1 AND error != ''
GROUP BY model_id ORDER BY model_id`, "TabSeparated")
	if err != nil {
		return err
	}
	if rows := strings.TrimSpace(string(unscorable)); rows != "" {
		var families []string
		for _, f := range metricFamilies {
			if f.NeedsKnown {
				families = append(families, f.Name)
			}
		}
		var total int
		var lines strings.Builder
		for _, row := range strings.Split(rows, "\n") {
			f := strings.SplitN(row, "\t", 3)
			if len(f) < 3 {
				continue
			}
			var n int
			fmt.Sscan(f[1], &n)
			total += n
			why := []rune(f[2])
			if len(why) > 100 {
				why = append(why[:100], '…')
			}
			fmt.Fprintf(&lines, "  %s: %d (%s)\n", f[0], n, string(why))
		}
		fmt.Fprintf(w, "%d (model, question) set(s) unscorable (%s): the closed-book request failed, so whether the model knows the answer is undefined, and metric family %s emitted no outcome for them rather than score them as unknown:\n%s\n",
			total, pair.ReasonClosedBookFailed, strings.Join(families, ", "), lines.String())
	}
	writeCost(e.fanout, e.cfg.Stages.Fanout.Families, w)
	costs, err := costRows(ctx, e.ch.Query, "", e.models.prices, metricFamilies)
	if err != nil {
		return err
	}
	writeCostText(w, costs)
	if err := writeBudget(ctx, e, w); err != nil {
		return err
	}
	return metrics.WriteSummary(ctx, metrics.QueryFunc(e.ch.Query), w)
}
