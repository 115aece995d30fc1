package triplet_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// recorded is the directory of the recorded generator replies and the two
// reports they were written for.
const recorded = "../provider/simserver/testdata/recorded"

// report reads a report of the recorded set as chunks, one per paragraph
// after its title line, with content-hash ids as the chunker gives.
func report(t *testing.T, file, docID string) []schemas.Chunk {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recorded, file))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(strings.TrimSpace(string(b)), "\n\n")
	title := strings.TrimPrefix(parts[0], "# ")
	var out []schemas.Chunk
	for i, p := range parts[1:] {
		out = append(out, schemas.Chunk{ChunkID: schemas.ID(docID, p), DocID: docID, DocVersion: 1, Ordinal: uint32(i),
			Text: p, Kind: "text", Title: title, Domain: "industry", PublishedAt: time.Date(2026, 4, 15, 0, 0, 0, 0, time.UTC)})
	}
	return out
}

func northwind(t *testing.T) []schemas.Chunk {
	return report(t, "northwind_q1_2026.md", "northwind-q1-2026")
}
func harbor(t *testing.T) []schemas.Chunk {
	return report(t, "harbor_keel_march_2026.md", "harbor-keel-2026-03")
}

// recordedServer starts the simulated server playing the recording, with
// costs that make replies quick, and returns it with a generator client.
func recordedServer(t *testing.T) (*simserver.Server, provider.Generator) {
	t.Helper()
	rec, err := simserver.LoadRecording(filepath.Join(recorded, "recording.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := simserver.Start(simserver.Config{Recorded: rec, PrefillPerToken: time.Nanosecond,
		CachedPrefillPerToken: time.Nanosecond, DecodePerToken: time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g, err := provider.NewOpenAI("generator", provider.OpenAIOptions{BaseURL: s.BaseURL(), Model: simserver.DefaultModel})
	if err != nil {
		t.Fatal(err)
	}
	return s, g
}

func reasons(rs []triplet.Rejection) map[string]int {
	out := map[string]int{}
	for _, r := range rs {
		out[r.Reason]++
	}
	return out
}

// checkVerbatim asserts the evidence contract on every accepted triple.
func checkVerbatim(t *testing.T, res *triplet.LLMResult, c schemas.Chunk) {
	t.Helper()
	for _, x := range res.Triples {
		if err := triplet.Verify(c.Text, x.Sentence, x.Tail); err != nil {
			t.Errorf("%+v: %v", x, err)
		}
		if x.ChunkID != c.ChunkID || x.Head == "" || x.Relation == "" {
			t.Errorf("%+v: chunk id or fields wrong", x)
		}
	}
}

// TestLLMExtractValidation reads a clean reply of 19 objects, 5 of them
// wrong in the ways models get facts wrong, and a sentence whose only
// difference from the chunk is a doubled space.
func TestLLMExtractValidation(t *testing.T) {
	_, g := recordedServer(t)
	c := northwind(t)[0]
	res, err := triplet.NewLLMExtractor(g).Extract(context.Background(), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Triples) != 14 || len(res.Repairs) != 0 || res.Cached {
		t.Fatalf("%d triples, repairs %v, cached %v; want 14 from clean JSON", len(res.Triples), res.Repairs, res.Cached)
	}
	want := map[string]int{triplet.RejectTailMissing: 1, triplet.RejectNotVerbatim: 1, triplet.RejectUnknownChunk: 1,
		triplet.RejectMissingField: 1, triplet.RejectDuplicate: 1}
	if got := reasons(res.Rejected); len(got) != len(want) {
		t.Errorf("rejections %v, want %v", res.Rejected, want)
	} else {
		for k, n := range want {
			if got[k] != n {
				t.Errorf("rejections %v, want %v", res.Rejected, want)
			}
		}
	}
	for _, r := range res.Rejected {
		if r.Reason == triplet.RejectUnknownChunk && (r.Index != 15 || !strings.Contains(r.Detail, `"c3"`)) {
			t.Errorf("unknown chunk rejection %+v, want object 15 naming c3", r)
		}
	}
	checkVerbatim(t, res, c)
	// The doubled space is tolerated, and the chunk's own text kept.
	found := false
	for _, x := range res.Triples {
		if x.Relation == "reported backlog of" {
			found = true
			if !strings.Contains(c.Text, x.Sentence) || strings.Contains(x.Sentence, "  ") {
				t.Errorf("sentence %q is not the chunk's own text", x.Sentence)
			}
		}
		if x.Kind != "verb" {
			t.Errorf("%+v: kind %q, want verb", x, x.Kind)
		}
	}
	if !found {
		t.Error("the fact whose sentence differs only in whitespace was rejected")
	}
}

// TestLLMExtractRepairs reads the malformed replies that can be repaired.
func TestLLMExtractRepairs(t *testing.T) {
	_, g := recordedServer(t)
	x := triplet.NewLLMExtractor(g)
	chunks := northwind(t)
	for _, tc := range []struct {
		name    string
		chunk   schemas.Chunk
		triples int
		repairs []string
	}{
		{"code fence, prose and trailing commas", chunks[1], 15, []string{"code fence", "surrounding text", "trailing comma"}},
		{"cut off by max tokens", chunks[2], 10, []string{"code fence", "truncated"}},
		{"object wrapper and smart quotes", chunks[4], 9, []string{"smart quotes", "wrapped in an object"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := x.Extract(context.Background(), nil, tc.chunk)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Triples) != tc.triples || len(res.Rejected) != 0 {
				t.Errorf("%d triples, rejected %v; want %d, none", len(res.Triples), res.Rejected, tc.triples)
			}
			for _, r := range tc.repairs {
				if !strings.Contains(strings.Join(res.Repairs, ","), r) {
					t.Errorf("repairs %v, want %q among them", res.Repairs, r)
				}
			}
			checkVerbatim(t, res, tc.chunk)
		})
	}
}

// TestLLMExtractNotJSON: prose instead of JSON is ErrLLMOutput with the
// reason, and such a reply is not cached.
func TestLLMExtractNotJSON(t *testing.T) {
	s, g := recordedServer(t)
	x := triplet.NewLLMExtractor(g)
	c := northwind(t)[3]
	for range 2 {
		_, err := x.Extract(context.Background(), nil, c)
		if !errors.Is(err, triplet.ErrLLMOutput) || !strings.Contains(err.Error(), "no JSON array") {
			t.Fatalf("err = %v, want ErrLLMOutput saying there is no array", err)
		}
	}
	if n := s.Stats().Requests; n != 2 {
		t.Errorf("%d requests, want 2: an unusable reply must not be cached", n)
	}
}

// TestLLMExtractTransient: a 429 is provider.ErrRateLimited carrying the
// server's Retry-After, a 503 is ErrUnavailable; neither is permanent, and
// the next call succeeds.
func TestLLMExtractTransient(t *testing.T) {
	_, g := recordedServer(t)
	x := triplet.NewLLMExtractor(g)
	h := harbor(t)
	for _, tc := range []struct {
		chunk   schemas.Chunk
		class   error
		wait    time.Duration
		triples int
	}{
		{h[0], provider.ErrRateLimited, time.Second, 10},
		{h[2], provider.ErrUnavailable, 0, 9},
	} {
		_, err := x.Extract(context.Background(), nil, tc.chunk)
		var ra interface{ RetryAfter() time.Duration }
		if !errors.Is(err, tc.class) || streams.IsPermanent(err) || !errors.As(err, &ra) || ra.RetryAfter() != tc.wait {
			t.Fatalf("first call: err = %v, want %v with retry-after %v, not permanent", err, tc.class, tc.wait)
		}
		res, err := x.Extract(context.Background(), nil, tc.chunk)
		if err != nil {
			t.Fatalf("second call: %v", err)
		}
		if len(res.Triples) != tc.triples {
			t.Errorf("%d triples, want %d (rejected %v)", len(res.Triples), tc.triples, res.Rejected)
		}
	}
}

// TestLLMExtractCache: the same window asked again is answered from the
// cache, without a request.
func TestLLMExtractCache(t *testing.T) {
	s, g := recordedServer(t)
	x := triplet.NewLLMExtractor(g)
	c := northwind(t)[0]
	first, err := x.Extract(context.Background(), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	second, err := x.Extract(context.Background(), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Stats().Requests; n != 1 || !second.Cached || len(second.Triples) != len(first.Triples) {
		t.Errorf("%d requests, cached %v, %d/%d triples; want 1 request and the same triples from the cache", n, second.Cached, len(second.Triples), len(first.Triples))
	}
}

// TestLLMExtractWindow: with the chunk before as context, a fact taken
// from the context chunk is refused (each fact belongs to one window), and
// a tail differing from the sentence in case only is taken verbatim.
func TestLLMExtractWindow(t *testing.T) {
	_, g := recordedServer(t)
	h := harbor(t)
	if p := triplet.Prompt(h[:1], h[1]); !strings.Contains(p, "Context (earlier chunks") || !strings.Contains(p, `<chunk id="c2">`) {
		t.Fatalf("window prompt lacks its context or target:\n%s", p)
	}
	res, err := triplet.NewLLMExtractor(g).Extract(context.Background(), h[:1], h[1])
	if err != nil {
		t.Fatal(err)
	}
	if got := reasons(res.Rejected); len(res.Rejected) != 1 || got[triplet.RejectContextChunk] != 1 {
		t.Errorf("rejected %v, want the one context-chunk fact", res.Rejected)
	}
	if len(res.Triples) != 10 {
		t.Errorf("%d triples, want 10", len(res.Triples))
	}
	checkVerbatim(t, res, h[1])
	for _, x := range res.Triples {
		if x.Relation == "put into service" && x.Tail != "The first 150 robots" {
			t.Errorf("tail %q, want the sentence's own \"The first 150 robots\"", x.Tail)
		}
	}
}

func TestParseArray(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		n           int
		err         bool
	}{
		{"empty", "[]", 0, false},
		{"brackets and escapes in strings", `[{"a": "x ] } \" ,]"}, {"a": "y"},]`, 2, false},
		{"fence without info string", "```\n[{\"a\": 1}]\n```", 1, false},
		{"cut inside the first object", `[{"a": "x`, 0, false},
		{"object without an array", `{"a": 1}`, 0, true},
		{"nothing", "I cannot help with that.", 0, true},
		{"broken beyond repair", `[{"a" 1}]`, 0, true},
	} {
		items, _, err := triplet.ParseArray(tc.reply)
		if (err != nil) != tc.err || len(items) != tc.n {
			t.Errorf("%s: %d items, err %v; want %d, error %v", tc.name, len(items), err, tc.n, tc.err)
		}
		if err != nil && !errors.Is(err, triplet.ErrLLMOutput) {
			t.Errorf("%s: %v is not ErrLLMOutput", tc.name, err)
		}
	}
}

// decodeTriplets decodes the fact records, leaving out the chunk's End
// marker.
func decodeTriplets(t *testing.T, recs []streams.Record) []schemas.Triplet {
	t.Helper()
	var out []schemas.Triplet
	for _, r := range recs {
		var x schemas.Triplet
		if err := schemas.Decode(r.Value, &x); err != nil {
			t.Fatal(err)
		}
		if !x.End {
			out = append(out, x)
		}
	}
	return out
}

// TestStageLLM runs the stage with extractor llm over the Harbor Keel
// report: the rate-limited first call is a retryable error, the window of
// the second chunk holds the first, and a reply without JSON dead-letters
// its chunk.
func TestStageLLM(t *testing.T) {
	srv, g := recordedServer(t)
	s, err := triplet.NewStage(triplet.Config{Extractor: triplet.ExtractorLLM, Window: 2})
	if err != nil {
		t.Fatal(err)
	}
	if s.Degraded() == "" {
		t.Error("Degraded() is empty before SetGenerator")
	}
	s.SetGenerator(g)
	if d := s.Degraded(); d != "" {
		t.Errorf("Degraded() = %q with a generator", d)
	}
	h := harbor(t)
	ctx := context.Background()
	_, err = s.Process(ctx, chunkMessage(t, &h[0]))
	var ra interface{ RetryAfter() time.Duration }
	if !errors.Is(err, provider.ErrRateLimited) || streams.IsPermanent(err) || !errors.As(err, &ra) || ra.RetryAfter() != time.Second {
		t.Fatalf("first chunk: err = %v, want a retryable rate limit with Retry-After 1s", err)
	}
	recs, err := s.Process(ctx, chunkMessage(t, &h[0])) // the runner's retry
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeTriplets(t, recs); len(got) != 10 || got[0].Extractor != triplet.ExtractorLLM || got[0].ChunkID != h[0].ChunkID || got[0].DocVersion != 1 {
		t.Fatalf("first chunk: %d triplets (%+v), want 10 from the LLM", len(got), got)
	}
	recs, err = s.Process(ctx, chunkMessage(t, &h[1]))
	if err != nil {
		t.Fatal(err)
	}
	facts := decodeTriplets(t, recs)
	for _, x := range facts {
		if x.ChunkID != h[1].ChunkID || triplet.Verify(x.ChunkText, x.SourceSentence, x.Tail) != nil {
			t.Errorf("second chunk: %+v attributed or copied wrongly", x)
		}
	}
	if n := len(facts); n != 10 {
		t.Errorf("second chunk: %d triplets, want 10", n)
	}
	if r := s.LLMRejected(); r[triplet.RejectContextChunk] != 1 || r[triplet.RejectTailMissing] != 1 {
		t.Errorf("LLMRejected() = %v, want one context-chunk and one tail rejection", r)
	}
	// Redelivered, the chunk gets the same window, hence the cached reply
	// (whose rejections count again).
	requests := srv.Stats().Requests
	if again, err := s.Process(ctx, chunkMessage(t, &h[1])); err != nil || len(again) != len(recs) || srv.Stats().Requests != requests {
		t.Errorf("redelivery: %d records, err %v, %d new requests; want the same records from the cache", len(again), err, srv.Stats().Requests-requests)
	}
	// A reply with no usable JSON is permanent: the runner dead-letters the
	// chunk with the reason, and writes its terminal record, the chunk's
	// End, so that the rest of its document is not held back.
	n := northwind(t)
	msg := chunkMessage(t, &n[3])
	_, err = s.Process(ctx, msg)
	if !streams.IsPermanent(err) || !errors.Is(err, triplet.ErrLLMOutput) {
		t.Errorf("prose reply: err = %v, want a permanent ErrLLMOutput", err)
	}
	term := s.Terminal(msg, err)
	var end schemas.Triplet
	if len(term) != 1 || schemas.Decode(term[0].Value, &end) != nil || !end.End || end.ChunkID != n[3].ChunkID {
		t.Errorf("terminal records %v, want the chunk's End record", term)
	}
}

// TestStageLLMWithoutGenerator: extractor llm without a generator runs the
// rule extractor, reports it, and warns once.
func TestStageLLMWithoutGenerator(t *testing.T) {
	var log bytes.Buffer
	s, err := triplet.NewStage(triplet.Config{Extractor: triplet.ExtractorLLM, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	c := &schemas.Chunk{ChunkID: "c1", DocID: "d1", Text: "Acme Corp opened 12 new stores in Q3 2025."}
	for range 2 {
		recs, err := s.Process(context.Background(), chunkMessage(t, c))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range decodeTriplets(t, recs) {
			if x.Extractor != triplet.ExtractorRule {
				t.Errorf("extractor %q, want the rule fallback", x.Extractor)
			}
		}
	}
	if d := s.Degraded(); !strings.Contains(d, "generator") {
		t.Errorf("Degraded() = %q, want the missing generator named", d)
	}
	if n := strings.Count(log.String(), "level=WARN"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, log.String())
	}
}

func TestStageConfig(t *testing.T) {
	for _, cfg := range []triplet.Config{{Extractor: "spacy"}, {Window: -1}, {Window: 9}} {
		if _, err := triplet.NewStage(cfg); err == nil {
			t.Errorf("NewStage(%+v) accepted", cfg)
		}
	}
	s, err := triplet.NewStage(triplet.Config{})
	if err != nil || s.Degraded() != "" {
		t.Errorf("default stage: err %v, Degraded %q", err, s.Degraded())
	}
}
