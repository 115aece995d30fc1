package pair

import (
	"errors"
	"fmt"

	"github.com/robustream/robustream/schemas"
)

// Family is one metric family computed when a (model, question) set
// completes: RARE today; SURE, GRADE and PRGB register beside it (the
// registry is in cmd/robustream). A family sees the whole set and returns
// its outcome rows, stamped (schemas.Stamp) with deterministic ids, so that
// a replayed set yields identical outcomes.
type Family struct {
	// Name is the family recorded on its outcomes (schemas.FamilyRARE, …).
	Name string
	// NeedsKnown says the family's verdicts depend on whether the model
	// knows the answer closed-book (RARE's f, SURE's Known/Unknown split).
	// When a set cannot tell (Set.Known: the closed-book request failed),
	// the stage does not call Outcomes for it and counts the set as
	// unscorable for this family, by reason (Stage.Unscorable), rather than
	// score it as unknown.
	NeedsKnown bool
	Outcomes   func(s *Set) []schemas.Outcome
}

// RARE is RARE's judge f (Table 2) per contextual result.
var RARE = Family{Name: schemas.FamilyRARE, NeedsKnown: true, Outcomes: Outcomes}

func checkFamilies(fs []Family) error {
	seen := map[string]bool{}
	var errs []error
	for i, f := range fs {
		switch {
		case f.Name == "" || f.Outcomes == nil:
			errs = append(errs, fmt.Errorf("pair: families[%d]: needs a name and Outcomes", i))
		case seen[f.Name]:
			errs = append(errs, fmt.Errorf("pair: families[%d]: %s listed twice", i, f.Name))
		}
		seen[f.Name] = true
	}
	return errors.Join(errs...)
}
