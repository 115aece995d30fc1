package pair

import (
	"errors"
	"fmt"
	"slices"

	"github.com/robustream/robustream/processors/metrics"
	"github.com/robustream/robustream/schemas"
)

// Family is one metric family computed when a (model, question) set
// completes: RARE today; SURE, GRADE and PRGB register beside it (the
// registry is in cmd/robustream). A family sees the completed set,
// restricted to the axes it declares, and returns its outcome rows, stamped
// (schemas.Stamp) with deterministic ids, so that a replayed set yields
// identical outcomes.
type Family struct {
	// Name is the family recorded on its outcomes (schemas.FamilyRARE, …).
	Name string
	// Axes are the variant axes the family scores. The stage hands
	// Outcomes only the results on these axes (and the closed-book
	// result), so a kind added on another axis — a SURE spurious feature,
	// a PRGB placeholder — can never become one of this family's outcomes
	// and move its scores. A perturbation kind declares, on its side, the
	// families that use it (perturb.Kind.Families); cmd checks that both
	// declarations agree.
	Axes []string
	// NeedsKnown says the family's verdicts depend on whether the model
	// knows the answer closed-book (RARE's f, SURE's Known/Unknown split).
	// When a set cannot tell (Set.Known: the closed-book request failed),
	// the stage does not call Outcomes for it and counts the set as
	// unscorable for this family, by reason (Stage.Unscorable), rather than
	// score it as unknown.
	NeedsKnown bool
	Outcomes   func(s *Set) []schemas.Outcome
}

// Scores reports whether f scores results on axis.
func (f Family) Scores(axis string) bool { return slices.Contains(f.Axes, axis) }

// AxisCross is the axis of RARE's cross cells (a perturbed query over a
// perturbed context); perturb.AxisCross makes them, and a test checks the
// two names agree. Declared with RARE in processors/metrics.
const AxisCross = metrics.AxisCross

// RAREAxes are the axes RARE scores, as its one declaration
// (metrics.RARE) gives them: pairing hands RARE only these results, and
// RARE's views read only these axes (RAREWhere).
var RAREAxes = metrics.RAREAxes

// RAREWhere is the SQL condition selecting RARE's judge f rows on RARE's
// axes (metrics.RAREWhere), in robustream.outcomes and the rolling tables
// alike; the generated views, docs/queries.sql and the dashboard use it.
func RAREWhere() string { return metrics.RAREWhere() }

// RARE is RARE's judge f (Table 2) per contextual result.
var RARE = Family{Name: schemas.FamilyRARE, Axes: RAREAxes, NeedsKnown: true, Outcomes: Outcomes}

// For returns the part of s that f scores: the results on f's axes and the
// closed-book result. Its Results map is new; the rest is shared with s,
// which families only read.
func (s *Set) For(f Family) *Set {
	out := &Set{Results: make(map[string]schemas.EvalResult, len(s.Results)), Manifest: s.Manifest, Expected: s.Expected, Emitted: s.Emitted}
	for id, r := range s.Results {
		if r.ClosedBook || f.Scores(r.Axis) {
			out.Results[id] = r
		}
	}
	return out
}

func checkFamilies(fs []Family) error {
	seen := map[string]bool{}
	var errs []error
	for i, f := range fs {
		switch {
		case f.Name == "" || f.Outcomes == nil:
			errs = append(errs, fmt.Errorf("pair: families[%d]: needs a name and Outcomes", i))
		case len(f.Axes) == 0:
			errs = append(errs, fmt.Errorf("pair: families[%d] %s: declares no axes, so it would score nothing", i, f.Name))
		case seen[f.Name]:
			errs = append(errs, fmt.Errorf("pair: families[%d]: %s listed twice", i, f.Name))
		}
		seen[f.Name] = true
	}
	return errors.Join(errs...)
}
