package pair

import (
	"sort"
	"time"

	"github.com/robustream/robustream/schemas"
)

// PRGB's task classes (PRGB §"Fine-grained evaluation dimension"), the
// metric of its outcomes (schemas/sql 030, prgb_points reads the metric
// as the data point's task class).
const (
	TaskFiltering   = "filtering"
	TaskCombination = "combination"
	TaskReasoning   = "reasoning"
)

// TaskClass maps a question's pattern to PRGB's task class
// (docs/methods.md, PRGB):
//   - single → filtering: one golden fact to pick out of graded noise, PRGB's
//     Multi-level Filtering (one golden triplet γ_g of a child entity, with
//     weak/moderate/hard distractors);
//   - star and inverted star → combination: the answer joins two facts of
//     one entity (star: two facts about the pivot; inverted star: two
//     subjects sharing a value), which is PRGB's Combination (aggregating
//     facts from distinct triplets, explicit and multi-value combination);
//   - chain and path → reasoning: the answer is reached through an
//     intermediate entity the question only describes, PRGB's Reference
//     Reasoning (deductive questions through a major and a minor premise,
//     "answers not directly provided").
//
// Any other pattern is filtering: a question with one answer fact.
func TaskClass(pattern string) string {
	switch pattern {
	case schemas.PatternStar, schemas.PatternInvertedStar:
		return TaskCombination
	case schemas.PatternChain, schemas.PatternPath:
		return TaskReasoning
	}
	return TaskFiltering
}

// PRGBAxes are the axes PRGB scores: the placeholder variants, each of
// which carries its own noise sample (PRGB Algorithm 1 scores a data
// point under one placeholder assignment and one noise configuration at a
// time). A separate noise axis is not scored: prgb_points averages every
// prgb row of a (model, question) as that data point's variants, so other
// cells there would change what a data point is.
var PRGBAxes = []string{schemas.AxisPlaceholder}

// PRGB is PRGB's per-variant score. It needs no closed-book verdict: the
// placeholder hides the value from parametric knowledge by construction.
var PRGB = Family{Name: schemas.FamilyPRGB, Axes: PRGBAxes, Outcomes: PRGBOutcomes}

// PRGBOutcomes returns one outcome per placeholder result without error:
// metric = the question's task class, value = 1 when the answer satisfies
// the variant's expected-answer expression (the reader's verdict for
// placeholder requests), else 0; a refusal is 0. The data point's score,
// the mean over its variants, and the all/partly/never-correct shares are
// the views' (prgb_points, prgb_scores, prgb_task_scores).
func PRGBOutcomes(s *Set) []schemas.Outcome {
	var at time.Time
	ids := make([]string, 0, len(s.Results))
	for id, r := range s.Results {
		if r.EvaluatedAt.After(at) {
			at = r.EvaluatedAt
		}
		if !r.ClosedBook && r.Error == "" && r.Axis == schemas.AxisPlaceholder {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	out := make([]schemas.Outcome, 0, len(ids))
	for _, id := range ids {
		r := s.Results[id]
		metric := TaskClass(r.Pattern)
		value := 0.0
		if r.Correct && !r.Refused {
			value = 1
		}
		o := schemas.Outcome{
			QuestionRef: r.QuestionRef,
			OutcomeID:   schemas.ID(r.ModelID, r.QuestionID, r.VariantID, schemas.FamilyPRGB, metric),
			Family:      schemas.FamilyPRGB,
			Metric:      metric,
			ModelID:     r.ModelID,
			VariantID:   r.VariantID,
			Axis:        r.Axis,
			Kind:        r.Kind,
			Golden:      true,
			Value:       value,
			EvaluatedAt: at,
		}
		schemas.Stamp(&o, o.OutcomeID, r.ID)
		out = append(out, o)
	}
	return out
}
