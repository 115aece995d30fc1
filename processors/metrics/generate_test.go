package metrics

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated SQL files (schemas/sql score views, docs/queries.sql)")

// TestGeneratedSQL: the checked-in score views and docs/queries.sql are
// exactly the text the family definitions generate, so no file restates a
// family's math by hand.
func TestGeneratedSQL(t *testing.T) {
	files := map[string]string{"../../docs/queries.sql": GenerateQueries()}
	for name, text := range GenerateDDL(Families) {
		files[filepath.Join("../../schemas/sql", name)] = text
	}
	for path, want := range files {
		if *update {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s differs from the text processors/metrics generates: run go generate ./processors/metrics", path)
		}
	}
	// Views live only in the generated files: no other DDL file creates
	// one of a family's views.
	entries, err := os.ReadDir("../../schemas/sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == RowViewsFile || e.Name() == AggregationsFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join("../../schemas/sql", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range Families {
			for _, name := range viewNames(f) {
				if strings.Contains(string(b), "robustream."+name+" ") || strings.Contains(string(b), "robustream."+name+"\n") {
					t.Errorf("schemas/sql/%s mentions %s, a view of family %s generated into %s/%s", e.Name(), name, f.Name, RowViewsFile, AggregationsFile)
				}
			}
		}
	}
}

func viewNames(f Family) []string {
	var names []string
	for _, r := range f.Rows {
		names = append(names, r.Name)
	}
	for _, a := range f.Aggregations {
		names = append(names, a.Name)
	}
	return names
}
