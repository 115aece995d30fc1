package schemas

import (
	"slices"
	"testing"
)

func TestManifest(t *testing.T) {
	m := NewManifest("query/char", "original/original", "query/char", "document/answer_removed")
	if want := []string{"document/answer_removed", "original/original", "query/char"}; !slices.Equal(m, want) {
		t.Fatalf("NewManifest = %q, want %q", m, want)
	}
	for slot, want := range map[string]bool{"query/char": true, "original/original": true, "query/qwerty": false, SlotClosedBook: false} {
		if InManifest(m, slot) != want {
			t.Errorf("InManifest(%q) = %v", slot, !want)
		}
	}
	if got := MergeManifests(m, m); !slices.Equal(got, m) {
		t.Errorf("merge with itself: %q", got)
	}
	u := MergeManifests(m, []string{"query/qwerty", "query/char"})
	if want := []string{"document/answer_removed", "original/original", "query/char", "query/qwerty"}; !slices.Equal(u, want) {
		t.Errorf("union = %q, want %q", u, want)
	}
	if !slices.Equal(MergeManifests(nil, m), m) || !slices.Equal(MergeManifests(m, nil), m) {
		t.Error("merge with an empty manifest must keep the other")
	}
}

func TestDeriveAndNotMade(t *testing.T) {
	orig := &Variant{QuestionRef: QuestionRef{QuestionID: "q1", Domain: "finance"}, VariantID: "v0", Axis: AxisOriginal, Kind: "original",
		Query: "Who leads Northwind?", Contexts: []string{"Maria Lopez leads Northwind."}, ExpectedAnswer: "Maria Lopez",
		Aliases: []string{"Lopez"}, AnswerAvailable: true, Manifest: NewManifest("original/original", "query/paraphrase"), SetSize: 2}
	Stamp(orig, "ev-v0")

	d := orig.Derive(AxisQuery, "paraphrase", "Who is Northwind's chief?", orig.Contexts, true)
	if d.Slot() != "query/paraphrase" || d.QuestionRef != orig.QuestionRef || !slices.Equal(d.Manifest, orig.Manifest) ||
		!slices.Equal(d.Accepted(), orig.Accepted()) || d.SetSize != 2 || !d.AnswerAvailable {
		t.Errorf("derived variant lost the question: %+v", d)
	}
	if d.VariantID != VariantID("q1", AxisQuery, "paraphrase", d.Query, d.Contexts) || d.ID != d.VariantID || !slices.Equal(d.Lineage, []string{"ev-v0"}) {
		t.Errorf("derived ids %s/%s lineage %q", d.VariantID, d.ID, d.Lineage)
	}

	n := orig.NotMade(AxisQuery, "paraphrase", "  ")
	if n.NotMadeReason == "" || n.Query != "" || len(n.Contexts) != 0 || n.Slot() != "query/paraphrase" || !slices.Equal(n.Manifest, orig.Manifest) {
		t.Errorf("not-made marker: %+v", n)
	}
	if n.VariantID == d.VariantID || n.VariantID != orig.NotMade(AxisQuery, "paraphrase", "generator down").VariantID {
		t.Error("a slot's marker must have one id, whatever the reason, and differ from a made variant's")
	}
	if VariantsTable.Stores(n) || !VariantsTable.Stores(d) {
		t.Error("the variants table stores made variants only")
	}
	if err := VariantsTable.Validate(n); err != nil {
		t.Errorf("a marker is a valid event of rs.variants: %v", err)
	}
}
