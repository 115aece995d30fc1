package schemas

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	f := func(sql string, want ...string) {
		t.Helper()
		got := SplitStatements(sql)
		if len(got) == 0 && len(want) == 0 {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SplitStatements(%q) = %q, want %q", sql, got, want)
		}
	}
	f("")
	f("-- only a comment\n")
	f("SELECT 1;", "SELECT 1")
	f("SELECT 1;\nSELECT 2;\n", "SELECT 1", "SELECT 2")
	f("-- c\nCREATE TABLE t\n(\n  a String -- trailing\n);\n", "CREATE TABLE t\n(\n  a String -- trailing\n)")
	f("SELECT 1;  \r\n", "SELECT 1")
	f("SELECT 'a;b' AS x;", "SELECT 'a;b' AS x")
	f("SELECT 1\n", "SELECT 1")
}

func TestCompareVersions(t *testing.T) {
	f := func(a, b string, want int) {
		t.Helper()
		if got := CompareVersions(a, b); got != want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
	f("18.16.1", "22.2", -1)
	f("22.2", "22.2", 0)
	f("22.2.1.1", "22.2", 1)
	f("26.5.1.1", "22.2", 1)
	f("22.10", "22.2", 1)
	f("21.12.4-stable", "22.2", -1)
	f("", "0", 0)
}

func TestMigrations(t *testing.T) {
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 4 {
		t.Fatalf("got %d migrations, want the database, raw tables, rollups and views at least", len(ms))
	}
	// Features 18.16 lacks (docs/architecture.md, ClickHouse schema); the gated
	// files may use more.
	forbidden := regexp.MustCompile(`(?i)LowCardinality|DateTime64|\bMap\(|\bJSON\b|\bOVER\s*\(|toStartOfInterval`)
	for i, m := range ms {
		if i > 0 && ms[i-1].Name >= m.Name {
			t.Errorf("%s runs after %s: not in lexical order", m.Name, ms[i-1].Name)
		}
		if len(m.Statements) == 0 {
			t.Errorf("%s has no statements", m.Name)
		}
		for _, s := range m.Statements {
			if strings.Contains(s, ";") {
				t.Errorf("%s: statement holds a ';', which SplitStatements does not handle: %.60q", m.Name, s)
			}
			up := strings.ToUpper(s)
			if strings.HasPrefix(up, "CREATE") && !strings.Contains(up, "IF NOT EXISTS") {
				t.Errorf("%s: CREATE without IF NOT EXISTS is not idempotent: %.60q", m.Name, s)
			}
			if m.MinVersion == "" {
				if loc := forbidden.FindStringIndex(s); loc != nil {
					t.Errorf("%s: %q is not available on ClickHouse 18.16", m.Name, s[loc[0]:loc[1]])
				}
				if _, add := AddColumn(s); strings.HasPrefix(up, "ALTER") && !add {
					t.Errorf("%s: ALTER in an ungated file: %.60q", m.Name, s)
				}
			}
		}
	}
	var gated *Migration
	for i := range ms {
		if ms[i].MinVersion != "" {
			gated = &ms[i]
		}
	}
	if gated == nil || gated.MinVersion != "22.2" {
		t.Fatalf("want the deduplication settings gated at 22.2, got %+v", gated)
	}
	if gated.AppliesTo("18.16.1") || !gated.AppliesTo("26.5.1.1") {
		t.Errorf("gated migration applies to the wrong versions")
	}
	// Every raw table and every rollup target needs the window
	// (docs/architecture.md, Delivery contract).
	all := strings.Join(gated.Statements, "\n")
	for _, tb := range append(tableNames(), "robustness_5m", "robustness_1h", "robustness_1d") {
		if !strings.Contains(all, "robustream."+tb+" MODIFY SETTING non_replicated_deduplication_window") {
			t.Errorf("%s: no deduplication window on %s", gated.Name, tb)
		}
	}
}

func tableNames() []string {
	var names []string
	for _, tb := range Tables() {
		names = append(names, tb.Name)
	}
	return names
}

// ddlColumns parses the column list of each CREATE TABLE in the DDL.
func ddlColumns(t *testing.T) map[string][][2]string {
	t.Helper()
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile(`^CREATE TABLE IF NOT EXISTS robustream\.(\w+)\s*\(`)
	colLine := regexp.MustCompile(`^\s*(\w+)\s+(.+?),?$`)
	out := map[string][][2]string{}
	for _, m := range ms {
		for _, s := range m.Statements {
			h := head.FindStringSubmatch(s)
			if h == nil {
				continue
			}
			body := s[len(h[0]):]
			body = body[:strings.Index(body, "\n)")]
			for _, line := range strings.Split(body, "\n") {
				if c := colLine.FindStringSubmatch(line); c != nil {
					out[h[1]] = append(out[h[1]], [2]string{c[1], c[2]})
				}
			}
		}
	}
	return out
}

func TestTablesMatchDDL(t *testing.T) {
	ddl := ddlColumns(t)
	for _, tb := range Tables() {
		want := ddl[tb.Name]
		if want == nil {
			t.Errorf("table %s is not in the DDL", tb.Name)
			continue
		}
		var got [][2]string
		for _, c := range tb.Columns {
			got = append(got, [2]string{c.Name, c.Type})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("table %s:\n Go  %v\n DDL %v", tb.Name, got, want)
		}
		if tb.Schema().NumFields() != len(tb.Columns) {
			t.Errorf("table %s: schema has %d fields for %d columns", tb.Name, tb.Schema().NumFields(), len(tb.Columns))
		}
	}
}

// TestAddColumn: every column the DDL adds to an existing table is read as
// a ColumnAdd (the runner adds it where missing, 18.16 included), and is in
// the table's CREATE as well, with the same type, so that new and upgraded
// data directories have the same columns.
func TestAddColumn(t *testing.T) {
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	ddl := ddlColumns(t)
	adds := 0
	for _, m := range ms {
		for _, s := range m.Statements {
			if !strings.Contains(s, "ADD COLUMN") {
				continue
			}
			add, ok := AddColumn(s)
			if !ok {
				t.Errorf("%s: not read as a column add: %q", m.Name, s)
				continue
			}
			adds++
			if strings.Contains(add.Plain, "IF NOT EXISTS") || !strings.HasPrefix(add.Plain, "ALTER TABLE robustream."+add.Table+" ADD COLUMN "+add.Column+" ") {
				t.Errorf("plain statement %q", add.Plain)
			}
			typ := strings.TrimPrefix(add.Plain, "ALTER TABLE robustream."+add.Table+" ADD COLUMN "+add.Column+" ")
			found := false
			for _, c := range ddl[add.Table] {
				if c[0] == add.Column {
					found = true
					if c[1] != typ {
						t.Errorf("%s.%s: CREATE says %s, ALTER %s", add.Table, add.Column, c[1], typ)
					}
				}
			}
			if !found {
				t.Errorf("%s.%s is added by %s but not in the CREATE", add.Table, add.Column, m.Name)
			}
		}
	}
	if adds < 9 {
		t.Errorf("%d column adds, want the 9 retrieval columns of eval_results at least", adds)
	}
	for _, s := range []string{"ALTER TABLE robustream.t ADD COLUMN x String", "ALTER TABLE robustream.t ADD COLUMN IF NOT EXISTS x String, ADD COLUMN IF NOT EXISTS y String", "CREATE TABLE x"} {
		if _, ok := AddColumn(s); ok {
			t.Errorf("%q read as a single column add", s)
		}
	}
}
