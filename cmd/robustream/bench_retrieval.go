package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robustream/robustream/processors/retrieve"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/streams"
)

// cmdBenchRetrieval measures the retrieve stage as its corpus grows: for
// each size N, the BM25 index is filled with N chunks through the stage's
// own Process (decode, tokenise, index), then timed: adding new chunks and
// replacing documents (a new version retires the old chunks) per chunk, and
// query latency (p50, p99). The embedding retriever's ranking query runs in
// chDB over N stored vectors, timed the same way (the query's embedding is
// not: that is the embedder's cost). Chunks are demo-feed sentences
// combined at random (seeded), with a reference number each, so the
// vocabulary grows with the corpus as real documents' does.
func cmdBenchRetrieval(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench retrieval", flag.ContinueOnError)
	sizes := fs.String("sizes", "1000,10000,100000", "chunks in the corpus, comma-separated")
	probe := fs.Int("probe", 1000, "chunks added, and chunks replaced, and timed at each size")
	queries := fs.Int("queries", 300, "queries timed at each size")
	dim := fs.Int("dim", 384, "dimension of the stored vectors")
	k := fs.Int("k", retrieve.DefaultK, "top-k")
	noEmb := fs.Bool("no-embedding", false, "skip the ClickHouse part")
	chdbLib := fs.String("chdb-lib", "", "libchdb.so (default: $ROBUSTREAM_CHDB_LIB, then .chdb/lib)")
	fs.SetOutput(stdout)
	if err := fs.Parse(args); err != nil {
		return err
	}
	var ns []int
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("bench retrieval: -sizes: %q is not a chunk count", f)
		}
		ns = append(ns, n)
	}
	slices.Sort(ns)
	if *probe <= 0 || *queries <= 0 || *k <= 0 || *dim <= 0 {
		return errors.New("bench retrieval: -probe, -queries, -k and -dim must be positive")
	}
	pool := benchSentences()
	qs := benchQueries(pool, *queries)

	var ch clickhouse.Engine
	if !*noEmb {
		tmp, err := os.MkdirTemp("", "robustream-bench-retrieval-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		ch, err = clickhouse.Open(ctx, clickhouse.Config{DataDir: tmp, LibPath: *chdbLib})
		if err != nil {
			return fmt.Errorf("bench retrieval: %w (or pass -no-embedding)", err)
		}
		defer ch.Close()
		if err := clickhouse.Migrate(ctx, ch, nil); err != nil {
			return err
		}
	}

	fmt.Fprintf(stdout, "robustream bench retrieval: %d chunks added and %d replaced per size, %d queries, top-%d; vectors of %d dimensions in chDB\n\n",
		*probe, *probe, *queries, *k, *dim)
	fmt.Fprintf(stdout, "%8s %9s %6s %10s %10s %12s %10s %10s %11s %11s %8s\n",
		"chunks", "terms", "text B", "fill µs/c", "add µs/c", "replace µs/c", "bm25 p50", "bm25 p99", "emb p50", "emb p99", "heap MB")
	for _, n := range ns {
		row, err := benchRetrievalSize(ctx, ch, pool, qs, n, *probe, *k, *dim)
		if err != nil {
			return err
		}
		emb50, emb99 := "—", "—"
		if ch != nil {
			emb50, emb99 = ms(row.emb50), ms(row.emb99)
		}
		fmt.Fprintf(stdout, "%8d %9d %6d %10.1f %10.1f %12.1f %10s %10s %11s %11s %8.0f\n",
			n, row.terms, row.textBytes, row.fill, row.add, row.replace, ms(row.bm50), ms(row.bm99), emb50, emb99, row.heapMB)
	}
	fmt.Fprintf(stdout, "\nfill, add, replace: process CPU time per chunk through the stage's Process (JSON decode, tokenise, index;\n"+
		"no Kafka), GC included; replace: a new version of a 4-chunk document, retiring its 4 old chunks.\n"+
		"p50/p99: wall time of one query; emb: the ranking query in chDB (the query's embedding excluded);\n"+
		"heap: live Go heap with the index built (text B: mean chunk text).\n")
	return nil
}

type retrievalRow struct {
	terms                    int
	fill, add, replace       float64 // µs per chunk
	bm50, bm99, emb50, emb99 time.Duration
	heapMB                   float64
	textBytes                int // mean chunk text
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// benchChunkText is the text of chunk i of the synthetic corpus (version
// v): three to six pool sentences drawn by a generator seeded with (i, v),
// and a reference number.
func benchChunkText(pool []string, i, v int) string {
	r := rand.New(rand.NewPCG(uint64(i), uint64(v)))
	var b strings.Builder
	for range 3 + r.IntN(4) {
		b.WriteString(pool[r.IntN(len(pool))])
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "Reference %d-%d.", i, v)
	return b.String()
}

// benchChunk is the rs.chunks message of chunk i, version v, of document
// i/4.
func benchChunk(pool []string, i, v int) (streams.Message, error) {
	doc := fmt.Sprintf("d%d", i/4)
	c := &schemas.Chunk{ChunkID: benchChunkID(i, v), DocID: doc, DocVersion: uint32(v), Ordinal: uint32(i % 4), Text: benchChunkText(pool, i, v)}
	schemas.Stamp(c, c.ChunkID)
	b, err := schemas.Encode(c)
	if err != nil {
		return streams.Message{}, err
	}
	return streams.Message{Topic: streams.TopicChunks, Key: []byte(doc), Value: b}, nil
}

// benchChunkID is chunk i's id at version 1 "b<i>" (the id the stored
// vectors use), and "b<i>v<v>" after.
func benchChunkID(i, v int) string {
	if v == 1 {
		return "b" + strconv.Itoa(i)
	}
	return fmt.Sprintf("b%dv%d", i, v)
}

func benchRetrievalSize(ctx context.Context, ch clickhouse.Engine, pool, qs []string, n, probe, k, dim int) (retrievalRow, error) {
	var row retrievalRow
	st := retrieve.NewStage(retrieve.Config{TopK: map[string]int{retrieve.BM25Name: k}}, nil)
	// feed returns the process CPU time msgs took (the machine may be
	// shared: CPU time, GC included, is what the stage costs).
	feed := func(msgs []streams.Message) (time.Duration, error) {
		start := cpuTime()
		for _, m := range msgs {
			if _, err := st.Process(ctx, m); err != nil {
				return 0, err
			}
		}
		return cpuTime() - start, nil
	}
	make1 := func(from, to, v int) ([]streams.Message, error) {
		msgs := make([]streams.Message, 0, to-from)
		for i := from; i < to; i++ {
			m, err := benchChunk(pool, i, v)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	fill, err := make1(0, n, 1)
	if err != nil {
		return row, err
	}
	took, err := feed(fill)
	if err != nil {
		return row, err
	}
	row.fill = float64(took.Microseconds()) / float64(n)
	fill = nil // the heap below is the index's
	if st.Len() != n {
		return row, fmt.Errorf("bench retrieval: %d chunks fed, %d indexed", n, st.Len())
	}
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	row.heapMB = float64(mem.HeapAlloc) / (1 << 20)

	// Queries at size n, before the timed updates change it.
	row.bm50, row.bm99, err = timeQueries(qs, func(q string) (int, error) {
		hits, err := st.Retrieve(ctx, retrieve.BM25Name, q)
		return len(hits), err
	})
	if err != nil {
		return row, err
	}
	if ch != nil {
		if row.emb50, row.emb99, err = benchRank(ctx, ch, st, qs, n, k, dim); err != nil {
			return row, err
		}
	}

	// Updates: probe new chunks (new documents), then probe chunks of
	// existing documents replaced by a second version.
	added, err := make1(n, n+probe, 1)
	if err != nil {
		return row, err
	}
	if took, err = feed(added); err != nil {
		return row, err
	}
	row.add = float64(took.Microseconds()) / float64(probe)
	// Whole documents, so that every old chunk is retired: document d
	// holds chunks 4d … 4d+3; replace the first probe/4 documents.
	replaced, err := make1(0, probe/4*4, 2)
	if err != nil {
		return row, err
	}
	if took, err = feed(replaced); err != nil {
		return row, err
	}
	row.replace = float64(took.Microseconds()) / float64(len(replaced))
	if want := n + probe; st.Len() != want {
		return row, fmt.Errorf("bench retrieval: %d chunks indexed after the updates, want %d", st.Len(), want)
	}
	row.terms, row.textBytes = benchTerms(pool, n)
	return row, nil
}

// timeQueries times one call of query per q and returns p50 and p99; a run
// where no query found anything measured nothing and is an error.
func timeQueries(qs []string, query func(string) (int, error)) (p50, p99 time.Duration, err error) {
	each := make([]time.Duration, 0, len(qs))
	found := 0
	for _, q := range qs {
		start := time.Now()
		n, err := query(q)
		if err != nil {
			return 0, 0, err
		}
		each = append(each, time.Since(start))
		if n > 0 {
			found++
		}
	}
	if found == 0 {
		return 0, 0, errors.New("bench retrieval: no query retrieved anything; no figure reported")
	}
	slices.Sort(each)
	at := func(p float64) time.Duration { return each[min(len(each)-1, int(math.Ceil(p*float64(len(each))))-1)] }
	return at(0.50), at(0.99), nil
}

// benchRank stores vectors for chunks b0 … b<n-1> (those not stored yet by
// a smaller size) and times the embedding retriever's ranking query with
// random query vectors. Every query must return k chunks.
func benchRank(ctx context.Context, ch clickhouse.Engine, st *retrieve.Stage, qs []string, n, k, dim int) (time.Duration, time.Duration, error) {
	const name = "emb_bench"
	out, err := ch.Query(ctx, "SELECT count() FROM "+retrieve.VectorsTable+" WHERE embedder = '"+name+"'", "TabSeparated")
	if err != nil {
		return 0, 0, err
	}
	have, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	if have < n {
		// Pseudo-random components in [-1, 1) from a hash, normalized.
		ins := fmt.Sprintf(`INSERT INTO %s (embedder, chunk_id, doc_id, doc_version, vector, embedded_at)
SELECT '%s', concat('b', toString(number)), concat('d', toString(intDiv(number, 4))), 1,
       arrayMap(x -> x / sqrt(arraySum(arrayMap(y -> y * y, raw))), raw), now()
FROM (SELECT number, arrayMap(j -> toFloat32((cityHash64(number, j) %% 2000) / 1000 - 1), range(%d)) AS raw
      FROM numbers(%d, %d))`, retrieve.VectorsTable, name, dim, have, n-have)
		if err := ch.Exec(ctx, ins); err != nil {
			return 0, 0, fmt.Errorf("bench retrieval: cannot store vectors: %w", err)
		}
	}
	d := retrieve.NewDense("bench", nil, ch, nil)
	r := rand.New(rand.NewPCG(uint64(n), 99))
	short := 0
	p50, p99, err := timeQueries(qs, func(string) (int, error) {
		qv := make([]float32, dim)
		for i := range qv {
			qv[i] = float32(r.Float64()*2 - 1)
		}
		hits, err := st.RankVector(ctx, d, qv, k)
		if len(hits) < k {
			short++
		}
		return len(hits), err
	})
	if err == nil && short > 0 {
		err = fmt.Errorf("bench retrieval: %d of %d vector queries returned fewer than %d chunks", short, len(qs), k)
	}
	return p50, p99, err
}

// benchSentences are the sentences of 40 periods of the demo feed.
func benchSentences() []string {
	seen := map[string]bool{}
	var out []string
	for p := range 40 {
		for _, d := range demo.Generate(7, p) {
			for _, s := range strings.Split(d.Text, ". ") {
				s = strings.TrimSpace(s)
				if len(strings.Fields(s)) >= 5 && !seen[s] {
					seen[s] = true
					out = append(out, strings.TrimSuffix(s, ".")+".")
				}
			}
		}
	}
	return out
}

// benchQueries are n queries: six to ten consecutive words of a pool
// sentence, drawn with a fixed seed.
func benchQueries(pool []string, n int) []string {
	r := rand.New(rand.NewPCG(3, 5))
	out := make([]string, n)
	for i := range out {
		w := strings.Fields(pool[r.IntN(len(pool))])
		l := min(len(w), 6+r.IntN(5))
		s := r.IntN(len(w) - l + 1)
		out[i] = strings.Join(w[s:s+l], " ")
	}
	return out
}

// benchTerms counts the distinct terms of the first n chunks' texts, and
// their mean length in bytes.
func benchTerms(pool []string, n int) (distinct, meanBytes int) {
	terms := map[string]bool{}
	total := 0
	for i := range n {
		text := benchChunkText(pool, i, 1)
		total += len(text)
		ts, _ := retrieve.Terms(text)
		for _, t := range ts {
			terms[strings.Clone(t)] = true
		}
	}
	return len(terms), total / n
}
