package pair

import (
	"sort"
	"time"

	"github.com/robustream/robustream/schemas"
)

// MetricCorrect is the metric of GRADE's outcomes: 1 when the model
// answered correctly under a retriever's top-k, else 0 (a refusal is 0).
const MetricCorrect = "correct"

// GRADEAxes are the axes GRADE scores: each retriever's top-k with the
// original query (GRADE §3.3–4: correctness under top-k retrieval).
var GRADEAxes = []string{schemas.AxisRetrieval}

// GRADE is GRADE's correctness under top-k retrieval, one outcome per
// (model, question, retriever). It needs no closed-book verdict: GRADE
// counts errors, whatever the model knew. The outcome rows carry the
// question's hops and D_r (QuestionRef), which the grade_questions and
// grade_matrix views bin into the hops × D_r-quartile error matrix.
var GRADE = Family{Name: schemas.FamilyGRADE, Axes: GRADEAxes, Outcomes: GRADEOutcomes}

// GRADEOutcomes returns one outcome per retrieval result of s without
// error, sorted by variant id: value 1 when the answer was judged correct,
// else 0; golden says whether the retrieved chunks held an accepted answer
// (the variant's answer_available); known is the closed-book verdict when
// there is one (false otherwise: informational, GRADE does not split by
// it). Every outcome carries the set's latest evaluated_at, so a replayed
// set yields identical outcomes.
func GRADEOutcomes(s *Set) []schemas.Outcome {
	known, _ := s.Known()
	var at time.Time
	var closed string
	ids := make([]string, 0, len(s.Results))
	for id, r := range s.Results {
		if r.EvaluatedAt.After(at) {
			at = r.EvaluatedAt
		}
		if r.ClosedBook {
			closed = r.ID
			continue
		}
		if r.Error == "" && r.Axis == schemas.AxisRetrieval {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	out := make([]schemas.Outcome, 0, len(ids))
	for _, id := range ids {
		r := s.Results[id]
		value := 0.0
		if r.Correct && !r.Refused {
			value = 1
		}
		o := schemas.Outcome{
			QuestionRef: r.QuestionRef,
			OutcomeID:   schemas.ID(r.ModelID, r.QuestionID, r.VariantID, schemas.FamilyGRADE, MetricCorrect),
			Family:      schemas.FamilyGRADE,
			Metric:      MetricCorrect,
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
		if closed != "" {
			lineage = append(lineage, closed)
		}
		schemas.Stamp(&o, o.OutcomeID, lineage...)
		out = append(out, o)
	}
	return out
}
