package pair

import (
	"sort"
	"strings"
	"time"

	"github.com/robustream/robustream/schemas"
)

// SURE's outcome metrics (schemas/sql 030, sure_instances): per perturbed
// instance, c = Y(original) − Y(perturbed) ∈ {−1, 0, 1} and y_original =
// Y(original) ∈ {0, 1}, under the perturbed variant's id.
const (
	MetricC         = "c"
	MetricYOriginal = "y_original"
)

// The slot names of SURE's cells as perturb makes them (a test checks they
// agree with perturb's; pair does not import perturb): the clean kind is
// SURE's original instance, and a kind on the noise context carries the
// suffix. The outcome records the kind without the suffix and says noise
// by golden = 0, so a kind's four Known/Unknown × Golden/Noise cells share
// its name, as in SURE's Table 1.
const (
	SUREClean       = "clean"
	SURENoiseSuffix = "_noise"
)

// SUREAxes are the axes SURE scores: the spurious features only. Its
// original instances are the clean kinds on that axis, asked with SURE's
// prompt, so Y(original) and Y(perturbed) come from the same instruction.
var SUREAxes = []string{schemas.AxisSpurious}

// SURE is SURE's instance-level comparison (§3.5): C per perturbed
// instance, split by Known (closed-book correct) × Golden (the context
// holds an answer).
var SURE = Family{Name: schemas.FamilySURE, Axes: SUREAxes, NeedsKnown: true, Outcomes: SUREOutcomes}

// SUREOutcomes returns the c and y_original outcomes of every perturbed
// spurious result of s whose clean counterpart (golden or noise) answered,
// sorted by variant id. Results with an Error, on either side, are left
// out: an unanswered request says nothing about robustness. A set whose
// closed-book verdict is unknown has none (Family.NeedsKnown).
func SUREOutcomes(s *Set) []schemas.Outcome {
	known, unscorable := s.Known()
	if unscorable != "" {
		return nil
	}
	var closed *schemas.EvalResult
	var at time.Time
	clean := map[bool]*schemas.EvalResult{} // noise → clean result
	for _, r := range s.Results {
		if r.EvaluatedAt.After(at) {
			at = r.EvaluatedAt
		}
		switch {
		case r.ClosedBook:
			closed = &r
		case r.Axis == schemas.AxisSpurious && r.Error == "" && r.Kind == SUREClean:
			clean[false] = &r
		case r.Axis == schemas.AxisSpurious && r.Error == "" && r.Kind == SUREClean+SURENoiseSuffix:
			clean[true] = &r
		}
	}
	ids := make([]string, 0, len(s.Results))
	for id, r := range s.Results {
		if r.ClosedBook || r.Axis != schemas.AxisSpurious || r.Error != "" || strings.TrimSuffix(r.Kind, SURENoiseSuffix) == SUREClean {
			continue
		}
		if clean[strings.HasSuffix(r.Kind, SURENoiseSuffix)] != nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	out := make([]schemas.Outcome, 0, 2*len(ids))
	for _, id := range ids {
		r := s.Results[id]
		noise := strings.HasSuffix(r.Kind, SURENoiseSuffix)
		orig := clean[noise]
		yo, yp := b2f(orig.Correct), b2f(r.Correct)
		lineage := []string{r.ID, orig.ID}
		if closed != nil {
			lineage = append(lineage, closed.ID)
		}
		for _, m := range []struct {
			metric string
			value  float64
		}{{MetricC, yo - yp}, {MetricYOriginal, yo}} {
			o := schemas.Outcome{
				QuestionRef: r.QuestionRef,
				OutcomeID:   schemas.ID(r.ModelID, r.QuestionID, r.VariantID, schemas.FamilySURE, m.metric),
				Family:      schemas.FamilySURE,
				Metric:      m.metric,
				ModelID:     r.ModelID,
				VariantID:   r.VariantID,
				Axis:        r.Axis,
				Kind:        strings.TrimSuffix(r.Kind, SURENoiseSuffix),
				Known:       known,
				Golden:      !noise,
				Value:       m.value,
				EvaluatedAt: at,
			}
			schemas.Stamp(&o, o.OutcomeID, lineage...)
			out = append(out, o)
		}
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
