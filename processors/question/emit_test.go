package question_test

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/demo"
)

// The questions ever asked, not only those asked at the end, are a function
// of the input: the engine's partitions interleave the demo feed's periods
// differently in every run (a partition may run periods ahead of another),
// and two runs over one corpus must evaluate one test set. Each order below
// is what the single questions stage could see: the triplet records of a
// document stay in order within their partition (keyed by doc_id), the
// partitions are merged at random, and documents also arrive wholly
// shuffled across periods.
func TestEmissionsDoNotDependOnOrder(t *testing.T) {
	const periods, partitions = 12, 4
	var docs []schemas.DocumentVersion
	for p := range periods {
		docs = append(docs, demo.Generate(1, p)...)
	}
	records := map[string][]*schemas.Triplet{} // doc_id → its records, as the triplet stage writes them
	for _, d := range docs {
		_, records[d.DocID] = feed(nil, corpusDoc{id: d.DocID, text: d.Text, published: d.PublishedAt}, 1)
	}
	// inPartitions lays the documents, in the given order, out on the
	// partitions their key hashes to, and merges the partitions by rng.
	inPartitions := func(order []schemas.DocumentVersion, rng *rand.Rand) []*schemas.Triplet {
		lanes := make([][]*schemas.Triplet, partitions)
		for _, d := range order {
			h := fnv.New32a()
			h.Write([]byte(d.DocID))
			p := h.Sum32() % partitions
			lanes[p] = append(lanes[p], records[d.DocID]...)
		}
		var out []*schemas.Triplet
		for {
			var open []int
			for i, l := range lanes {
				if len(l) > 0 {
					open = append(open, i)
				}
			}
			if len(open) == 0 {
				return out
			}
			// A burst of up to 40 records from one partition, as a fetch
			// would return them.
			i := open[rng.IntN(len(open))]
			n := min(len(lanes[i]), 1+rng.IntN(40))
			out = append(out, lanes[i][:n]...)
			lanes[i] = lanes[i][n:]
		}
	}
	// prgb holds, per question asked, the PRGB material it carried: perturb
	// makes the placeholder variants from it, so it must not depend on the
	// order either.
	var prgb map[string]string
	run := func(in []*schemas.Triplet) (asked []string, active []*schemas.Question, retired map[string]int) {
		k := question.NewKnowledge(question.PatternLimits{})
		seen, retired := map[string]bool{}, map[string]int{}
		prgb = map[string]string{}
		for _, tr := range in {
			c, _ := apply(k, tr)
			for _, q := range c.New {
				seen[q.QuestionID] = true
				b, _ := json.Marshal(q.PRGB)
				prgb[q.QuestionID] = string(b)
			}
			for _, q := range c.Retired {
				retired[q.Retired]++
			}
		}
		return slices.Sorted(maps.Keys(seen)), k.Active(), retired
	}
	var forward []*schemas.Triplet
	for _, d := range docs {
		forward = append(forward, records[d.DocID]...)
	}
	wantAsked, active, retired := run(forward)
	if !slices.ContainsFunc(active, func(q *schemas.Question) bool { return q.Pattern != schemas.PatternSingle }) {
		t.Fatalf("the demo feed asks %d questions, none multi-hop: the test would show nothing", len(active))
	}
	wantActive := ids(active)
	wantPRGB := prgb
	t.Logf("in feed order: %d asked, %d active at the end, retired %v", len(wantAsked), len(wantActive), retired)
	orders := map[string][]*schemas.Triplet{}
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 14))
		orders[fmt.Sprintf("partitions interleaved (seed %d)", seed)] = inPartitions(docs, rng)
	}
	shuffled := slices.Clone(docs)
	rand.New(rand.NewPCG(7, 14)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	orders["documents shuffled across periods"] = inPartitions(shuffled, rand.New(rand.NewPCG(8, 14)))
	for _, name := range slices.Sorted(maps.Keys(orders)) {
		asked, qs, _ := run(orders[name])
		if active := ids(qs); !slices.Equal(active, wantActive) {
			t.Errorf("%s: %d active at the end, feed order %d", name, len(active), len(wantActive))
		}
		if !slices.Equal(asked, wantAsked) {
			t.Errorf("%s: %d questions asked, feed order %d; %d asked only here, %d only in feed order",
				name, len(asked), len(wantAsked), missing(asked, wantAsked), missing(wantAsked, asked))
		}
		differ := 0
		for id, p := range prgb {
			if w, ok := wantPRGB[id]; ok && w != p {
				differ++
			}
		}
		if differ > 0 {
			t.Errorf("%s: %d questions carry other PRGB material than in feed order", name, differ)
		}
	}
}

// missing counts the ids of a (sorted) not in b (sorted).
func missing(a, b []string) int {
	n := 0
	for _, id := range a {
		if _, ok := slices.BinarySearch(b, id); !ok {
			n++
		}
	}
	return n
}
