package metrics

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/clickhouse"
)

// figures are every number a family shows: each aggregation over all
// time (views, report, dashboard) and over the last day, and its rolling
// series per kind.
func figures(t *testing.T, e clickhouse.Engine, f Family) string {
	t.Helper()
	var b strings.Builder
	for _, a := range f.Aggregations {
		for _, w := range []Window{AllTime, Since("now() - 86400")} {
			fmt.Fprintf(&b, "%s %v\n", a.Name, w)
			for _, r := range rowsOf(t, e, a.Query(w)) {
				fmt.Fprintf(&b, "  %v\n", map[string]string(r))
			}
		}
	}
	for _, r := range rowsOf(t, e, Rolling(f, "robustream.robustness_1d", "", "model_id", "axis", "kind")) {
		fmt.Fprintf(&b, "series %v\n", map[string]string(r))
	}
	return b.String()
}

// baseOutcomes are outcomes of every family: RARE's and GRADE's
// fixtures, SURE instances and PRGB points.
func baseOutcomes() []outcome {
	os := rareFixture()
	for i, c := range []float64{0, -1, 1, 0} {
		q := fmt.Sprintf("s%d", i)
		os = append(os,
			outcome{family: "sure", metric: MetricC, model: "m", question: q, axis: "spurious", kind: "format_json", known: i % 2, golden: 1, value: c},
			outcome{family: "sure", metric: MetricYOriginal, model: "m", question: q, axis: "spurious", kind: "format_json", known: i % 2, golden: 1, value: float64(i % 2)})
	}
	for i, v := range []float64{1, 0.5, 0, 1} {
		os = append(os, outcome{family: "prgb", metric: TaskFiltering, model: "m", question: fmt.Sprintf("p%d", i), axis: "placeholder", kind: "placeholder_1", value: v})
	}
	return os
}

// TestNewKindOrFamilyMovesNoOtherFamily: a new perturbation kind's
// outcomes in one family, and a whole new family (registered, with views,
// sharing RARE's query axis), leave every other family's figures
// identical; the family that gained the kind does change, so the
// comparison is not vacuous.
func TestNewKindOrFamilyMovesNoOtherFamily(t *testing.T) {
	newKind := map[string][]outcome{
		schemas.FamilyRARE: {{family: "rare", metric: MetricF, model: "m", question: "q2", axis: "query", kind: "new_kind", value: 1}},
		schemas.FamilySURE: {
			{family: "sure", metric: MetricC, model: "m", question: "s9", axis: "spurious", kind: "format_toml", golden: 1, value: -1},
			{family: "sure", metric: MetricYOriginal, model: "m", question: "s9", axis: "spurious", kind: "format_toml", golden: 1, value: 0}},
		schemas.FamilyGRADE: {{family: "grade", metric: MetricCorrect, model: "m1", question: "q12", axis: "retrieval", kind: "bm25_top5", hops: 3, dr: 0.95, value: 1}},
		schemas.FamilyPRGB:  {{family: "prgb", metric: TaskFiltering, model: "m", question: "p1", axis: "placeholder", kind: "placeholder_4", value: 1}},
	}
	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		ctx := context.Background()
		now := time.Now()
		writeGRADEFixture(t, e, now)
		insert(t, e, now, 1000, baseOutcomes())
		base := map[string]string{}
		for _, f := range Families {
			base[f.Name] = figures(t, e, f)
		}
		next := 2000
		for _, changed := range Families {
			insert(t, e, now, next, newKind[changed.Name])
			next += 100
			for _, f := range Families {
				got := figures(t, e, f)
				if f.Name == changed.Name {
					if got == base[f.Name] {
						t.Errorf("a new %s kind did not change %s's figures: the test would prove nothing", changed.Name, f.Name)
					}
					base[f.Name] = got
					continue
				}
				if got != base[f.Name] {
					t.Errorf("a new %s kind changed %s's figures:\n%s\nwas\n%s", changed.Name, f.Name, got, base[f.Name])
				}
			}
		}

		// A new family: its enum value, its views, its outcomes, one of
		// them on RARE's query axis with RARE's metric name.
		test := Family{Name: "test", Axes: []string{"query"}, Metrics: []string{MetricF}, Selection: "family = 'test'",
			Rows: []RowView{{Name: "test_points", Columns: cols("model_id question_id score"),
				SQL: "SELECT model_id, question_id, avg(value) AS score FROM robustream.outcomes FINAL WHERE family = 'test' GROUP BY model_id, question_id"}},
			Aggregations: []Aggregation{{Name: "test_scores", Columns: cols("model_id score"), Build: func(w Window, o Options) string {
				return "SELECT model_id, avg(score) AS score FROM robustream.test_points GROUP BY model_id" + orderBy(o, "model_id")
			}}}}
		withTest := GenerateDDL(append(append([]Family{}, Families...), test))
		plain := GenerateDDL(Families)
		for file, text := range plain {
			// Every statement of the registered families is generated
			// unchanged when the registry gains a family.
			for _, s := range schemas.SplitStatements(text) {
				if !strings.Contains(withTest[file], s) {
					t.Errorf("%s: adding a family changed %.80q", file, s)
				}
			}
		}
		for _, tb := range []string{"outcomes", "robustness_5m", "robustness_1h", "robustness_1d"} {
			if err := e.Exec(ctx, "ALTER TABLE robustream."+tb+" MODIFY COLUMN family Enum8('rare' = 1, 'sure' = 2, 'grade' = 3, 'prgb' = 4, 'test' = 5)"); err != nil {
				t.Fatal(err)
			}
		}
		for _, file := range []string{RowViewsFile, AggregationsFile} {
			for _, s := range schemas.SplitStatements(withTest[file]) {
				if err := e.Exec(ctx, s); err != nil {
					t.Fatalf("%v\n%s", err, s)
				}
			}
		}
		insert(t, e, now, next, []outcome{
			{family: "test", metric: MetricF, model: "m", question: "q1", axis: "query", kind: "char", value: 0},
			{family: "test", metric: MetricF, model: "m", question: "q9", axis: "testaxis", kind: "t", value: 1},
		})
		if got := rowsOf(t, e, test.Aggregations[0].Query(AllTime)); len(got) != 1 || !near(got[0].Score("score"), 0.5) {
			t.Errorf("test family scores %v, want m 0.5", got)
		}
		for _, f := range Families {
			if got := figures(t, e, f); got != base[f.Name] {
				t.Errorf("a new family changed %s's figures:\n%s\nwas\n%s", f.Name, got, base[f.Name])
			}
		}
	})
}
