package schemas

import (
	"slices"
	"strings"
)

// The manifest of a question says which variants it has, so that pairing
// knows when a (model, question) set is complete whatever stage produced
// the variants (docs/architecture.md, Manifests).
//
// A slot is one place in a question's variant set, named "axis/kind". The
// stage that owns the set (perturb) declares every slot once, on the
// original variant, when it first sees the question: the slots it fills
// itself, and those that another stage (a producer reading the original
// variant from rs.variants) must fill with a variant or with a not-made
// marker (Variant.NotMade). Every variant, request and result of the
// question carries the same manifest; the closed-book request of each model
// is implied and never listed.

// KindClosedBook is the kind of the closed-book requests; their axis is
// AxisClosedBook.
const KindClosedBook = "closed_book"

// SlotClosedBook is the slot of a question's closed-book request: implied by
// every manifest, never listed in one.
var SlotClosedBook = Slot(AxisClosedBook, KindClosedBook)

// Slot names a place in a question's variant set: "axis/kind".
func Slot(axis, kind string) string { return axis + "/" + kind }

// Slot returns the slot v fills.
func (v *Variant) Slot() string { return Slot(v.Axis, v.Kind) }

// Slot returns the slot r answers.
func (r *EvalResult) Slot() string { return Slot(r.Axis, r.Kind) }

// NewManifest returns the manifest of the given slots: sorted, without
// duplicates, so that equal sets encode identically.
func NewManifest(slots ...string) []string {
	m := slices.Clone(slots)
	slices.Sort(m)
	return slices.Compact(m)
}

// MergeManifests returns the union of two manifests. Records of one question
// carry the same manifest; after a change of configuration, records made
// before and after it may not, and the union waits for every slot that
// either declared (each was emitted, so each will be answered).
func MergeManifests(a, b []string) []string {
	if len(b) == 0 || slices.Equal(a, b) {
		return a
	}
	return NewManifest(append(slices.Clone(a), b...)...)
}

// InManifest reports whether slot is declared in manifest.
func InManifest(manifest []string, slot string) bool {
	_, ok := slices.BinarySearch(manifest, slot)
	return ok
}

// VariantID is the id of the variant of a question in slot (axis, kind) with
// this query and these contexts.
func VariantID(questionID, axis, kind, query string, contexts []string) string {
	return ID(append([]string{questionID, axis, kind, query}, contexts...)...)
}

// Derive returns the variant of v's question in slot (axis, kind), made from
// v by a producer stage: it keeps v's question, expected answer and
// manifest, and is stamped with v's event id as lineage. The slot must be
// declared in v's manifest, or fan-out dead-letters the variant.
func (v *Variant) Derive(axis, kind, query string, contexts []string, answerAvailable bool) *Variant {
	d := &Variant{
		QuestionRef:     v.QuestionRef,
		VariantID:       VariantID(v.QuestionID, axis, kind, query, contexts),
		Axis:            axis,
		Kind:            kind,
		Query:           query,
		Contexts:        contexts,
		ExpectedAnswer:  v.ExpectedAnswer,
		Aliases:         v.Aliases,
		AnswerAvailable: answerAvailable,
		Manifest:        v.Manifest,
		SetSize:         v.SetSize,
	}
	if axis == AxisRetrieval && v.Axis == AxisOriginal {
		// A retriever's passages are judged against the original's
		// contexts, the question's ground-truth chunks (docs/methods.md,
		// Retrieval metrics).
		d.GroundTruth = v.Contexts
	}
	stampDerived(d, v)
	return d
}

// NotMade returns the marker a producer emits for a declared slot it could
// not fill (the generator is down, nothing to perturb): fan-out turns it
// into one request per model that the infer stage answers with an error
// result without calling the model, so the slot's pairing sets close with
// the cell marked. reason says why, for a person reading eval_results.
func (v *Variant) NotMade(axis, kind, reason string) *Variant {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		reason = "no reason given"
	}
	d := &Variant{
		QuestionRef:    v.QuestionRef,
		VariantID:      ID(v.QuestionID, axis, kind, "not made"),
		Axis:           axis,
		Kind:           kind,
		ExpectedAnswer: v.ExpectedAnswer,
		Aliases:        v.Aliases,
		Manifest:       v.Manifest,
		SetSize:        v.SetSize,
		NotMadeReason:  reason,
	}
	stampDerived(d, v)
	return d
}

// ForModel makes d, derived from v (Derive or NotMade), the variant of
// one model under test: Model names it, and its variant id includes it,
// so that two models' variants of the same slot never share an id, even
// when their contexts are the same.
func (v *Variant) ForModel(d *Variant, model string) *Variant {
	d.Model = model
	d.VariantID = ID(d.VariantID, "model", model)
	stampDerived(d, v)
	return d
}

// stampDerived stamps d, derived from v, with its variant id and v's lineage.
func stampDerived(d, v *Variant) {
	lineage := v.ID
	if lineage == "" {
		lineage = v.VariantID
	}
	Stamp(d, d.VariantID, lineage)
}
