package clickhouse

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/robustream/robustream/schemas"
)

var updateCluster = flag.Bool("update", false, "rewrite testdata/cluster_ddl.sql from the current output")

const testCluster = "rs_cluster"

func clusterStatements(t *testing.T) []string {
	t.Helper()
	ms, err := ClusterMigrations(testCluster)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, m := range ms {
		all = append(all, m.Statements...)
	}
	return all
}

// TestClusterDDLGolden pins the rewrite of every statement of the real
// schema (go test -run TestClusterDDLGolden -update rewrites it).
func TestClusterDDLGolden(t *testing.T) {
	var b strings.Builder
	if err := WriteClusterDDL(&b, testCluster); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "cluster_ddl.sql")
	if *updateCluster {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("cluster DDL differs from %s (run with -update if the change is intended)", golden)
	}
	// Deterministic: a second rendering is identical.
	var again strings.Builder
	if err := WriteClusterDDL(&again, testCluster); err != nil {
		t.Fatal(err)
	}
	if again.String() != b.String() {
		t.Error("WriteClusterDDL is not deterministic")
	}
}

// TestClusterDDLSplits: the printed DDL splits back into exactly the
// rewritten statements, file by file, with the same splitter Migrate uses.
func TestClusterDDLSplits(t *testing.T) {
	var b strings.Builder
	if err := WriteClusterDDL(&b, testCluster); err != nil {
		t.Fatal(err)
	}
	got := schemas.SplitStatements(b.String())
	if want := clusterStatements(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("printed DDL splits into %d statements, want %d", len(got), len(want))
	}
	src, err := schemas.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	cms, _ := ClusterMigrations(testCluster)
	if len(cms) != len(src) {
		t.Fatalf("%d cluster files, want %d", len(cms), len(src))
	}
	for i := range src {
		if cms[i].Name != src[i].Name || cms[i].MinVersion != src[i].MinVersion {
			t.Errorf("file %d is %s, want %s", i, cms[i].Name, src[i].Name)
		}
	}
}

// TestClusterDDLStructure checks the shape of the rewrite against the
// source schema rather than against a snapshot.
func TestClusterDDLStructure(t *testing.T) {
	src, err := schemas.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	// Source objects.
	engines := map[string][2]string{} // table → engine name, arguments
	var mvs, views, drops []string
	alters, addColumns := 0, 0
	for _, m := range src {
		for _, s := range m.Statements {
			switch {
			case reCreateTable.MatchString(s):
				name := reCreateTable.FindStringSubmatch(s)[2]
				e := reEngine.FindStringSubmatch(s)
				if e == nil {
					t.Fatalf("table %s: no MergeTree engine", name)
				}
				engines[name] = [2]string{e[1], e[2]}
			case reCreateMV.MatchString(s):
				mvs = append(mvs, reCreateMV.FindStringSubmatch(s)[2])
			case reCreateView.MatchString(s):
				views = append(views, reCreateView.FindStringSubmatch(s)[2])
			case reDrop.MatchString(s):
				drops = append(drops, reDrop.FindStringSubmatch(s)[2])
			case strings.HasPrefix(s, "ALTER TABLE "):
				alters++
				if strings.Contains(s, " ADD COLUMN ") {
					addColumns++
				}
			}
		}
	}
	if len(engines) < 12 || len(mvs) != 3 || len(views) == 0 || len(drops) == 0 || alters == 0 {
		t.Fatalf("unexpected source schema: %d tables, %d MVs, %d views, %d drops, %d alters", len(engines), len(mvs), len(views), len(drops), alters)
	}

	out := clusterStatements(t)
	byHead := map[string]string{}
	onCluster := regexp.MustCompile(`^(CREATE (DATABASE|TABLE|VIEW|MATERIALIZED VIEW) IF NOT EXISTS|DROP TABLE IF EXISTS|ALTER TABLE) robustream(\.\w+)? ON CLUSTER ` + testCluster + `\b`)
	for _, s := range out {
		if !onCluster.MatchString(s) {
			t.Errorf("statement without ON CLUSTER %s right after its object: %.80q", testCluster, s)
		}
		if strings.Contains(s, "non_replicated_deduplication_window") {
			t.Errorf("non-replicated setting left in %.80q", s)
		}
		head, _, _ := strings.Cut(s, " ON CLUSTER ")
		byHead[head] = s
	}

	for name, e := range engines {
		local := name + "_local"
		ls, ok := byHead["CREATE TABLE IF NOT EXISTS robustream."+local]
		if !ok {
			t.Errorf("no local table %s", local)
			continue
		}
		wantEngine := "ENGINE = Replicated" + e[0] + "('/clickhouse/tables/{shard}/robustream/" + local + "', '{replica}'"
		if e[1] != "" {
			wantEngine += ", " + e[1]
		}
		wantEngine += ")\n"
		if !strings.Contains(ls, wantEngine) {
			t.Errorf("%s: want %q in\n%s", local, wantEngine, ls)
		}
		ds, ok := byHead["CREATE TABLE IF NOT EXISTS robustream."+name]
		if !ok {
			t.Errorf("no Distributed table %s", name)
			continue
		}
		wantDist := " AS robustream." + local + "\nENGINE = Distributed(" + testCluster + ", robustream, " + local + ", " + clusterShardKeys[name] + ")"
		if !strings.HasSuffix(ds, wantDist) {
			t.Errorf("%s: want suffix %q, got\n%s", name, wantDist, ds)
		}
	}
	if len(clusterShardKeys) != len(engines) {
		t.Errorf("clusterShardKeys has %d tables, the schema %d", len(clusterShardKeys), len(engines))
	}

	ref := regexp.MustCompile(`robustream\.(\w+)`)
	for _, mv := range mvs {
		s, ok := byHead["CREATE MATERIALIZED VIEW IF NOT EXISTS robustream."+mv]
		if !ok {
			t.Errorf("no materialized view %s", mv)
			continue
		}
		if !regexp.MustCompile(`\nTO robustream\.\w+_local\n`).MatchString(s) {
			t.Errorf("materialized view %s does not write to a _local table:\n%s", mv, s)
		}
		for _, r := range ref.FindAllStringSubmatch(s, -1)[1:] {
			if !strings.HasSuffix(r[1], "_local") {
				t.Errorf("materialized view %s refers to %s, not a local table", mv, r[0])
			}
		}
	}
	for _, v := range views {
		s, ok := byHead["CREATE VIEW IF NOT EXISTS robustream."+v]
		if !ok {
			t.Errorf("no view %s", v)
			continue
		}
		for _, r := range ref.FindAllStringSubmatch(s, -1) {
			if strings.HasSuffix(r[1], "_local") {
				t.Errorf("view %s reads the local table %s, not the Distributed one", v, r[0])
			}
		}
		if regexp.MustCompile(`(^|[^L] )(NOT )?IN \(SELECT`).MatchString(strings.ReplaceAll(s, "GLOBAL NOT IN", "GLOBAL IN")) {
			t.Errorf("view %s has a non-GLOBAL IN subquery", v)
		}
	}
	for _, d := range drops {
		if _, ok := byHead["DROP TABLE IF EXISTS robustream."+d]; !ok {
			t.Errorf("no DROP of %s", d)
		}
	}
	// Every ALTER targets the shards' local table; a column add also
	// alters the Distributed table in front of it (which must know the
	// column to read it), right after the local one.
	nAlters, nDistributedAdds := 0, 0
	for i, s := range out {
		if !strings.HasPrefix(s, "ALTER TABLE ") {
			continue
		}
		if regexp.MustCompile(`^ALTER TABLE robustream\.\w+_local ON CLUSTER `).MatchString(s) {
			nAlters++
			continue
		}
		head, rest, _ := strings.Cut(s, " ON CLUSTER ")
		if !strings.Contains(s, " ADD COLUMN ") || i == 0 || out[i-1] != head+"_local ON CLUSTER "+rest {
			t.Errorf("ALTER of a non-local table that is not the Distributed half of a column add: %s", s)
			continue
		}
		nDistributedAdds++
	}
	if nAlters != alters {
		t.Errorf("%d ALTERs of local tables, want %d", nAlters, alters)
	}
	if nDistributedAdds != addColumns {
		t.Errorf("%d column adds on Distributed tables, want %d", nDistributedAdds, addColumns)
	}
	// One statement per source statement, plus a Distributed front per table.
	nsrc := 0
	for _, m := range src {
		nsrc += len(m.Statements)
	}
	if len(out) != nsrc+len(engines)+addColumns {
		t.Errorf("%d statements, want %d source + %d Distributed + %d Distributed column adds", len(out), nsrc, len(engines), addColumns)
	}
}

func TestClusterName(t *testing.T) {
	for _, ok := range []string{"prod", "c1", "_x", "Cluster_2"} {
		if err := ValidClusterName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "1c", "a-b", "a b", "x;DROP", "`c`", "{cluster}", "é"} {
		if err := ValidClusterName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
		if _, err := ClusterMigrations(bad); err == nil {
			t.Errorf("ClusterMigrations(%q) accepted", bad)
		}
	}
}

// TestClusterRewriteUnknown: a statement shape the rewrite does not know is
// an error, not copied through.
func TestClusterRewriteUnknown(t *testing.T) {
	for _, s := range []string{
		"INSERT INTO robustream.outcomes SELECT 1",
		"CREATE TABLE IF NOT EXISTS robustream.newtable\n(\n    a String\n)\nENGINE = MergeTree\nORDER BY a",
		"CREATE TABLE IF NOT EXISTS other.outcomes\n(\n    a String\n)\nENGINE = MergeTree\nORDER BY a",
		"CREATE MATERIALIZED VIEW IF NOT EXISTS robustream.x_mv\nTO robustream.rare_scores\nAS SELECT 1",
	} {
		ms := []schemas.Migration{{Name: "999_x.sql", Statements: []string{s}}}
		if _, err := clusterRewrite(ms, testCluster); err == nil {
			t.Errorf("no error for %q", s)
		}
	}
}

// TestClusterDDLParses has the embedded ClickHouse parse every emitted
// statement with EXPLAIN AST: ON CLUSTER needs a configured cluster to run,
// but parsing does not.
func TestClusterDDLParses(t *testing.T) {
	e := sharedChDB(t)
	ctx := context.Background()
	// Controls: EXPLAIN AST rejects a malformed statement, and parses ON
	// CLUSTER without a cluster configured.
	if _, err := e.Query(ctx, "EXPLAIN AST CREATE TABLE robustream.x ON CLUSTER "+testCluster+" (a String ENGINE = Distributed(", "TabSeparated"); err == nil {
		t.Fatal("EXPLAIN AST accepted a malformed statement: the check below would prove nothing")
	}
	for _, s := range clusterStatements(t) {
		out, err := e.Query(ctx, "EXPLAIN AST "+s, "TabSeparated")
		if err != nil {
			t.Errorf("does not parse: %v\n%s", err, s)
			continue
		}
		if len(out) == 0 {
			t.Errorf("empty AST for %.80q", s)
		}
	}
}

// recordingEngine records the statements a migration runs; the rest of
// Engine is not used by MigrateOn.
type recordingEngine struct {
	Engine
	version string
	stmts   []string
}

func (r *recordingEngine) ServerVersion(context.Context) (string, error) { return r.version, nil }
func (r *recordingEngine) Kind() string                                  { return "server" }

// Query answers the migrator's look-up of a column to add: never there
// yet, so every column add is run.
func (r *recordingEngine) Query(_ context.Context, q, _ string) ([]byte, error) {
	if strings.Contains(q, "system.columns") {
		return []byte("0\n"), nil
	}
	return nil, fmt.Errorf("recordingEngine: unexpected query %.80q", q)
}

func (r *recordingEngine) Exec(_ context.Context, q string) error {
	r.stmts = append(r.stmts, q)
	return nil
}

// TestMigrateOnCluster: with a cluster, the start-up migration runs the
// cluster DDL, every statement ON CLUSTER and none altering a Distributed
// table, gated on the server's version as the single-node DDL is; without
// one, the single-node DDL.
func TestMigrateOnCluster(t *testing.T) {
	for _, version := range []string{"18.16.1", "24.3.1"} {
		single, cluster := &recordingEngine{version: version}, &recordingEngine{version: version}
		if err := MigrateOn(context.Background(), single, "", nil); err != nil {
			t.Fatal(err)
		}
		if err := MigrateOn(context.Background(), cluster, "analytics", nil); err != nil {
			t.Fatal(err)
		}
		want := 0
		cms, err := ClusterMigrations("analytics")
		if err != nil {
			t.Fatal(err)
		}
		gated := false
		for _, m := range cms {
			if (schemas.Migration{MinVersion: m.MinVersion}).AppliesTo(version) {
				want += len(m.Statements)
			} else {
				gated = true
			}
		}
		if len(cluster.stmts) != want || want == 0 {
			t.Errorf("%s: %d cluster statements run, want %d", version, len(cluster.stmts), want)
		}
		if version == "18.16.1" && !gated {
			t.Error("no file is gated on 18.16: the check of the gate proves nothing")
		}
		for _, s := range cluster.stmts {
			if !strings.Contains(s, " ON CLUSTER analytics") {
				t.Errorf("%s: not ON CLUSTER: %.120s", version, s)
			}
			if strings.HasPrefix(s, "ALTER TABLE") && !strings.Contains(s, " ADD COLUMN ") && !strings.Contains(strings.SplitN(s, " ON CLUSTER", 2)[0], LocalSuffix) {
				t.Errorf("%s: alters a Distributed table: %.120s", version, s)
			}
		}
		for _, s := range single.stmts {
			if strings.Contains(s, "ON CLUSTER") {
				t.Errorf("%s: single-node DDL runs ON CLUSTER: %.120s", version, s)
			}
		}
	}
	if err := MigrateOn(context.Background(), &recordingEngine{version: "24.3.1"}, "bad name", nil); err == nil {
		t.Error("an invalid cluster name was accepted")
	}
}
