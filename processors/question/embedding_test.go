package question_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/robustream/robustream/processors/question"
)

// letters embeds a text as its letter counts: deterministic, and texts
// sharing words come out close.
type letters struct{ calls int }

func (l *letters) Embed(_ context.Context, texts []string) ([][]float32, error) {
	l.calls++
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 26)
		for _, r := range strings.ToLower(t) {
			if r >= 'a' && r <= 'z' {
				v[r-'a']++
			}
		}
		out[i] = v
	}
	return out, nil
}

type broken struct{}

func (broken) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("embedding service rejected the request (HTTP 400)")
}

// With an embedder, D_r is the embedding cosine of GRADE §3.3 and says so;
// when the embedder fails, the lexical D_r stands and the fallback is
// counted.
func TestDifficultyByEmbedding(t *testing.T) {
	docs := readCorpus(t, "../../testdata/corpora/reports")[:3]
	e := &letters{}
	k := question.NewKnowledge(question.PatternLimits{})
	k.SetEmbedder(e)
	for _, d := range docs {
		_, triplets := feed(k, d, 1)
		for _, tr := range triplets {
			apply(k, tr)
		}
	}
	qs := k.Active()
	if len(qs) == 0 {
		t.Fatal("no questions")
	}
	for _, q := range qs {
		if q.SimFunc != question.SimEmbeddingCosine {
			t.Fatalf("%q: sim_func %q, want %q", q.Question, q.SimFunc, question.SimEmbeddingCosine)
		}
		vs, _ := e.Embed(context.Background(), append([]string{q.Question}, q.GTChunks...))
		want := 1.0
		for _, v := range vs[1:] {
			want = math.Min(want, cos(vs[0], v))
		}
		if want = 1 - want; math.Abs(q.DR-want) > 1e-9 {
			t.Errorf("%q: d_r %v, want %v", q.Question, q.DR, want)
		}
	}

	k = question.NewKnowledge(question.PatternLimits{})
	k.SetEmbedder(broken{})
	_, triplets := feed(k, docs[0], 1)
	for _, tr := range triplets {
		apply(k, tr)
	}
	for _, q := range k.Active() {
		if q.SimFunc != question.SimLexicalCosine {
			t.Errorf("%q: sim_func %q after the embedder failed, want the lexical one", q.Question, q.SimFunc)
		}
	}
	if k.Rejected[question.RejectEmbedder] == 0 {
		t.Error("the embedder's failures are not counted")
	}
}

func cos(a, b []float32) float64 {
	var d, x, y float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		x += float64(a[i]) * float64(a[i])
		y += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(x*y)
}
