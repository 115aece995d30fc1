package metrics

import (
	"fmt"
	"slices"
	"strings"
)

//go:generate go test -run TestGeneratedSQL -update .

// Family is one metric family, declared once.
type Family struct {
	// Name is the family recorded on its outcomes (schemas.FamilyRARE, …).
	Name string
	// Axes are the variant axes the family scores, every kind on them (a
	// kind added on one of its axes is scored without an edit here);
	// pairing hands the family only results on these axes, and its row
	// views read only its own rows (RARE's also only on these axes, since
	// builds before families declared axes wrote RARE rows on others).
	Axes []string
	// Metrics are the outcome metrics pairing writes for the family.
	// PRGB's are its task classes.
	Metrics []string
	// Selection is the SQL condition selecting the family's outcome rows,
	// in robustream.outcomes and in the rolling tables alike.
	Selection string
	// Cells selects one outcome row per scored cell (a result the family
	// scored): what coverage counts per kind. "" means Selection.
	Cells string
	// Series, when not empty, selects the rows whose pooled mean value is
	// the family's rolling score on the dashboard (RARE's f, GRADE's
	// correctness, PRGB's variant scores); "" for a family whose values are
	// not a score on [0, 1] (SURE's signed change).
	Series string
	// Rows are the family's row views, one row per scored unit, read
	// FINAL from robustream.outcomes; windows filter them on their
	// evaluated_at or published_at.
	Rows []RowView
	// Aggregations are the family's scores across units; each is an
	// all-time view and, with a window, a query.
	Aggregations []Aggregation
}

// Scores reports whether f scores results on axis.
func (f Family) Scores(axis string) bool { return slices.Contains(f.Axes, axis) }

// RowView is a view with one row per scored unit.
type RowView struct {
	Name string
	// Doc is the comment written above the view in schemas/sql.
	Doc string
	// Columns are the view's columns, in order (stable names).
	Columns []string
	// SQL is the view's SELECT.
	SQL string
}

// Aggregation is one score of a family across its units: a view over all
// time (Name, Columns), the same query over any Window.
type Aggregation struct {
	// Name is the all-time view's name (a stable name).
	Name string
	Doc  string
	// Columns are the view's columns in order (stable names). Queries
	// with Extra add the confidence intervals and counts after them.
	Columns []string
	// Build writes the SELECT over w.
	Build func(w Window, o Options) string
}

// Options say how an aggregation's SELECT is written.
type Options struct {
	// Extra adds, after the view's columns, a 95% confidence interval
	// (x_ci_lo, x_ci_hi) beside each score x and the counts the report
	// shows. Views are written without (their columns are stable names).
	Extra bool
	// View leaves out the ORDER BY.
	View bool
}

// Query is the aggregation over w, with its confidence intervals, in its
// order: what the report and the dashboard run.
func (a Aggregation) Query(w Window) string {
	return a.Build(w, Options{Extra: true})
}

// Plain is the aggregation over w with the view's columns only, ordered:
// what docs/queries.sql shows.
func (a Aggregation) Plain(w Window) string { return a.Build(w, Options{}) }

// ViewSQL is the all-time view's SELECT.
func (a Aggregation) ViewSQL() string { return a.Build(AllTime, Options{View: true}) }

// Window selects the units an aggregation reads by one of the row views'
// times. The zero Window is all time.
type Window struct {
	// Column is evaluated_at (the default: when the model was evaluated)
	// or published_at (when the facts the question rests on were
	// published).
	Column string
	// From and To are SQL expressions of a DateTime (To exclusive); ""
	// leaves that side open.
	From, To string
}

// AllTime is the window without bounds: the views.
var AllTime = Window{}

// Since is the window of the units evaluated at or after from, an SQL
// expression such as "now() - INTERVAL 1 HOUR".
func Since(from string) Window { return Window{From: from} }

// Between is the window [from, to) on column, with the bounds written as
// UTC times; docs/queries.sql uses it.
func Between(column, from, to string) Window {
	return Window{Column: column, From: utc(from), To: utc(to)}
}

func utc(t string) string { return "toDateTime('" + t + "', 'UTC')" }

// conds are w's conditions.
func (w Window) conds() []string {
	col := w.Column
	if col == "" {
		col = "evaluated_at"
	}
	var c []string
	if w.From != "" {
		c = append(c, col+" >= "+w.From)
	}
	if w.To != "" {
		c = append(c, col+" < "+w.To)
	}
	return c
}

// where is a WHERE line (with indent and a leading newline) holding w's
// conditions and extra ones, or "" when there are none.
func where(indent string, w Window, extra ...string) string {
	c := append(slices.Clone(extra), w.conds()...)
	if len(c) == 0 {
		return ""
	}
	return "\n" + indent + "WHERE " + strings.Join(c, "\n"+indent+"  AND ")
}

// orderBy ends a query with its order unless it is a view.
func orderBy(o Options, order string) string {
	if o.View || order == "" {
		return ""
	}
	return "\nORDER BY " + order
}

// ci are the columns of a 95% normal-approximation confidence interval of
// a mean over units: mean ± 1.96 · sd / √n, with sd the units' sample
// standard deviation, clipped to [0, 1] (every score is a mean of values
// in [0, 1]). NaN below two units (no spread to estimate). When every unit
// has the same value (sd 0: all questions right, say) the normal interval
// collapses to a point, which would claim certainty from a handful of
// questions; it is then the Wilson interval of the mean as a share of n,
// which a mean of values in [0, 1] never exceeds in variance.
func ci(name, mean, sd, n string) []string {
	half := "1.96 * " + sd + " / sqrt(" + n + ")"
	w := wilsonBounds(mean, n)
	return []string{
		fmt.Sprintf("if(%s < 2, nan, if(%s < 1e-9, %s, greatest(0, %s - %s))) AS %s_ci_lo", n, sd, w[0], mean, half, name),
		fmt.Sprintf("if(%s < 2, nan, if(%s < 1e-9, %s, least(1, %s + %s))) AS %s_ci_hi", n, sd, w[1], mean, half, name),
	}
}

// wilson are the columns of a 95% Wilson score interval of a share p
// over n units (SURE's shares of instances): unlike the normal
// approximation it does not collapse to a point at a share of 0 or 1.
// NaN without units.
func wilson(name, p, n string) []string {
	w := wilsonBounds(p, n)
	return []string{
		fmt.Sprintf("if(%s < 1, nan, %s) AS %s_ci_lo", n, w[0], name),
		fmt.Sprintf("if(%s < 1, nan, %s) AS %s_ci_hi", n, w[1], name),
	}
}

// wilsonBounds are the expressions of the lower and upper 95% Wilson
// bounds of a share p over n units, clipped to [0, 1].
func wilsonBounds(p, n string) [2]string {
	const z2 = "3.8416" // 1.96²
	center := fmt.Sprintf("(%s + %s / (2 * %s)) / (1 + %s / %s)", p, z2, n, z2, n)
	half := fmt.Sprintf("1.96 / (1 + %s / %s) * sqrt(%s * (1 - %s) / %s + %s / (4 * %s * %s))", z2, n, p, p, n, z2, n, n)
	return [2]string{"greatest(0, " + center + " - " + half + ")", "least(1, " + center + " + " + half + ")"}
}

// list joins select items, one a line under indent.
func list(indent string, items []string) string {
	return indent + strings.Join(items, ",\n"+indent)
}

// quoted is a SQL list of string literals: 'a', 'b'.
func quoted(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q, ", ")
}

// Families is the registry of metric families, in report order: adding a
// family is a Family value and one line here.
var Families = []Family{RARE, SURE, GRADE, PRGB}

// Named returns the registered family called name.
func Named(name string) (Family, bool) {
	for _, f := range Families {
		if f.Name == name {
			return f, true
		}
	}
	return Family{}, false
}

// Aggregation returns f's aggregation called name; it panics when f has
// none (a programming error: the names are this package's own).
func (f Family) Aggregation(name string) Aggregation {
	for _, a := range f.Aggregations {
		if a.Name == name {
			return a
		}
	}
	panic("metrics: family " + f.Name + " has no aggregation " + name)
}
