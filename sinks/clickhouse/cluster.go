package clickhouse

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/robustream/robustream/schemas"
)

// Cluster DDL: the schema of schemas/sql rewritten for a ClickHouse
// cluster, printed by `robustream migrate --cluster NAME`. It is a pure
// function of the very statements Migrate runs (schemas.Migrations), so the
// two cannot drift: a statement whose shape the rewrite does not know is an
// error, never passed through silently.
//
// The rewrite:
//
//   - every CREATE, DROP and ALTER gets ON CLUSTER NAME;
//   - each *MergeTree table T becomes T_local, engine Replicated*MergeTree
//     with ZooKeeper path '/clickhouse/tables/{shard}/robustream/T_local',
//     replica '{replica}' and the engine's own arguments after those, plus a
//     Distributed table T (AS T_local) over it, sharded by clusterShardKeys;
//   - materialized views write to the local rollup T_local and read the local
//     tables of their shard, so each shard aggregates its own outcomes;
//   - plain views keep reading the Distributed names, and their IN
//     subqueries become GLOBAL IN (a subquery over a Distributed table inside
//     a query over a Distributed table is refused by ClickHouse's default
//     distributed_product_mode, and GLOBAL runs it once on the initiator);
//   - ALTER … ADD COLUMN IF NOT EXISTS alters T_local and T (the cluster's
//     ClickHouse must parse IF NOT EXISTS: 19.x or later);
//   - ALTER … MODIFY SETTING targets T_local, with
//     non_replicated_deduplication_window turned into
//     replicated_deduplication_window (the former does nothing on
//     replicated tables).

// clusterShardKeys is the Distributed sharding key of every table. Two rules:
// every copy of a row (same ORDER BY key) must reach the same shard, or
// ReplacingMergeTree and FINAL could not collapse them; and rows a view
// groups together should share a shard where that is free. Everything
// about a question (its variants, answers, outcomes, retirement) is
// sharded by question_id, which each of those rows' ids derives from
// (outcome_id and variant_id hash the question_id in): the per-question
// groups of the score views then sit on one shard, and so do an outcome
// and the retirement current_outcomes compares it with. Views over the
// Distributed tables are correct with any key — shards' partial aggregates
// are merged — so the key is about deduplication and locality only.
// Rollups are filled on each shard by the materialized views, wherever the
// outcome went; their key only places rows inserted directly (the start-up
// reconciliation) and hashes the whole rollup key, and readers sum() over
// all shards anyway.
var clusterShardKeys = map[string]string{
	"documents":            "cityHash64(doc_id)",
	"chunks":               "cityHash64(chunk_id)",
	"chunk_vectors":        "cityHash64(chunk_id)",
	"triplets":             "cityHash64(triplet_id)",
	"questions":            "cityHash64(question_id)",
	"question_retirements": "cityHash64(question_id)",
	"variants":             "cityHash64(question_id)",
	"eval_results":         "cityHash64(question_id)",
	"outcomes":             "cityHash64(question_id)",
	"alerts":               "cityHash64(alert_id)",
	"model_revisions":      "cityHash64(model_id)",
	"alert_summaries":      "cityHash64(alert_id)",
	"robustness_5m":        rollupShardKey,
	"robustness_1h":        rollupShardKey,
	"robustness_1d":        rollupShardKey,
}

const rollupShardKey = "cityHash64(bucket, model_id, family, metric, axis, kind, pattern, domain)"

// LocalSuffix names a cluster's shard-local table: T_local under the
// Distributed table T.
const LocalSuffix = "_local"

var clusterNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidClusterName reports an error unless name is a plain ClickHouse
// identifier, which is what the DDL writes it as.
func ValidClusterName(name string) error {
	if !clusterNameRE.MatchString(name) {
		return fmt.Errorf("invalid cluster name %q: want an identifier (letters, digits, _; not starting with a digit)", name)
	}
	return nil
}

// ClusterMigration is one DDL file rewritten for a cluster.
type ClusterMigration struct {
	// Name and MinVersion are the source file's (schemas.Migration).
	Name, MinVersion string
	// Statements are the rewritten statements, without trailing ';'.
	Statements []string
}

// ClusterMigrations rewrites schemas.Migrations() for the cluster named
// cluster.
func ClusterMigrations(cluster string) ([]ClusterMigration, error) {
	if err := ValidClusterName(cluster); err != nil {
		return nil, err
	}
	ms, err := schemas.Migrations()
	if err != nil {
		return nil, fmt.Errorf("cannot read DDL: %w", err)
	}
	return clusterRewrite(ms, cluster)
}

var (
	reCreateDB    = regexp.MustCompile(`^CREATE DATABASE IF NOT EXISTS (\w+)$`)
	reCreateTable = regexp.MustCompile(`^CREATE TABLE IF NOT EXISTS (\w+)\.(\w+)(\s*\n\()`)
	reEngine      = regexp.MustCompile(`(?m)^ENGINE = (\w*MergeTree)(?:\((.*)\))?[ \t]*$`)
	reCreateMV    = regexp.MustCompile(`^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+)\.(\w+)(\s+)TO (\w+)\.(\w+)(\s+AS\s)`)
	reCreateView  = regexp.MustCompile(`^CREATE VIEW IF NOT EXISTS (\w+)\.(\w+)(\s+AS\s)`)
	reDrop        = regexp.MustCompile(`^DROP TABLE IF EXISTS (\w+)\.(\w+)$`)
	reAlter       = regexp.MustCompile(`^ALTER TABLE (\w+)\.(\w+) (MODIFY SETTING .*)$`)
	reInSubquery  = regexp.MustCompile(`\b((?:NOT )?IN \(\s*SELECT)\b`)
	reTableRef    = regexp.MustCompile(`\b(\w+)\.(\w+)\b`)
)

func clusterRewrite(ms []schemas.Migration, cluster string) ([]ClusterMigration, error) {
	// First pass: which names are MergeTree tables (they get a _local twin).
	tables := map[string]bool{}
	for _, m := range ms {
		for _, s := range m.Statements {
			if t := reCreateTable.FindStringSubmatch(s); t != nil {
				tables[t[2]] = true
			}
		}
	}
	on := " ON CLUSTER " + cluster
	out := make([]ClusterMigration, 0, len(ms))
	for _, m := range ms {
		cm := ClusterMigration{Name: m.Name, MinVersion: m.MinVersion}
		for i, s := range m.Statements {
			r, err := clusterStatement(s, cluster, on, tables)
			if err != nil {
				return nil, fmt.Errorf("DDL %s, statement %d: %w", m.Name, i+1, err)
			}
			cm.Statements = append(cm.Statements, r...)
		}
		out = append(out, cm)
	}
	return out, nil
}

func checkDB(db string) error {
	if db != Database {
		return fmt.Errorf("database %s is not %s", db, Database)
	}
	return nil
}

// clusterStatement rewrites one statement into one or more.
func clusterStatement(s, cluster, on string, tables map[string]bool) ([]string, error) {
	switch {
	case reCreateDB.MatchString(s):
		return []string{s + on}, nil

	case reCreateTable.MatchString(s):
		t := reCreateTable.FindStringSubmatch(s)
		if err := checkDB(t[1]); err != nil {
			return nil, err
		}
		name := t[2]
		local := name + LocalSuffix
		key, ok := clusterShardKeys[name]
		if !ok {
			return nil, fmt.Errorf("table %s has no sharding key (add it to clusterShardKeys)", name)
		}
		engines := reEngine.FindAllStringSubmatchIndex(s, -1)
		if len(engines) != 1 {
			return nil, fmt.Errorf("table %s: want one ENGINE = …MergeTree(…) line", name)
		}
		e := engines[0]
		engine, args := s[e[2]:e[3]], ""
		if e[4] >= 0 {
			args = s[e[4]:e[5]]
		}
		repl := fmt.Sprintf("ENGINE = Replicated%s('/clickhouse/tables/{shard}/%s/%s', '{replica}'", engine, Database, local)
		if strings.TrimSpace(args) != "" {
			repl += ", " + args
		}
		repl += ")"
		body := s[len(t[0])-len(t[3]) : e[0]]
		localStmt := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s%s%s%s%s", Database, local, on, body, repl, s[e[1]:])
		dist := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s%s AS %s.%s\nENGINE = Distributed(%s, %s, %s, %s)",
			Database, name, on, Database, local, cluster, Database, local, key)
		return []string{localStmt, dist}, nil

	case reCreateMV.MatchString(s):
		t := reCreateMV.FindStringSubmatch(s)
		for _, db := range []string{t[1], t[4]} {
			if err := checkDB(db); err != nil {
				return nil, err
			}
		}
		if !tables[t[5]] {
			return nil, fmt.Errorf("materialized view %s writes to %s, which is not a MergeTree table", t[2], t[5])
		}
		query := s[len(t[0]):]
		// The view runs on each shard on the blocks inserted there: it reads
		// and writes local tables only.
		var bad error
		query = reTableRef.ReplaceAllStringFunc(query, func(ref string) string {
			p := reTableRef.FindStringSubmatch(ref)
			if p[1] != Database {
				return ref
			}
			if !tables[p[2]] {
				bad = fmt.Errorf("materialized view %s reads %s, which is not a MergeTree table", t[2], ref)
				return ref
			}
			return Database + "." + p[2] + LocalSuffix
		})
		if bad != nil {
			return nil, bad
		}
		return []string{fmt.Sprintf("CREATE MATERIALIZED VIEW IF NOT EXISTS %s.%s%s%sTO %s.%s%s%s%s",
			Database, t[2], on, t[3], Database, t[5], LocalSuffix, t[6], query)}, nil

	case reCreateView.MatchString(s):
		t := reCreateView.FindStringSubmatch(s)
		if err := checkDB(t[1]); err != nil {
			return nil, err
		}
		query := reInSubquery.ReplaceAllString(s[len(t[0]):], "GLOBAL $1")
		return []string{fmt.Sprintf("CREATE VIEW IF NOT EXISTS %s.%s%s%s%s", Database, t[2], on, t[3], query)}, nil

	case reDrop.MatchString(s):
		t := reDrop.FindStringSubmatch(s)
		if err := checkDB(t[1]); err != nil {
			return nil, err
		}
		out := []string{s + on}
		if tables[t[2]] {
			out = append(out, fmt.Sprintf("DROP TABLE IF EXISTS %s.%s%s%s", Database, t[2], LocalSuffix, on))
		}
		return out, nil

	case strings.Contains(s, " ADD COLUMN IF NOT EXISTS "):
		// A column added to a raw table goes to the shards' tables and to
		// the Distributed table over them.
		add, ok := schemas.AddColumn(s)
		if !ok {
			break
		}
		if err := checkDB(add.Database); err != nil {
			return nil, err
		}
		if !tables[add.Table] {
			return nil, fmt.Errorf("ALTER of %s, which is not a MergeTree table", add.Table)
		}
		rest := strings.TrimPrefix(s, fmt.Sprintf("ALTER TABLE %s.%s ", add.Database, add.Table))
		return []string{fmt.Sprintf("ALTER TABLE %s.%s%s%s %s", Database, add.Table, LocalSuffix, on, rest),
			fmt.Sprintf("ALTER TABLE %s.%s%s %s", Database, add.Table, on, rest)}, nil

	case reAlter.MatchString(s):
		t := reAlter.FindStringSubmatch(s)
		if err := checkDB(t[1]); err != nil {
			return nil, err
		}
		if !tables[t[2]] {
			return nil, fmt.Errorf("ALTER of %s, which is not a MergeTree table", t[2])
		}
		setting := strings.ReplaceAll(t[3], "non_replicated_deduplication_window", "replicated_deduplication_window")
		return []string{fmt.Sprintf("ALTER TABLE %s.%s%s%s %s", Database, t[2], LocalSuffix, on, setting)}, nil
	}
	first, _, _ := strings.Cut(s, "\n")
	return nil, fmt.Errorf("no cluster rewrite for statement %q", first)
}

// WriteClusterDDL prints the cluster DDL for cluster to w: each file under
// a comment naming it (and its minimum version), each statement ended by
// ';' on its last line, so schemas.SplitStatements (and clickhouse-client
// --multiquery) splits it back.
func WriteClusterDDL(w io.Writer, cluster string) error {
	ms, err := ClusterMigrations(cluster)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- robustream schema for the ClickHouse cluster %s: Replicated*MergeTree tables <name>%s\n", cluster, LocalSuffix)
	fmt.Fprintf(&b, "-- on every shard, Distributed tables <name> over them. Generated by `robustream migrate --cluster %s`.\n", cluster)
	for _, m := range ms {
		fmt.Fprintf(&b, "\n-- %s", m.Name)
		if m.MinVersion != "" {
			fmt.Fprintf(&b, " (ClickHouse %s or later)", m.MinVersion)
		}
		b.WriteString("\n")
		b.WriteString(strings.Join(m.Statements, ";\n\n"))
		b.WriteString(";\n")
	}
	_, err = io.WriteString(w, b.String())
	return err
}
