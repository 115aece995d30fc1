package retrieve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

// inputCounter is a reverse proxy in front of the simulated server that
// counts every text it is asked to embed.
type inputCounter struct {
	mu     sync.Mutex
	inputs map[string]int
	calls  int
}

func (c *inputCounter) handler(target string) http.Handler {
	u, _ := url.Parse(target)
	proxy := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Input json.RawMessage `json:"input"`
		}
		if json.Unmarshal(body, &req) == nil {
			var many []string
			if json.Unmarshal(req.Input, &many) != nil {
				var one string
				json.Unmarshal(req.Input, &one)
				many = []string{one}
			}
			c.mu.Lock()
			c.calls++
			for _, in := range many {
				c.inputs[in]++
			}
			c.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	})
}

func (c *inputCounter) count(text string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inputs[text]
}

// The embedding retriever with the simulated server's embeddings and chDB:
// every chunk is embedded exactly once, also across a restart of the stage
// (the vectors are found in ClickHouse, not asked for again), its top-k
// equals a brute-force cosine ranking of the server's own vectors, and a
// retired version's chunks are never retrieved.
//
// It runs on chDB, and on the clickhouse-server of
// ROBUSTREAM_TEST_CLICKHOUSE (18.16: no dotProduct, the arraySum path) when
// set.
func TestDenseEmbedsEachChunkOnceAcrossRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("opens ClickHouse and a broker")
	}
	for _, engine := range []string{"chdb", "server"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			cfg := clickhouse.Config{DataDir: t.TempDir()}
			if engine == "server" {
				cfg = clickhouse.Config{URL: os.Getenv("ROBUSTREAM_TEST_CLICKHOUSE")}
				if cfg.URL == "" {
					t.Skip("ROBUSTREAM_TEST_CLICKHOUSE is unset (export ROBUSTREAM_TEST_CLICKHOUSE=$(scripts/clickhouse-test-server.sh start))")
				}
			}
			ch, err := clickhouse.Open(ctx, cfg)
			if errors.Is(err, clickhouse.ErrNoChDB) {
				t.Skipf("chDB unavailable: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ch.Close()
			if err := clickhouse.Migrate(ctx, ch, nil); err != nil {
				t.Fatal(err)
			}
			// A shared server keeps earlier runs' vectors: an embedder id
			// of this run's own.
			id := fmt.Sprintf("e5-%d", time.Now().UnixNano())
			denseOnce(t, ctx, ch, id)
		})
	}
}

func denseOnce(t *testing.T, ctx context.Context, ch clickhouse.Engine, id string) {
	name := DenseName(id)
	sim, err := simserver.Start(simserver.Config{Model: "e5"})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	counter := &inputCounter{inputs: map[string]int{}}
	front := httptest.NewServer(counter.handler("http://" + sim.Addr()))
	defer front.Close()
	embedder := func(base string) provider.Embedder {
		e, err := provider.NewOpenAI("e5", provider.OpenAIOptions{BaseURL: base + "/v1", Model: "e5", Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	direct := embedder("http://" + sim.Addr()) // uncounted, for the reference ranking

	b, err := streams.StartBroker(t.TempDir(), "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	k, err := streams.NewKafka(b.ClientConfig().WithPartitions(2))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	start := func() (*Stage, *streams.State) {
		st := streams.NewState(k, StageName)
		if err := st.RestoreAll(ctx); err != nil {
			t.Fatal(err)
		}
		s := NewStage(Config{}, st, NewDense(id, embedder(front.URL), ch, nil))
		if err := s.Restored(ctx); err != nil {
			t.Fatal(err)
		}
		return s, st
	}

	s1, st1 := start()
	feed(t, ctx, s1, corpusMsgs(t, []int{0, 1, 2})...)
	// cache.md is replaced: its first version's chunks must not be
	// retrieved, and must not be embedded if no question came before.
	replaced := "The cache keeps responses for 600 seconds after the 2.5 update."
	feed(t, ctx, s1, chunkMsg(t, "cache.md", 2, 0, replaced, 50))
	queries := []string{"Which port does the proxy listen on by default?", "How long does the cache keep responses?", "When was the 2.4 release published?"}
	first := map[string][]string{}
	for _, q := range queries {
		hits, err := s1.Retrieve(ctx, name, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			first[q] = append(first[q], h.Chunk.ID)
		}
	}
	if err := st1.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	active := append(append(corpus[0].texts, corpus[2].texts...), replaced)
	for _, text := range active {
		if n := counter.count(text); n != 1 {
			t.Errorf("chunk %.40q embedded %d times before the restart, want 1", text, n)
		}
	}
	for _, text := range corpus[1].texts {
		if n := counter.count(text); n != 0 {
			t.Errorf("a retired chunk %.40q was embedded %d times", text, n)
		}
	}

	// The reference ranking: cosine of the server's own vectors over the
	// active chunks, ties by chunk id.
	for _, q := range queries {
		vs, err := direct.Embed(ctx, append([]string{q}, active...))
		if err != nil {
			t.Fatal(err)
		}
		type scored struct {
			id    string
			score float64
		}
		var ranked []scored
		for i, text := range active {
			doc := map[bool]string{true: "cache.md", false: ""}[text == replaced]
			if doc == "" {
				for _, d := range corpus {
					if slices.Contains(d.texts, text) {
						doc = d.doc
					}
				}
			}
			ranked = append(ranked, scored{chunkMsgID(doc, text), provider.Cosine(vs[0], vs[i+1])})
		}
		sort.SliceStable(ranked, func(i, j int) bool {
			if d := ranked[i].score - ranked[j].score; d > 1e-6 || d < -1e-6 {
				return d > 0
			}
			return ranked[i].id < ranked[j].id
		})
		var want []string
		for _, r := range ranked[:3] {
			want = append(want, r.id)
		}
		if !slices.Equal(first[q], want) {
			t.Errorf("%q: ClickHouse top-3 %v, brute force %v", q, first[q], want)
		}
	}

	// Restart: a new stage restored from the changelog, with a new
	// retriever that has never seen a vector.
	calls := counter.calls
	s2, _ := start()
	if counter.calls != calls {
		t.Errorf("the restart called the embedder %d times", counter.calls-calls)
	}
	for _, q := range queries {
		hits, err := s2.Retrieve(ctx, name, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Chunk.ID)
		}
		if !slices.Equal(ids, first[q]) {
			t.Errorf("%q after the restart: %v, before %v", q, ids, first[q])
		}
	}
	// A chunk that arrives after the restart is embedded, once.
	added := "Operators rotate the proxy's TLS certificates every 90 days."
	feed(t, ctx, s2, chunkMsg(t, "tls.md", 1, 0, added, 60))
	if _, err := s2.Retrieve(ctx, name, "How often are the TLS certificates rotated?"); err != nil {
		t.Fatal(err)
	}
	for _, text := range append(active, added) {
		if n := counter.count(text); n != 1 {
			t.Errorf("chunk %.40q embedded %d times in all, want 1", text, n)
		}
	}
	// Only the queries were embedded after the restart: one call each.
	if got, want := counter.calls-calls, len(queries)+2; got != want {
		t.Errorf("%d embedder calls after the restart, want %d (%d queries, one new chunk, one query)", got, want, len(queries))
	}
	rows, err := ch.Query(ctx, "SELECT count(), uniqExact(chunk_id) FROM robustream.chunk_vectors WHERE embedder = '"+name+"'", "TabSeparated")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d\t%d\n", len(active)+1, len(active)+1); string(rows) != want {
		t.Errorf("chunk_vectors holds %q, want %q", rows, want)
	}
}

// chunkMsgID is the chunk id chunkMsg gives.
func chunkMsgID(doc, text string) string { return schemas.ID(doc, text) }
