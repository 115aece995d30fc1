package clickhouse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// TableForTopic returns the table the sink for topic writes (from
// streams.Topology), or "" if no ClickHouse sink reads topic.
func TableForTopic(topic string) string { return streams.TableOf(topic) }

// Topics lists the topics ClickHouse sinks consume, sorted.
func Topics() []string {
	var out []string
	for _, t := range streams.Topology {
		if t.Table != "" {
			out = append(out, t.Name)
		}
	}
	sort.Strings(out)
	return out
}

// outcomesTable is the one table that feeds materialized views, so the
// one where a duplicate row is not harmless.
const outcomesTable = "outcomes"

// idLookupChunk bounds the ids per existence query, keeping the query text
// well under ClickHouse's default max_query_size (256 KiB).
const idLookupChunk = 2000

// sink writes one topic's events to one raw table.
type sink struct {
	engine Engine
	table  *schemas.Table
	log    *slog.Logger
}

// warned remembers the engines the at-least-once warning was logged for.
var warned sync.Map

// NewSink returns a sink writing batches of table's topic (see
// TableForTopic) into robustream.<table> through e, one Arrow insert per
// batch. The caller owns e: closing the sink does not close it.
//
// Delivery: a retried batch (same topic, partition and offsets) carries the
// same deduplication token, so it is written once on engines that
// SupportsDedup, and converges by id (ReplacingMergeTree) on the others.
// Outcomes are in addition filtered against the ids already stored and
// deduplicated within the batch, so the rolling views count each outcome
// once even when it is re-emitted at another offset, on every engine.
//
// A message that does not decode or cannot be a row is skipped and
// reported in a *streams.BatchError (each error permanent) after the rest
// is written, so the runner dead-letters just those; a batch of that one
// message returns a permanent error.
func NewSink(e Engine, table string, log *slog.Logger) (streams.Sink, error) {
	t := schemas.TableNamed(table)
	if t == nil {
		return nil, fmt.Errorf("no ClickHouse table %q", table)
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if _, seen := warned.LoadOrStore(e, true); !seen && !e.SupportsDedup() {
		v, _ := e.ServerVersion(context.Background())
		log.Warn("ClickHouse has no insert deduplication (needs 22.2): sinks are at-least-once; raw tables converge by id and outcomes are filtered by id, but a batch retried concurrently with its first attempt may be counted twice by the rolling views",
			"engine", e.Kind(), "version", v)
	}
	return &sink{engine: e, table: t, log: log}, nil
}

func (s *sink) Name() string { return "clickhouse." + s.table.Name }

func (s *sink) Close() error { return nil }

func (s *sink) Write(ctx context.Context, batch []streams.Message) error {
	p := s.Prepare(batch)
	defer p.Release()
	return s.WritePrepared(ctx, p)
}

// prepared is a batch decoded, and for every table but outcomes already an
// Arrow record, waiting for its insert.
type prepared struct {
	batch   []streams.Message
	token   string
	failed  map[int]error
	decoded *schemas.RowBatch
	// rows are the batch's rows, kept for outcomes only: which of them to
	// insert depends on what is stored when the insert comes.
	rows []schemas.Row
	rec  arrow.Record // the rows to insert, for the other tables
}

func (p *prepared) Release() {
	if p.rec != nil {
		p.rec.Release()
		p.rec = nil
	}
	if p.decoded != nil {
		p.decoded.Release()
		p.decoded = nil
	}
	p.rows = nil
}

// Prepare decodes batch and builds what WritePrepared inserts. It reads
// nothing from the engine, so the runner can run it while the previous
// batch is being inserted (streams.PreparingSink).
func (s *sink) Prepare(batch []streams.Message) streams.Prepared {
	p := &prepared{batch: batch, failed: map[int]error{}}
	if len(batch) == 0 {
		return p
	}
	// Decoding is the sink's main CPU cost: DecodeRows spreads it over the
	// cores and reads the columns straight from the messages' bytes where
	// the table allows (the rows live until the batch is released, or the
	// record holds copies of them).
	values := make([][]byte, len(batch))
	for i := range batch {
		values[i] = batch[i].Value
	}
	p.decoded = s.table.DecodeRows(values)
	rows := make([]schemas.Row, 0, len(batch))
	for i, d := range p.decoded.Results {
		if d.Err != nil {
			m := batch[i]
			p.failed[i] = streams.Permanent(fmt.Errorf("%s[%d]@%d: %w", m.Topic, m.Partition, m.Offset, d.Err))
			continue
		}
		// Events that are not rows (a chunk's End record, a not-made
		// marker) are skipped.
		if d.Stored {
			rows = append(rows, d.Row)
		}
	}
	p.token = batchToken(batch)
	if s.table.Name == outcomesTable {
		p.rows = rows
		return p
	}
	if len(rows) > 0 {
		p.rec = s.table.RecordOfRows(Allocator(), rows)
	}
	p.decoded.Release()
	p.decoded = nil
	return p
}

// WritePrepared inserts a batch Prepare made. Called again for a retry, it
// inserts the same rows with the same token; for outcomes it filters again
// against what is stored by then.
func (s *sink) WritePrepared(ctx context.Context, sp streams.Prepared) error {
	p, ok := sp.(*prepared)
	if !ok {
		return streams.Permanent(fmt.Errorf("sink %s: a batch prepared elsewhere (%T)", s.Name(), sp))
	}
	if len(p.batch) == 0 {
		return nil
	}
	if len(p.batch) == 1 && len(p.failed) == 1 {
		return p.failed[0]
	}
	rec := p.rec
	token := p.token
	if s.table.Name == outcomesTable && len(p.rows) > 0 {
		rows, err := s.newOutcomes(ctx, p.rows)
		if err != nil {
			return err
		}
		// The token must name what is inserted, not only the offsets: after a
		// partial write the retry inserts fewer rows, and the offsets alone
		// would make the engine drop them as already written.
		token += "-" + idsDigest(s.table, rows)
		if len(rows) > 0 {
			rec = s.table.RecordOfRows(Allocator(), rows)
			defer rec.Release()
		}
	}
	if rec != nil {
		if err := s.engine.InsertArrow(ctx, s.table.Name, rec, token); err != nil {
			return err
		}
	}
	if len(p.failed) > 0 {
		return &streams.BatchError{Errs: p.failed}
	}
	return nil
}

// newOutcomes drops outcomes whose id is already stored or appears earlier
// in the batch. Upstream may re-emit an outcome at another offset after a
// crash, where neither the offset token nor (on 18.16) any token at all
// would catch it, and the views must count it once.
func (s *sink) newOutcomes(ctx context.Context, rows []schemas.Row) ([]schemas.Row, error) {
	seen := make(map[string]bool, len(rows))
	unique := rows[:0:0]
	for _, r := range rows {
		id := s.table.RowKey(r)
		if !seen[id] {
			seen[id] = true
			unique = append(unique, r)
		}
	}
	stored := map[string]bool{}
	for start := 0; start < len(unique); start += idLookupChunk {
		end := min(start+idLookupChunk, len(unique))
		quoted := make([]string, 0, end-start)
		for _, r := range unique[start:end] {
			quoted = append(quoted, quoteString(s.table.RowKey(r)))
		}
		q := fmt.Sprintf("SELECT outcome_id FROM %s.%s WHERE outcome_id IN (%s)",
			Database, outcomesTable, strings.Join(quoted, ","))
		out, err := s.engine.Query(ctx, q, "TabSeparated")
		if err != nil {
			return nil, fmt.Errorf("cannot look up stored outcomes: %w", err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if line != "" {
				stored[unescapeTSV(line)] = true
			}
		}
	}
	if len(stored) == 0 {
		return unique, nil
	}
	fresh := unique[:0]
	for _, r := range unique {
		if !stored[s.table.RowKey(r)] {
			fresh = append(fresh, r)
		}
	}
	return fresh, nil
}

// batchToken is <topic>-<partition>-<firstOffset>-<lastOffset>: a runner
// retries a batch with the same messages and offsets, so the engine can
// recognise the retry. A batch that spans partitions (not something the
// runner produces) gets a digest of all its positions instead.
func batchToken(batch []streams.Message) string {
	first, last := batch[0], batch[len(batch)-1]
	for _, m := range batch {
		if m.Topic != first.Topic || m.Partition != first.Partition {
			h := sha256.New()
			for _, m := range batch {
				fmt.Fprintf(h, "%s/%d/%d;", m.Topic, m.Partition, m.Offset)
			}
			return "mixed-" + hex.EncodeToString(h.Sum(nil)[:12])
		}
	}
	return fmt.Sprintf("%s-%d-%d-%d", first.Topic, first.Partition, first.Offset, last.Offset)
}

// idsDigest is a short digest of the row ids of rows, in order.
func idsDigest(t *schemas.Table, rows []schemas.Row) string {
	h := sha256.New()
	for _, r := range rows {
		h.Write([]byte(t.RowKey(r)))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// unescapeTSV reverses ClickHouse's TabSeparated escaping of one value.
func unescapeTSV(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '0':
			b.WriteByte(0)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
