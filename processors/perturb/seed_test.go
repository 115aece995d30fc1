package perturb

import (
	"context"
	"fmt"
	"testing"

	"github.com/robustream/robustream/schemas"
)

// TestSeedEntersDraws: seed 0 keys the char and qwerty edits to the
// question id alone (what Query gives); the same seed twice gives the same
// variants; another seed gives other edits for some questions, with the
// original variant unchanged.
func TestSeedEntersDraws(t *testing.T) {
	queries := func(seed int64) map[string]string {
		t.Helper()
		st := mustStage(t, Config{Seed: seed, Kinds: []Kind{Char, QWERTY}})
		out := map[string]string{}
		for i := 0; i < 20; i++ {
			q := testQuestion()
			q.QuestionID = fmt.Sprintf("q-%d", i)
			recs, err := st.Process(context.Background(), encodeQuestion(t, q))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range decodeVariants(t, recs) {
				if v.Axis == schemas.AxisQuery || v.Axis == schemas.AxisOriginal {
					out[q.QuestionID+"/"+v.Kind] = v.Query
				}
			}
		}
		return out
	}
	zero, again, seven := queries(0), queries(0), queries(7)
	var p Perturber
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("q-%d", i)
		q := testQuestion()
		want, err := p.Query(KindChar, id, q.Question, q.Accepted())
		if err == nil && zero[id+"/"+KindChar] != want {
			t.Errorf("%s: seed 0 gave %q, the question id alone %q", id, zero[id+"/"+KindChar], want)
		}
		if again[id+"/"+KindChar] != zero[id+"/"+KindChar] || again[id+"/"+KindQWERTY] != zero[id+"/"+KindQWERTY] {
			t.Errorf("%s: the same seed gave other variants", id)
		}
		if seven[id+"/"+KindOriginal] != zero[id+"/"+KindOriginal] {
			t.Errorf("%s: the seed changed the original", id)
		}
	}
	differ := 0
	for k, v := range zero {
		if seven[k] != v {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("seed 7 gave the same %d queries as seed 0", len(zero))
	}
	t.Logf("%d of %d queries differ between seeds 0 and 7", differ, len(zero))
}
