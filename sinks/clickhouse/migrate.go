package clickhouse

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/robustream/robustream/schemas"
)

// Migrate applies robustream's DDL (schemas/sql) to e. It runs every
// statement every time — they are all idempotent — so it is safe at every
// start and from several processes at once. Files gated on a minimum
// version (NNN_name.min-X.Y.sql) are skipped, with a log line, on older
// engines.
func Migrate(ctx context.Context, e Engine, log *slog.Logger) error {
	return MigrateOn(ctx, e, "", log)
}

// MigrateOn is Migrate for the schema of a ClickHouse cluster when cluster
// is not "": the cluster DDL (ClusterMigrations: ON CLUSTER, shard-local
// replicated tables under Distributed ones), idempotent as well. A process
// connected to one node of a cluster must apply that, never the
// single-node DDL, which would fail on the Distributed tables (an ALTER …
// MODIFY SETTING) or put single-node objects on one node.
func MigrateOn(ctx context.Context, e Engine, cluster string, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	version, err := e.ServerVersion(ctx)
	if err != nil {
		return fmt.Errorf("cannot read engine version: %w", err)
	}
	var ms []schemas.Migration
	if cluster == "" {
		ms, err = schemas.Migrations()
	} else {
		var cms []ClusterMigration
		cms, err = ClusterMigrations(cluster)
		for _, c := range cms {
			ms = append(ms, schemas.Migration{Name: c.Name, MinVersion: c.MinVersion, Statements: c.Statements})
		}
	}
	if err != nil {
		return fmt.Errorf("cannot read DDL: %w", err)
	}
	applied := 0
	for _, m := range ms {
		if !m.AppliesTo(version) {
			log.Info("ClickHouse DDL skipped: engine too old", "file", m.Name, "needs", m.MinVersion, "engine", version)
			continue
		}
		for i, stmt := range m.Statements {
			if add, ok := schemas.AddColumn(stmt); ok && cluster == "" {
				added, err := addColumn(ctx, e, add)
				if err != nil {
					return fmt.Errorf("DDL %s, statement %d: %w", m.Name, i+1, err)
				}
				if added {
					log.Info("ClickHouse column added", "table", add.Table, "column", add.Column)
					applied++
				}
				continue
			}
			if err := e.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("DDL %s, statement %d: %w", m.Name, i+1, err)
			}
			applied++
		}
	}
	log.Debug("ClickHouse schema migrated", "engine", e.Kind(), "version", version, "cluster", cluster, "statements", applied)
	return nil
}

// addColumn runs add's plain ALTER when system.columns lacks the column
// (ClickHouse 18.16 parses no ADD COLUMN IF NOT EXISTS). Another process
// migrating at the same time may add it in between: a failed ALTER after
// which the column exists is that, not an error.
func addColumn(ctx context.Context, e Engine, add schemas.ColumnAdd) (bool, error) {
	has := func() (bool, error) {
		out, err := e.Query(ctx, fmt.Sprintf("SELECT count() FROM system.columns WHERE database = %s AND table = %s AND name = %s",
			quoteString(add.Database), quoteString(add.Table), quoteString(add.Column)), "TabSeparated")
		if err != nil {
			return false, fmt.Errorf("cannot read the columns of %s.%s: %w", add.Database, add.Table, err)
		}
		return strings.TrimSpace(string(out)) != "0", nil
	}
	if ok, err := has(); err != nil || ok {
		return false, err
	}
	if err := e.Exec(ctx, add.Plain); err != nil {
		if ok, _ := has(); ok {
			return false, nil
		}
		return false, err
	}
	return true, nil
}
