package retrieve

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robustream/robustream/processors/provider"
)

// Store is the part of a ClickHouse engine (sinks/clickhouse.Engine) the
// embedding retrievers use.
type Store interface {
	Exec(ctx context.Context, query string) error
	Query(ctx context.Context, query, format string) ([]byte, error)
}

// VectorsTable is where chunk vectors are kept (schemas/sql 085).
const VectorsTable = "robustream.chunk_vectors"

// embedBatch is how many chunks go in one embeddings request and one
// insert.
const embedBatch = 64

// flushAt is how many chunks may wait for their vectors before they are
// embedded without a question asking.
const flushAt = 512

// Dense is an embedding retriever: each chunk is embedded once, by the
// configured embedder, its normalized vector stored in ClickHouse
// (VectorsTable), and a query's top-k are found there by dot product
// (arraySum over arrayMap: every supported engine has both). A chunk is
// never embedded twice: the stage queues a chunk when it first indexes
// it, and at start the retriever reads which chunks the table already
// holds (Restored). Chunks wait in the queue until a question needs the
// vectors or flushAt of them wait, so that they are embedded and inserted
// in batches.
type Dense struct {
	name  string
	emb   provider.Embedder
	store Store
	log   *slog.Logger

	embedded map[string]bool
	queue    []string
	// native says the engine has dotProduct over arrays (ClickHouse 24
	// and later, chDB among them), about three times faster than
	// arraySum over arrayMap on a full scan; nil until asked.
	native *bool
	// Embedded counts the chunks this retriever has embedded since it was
	// made (tests, the bench).
	Embedded int
}

// DenseName is the retriever name of an embedder: "emb_<id>", the id's
// characters other than letters, digits and '_' replaced by '_'.
func DenseName(embedderID string) string {
	var b strings.Builder
	b.WriteString("emb_")
	for _, r := range strings.ToLower(embedderID) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// NewDense returns the embedding retriever of the embedder named
// embedderID, keeping its vectors in store.
func NewDense(embedderID string, e provider.Embedder, store Store, log *slog.Logger) *Dense {
	if log == nil {
		log = slog.Default()
	}
	return &Dense{name: DenseName(embedderID), emb: e, store: store, log: log, embedded: map[string]bool{}}
}

// Name is the retriever's name.
func (d *Dense) Name() string { return d.name }

// Queue asks for chunk id's vector.
func (d *Dense) Queue(id string) {
	if !d.embedded[id] {
		d.queue = append(d.queue, id)
	}
}

// Restored learns which chunks already have vectors and queues the active
// chunks of idx that have none.
func (d *Dense) Restored(ctx context.Context, idx *Index) error {
	b, err := d.store.Query(ctx, "SELECT DISTINCT chunk_id FROM "+VectorsTable+" WHERE embedder = "+quote(d.name), "TabSeparated")
	if err != nil {
		return fmt.Errorf("retriever %s: cannot read the stored vectors: %w", d.name, err)
	}
	d.embedded = map[string]bool{}
	for _, id := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if id != "" {
			d.embedded[id] = true
		}
	}
	d.queue = d.queue[:0]
	var missing []string
	for id := range idx.byID {
		if !d.embedded[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	d.queue = append(d.queue, missing...)
	return nil
}

// maybeFlush embeds the queue once it is long; a failure leaves it queued
// for the next question, which then reports it.
func (d *Dense) maybeFlush(ctx context.Context, idx *Index) {
	if len(d.queue) < flushAt {
		return
	}
	if err := d.flush(ctx, idx); err != nil {
		d.log.Warn("retrieve: cannot embed chunks yet; they stay queued", "retriever", d.name, "err", err)
	}
}

// flush embeds and stores the queued chunks still active in idx.
func (d *Dense) flush(ctx context.Context, idx *Index) error {
	slices.Sort(d.queue)
	d.queue = slices.Compact(d.queue)
	for len(d.queue) > 0 {
		var batch []*Chunk
		n := 0
		for n < len(d.queue) && len(batch) < embedBatch {
			if c, ok := idx.Chunk(d.queue[n]); ok && !d.embedded[c.ID] {
				batch = append(batch, c)
			}
			n++
		}
		if len(batch) > 0 {
			if err := d.store1(ctx, batch); err != nil {
				return err
			}
		}
		d.queue = d.queue[n:]
	}
	d.queue = nil
	return nil
}

// store1 embeds one batch of chunks and inserts their vectors.
func (d *Dense) store1(ctx context.Context, batch []*Chunk) error {
	texts := make([]string, len(batch))
	for i, c := range batch {
		texts[i] = c.Text
	}
	vecs, err := d.emb.Embed(ctx, texts)
	if err != nil {
		return err
	}
	if len(vecs) != len(batch) {
		return fmt.Errorf("the embedder returned %d vectors for %d texts", len(vecs), len(batch))
	}
	for i, v := range vecs {
		if err := finite(v); err != nil {
			return fmt.Errorf("chunk %s: %w", batch[i].ID, err)
		}
	}
	// INSERT … SELECT: an INSERT … VALUES sent as a statement waits for a
	// data block on an 18.16 server.
	var q strings.Builder
	q.WriteString("INSERT INTO " + VectorsTable + " (embedder, chunk_id, doc_id, doc_version, vector, embedded_at) ")
	now := time.Now().Unix()
	for i, c := range batch {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, "SELECT %s, %s, %s, toUInt32(%d), CAST(%s AS Array(Float32)), toDateTime(%d)",
			quote(d.name), quote(c.ID), quote(c.DocID), c.Version, floats(normalize(vecs[i])), now)
	}
	if err := d.store.Exec(ctx, q.String()); err != nil {
		return fmt.Errorf("cannot store vectors: %w", err)
	}
	for _, c := range batch {
		d.embedded[c.ID] = true
	}
	d.Embedded += len(batch)
	return nil
}

// Search returns the k active chunks of idx whose vectors are closest to
// query's (cosine: both normalized), best first, ties in chunk-id order.
// The ranking runs in ClickHouse; chunks idx no longer holds (retired
// versions) are skipped, asking for more rows while they crowd the top.
func (d *Dense) Search(ctx context.Context, idx *Index, query string, k int) ([]Hit, error) {
	if err := d.flush(ctx, idx); err != nil {
		return nil, err
	}
	if k <= 0 || idx.Len() == 0 {
		return nil, nil
	}
	qv, err := d.emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	if len(qv) != 1 || len(qv[0]) == 0 {
		return nil, fmt.Errorf("the embedder returned no vector for the query")
	}
	if err := finite(qv[0]); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return d.Rank(ctx, idx, qv[0], k)
}

// Rank returns the k active chunks of idx whose stored vectors are closest
// to the query vector qv (normalized here), best first, ties in chunk-id
// order: Search without the embedding of the query (and the bench's
// measure of the ClickHouse part).
func (d *Dense) Rank(ctx context.Context, idx *Index, qv []float32, k int) ([]Hit, error) {
	q := normalize(qv)
	dot := "arraySum(arrayMap((x, y) -> x * y, vector, " + floats(q) + "))"
	if d.hasDotProduct(ctx) {
		dot = "dotProduct(vector, CAST(" + floats(q) + " AS Array(Float32)))"
	}
	for n := 2*k + 8; ; n *= 4 {
		b, err := d.store.Query(ctx, fmt.Sprintf(
			"SELECT chunk_id, %s AS score FROM %s WHERE embedder = %s AND length(vector) = %d ORDER BY score DESC, chunk_id LIMIT %d",
			dot, VectorsTable, quote(d.name), len(q), n), "TabSeparated")
		if err != nil {
			return nil, fmt.Errorf("cannot rank vectors: %w", err)
		}
		var hits []Hit
		seen := map[string]bool{}
		rows := 0
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			rows++
			id, score, ok := strings.Cut(sc.Text(), "\t")
			if !ok || seen[id] {
				continue
			}
			seen[id] = true
			c, active := idx.Chunk(id)
			if !active || len(hits) == k {
				continue
			}
			f, err := strconv.ParseFloat(score, 64)
			if err != nil {
				return nil, fmt.Errorf("cannot read a score %q: %w", score, err)
			}
			hits = append(hits, Hit{Chunk: c, Score: f})
		}
		if len(hits) == k || rows < n {
			return hits, nil
		}
	}
}

// hasDotProduct reports whether the engine has dotProduct over arrays: a
// version of 24 or later (18.16 has not; it gets arraySum over arrayMap).
// Both rank by the same dot product; dotProduct sums in Float32, so the
// two may order near-ties differently, each deterministically.
func (d *Dense) hasDotProduct(ctx context.Context) bool {
	if d.native == nil {
		yes := false
		if v, ok := d.store.(interface {
			ServerVersion(context.Context) (string, error)
		}); ok {
			if s, err := v.ServerVersion(ctx); err == nil {
				major, _, _ := strings.Cut(s, ".")
				n, err := strconv.Atoi(major)
				yes = err == nil && n >= 24
			}
		}
		d.native = &yes
	}
	return *d.native
}

// normalize returns v scaled to unit length (v itself when all zeros).
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	n := math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// finite checks that v is a usable vector.
func finite(v []float32) error {
	if len(v) == 0 {
		return fmt.Errorf("the embedder returned an empty vector")
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("the embedder returned a vector with %v", x)
		}
	}
	return nil
}

// floats renders v as a ClickHouse array literal.
func floats(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

// quote renders s as a ClickHouse string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
