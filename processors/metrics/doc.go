// Package metrics is the one home of robustream's metric families: RARE,
// SURE, GRADE and PRGB. Each family is declared once (a Family value in
// its own file): its name, the axes and kinds it scores, the outcome
// metrics pairing writes for it, its row views (one row per scored unit:
// a question, an instance, a data point) and its aggregations across
// units. Every aggregation is one Go function of a Window, so that the
// same text serves
//
//   - the all-time score views of schemas/sql (generated: GenerateDDL),
//   - the example queries of docs/queries.sql (generated: GenerateQueries),
//   - the dashboard's windowed panels (PanelQuery, SeriesQuery, KindsQuery),
//   - the report (BuildReport),
//
// and a figure cannot differ between them. The drill-down (ListQuestions,
// LoadQuestion) reads the rows behind a score: a family's score rows per
// question, and one question's variants, answers, verdicts and outcomes. Tests fail when the checked-in
// SQL files differ from the generated text (go generate ./processors/metrics
// rewrites them).
//
// Adding a family is a Family value and one line in Families; adding a
// perturbation kind on a family's axis needs nothing here. A family's
// SQL reads only its own outcome rows (selected by family, metric and
// axis), so neither can change another family's numbers.
//
// The package builds SQL and reads query results; it must not write to
// ClickHouse nor score single answers (package reader does), and it
// imports nothing of this module but schemas. All SQL must run on
// ClickHouse 18.16 and on chDB: no window functions, no parameterized
// views (a window is a WHERE on the row views' times).
package metrics
