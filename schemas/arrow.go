package schemas

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Tables map event types to the raw ClickHouse tables of sql/010_raw_tables.sql,
// one generic mechanism for all of them: a Table lists its columns, and
// each column knows its ClickHouse type, its Arrow type and how to read its
// value from an event. Record turns a batch of events into one Arrow record
// whose columns are named like the table's, ready for an INSERT that names
// them (chDB's arrowstream() or a clickhouse-go batch).
//
// Type mapping: String → utf8, UInt8/UInt32/Float64 → the same Arrow
// primitive, bool → UInt8 (0/1), Array(String)/Array(Float64) → list with
// non-null items, DateTime → timestamp[s, UTC] (seconds, clamped to
// DateTime's 1970–2106 range; the zero time is 1970-01-01 00:00:00), Enum8
// → utf8 holding the value's name.

// Column is one column of a Table.
type Column struct {
	// Name is the column name in the table and in the Arrow record.
	Name string
	// Type is the ClickHouse type exactly as the DDL declares it.
	Type string
	// Arrow is the column's Arrow type in a Record.
	Arrow arrow.DataType
	fill  func(b array.Builder, e Event)
	// kind says how the column's value is written to its builder, for
	// rows decoded straight from JSON (rows.go).
	kind colKind
}

// colKind is the shape of a column's value.
type colKind int

const (
	kindOther colKind = iota // derived or composite: only through fill
	kindString
	kindEnum8 // a string that must be one of the Enum8's names
	kindUint8
	kindUint32
	kindFloat64
	kindFlag
	kindDateTime
	// kindStrings and kindFloats are Array(String) and Array(Float64)
	// columns of a field of the same JSON key (a []string, a []float64).
	kindStrings
	kindFloats
)

// Table describes how events of one type become rows of one table.
type Table struct {
	// Name is the table name in the robustream database.
	Name string
	// Columns are the columns a Record carries, in order.
	Columns  []Column
	schema   *arrow.Schema
	newEvent func() Event
	is       func(Event) bool
	rowID    func(Event) string
	check    func(Event) error
	// leaveOut, when set, names events of the table's type that are not
	// rows: they pass Validate and are dropped by the sinks.
	leaveOut func(Event) bool
	// checkIsEnums says that check refuses only what the JSON row decoder
	// refuses on its own (an Enum8 value outside its names, a non-finite
	// float, which JSON cannot carry), so rows of this table may be
	// decoded straight from JSON although it has a check.
	checkIsEnums bool
	direct       directOnce
}

// Stores reports whether e, valid for t, becomes a row. Not-made markers
// on rs.variants are not variants: they are recorded as the error results
// they turn into, not as rows of the variants table.
func (t *Table) Stores(e Event) bool { return t.leaveOut == nil || !t.leaveOut(e) }

// Schema is the Arrow schema of the table's records.
func (t *Table) Schema() *arrow.Schema { return t.schema }

// NewEvent returns an empty event of the table's type, to Decode into.
func (t *Table) NewEvent() Event { return t.newEvent() }

// RowID returns the id a row is deduplicated by (its ORDER BY key for
// single-key tables). e must be of the table's type.
func (t *Table) RowID(e Event) string { return t.rowID(e) }

// ColumnNames lists the table's column names in record order.
func (t *Table) ColumnNames() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// ErrRow marks an event that decodes but cannot become a row: wrong type for
// the table, no id, a value the column type cannot hold.
var ErrRow = errors.New("event cannot be stored")

// Validate reports why e cannot become a row of t, or nil. Rows that pass
// never make an insert fail on their values, so one bad event is rejected
// alone instead of failing its whole batch.
func (t *Table) Validate(e Event) error {
	if e == nil || !t.is(e) {
		return fmt.Errorf("%w: %T is not a %s row", ErrRow, e, t.Name)
	}
	if t.rowID(e) == "" {
		return fmt.Errorf("%w: empty id for table %s", ErrRow, t.Name)
	}
	if t.check != nil {
		return t.check(e)
	}
	return nil
}

// Record builds one Arrow record with a row per event in Go memory; the
// caller releases it. Every event must be of the table's type (see
// Validate).
func (t *Table) Record(events []Event) arrow.Record {
	return t.RecordWith(memory.DefaultAllocator, events)
}

// RecordWith is Record with the buffers taken from mem, e.g. C memory for a
// record handed to C through the Arrow C data interface.
func (t *Table) RecordWith(mem memory.Allocator, events []Event) arrow.Record {
	b := array.NewRecordBuilder(mem, t.schema)
	defer b.Release()
	b.Reserve(len(events))
	eachColumn(b, len(events), func(i int, fb array.Builder) {
		c := t.Columns[i]
		for _, e := range events {
			c.fill(fb, e)
		}
	})
	return b.NewRecord()
}

// eachColumn calls build for every column of b, on all cores when there
// are enough rows to pay for it: columns have builders of their own, so
// they fill independently, and a batch of thousands of rows is built in a
// fraction of the time one core takes.
func eachColumn(b *array.RecordBuilder, rows int, build func(i int, fb array.Builder)) {
	n := len(b.Fields())
	workers := min(runtime.GOMAXPROCS(0), n)
	if rows < 1024 || workers < 2 {
		for i := range n {
			build(i, b.Field(i))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				build(i, b.Field(i))
			}
		}()
	}
	wg.Wait()
}

// Tables returns every raw table, in DDL order.
func Tables() []*Table {
	return []*Table{DocumentsTable, ChunksTable, TripletsTable, QuestionsTable, QuestionRetirementsTable,
		VariantsTable, EvalResultsTable, OutcomesTable, AlertsTable, AlertSummariesTable}
}

// TableNamed returns the raw table called name, or nil.
func TableNamed(name string) *Table {
	for _, t := range Tables() {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func newTable[E Event](name string, newEvent func() E, rowID func(E) string, cols ...Column) *Table {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Arrow}
	}
	return &Table{
		Name:     name,
		Columns:  cols,
		schema:   arrow.NewSchema(fields, nil),
		newEvent: func() Event { return newEvent() },
		is:       func(e Event) bool { _, ok := e.(E); return ok },
		rowID:    func(e Event) string { return rowID(e.(E)) },
	}
}

// except sets which events of t's type are not rows (Stores).
func except[E Event](t *Table, f func(E) bool) *Table {
	t.leaveOut = func(e Event) bool { return f(e.(E)) }
	return t
}

// column binds a getter on E to an appender on the builder type B.
func column[E Event, B array.Builder, V any](name, chType string, dt arrow.DataType, get func(E) V, put func(B, V)) Column {
	return Column{Name: name, Type: chType, Arrow: dt, fill: func(b array.Builder, e Event) {
		put(b.(B), get(e.(E)))
	}}
}

// of gives c its kind.
func of(c Column, k colKind) Column { c.kind = k; return c }

func str[E Event](name string, get func(E) string) Column {
	return of(column(name, "String", arrow.BinaryTypes.String, get, (*array.StringBuilder).Append), kindString)
}

func u8[E Event](name string, get func(E) uint8) Column {
	return of(column(name, "UInt8", arrow.PrimitiveTypes.Uint8, get, (*array.Uint8Builder).Append), kindUint8)
}

func u32[E Event](name string, get func(E) uint32) Column {
	return of(column(name, "UInt32", arrow.PrimitiveTypes.Uint32, get, (*array.Uint32Builder).Append), kindUint32)
}

func f64[E Event](name string, get func(E) float64) Column {
	return of(column(name, "Float64", arrow.PrimitiveTypes.Float64, get, (*array.Float64Builder).Append), kindFloat64)
}

func flag[E Event](name string, get func(E) bool) Column {
	return of(column(name, "UInt8", arrow.PrimitiveTypes.Uint8, get, func(b *array.Uint8Builder, v bool) {
		if v {
			b.Append(1)
		} else {
			b.Append(0)
		}
	}), kindFlag)
}

// dateTimeArrow is the Arrow type of DateTime columns; chDB maps it to
// DateTime64(0, 'UTC'), which the INSERT casts to the column's DateTime.
var dateTimeArrow = &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}

func dateTime[E Event](name string, get func(E) time.Time) Column {
	return of(column(name, "DateTime", arrow.DataType(dateTimeArrow), get, func(b *array.TimestampBuilder, v time.Time) {
		b.Append(arrow.Timestamp(DateTimeSeconds(v)))
	}), kindDateTime)
}

// DateTimeSeconds is t as a ClickHouse DateTime: Unix seconds clamped to
// [0, 2³²−1], so that the zero time.Time (an unset resolved_at) is stored as
// 1970-01-01 00:00:00 rather than failing the insert.
func DateTimeSeconds(t time.Time) int64 {
	s := t.Unix()
	switch {
	case t.IsZero() || s < 0:
		return 0
	case s > math.MaxUint32:
		return math.MaxUint32
	}
	return s
}

func strs[E Event](name string, get func(E) []string) Column {
	return column(name, "Array(String)", arrow.DataType(arrow.ListOfNonNullable(arrow.BinaryTypes.String)), get,
		func(b *array.ListBuilder, v []string) {
			b.Append(true)
			vb := b.ValueBuilder().(*array.StringBuilder)
			for _, s := range v {
				vb.Append(s)
			}
		})
}

// jsonArray is c, an array column (strs, f64s) of a field under the same
// JSON key, so that a table read straight from JSON (rows.go) reads it
// there too.
func jsonArray(c Column) Column {
	if c.Arrow.(*arrow.ListType).Elem().ID() == arrow.FLOAT64 {
		return of(c, kindFloats)
	}
	return of(c, kindStrings)
}

func f64s[E Event](name string, get func(E) []float64) Column {
	return column(name, "Array(Float64)", arrow.DataType(arrow.ListOfNonNullable(arrow.PrimitiveTypes.Float64)), get,
		func(b *array.ListBuilder, v []float64) {
			b.Append(true)
			b.ValueBuilder().(*array.Float64Builder).AppendValues(v, nil)
		})
}

// familyEnum is the ClickHouse type of outcomes.family and the rolling
// tables' family; Outcome.Family must be one of its names.
const familyEnum = "Enum8('rare' = 1, 'sure' = 2, 'grade' = 3, 'prgb' = 4)"

var families = map[string]bool{FamilyRARE: true, FamilySURE: true, FamilyGRADE: true, FamilyPRGB: true}

func enum8[E Event](name, chType string, get func(E) string) Column {
	return of(column(name, chType, arrow.DataType(arrow.BinaryTypes.String), get, (*array.StringBuilder).Append), kindEnum8)
}

func producedAt[E Event]() Column {
	return dateTime("produced_at", func(e E) time.Time { return e.meta().ProducedAt })
}

// sortedScores flattens a score map into names and values sorted by name,
// so that equal maps always give equal rows (Map is not available on 18.16).
func sortedScores(m map[string]float64) ([]string, []float64) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	vals := make([]float64, len(names))
	for i, k := range names {
		vals[i] = m[k]
	}
	return names, vals
}

// The raw tables. Column order and types follow sql/010_raw_tables.sql; the
// tests hold the two together.
var (
	// DocumentsTable stores DocumentVersion (topic rs.documents).
	DocumentsTable = newTable("documents", func() *DocumentVersion { return new(DocumentVersion) },
		func(d *DocumentVersion) string { return d.DocID },
		str("doc_id", func(d *DocumentVersion) string { return d.DocID }),
		u32("version", func(d *DocumentVersion) uint32 { return d.Version }),
		str("source", func(d *DocumentVersion) string { return d.Source }),
		str("uri", func(d *DocumentVersion) string { return d.URI }),
		str("title", func(d *DocumentVersion) string { return d.Title }),
		str("domain", func(d *DocumentVersion) string { return d.Domain }),
		dateTime("published_at", func(d *DocumentVersion) time.Time { return d.PublishedAt }),
		dateTime("fetched_at", func(d *DocumentVersion) time.Time { return d.FetchedAt }),
		str("content_hash", func(d *DocumentVersion) string { return d.ContentHash }),
		str("mime", func(d *DocumentVersion) string { return d.MIME }),
		str("text", func(d *DocumentVersion) string { return d.Text }),
		producedAt[*DocumentVersion](),
	)

	// ChunksTable stores Chunk (topic rs.chunks).
	ChunksTable = newTable("chunks", func() *Chunk { return new(Chunk) },
		func(c *Chunk) string { return c.ChunkID },
		str("chunk_id", func(c *Chunk) string { return c.ChunkID }),
		str("doc_id", func(c *Chunk) string { return c.DocID }),
		u32("doc_version", func(c *Chunk) uint32 { return c.DocVersion }),
		u32("ordinal", func(c *Chunk) uint32 { return c.Ordinal }),
		str("kind", func(c *Chunk) string { return c.Kind }),
		u32("tokens", func(c *Chunk) uint32 { return c.Tokens }),
		u32("span_start", func(c *Chunk) uint32 { return c.SpanStart }),
		u32("span_end", func(c *Chunk) uint32 { return c.SpanEnd }),
		str("title", func(c *Chunk) string { return c.Title }),
		str("text", func(c *Chunk) string { return c.Text }),
		str("domain", func(c *Chunk) string { return c.Domain }),
		dateTime("published_at", func(c *Chunk) time.Time { return c.PublishedAt }),
		producedAt[*Chunk](),
	)

	// TripletsTable stores Triplet (topic rs.triplets). The chunk text the
	// event carries for downstream stages is not stored again.
	TripletsTable = except(newTable("triplets", func() *Triplet { return new(Triplet) },
		func(t *Triplet) string { return t.TripletID },
		str("triplet_id", func(t *Triplet) string { return t.TripletID }),
		str("head", func(t *Triplet) string { return t.Head }),
		str("relation", func(t *Triplet) string { return t.Relation }),
		str("tail", func(t *Triplet) string { return t.Tail }),
		str("chunk_id", func(t *Triplet) string { return t.ChunkID }),
		str("doc_id", func(t *Triplet) string { return t.DocID }),
		str("source_sentence", func(t *Triplet) string { return t.SourceSentence }),
		str("extractor", func(t *Triplet) string { return t.Extractor }),
		str("domain", func(t *Triplet) string { return t.Domain }),
		dateTime("published_at", func(t *Triplet) time.Time { return t.PublishedAt }),
		producedAt[*Triplet](),
	), func(t *Triplet) bool { return t.End })

	// QuestionsTable stores Question (topic rs.questions).
	QuestionsTable = except(newTable("questions", func() *Question { return new(Question) },
		func(q *Question) string { return q.QuestionID },
		str("question_id", func(q *Question) string { return q.QuestionID }),
		str("question", func(q *Question) string { return q.Question }),
		str("answer", func(q *Question) string { return q.Answer }),
		strs("aliases", func(q *Question) []string { return q.Aliases }),
		str("pattern", func(q *Question) string { return q.Pattern }),
		u8("hops", func(q *Question) uint8 { return q.Hops }),
		strs("triplet_ids", func(q *Question) []string { return q.TripletIDs }),
		strs("gt_chunk_ids", func(q *Question) []string { return q.GTChunkIDs }),
		str("pivot", func(q *Question) string { return q.Pivot }),
		strs("qa_score_names", func(q *Question) []string { n, _ := sortedScores(q.QAScores); return n }),
		f64s("qa_score_values", func(q *Question) []float64 { _, v := sortedScores(q.QAScores); return v }),
		f64("d_r", func(q *Question) float64 { return q.DR }),
		str("sim_func", func(q *Question) string { return q.SimFunc }),
		str("generator", func(q *Question) string { return q.Generator }),
		str("doc_id", func(q *Question) string { return q.DocID }),
		str("domain", func(q *Question) string { return q.Domain }),
		dateTime("published_at", func(q *Question) time.Time { return q.PublishedAt }),
		producedAt[*Question](),
	), func(q *Question) bool { return q.Retired != "" })

	// QuestionRetirementsTable stores the retirement records of topic
	// rs.questions: which question left evaluation, why and when.
	QuestionRetirementsTable = except(newTable("question_retirements", func() *Question { return new(Question) },
		func(q *Question) string { return q.QuestionID },
		str("question_id", func(q *Question) string { return q.QuestionID }),
		str("reason", func(q *Question) string { return q.Retired }),
		str("doc_id", func(q *Question) string { return q.DocID }),
		producedAt[*Question](),
	), func(q *Question) bool { return q.Retired == "" })

	// VariantsTable stores Variant (topic rs.variants).
	VariantsTable = except(newTable("variants", func() *Variant { return new(Variant) },
		func(v *Variant) string { return v.VariantID },
		str("variant_id", func(v *Variant) string { return v.VariantID }),
		str("question_id", func(v *Variant) string { return v.QuestionID }),
		str("axis", func(v *Variant) string { return v.Axis }),
		str("kind", func(v *Variant) string { return v.Kind }),
		str("query", func(v *Variant) string { return v.Query }),
		strs("contexts", func(v *Variant) []string { return v.Contexts }),
		str("expected_answer", func(v *Variant) string { return v.ExpectedAnswer }),
		strs("aliases", func(v *Variant) []string { return v.Aliases }),
		flag("answer_available", func(v *Variant) bool { return v.AnswerAvailable }),
		str("pattern", func(v *Variant) string { return v.Pattern }),
		u8("hops", func(v *Variant) uint8 { return v.Hops }),
		str("domain", func(v *Variant) string { return v.Domain }),
		dateTime("published_at", func(v *Variant) time.Time { return v.PublishedAt }),
		producedAt[*Variant](),
	), func(v *Variant) bool { return v.NotMadeReason != "" })

	// EvalResultsTable stores EvalResult (topic rs.eval.results). RowID is
	// the request id; the table's key adds variant_id because identical
	// prompts are sent once for several variants.
	EvalResultsTable = newTable("eval_results", func() *EvalResult { return new(EvalResult) },
		func(r *EvalResult) string { return r.RequestID },
		str("request_id", func(r *EvalResult) string { return r.RequestID }),
		str("variant_id", func(r *EvalResult) string { return r.VariantID }),
		str("question_id", func(r *EvalResult) string { return r.QuestionID }),
		str("model_id", func(r *EvalResult) string { return r.ModelID }),
		flag("closed_book", func(r *EvalResult) bool { return r.ClosedBook }),
		str("axis", func(r *EvalResult) string { return r.Axis }),
		str("kind", func(r *EvalResult) string { return r.Kind }),
		flag("answer_available", func(r *EvalResult) bool { return r.AnswerAvailable }),
		str("answer", func(r *EvalResult) string { return r.Answer }),
		flag("refused", func(r *EvalResult) bool { return r.Refused }),
		flag("correct", func(r *EvalResult) bool { return r.Correct }),
		str("judge_method", func(r *EvalResult) string { return r.JudgeMethod }),
		f64("similarity", func(r *EvalResult) float64 { return r.Similarity }),
		f64("latency_ms", func(r *EvalResult) float64 { return r.LatencyMS }),
		u32("tokens_in", func(r *EvalResult) uint32 { return r.TokensIn }),
		u32("tokens_out", func(r *EvalResult) uint32 { return r.TokensOut }),
		str("error", func(r *EvalResult) string { return r.Error }),
		str("pattern", func(r *EvalResult) string { return r.Pattern }),
		u8("hops", func(r *EvalResult) uint8 { return r.Hops }),
		str("domain", func(r *EvalResult) string { return r.Domain }),
		dateTime("published_at", func(r *EvalResult) time.Time { return r.PublishedAt }),
		dateTime("evaluated_at", func(r *EvalResult) time.Time { return r.EvaluatedAt }),
		producedAt[*EvalResult](),
		// Added by sql/110_eval_retrieval.sql on older data directories.
		str("retriever", func(r *EvalResult) string { return r.Retriever }),
		jsonArray(strs("retrieved", func(r *EvalResult) []string { return r.Retrieved })),
		jsonArray(strs("retrieved_sources", func(r *EvalResult) []string { return r.RetrievedSources })),
		jsonArray(f64s("retrieved_scores", func(r *EvalResult) []float64 { return r.RetrievedScores })),
		flag("retrieval_hit", func(r *EvalResult) bool { return r.RetrievalHit }),
		f64("retrieval_recall", func(r *EvalResult) float64 { return r.RetrievalRecall }),
		f64("retrieval_precision", func(r *EvalResult) float64 { return r.RetrievalPrecision }),
		f64("retrieval_rr", func(r *EvalResult) float64 { return r.RetrievalRR }),
		str("index_state", func(r *EvalResult) string { return r.IndexState }),
	)

	// OutcomesTable stores Outcome (topic rs.outcomes), the table the rolling
	// materialized views read.
	OutcomesTable = func() *Table {
		t := newTable("outcomes", func() *Outcome { return new(Outcome) },
			func(o *Outcome) string { return o.OutcomeID },
			str("outcome_id", func(o *Outcome) string { return o.OutcomeID }),
			enum8("family", familyEnum, func(o *Outcome) string { return o.Family }),
			str("metric", func(o *Outcome) string { return o.Metric }),
			str("model_id", func(o *Outcome) string { return o.ModelID }),
			str("question_id", func(o *Outcome) string { return o.QuestionID }),
			str("variant_id", func(o *Outcome) string { return o.VariantID }),
			str("axis", func(o *Outcome) string { return o.Axis }),
			str("kind", func(o *Outcome) string { return o.Kind }),
			str("pattern", func(o *Outcome) string { return o.Pattern }),
			u8("hops", func(o *Outcome) uint8 { return o.Hops }),
			f64("d_r", func(o *Outcome) float64 { return o.DR }),
			str("domain", func(o *Outcome) string { return o.Domain }),
			flag("known", func(o *Outcome) bool { return o.Known }),
			flag("golden", func(o *Outcome) bool { return o.Golden }),
			f64("value", func(o *Outcome) float64 { return o.Value }),
			dateTime("published_at", func(o *Outcome) time.Time { return o.PublishedAt }),
			dateTime("evaluated_at", func(o *Outcome) time.Time { return o.EvaluatedAt }),
			producedAt[*Outcome](),
		)
		// An unknown family would fail the whole insert (Enum8), and a NaN
		// value would poison every sum it is rolled into.
		t.checkIsEnums = true // keep in step with the check below
		t.check = func(e Event) error {
			o := e.(*Outcome)
			if !families[o.Family] {
				return fmt.Errorf("%w: outcome %s has unknown family %q", ErrRow, o.OutcomeID, o.Family)
			}
			if math.IsNaN(o.Value) || math.IsInf(o.Value, 0) {
				return fmt.Errorf("%w: outcome %s has value %v", ErrRow, o.OutcomeID, o.Value)
			}
			return nil
		}
		return t
	}()

	// AlertsTable stores Alert (topic rs.alerts).
	AlertsTable = newTable("alerts", func() *Alert { return new(Alert) },
		func(a *Alert) string { return a.AlertID },
		str("alert_id", func(a *Alert) string { return a.AlertID }),
		str("rule", func(a *Alert) string { return a.Rule }),
		str("series", func(a *Alert) string { return a.Series }),
		str("state", func(a *Alert) string { return a.State }),
		f64("baseline", func(a *Alert) float64 { return a.Baseline }),
		f64("recent", func(a *Alert) float64 { return a.Recent }),
		f64("p_value", func(a *Alert) float64 { return a.PValue }),
		dateTime("fired_at", func(a *Alert) time.Time { return a.FiredAt }),
		dateTime("resolved_at", func(a *Alert) time.Time { return a.ResolvedAt }),
		producedAt[*Alert](),
	)

	// AlertSummariesTable stores what each firing and resolution of topic
	// rs.alerts says (Alert.Summary), for the dashboard: a table of its own,
	// since 18.16 cannot add a column to alerts idempotently. Repeats of a
	// firing alert say nothing new and are left out.
	AlertSummariesTable = except(newTable("alert_summaries", func() *Alert { return new(Alert) },
		func(a *Alert) string { return a.AlertID + "|" + a.State },
		str("alert_id", func(a *Alert) string { return a.AlertID }),
		str("state", func(a *Alert) string { return a.State }),
		str("summary", func(a *Alert) string { return a.Summary }),
		producedAt[*Alert](),
	), func(a *Alert) bool { return a.Repeat || a.Summary == "" })
)
