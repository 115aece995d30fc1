package question_test

import (
	"testing"

	"github.com/robustream/robustream/processors/question"
)

// TestRepeatedFactAskedOnce: a fact stated in several documents (the same
// boilerplate paragraph on every manual page of a package) is asked once;
// when the document it is asked from no longer states it, it is asked from
// another one that does.
func TestRepeatedFactAskedOnce(t *testing.T) {
	const fact = "Quillpad is licensed under the GNU General Public License."
	const q = "What is Quillpad licensed under?"
	count := func(k *question.Knowledge) (n int, doc string) {
		for _, x := range k.Active() {
			if x.Question == q {
				n++
				doc = x.DocID
			}
		}
		return n, doc
	}
	k := question.NewKnowledge(question.PatternLimits{})
	docs := []corpusDoc{{id: "a", text: "Quillpad runs on Fjordix.\n\n" + fact}, {id: "b", text: fact + "\n\nLintwerk runs on Fjordix."},
		{id: "c", text: "Quillpad needs Lintwerk.\n\n" + fact}}
	for _, d := range docs {
		_, trs := feed(k, d, 1)
		for _, tr := range trs {
			apply(k, tr)
		}
	}
	n, first := count(k)
	if n != 1 {
		t.Fatalf("%q asked %d times, want once", q, n)
	}
	// The document it was asked from drops the sentence.
	for _, d := range docs {
		if d.id == first {
			_, trs := feed(k, corpusDoc{id: d.id, text: "Quillpad runs on Fjordix and on Lintwerk OS."}, 2)
			for _, tr := range trs {
				apply(k, tr)
			}
		}
	}
	n, now := count(k)
	if n != 1 || now == first {
		t.Fatalf("after %s dropped the fact: %q asked %d times (from %q), want once from another document", first, q, n, now)
	}
}
