package clickhouse

import (
	"context"
	"fmt"
	"io"
	"log/slog"

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
			if err := e.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("DDL %s, statement %d: %w", m.Name, i+1, err)
			}
			applied++
		}
	}
	log.Debug("ClickHouse schema migrated", "engine", e.Kind(), "version", version, "cluster", cluster, "statements", applied)
	return nil
}
