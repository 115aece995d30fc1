package pair

import (
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
)

// slotResult is a result of one slot of a question whose manifest is m.
func slotResult(variant, axis, kind string, a answer, m []string) schemas.EvalResult {
	r := result(variant, axis == schemas.AxisClosedBook, axis != schemas.AxisDocument, a, len(m)+1, time.Second)
	r.Axis, r.Kind, r.Manifest = axis, kind, m
	return r
}

// TestManifestCompleteness: a set whose results carry a manifest completes
// when every declared slot and the closed-book request are answered, not
// when the count is reached: two variants of one slot (a producer that
// replayed with new text) do not stand in for a slot still being made
// elsewhere, and a not-made marker's error result closes its slot.
func TestManifestCompleteness(t *testing.T) {
	m := schemas.NewManifest("original/original", "query/char", "query/paraphrase")
	var s Set
	steps := []struct {
		r    schemas.EvalResult
		want bool
	}{
		{slotResult("orig", schemas.AxisOriginal, "original", correct, m), false},
		{slotResult("cb", schemas.AxisClosedBook, schemas.KindClosedBook, wrong, m), false},
		{slotResult("char-1", schemas.AxisQuery, "char", correct, m), false},
		// Four results, as many as Expected, but query/paraphrase is open.
		{slotResult("char-2", schemas.AxisQuery, "char", wrong, m), false},
		{slotResult("para", schemas.AxisQuery, "paraphrase", failed, m), true},
	}
	for i, st := range steps {
		if got := s.Add(st.r); got != st.want {
			t.Errorf("step %d (%s): complete = %v, want %v", i, st.r.VariantID, got, st.want)
		}
	}

	// Without the closed-book result the set stays open.
	var noCB Set
	for _, v := range []string{"original/original", "query/char", "query/paraphrase"} {
		axis, kind, _ := strings.Cut(v, "/")
		if noCB.Add(slotResult(v, axis, kind, correct, m)) {
			t.Fatal("complete without the closed-book result")
		}
	}

	// Records from before and after a change of kinds carry different
	// manifests: the set waits for the union.
	var mixed Set
	old := schemas.NewManifest("original/original", "query/char")
	mixed.Add(slotResult("orig", schemas.AxisOriginal, "original", correct, old))
	mixed.Add(slotResult("cb", schemas.AxisClosedBook, schemas.KindClosedBook, wrong, old))
	if mixed.Add(slotResult("char", schemas.AxisQuery, "char", correct, m)) {
		t.Error("complete while query/paraphrase, declared by the newer manifest, is open")
	}
	if !mixed.Add(slotResult("para", schemas.AxisQuery, "paraphrase", correct, old)) {
		t.Errorf("incomplete with every slot of the union answered (manifest %q)", mixed.Manifest)
	}
}
