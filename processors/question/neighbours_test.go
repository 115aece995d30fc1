package question_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/question"
)

// applyAt hands a document version's triplets to the graph as the stage
// does when it reads them at partition, from offset *next on.
func applyAt(k *question.Knowledge, d corpusDoc, version uint32, partition int, next *int64) {
	_, triplets := feed(k, d, version)
	for _, tr := range triplets {
		if tr.End {
			k.ChunkDoneAt(tr.DocID, tr.ChunkID, tr.DocVersion, tr.Chunks, partition, *next)
		} else {
			k.AddTriplet(tr)
		}
		*next++
	}
}

// noiseOf is every noise sentence of the question asked about subject.
func noiseOf(t *testing.T, k *question.Knowledge, subject string) []string {
	t.Helper()
	for _, q := range k.Active() {
		if strings.Contains(q.Question, subject) && q.PRGB != nil {
			return slices.Concat(q.PRGB.Weak, q.PRGB.Moderate, q.PRGB.Hard)
		}
	}
	return nil
}

// TestPRGBNeighbours: a question's PRGB noise comes from the documents read
// before its own on its partition of rs.triplets, as they stood then: not
// from a document of another partition (whether it arrived before or
// after), nor from one read later on the same partition, and a later
// version of a neighbour changes nothing. So two runs that interleave the
// partitions differently give the question the same facts.
func TestPRGBNeighbours(t *testing.T) {
	at := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	before := corpusDoc{id: "before", published: at, text: "Harbor Keel Logistics reported revenue of $88 million for the first quarter of 2026. " +
		"Harbor Keel Logistics opened a depot in Gdansk in March."}
	other := corpusDoc{id: "other", published: at, text: "Lindqvist Foods reported revenue of $51 million for the first quarter of 2026. " +
		"Lindqvist Foods opened a bakery in Malmo in March."}
	own := corpusDoc{id: "own", published: at, text: "Northwind Robotics reported revenue of $412 million for the first quarter of 2026."}
	later := corpusDoc{id: "later", published: at, text: "Tamura Shipping reported revenue of $77 million for the first quarter of 2026."}

	run := func(otherFirst bool) []string {
		k := question.NewKnowledge(question.PatternLimits{})
		var p0, p1 int64
		if otherFirst {
			applyAt(k, other, 1, 1, &p1)
		}
		applyAt(k, before, 1, 0, &p0)
		applyAt(k, own, 1, 0, &p0)
		if !otherFirst {
			applyAt(k, other, 1, 1, &p1)
		}
		applyAt(k, later, 1, 0, &p0)
		// A new version of the neighbour, read after the question's
		// document: the question keeps what stood before it.
		changed := before
		changed.text = strings.Replace(before.text, "$88 million", "$91 million", 1)
		applyAt(k, changed, 2, 0, &p0)
		return noiseOf(t, k, "Northwind")
	}
	a, b := run(true), run(false)
	if len(a) == 0 {
		t.Fatal("the question has no noise facts: the neighbour was not used")
	}
	if !slices.Equal(a, b) {
		t.Errorf("noise differs with the partitions' interleaving:\n%q\n%q", a, b)
	}
	joined := strings.Join(a, "\n")
	for _, c := range []struct{ text, why string }{
		{"Harbor Keel", ""}, {"$88 million", ""},
		{"Lindqvist", "a document of another partition"}, {"Tamura", "a document read later"}, {"$91 million", "a later version of the neighbour"},
	} {
		if want := c.why == ""; strings.Contains(joined, c.text) != want {
			t.Errorf("noise %q: holds %q = %v, want %v (%s)", a, c.text, !want, want, c.why)
		}
	}
	var none []string
	k := question.NewKnowledge(question.PatternLimits{})
	for _, d := range []corpusDoc{before, own} {
		_, triplets := feed(k, d, 1)
		for _, tr := range triplets {
			apply(k, tr)
		}
	}
	if none = noiseOf(t, k, "Northwind"); len(none) != 0 {
		t.Errorf("without positions (ChunkDone) the question has neighbour facts: %q", none)
	}
}
