package fanout

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/robustream/robustream/schemas"
)

// FamilyConfig is stages.fanout.families.<name>: how much of a metric
// family's work fan-out asks for.
type FamilyConfig struct {
	// MaxCellsPerQuestion caps the family's cells (its perturbed variants,
	// not the original nor the closed-book request it shares with the
	// other families) asked per question and model; 0 asks them all.
	MaxCellsPerQuestion int `yaml:"max_cells_per_question" help:"cap on the family's perturbed cells asked per question and model (0: all); the sample is chosen by a hash of the question id and slot, and recorded on every request (family_sample)"`
}

// FamilyBaseline labels the requests every family shares: the original
// variant and the closed-book request. They are never capped.
const FamilyBaseline = "baseline"

// CallKey is one series of fan-out's call counter.
type CallKey struct {
	Model string
	// Family is the metric family that scores the request's cell,
	// FamilyBaseline for the shared requests, several joined by "+" when
	// more than one family scores the axis, or "unscored".
	Family string
}

// familyUnscored labels a cell on an axis no registered family scores.
const familyUnscored = "unscored"

// plan is what fan-out asks of one question: the slots of its manifest
// that are asked, the manifest its requests carry, and each family's
// sample. It depends only on the question id, its manifest and the caps,
// so every variant of the question, handled on its own, gets the same
// plan.
type plan struct {
	dropped  map[string]bool // slots capped out
	manifest []string        // the question's manifest without them
	sample   map[string]string
}

// familiesOf returns the families that score axis, sorted.
func (l *lineup) familiesOf(axis string) []string { return l.axisFamilies[axis] }

// label is the family label of a request on axis.
func (l *lineup) label(axis string) string {
	if axis == schemas.AxisOriginal || axis == schemas.AxisClosedBook {
		return FamilyBaseline
	}
	fs := l.familiesOf(axis)
	if len(fs) == 0 {
		return familyUnscored
	}
	return strings.Join(fs, "+")
}

// planOf computes the plan of v's question. Without a manifest (records
// written before manifests) there is nothing to choose from: everything
// is asked.
func (l *lineup) planOf(v *schemas.Variant) plan {
	p := plan{manifest: v.Manifest}
	if len(v.Manifest) == 0 || len(l.axisFamilies) == 0 {
		return p
	}
	cells := map[string][]string{} // family → its slots in the manifest
	for _, slot := range v.Manifest {
		axis, _, _ := strings.Cut(slot, "/")
		if axis == schemas.AxisOriginal {
			continue
		}
		for _, f := range l.familiesOf(axis) {
			cells[f] = append(cells[f], slot)
		}
	}
	p.sample = make(map[string]string, len(cells))
	for _, f := range slices.Sorted(maps.Keys(cells)) {
		slots := cells[f]
		limit := l.caps[f]
		if limit <= 0 || len(slots) <= limit {
			continue
		}
		// The sample is ranked by a hash of the question id and the slot,
		// not of the variant id: a variant does not know its siblings'
		// ids (they hash their content), and fan-out keeps no state, yet
		// every variant must agree on the sample. Both are content hashes
		// of the corpus, so the same corpus gives the same sample.
		ranked := slices.Clone(slots)
		slices.SortFunc(ranked, func(a, b string) int {
			return strings.Compare(rank(v.QuestionID, a), rank(v.QuestionID, b))
		})
		for _, slot := range ranked[limit:] {
			if p.dropped == nil {
				p.dropped = map[string]bool{}
			}
			// A slot scored by several families is asked only if every
			// capping family keeps it: each cap is an upper bound.
			p.dropped[slot] = true
		}
	}
	for f, slots := range cells {
		asked := 0
		for _, s := range slots {
			if !p.dropped[s] {
				asked++
			}
		}
		p.sample[f] = fmt.Sprintf("%d/%d", asked, len(slots))
	}
	if len(p.dropped) > 0 {
		// Pairing completes a set when every slot of its manifest is
		// answered: a capped-out slot must leave the manifest, or the set
		// would wait for it for ever.
		p.manifest = slices.DeleteFunc(slices.Clone(v.Manifest), func(s string) bool { return p.dropped[s] })
	}
	return p
}

// rank orders the slots of a question for sampling.
func rank(questionID, slot string) string { return schemas.ID("fanout sample", questionID, slot) }

// counters are the stage's running totals, for the summary and /metrics.
type counters struct {
	mu        sync.Mutex
	calls     map[CallKey]int64
	capped    map[string]int64
	questions int64
}

func (c *counters) count(originals int64, reqs []*schemas.EvalRequest, label func(axis string) string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.questions += originals
	for _, r := range reqs {
		if r.NotMadeReason != "" {
			continue // answered with an error result, never sent to a model
		}
		if c.calls == nil {
			c.calls = map[CallKey]int64{}
		}
		c.calls[CallKey{Model: r.ModelID, Family: label(r.Axis)}]++
	}
}

func (c *counters) capOut(families []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.capped == nil {
		c.capped = map[string]int64{}
	}
	for _, f := range families {
		c.capped[f]++
	}
}

// Calls returns how many requests the stage sent to each model for each
// family since it was built (not-made markers, which no model answers,
// left out; an answer-cache hit in infer still counts, as the request was
// asked for).
func (s *Stage) Calls() map[CallKey]int64 {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	return maps.Clone(s.counts.calls)
}

// Questions returns how many questions (original variants) the stage has
// fanned out since it was built: the denominator of calls per question.
func (s *Stage) Questions() int64 {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	return s.counts.questions
}

// Capped returns, per family, how many variants a cap kept from being
// asked (each would have been asked of every model).
func (s *Stage) Capped() map[string]int64 {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	return maps.Clone(s.counts.capped)
}
