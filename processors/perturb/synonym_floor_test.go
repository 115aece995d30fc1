package perturb

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
)

// bagOfWords embeds a text as the counts of its lowercase words hashed
// into 64 dimensions: two texts differing by one word of n have a cosine
// near 1 - 1/n, which lets the test place the floor on either side.
func bagOfWords(s string) []float32 {
	v := make([]float32, 64)
	for _, w := range splitWords(strings.ToLower(s)) {
		h := fnv.New32a()
		h.Write([]byte(w.text))
		v[h.Sum32()%64]++
	}
	return v
}

// embeddingServer is a real HTTP server speaking the OpenAI embeddings
// API with bagOfWords vectors; status, when not 200, is returned instead.
func embeddingServer(t *testing.T, status int, calls *atomic.Int64) provider.Embedder {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		if status != http.StatusOK {
			http.Error(w, `{"error":{"message":"bad input"}}`, status)
			return
		}
		var body struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("request body: %v", err)
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var reply struct {
			Data []item `json:"data"`
		}
		for i, s := range body.Input {
			reply.Data = append(reply.Data, item{i, bagOfWords(s)})
		}
		json.NewEncoder(w).Encode(reply)
	}))
	t.Cleanup(srv.Close)
	e, err := provider.NewOpenAI("embedder", provider.OpenAIOptions{BaseURL: srv.URL + "/v1", Model: "bag-of-words"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func floorQuestion() *schemas.Question {
	q := testQuestion()
	q.Question = "Which customers bought Acme Corp's large servers in Q3 2025?"
	return q
}

// TestSynonymFloor: with an embedder, the wordnet variant is kept when it
// stays above the floor, dropped and counted when it falls below, and
// skipped (not failed) when the embedder refuses the input; without one
// the rules alone decide.
func TestSynonymFloor(t *testing.T) {
	wn := wordNetOrSkip(t)
	q := floorQuestion()
	// One word of eleven changes: the bag-of-words cosine is about 0.9.
	cases := []struct {
		name     string
		status   int
		floor    float64
		made     bool
		reason   string
		embedded bool
	}{
		{"no embedder", 0, 0, true, "", false},
		{"above the floor", http.StatusOK, 0.5, true, "", true},
		{"below the floor", http.StatusOK, 0.99, false, ErrNoCandidate.Error(), true},
		{"refused by the embedder", http.StatusBadRequest, 0.5, false, ErrNoCandidate.Error(), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := mustStage(t, Config{WordNet: wn, Kinds: []Kind{Synonym}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			var calls atomic.Int64
			if c.status != 0 {
				st.SetEmbedder(embeddingServer(t, c.status, &calls), c.floor)
			}
			vs := st.Variants(q)
			made := len(vs) > 1 && vs[1].Kind == KindWordNet
			if made != c.made {
				t.Fatalf("wordnet variant made = %v, want %v (%d variants)", made, c.made, len(vs))
			}
			if got := st.SkipReasons()[KindWordNet][c.reason]; c.reason != "" && got != 1 {
				t.Errorf("skip reasons %v, want one %q", st.SkipReasons(), c.reason)
			}
			if (calls.Load() > 0) != c.embedded {
				t.Errorf("%d embedding calls, want some: %v", calls.Load(), c.embedded)
			}
		})
	}
}

// failingEmbedder fails every call as an unreachable service does.
type failingEmbedder struct{}

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, provider.ErrUnavailable
}

// TestSynonymFloorRetries: an unreachable embedder is a transient failure
// of the question (Process returns it, so the runner retries), not a
// silent skip of the kind.
func TestSynonymFloorRetries(t *testing.T) {
	st := mustStage(t, Config{WordNet: wordNetOrSkip(t), Kinds: []Kind{Synonym}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	st.SetEmbedder(failingEmbedder{}, 0)
	_, err := st.Process(context.Background(), encodeQuestion(t, floorQuestion()))
	if !errors.Is(err, provider.ErrUnavailable) {
		t.Fatalf("Process: %v, want the embedder's failure returned for a retry", err)
	}
}

func TestCosine(t *testing.T) {
	if got := cosine([]float32{1, 0}, []float32{1, 0}); math.Abs(got-1) > 1e-9 {
		t.Errorf("same vector: %v", got)
	}
	if got := cosine([]float32{1, 0}, []float32{0, 1}); got != 0 {
		t.Errorf("orthogonal: %v", got)
	}
	if got := cosine([]float32{0, 0}, []float32{1, 0}); !math.IsNaN(got) {
		t.Errorf("zero vector: %v, want NaN (rejected by the floor)", got)
	}
}

// TestSynonymFloorConfig: stages.perturb.wordnet_similarity_floor is the
// floor SetEmbedder gets (0, unset, is the default 0.9); a value that is
// no cosine in [0, 1] is refused when the stage is built; the same
// question's wordnet variant is dropped under a floor of 0.99 and kept
// under 0.5 (the configured value, not the constant, decides).
func TestSynonymFloorConfig(t *testing.T) {
	if f := (Config{}).SynonymFloor(); f != 0.9 {
		t.Errorf("default floor %v, want 0.9", f)
	}
	if f := (Config{WordNetSimilarityFloor: 0.75}).SynonymFloor(); f != 0.75 {
		t.Errorf("floor %v, want 0.75", f)
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := NewStage(Config{WordNetDir: t.TempDir(), WordNetSimilarityFloor: bad}); err == nil || !strings.Contains(err.Error(), "wordnet_similarity_floor") {
			t.Errorf("floor %v: err = %v, want a clear error", bad, err)
		}
	}
	wn := wordNetOrSkip(t)
	for _, c := range []struct {
		floor float64
		made  bool
	}{{0.5, true}, {0.99, false}} {
		cfg := Config{WordNet: wn, Kinds: []Kind{Synonym}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), WordNetSimilarityFloor: c.floor}
		st := mustStage(t, cfg)
		var calls atomic.Int64
		st.SetEmbedder(embeddingServer(t, http.StatusOK, &calls), cfg.SynonymFloor())
		vs := st.Variants(floorQuestion())
		if made := len(vs) > 1 && vs[1].Kind == KindWordNet; made != c.made {
			t.Errorf("floor %v: wordnet variant made = %v, want %v", c.floor, made, c.made)
		}
	}
}
