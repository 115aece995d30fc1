package perturb

import (
	"slices"
	"testing"

	"github.com/robustream/robustream/schemas"
)

// A retrieval kind is declared, not made: its slot is in every variant's
// manifest, no variant of it is emitted by perturb, and it is not crossed.
func TestRetrievalKindDeclaredOnly(t *testing.T) {
	k := RetrievalKind("retrieve", "bm25_top3")
	st, err := NewStage(Config{Kinds: []Kind{Char, k}, WordNet: NewWordNet(t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	q := &schemas.Question{QuestionID: "q1", Question: "Which port does the proxy listen on by default?", Answer: "8080",
		GTChunks: []string{"The proxy listens on port 8080 by default."}, Hops: 1}
	vs := st.Variants(q)
	if len(vs) == 0 {
		t.Fatal("no variants")
	}
	slot := "retrieval/bm25_top3"
	for _, v := range vs {
		if v.Axis == schemas.AxisRetrieval {
			t.Errorf("perturb made a retrieval variant %s", v.VariantID)
		}
		if !slices.Contains(v.Manifest, slot) {
			t.Errorf("variant %s/%s: manifest %v lacks %s", v.Axis, v.Kind, v.Manifest, slot)
		}
	}
	if got := k.Families; !slices.Equal(got, []string{schemas.FamilyRARE, schemas.FamilyGRADE}) {
		t.Errorf("families %v", got)
	}
	if err := checkKinds([]Kind{k, RetrievalKind("retrieve", "bm25_top3")}); err == nil {
		t.Error("the same retrieval kind twice was accepted")
	}
}
