package reader

import (
	"math"
	"testing"

	"github.com/robustream/robustream/schemas"
)

// TestRetrievalMetricsByHand: the retrieval verdicts of hand-made
// retrievals, each figure worked out by hand (docs/methods.md, Retrieval
// metrics), including a multi-hop question with one of its two
// ground-truth chunks retrieved.
func TestRetrievalMetricsByHand(t *testing.T) {
	const (
		cfo      = "Northwind Bank appointed Maria Lopez as chief financial officer in March 2024."
		acquired = "Contoso acquired Fabrikam in 2021 for 2 billion dollars."
		lyon     = "Fabrikam is headquartered in Lyon, France."
	)
	cases := []struct {
		name                  string
		retrieved, gt, accept []string
		answer, hit           bool
		recall, precision, rr float64
	}{
		// An unrelated passage, the chunk itself (case and spaces
		// changed), a passage with the answer but not the chunk: the chunk
		// at rank 2, two of three passages relevant.
		{"single hop", []string{"The weather in Oslo was mild.", "NORTHWIND  Bank appointed Maria Lopez as chief\nfinancial officer in March 2024.", "Maria Lopez spoke at a conference."},
			[]string{cfo}, []string{"Maria Lopez"}, true, true, 1, 2.0 / 3, 0.5},
		// Multi-hop: the first chunk inside a longer passage at rank 1, the
		// second chunk (which holds the answer) not retrieved: a hit, half
		// the recall, one relevant passage of two.
		{"multi-hop, one of two", []string{"Background. Contoso acquired Fabrikam in 2021 for 2 billion dollars. More text.", "Contoso reported revenue growth."},
			[]string{acquired, lyon}, []string{"Lyon"}, false, true, 0.5, 0.5, 1},
		// Multi-hop, both chunks: full recall.
		{"multi-hop, both", []string{lyon, acquired, "Unrelated."},
			[]string{acquired, lyon, acquired}, []string{"Lyon"}, true, true, 1, 2.0 / 3, 1},
		// Fragments: 25 bytes of a chunk prove nothing; 48 bytes count.
		{"fragments", []string{"Fabrikam is headquartered", "acquired Fabrikam in 2021 for 2 billion dollars."},
			[]string{acquired, lyon}, []string{"Lyon"}, false, true, 0.5, 0.5, 0.5},
		{"miss", []string{"Short Maria"}, []string{cfo}, []string{"Maria Lopez"}, false, false, 0, 0, 0},
		{"nothing retrieved", nil, []string{cfo}, []string{"Maria Lopez"}, false, false, 0, 0, 0},
	}
	for _, c := range cases {
		var res schemas.EvalResult
		judgeRetrieval(&res, c.retrieved, c.gt, c.accept)
		if res.AnswerAvailable != c.answer || res.RetrievalHit != c.hit || !near(res.RetrievalRecall, c.recall) ||
			!near(res.RetrievalPrecision, c.precision) || !near(res.RetrievalRR, c.rr) {
			t.Errorf("%s: answer %v hit %v recall %.4f precision %.4f rr %.4f; want %v %v %.4f %.4f %.4f", c.name,
				res.AnswerAvailable, res.RetrievalHit, res.RetrievalRecall, res.RetrievalPrecision, res.RetrievalRR,
				c.answer, c.hit, c.recall, c.precision, c.rr)
		}
		if len(res.Retrieved) != len(c.retrieved) {
			t.Errorf("%s: %d passages kept of %d", c.name, len(res.Retrieved), len(c.retrieved))
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
