package pair

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/robustream/robustream/schemas"
)

// MetricF is the metric name of RARE's binary robustness judge f.
const MetricF = "f"

// MetricRetrievalHit is the metric of a model that retrieves its own
// contexts: 1 when a ground-truth chunk is among its passages. Its mean is
// the retrieval hit rate; it is not part of any robustness score.
const MetricRetrievalHit = "retrieval_hit"

// Set is the state of one (model, question) pairing: the results seen so
// far, by variant id (the closed-book result under its own variant id).
type Set struct {
	// Results holds one result per variant id; later duplicates are ignored.
	Results map[string]schemas.EvalResult `json:"results"`
	// Manifest is the question's (the union of those its results carry):
	// the set is complete when every slot has a result, and the
	// closed-book request too.
	Manifest []string `json:"manifest,omitempty"`
	// Expected is the number of results that complete the set, for results
	// written before manifests: the question's variants plus the
	// closed-book request.
	Expected int `json:"expected"`
	// Emitted is set once the outcomes were produced, so a set is never
	// completed twice.
	Emitted bool `json:"emitted"`
}

// Add records r unless a result for its variant is already there, and
// reports whether this call completed the set (outcomes not yet emitted,
// and every slot of the manifest plus the closed-book request answered).
// Results carrying an Error count toward completeness: a dead-lettered
// request or a variant that was not made must not hold its set open for
// ever.
func (s *Set) Add(r schemas.EvalResult) (complete bool) {
	if _, dup := s.Results[r.VariantID]; dup {
		return false
	}
	if s.Results == nil {
		s.Results = make(map[string]schemas.EvalResult)
	}
	s.Results[r.VariantID] = r
	s.Manifest = schemas.MergeManifests(s.Manifest, r.Manifest)
	// Every request of a question carries the same Expected; taking the
	// maximum keeps a stray smaller value from completing a set early.
	s.Expected = max(s.Expected, r.Expected)
	return !s.Emitted && s.complete()
}

// complete reports whether every request of the set has its result.
func (s *Set) complete() bool {
	if len(s.Manifest) == 0 {
		// Results written before manifests: count them.
		return s.Expected > 0 && len(s.Results) >= s.Expected
	}
	if !s.retrieving() && !s.answered(schemas.SlotClosedBook) {
		return false
	}
	for _, slot := range s.Manifest {
		if !s.answered(slot) {
			return false
		}
	}
	return true
}

// retrieving reports whether the set is a model that retrieves its own
// contexts (schemas.EvalResult.Retrieves).
func (s *Set) retrieving() bool {
	for _, r := range s.Results {
		return r.Retrieves
	}
	return false
}

// answered reports whether a result fills slot. Sets hold a handful of
// results: a scan that builds no strings is cheaper than an index.
func (s *Set) answered(slot string) bool {
	for _, r := range s.Results {
		if len(slot) == len(r.Axis)+1+len(r.Kind) && slot[len(r.Axis)] == '/' &&
			strings.HasPrefix(slot, r.Axis) && strings.HasSuffix(slot, r.Kind) {
			return true
		}
	}
	return false
}

// Reasons a set is unscorable for the families that need to know whether
// the model knows the answer (Family.NeedsKnown).
const (
	// ReasonClosedBookFailed: the closed-book request ended in an error
	// (retries exhausted, an unknown model), so whether the model knows the
	// answer is undefined. Scoring the set as "unknown" would flip RARE
	// Table 2's verdicts for a model that does know it: every correct
	// answer over an answer-removed context would count as a failure to
	// refuse.
	ReasonClosedBookFailed = "closed_book_failed"
	// ReasonClosedBookMissing: the set completed without a closed-book
	// result. Only sets of results written before manifests, completed by
	// counting, can; a manifest always waits for the closed-book request.
	ReasonClosedBookMissing = "closed_book_missing"
)

// Reasons lists every reason Known can give, for counters that start at 0.
var Reasons = []string{ReasonClosedBookFailed, ReasonClosedBookMissing}

// Known reports whether the model answered the question correctly without
// context (RARE Table 2's g(q, d = ∅) = ✓). When that cannot be told, it
// returns the reason instead (ReasonClosedBookFailed,
// ReasonClosedBookMissing), and families that need the verdict must not
// score the set.
func (s *Set) Known() (known bool, unscorable string) {
	if s.retrieving() {
		// A RAG service cannot answer without its retrieval: no
		// closed-book request is sent, and every question is unknown to
		// it, so f rewards a correct answer where its passages hold the
		// answer and a refusal where they do not.
		return false, ""
	}
	for _, r := range s.Results {
		if !r.ClosedBook {
			continue
		}
		if r.Error != "" {
			return false, ReasonClosedBookFailed
		}
		return r.Correct, ""
	}
	return false, ReasonClosedBookMissing
}

// F is RARE's judge f (Table 2) for one contextual result. If the model knew
// the answer closed-book, f = 1 iff it answered correctly, whatever the
// context. If it did not: where the context holds the answer, f = 1 iff
// correct; where it does not, f = 1 iff the model refused ("no such info")
// rather than guess.
func F(known, answerAvailable, correct, refused bool) bool {
	switch {
	case known:
		return correct
	case answerAvailable:
		return correct
	default:
		return refused
	}
}

// Outcomes computes the RARE f outcome of every contextual result of s on
// RARE's axes (RAREAxes), sorted by variant id. Known is the closed-book result's correctness;
// golden is the variant's answer availability. A set whose closed-book
// result failed or is missing has none (Set.Known): the stage counts it as
// unscorable. Results with an Error are left out: an unanswered request says
// nothing about robustness. Every outcome carries the latest evaluated_at
// of the set, so a replay yields identical outcomes.
func Outcomes(s *Set) []schemas.Outcome {
	known, unscorable := s.Known()
	if unscorable != "" {
		return nil
	}
	var closed *schemas.EvalResult
	var at time.Time
	for _, r := range s.Results {
		if r.ClosedBook {
			closed = &r
		}
		if r.EvaluatedAt.After(at) {
			at = r.EvaluatedAt
		}
	}

	ids := make([]string, 0, len(s.Results))
	for id, r := range s.Results {
		// Only RARE's axes, even when called on a whole set rather than
		// through the stage (Set.For): a spurious or placeholder variant
		// has no cell in RARE's Table 2.
		if !r.ClosedBook && r.Error == "" && slices.Contains(RAREAxes, r.Axis) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)

	out := make([]schemas.Outcome, 0, len(ids))
	for _, id := range ids {
		r := s.Results[id]
		value := 0.0
		if F(known, r.AnswerAvailable, r.Correct, r.Refused) {
			value = 1
		}
		o := schemas.Outcome{
			QuestionRef: r.QuestionRef,
			OutcomeID:   schemas.ID(r.ModelID, r.QuestionID, r.VariantID, schemas.FamilyRARE, MetricF),
			Family:      schemas.FamilyRARE,
			Metric:      MetricF,
			ModelID:     r.ModelID,
			VariantID:   r.VariantID,
			Axis:        r.Axis,
			Kind:        r.Kind,
			Known:       known,
			Golden:      r.AnswerAvailable,
			Value:       value,
			EvaluatedAt: at,
		}
		lineage := []string{r.ID}
		if closed != nil {
			lineage = append(lineage, closed.ID)
		}
		schemas.Stamp(&o, o.OutcomeID, lineage...)
		out = append(out, o)
		if r.Retrieves {
			h := o
			h.Metric, h.Value = MetricRetrievalHit, 0
			if r.RetrievalHit {
				h.Value = 1
			}
			h.OutcomeID = schemas.ID(r.ModelID, r.QuestionID, r.VariantID, schemas.FamilyRARE, MetricRetrievalHit)
			schemas.Stamp(&h, h.OutcomeID, lineage...)
			out = append(out, h)
		}
	}
	return out
}
