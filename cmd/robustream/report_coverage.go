package main

import (
	"fmt"
	"strings"

	"github.com/robustream/robustream/processors/perturb"
)

// coverageRow is one perturbation kind of the report's coverage section,
// as /api/coverage gives it: how many questions got the kind's variant, and
// why the others did not, as far as the stored data and the configuration
// can tell (the engine's skip counters by reason live in the running
// process: /api/coverage and robustream_perturbations_skipped_total).
type coverageRow struct {
	Axis     string `json:"axis"`
	Kind     string `json:"kind"`
	Variants int64  `json:"variants"`
	// InSample counts the questions the kind is made for at all: SURE's
	// cells are sampled per question (perturb.InSample); every other
	// kind's is every question perturbed.
	InSample int64  `json:"in_sample"`
	NotMade  int64  `json:"not_made"`
	Reason   string `json:"reason,omitempty"`
	needsLLM bool
}

// loadCoverage counts the stored variants of every registered kind against
// the questions perturbed (one original variant each), all time: variants
// carry no evaluation time.
func (r *metricReport) loadCoverage() error {
	rows, err := r.rows(`SELECT axis, kind, count() FROM robustream.variants GROUP BY axis, kind`, 3)
	if err != nil {
		return err
	}
	made := map[string]int64{}
	for _, c := range rows {
		if c[0] != "original" {
			made[c[0]+"/"+c[1]] += rcount(c[2])
		}
	}
	ids, err := r.rows(`SELECT DISTINCT question_id FROM robustream.variants WHERE axis = 'original'`, 1)
	if err != nil {
		return err
	}
	r.questionIDs = make([]string, len(ids))
	for i, c := range ids {
		r.questionIDs[i] = c[0]
	}
	r.Coverage = []coverageRow{}
	for _, k := range perturbKinds {
		r.Coverage = append(r.Coverage, coverageRow{Axis: k.Axis, Kind: k.Name, Variants: made[k.Slot()], needsLLM: k.NeedsLLM})
	}
	r.setGenerator(false)
	return nil
}

// setGenerator says whether the engine's configuration has a generator,
// which decides what an LLM kind without variants is missing, and which
// questions SURE's clean cells are sampled for.
func (r *metricReport) setGenerator(configured bool) {
	for i := range r.Coverage {
		r.Coverage[i].InSample = 0
	}
	for _, id := range r.questionIDs {
		in := perturb.SampleOf(id, configured)
		for i := range r.Coverage {
			if in(r.Coverage[i].Kind) {
				r.Coverage[i].InSample++
			}
		}
	}
	for i := range r.Coverage {
		c := &r.Coverage[i]
		c.NotMade = max(c.InSample-c.Variants, 0)
		switch {
		case c.needsLLM && !configured:
			c.Reason = "needs a generator (generator: in models.yaml)"
		case c.NotMade > 0:
			c.Reason = "skipped for some questions: reasons counted by the engine (/api/coverage)"
		case c.InSample < int64(len(r.questionIDs)):
			c.Reason = fmt.Sprintf("made for the %d of %d questions whose SURE sample holds it", c.InSample, len(r.questionIDs))
		default:
			c.Reason = ""
		}
	}
}

// writeCoverage prints the coverage section.
func (r *metricReport) writeCoverage(b *strings.Builder) {
	fmt.Fprintf(b, "\nCoverage (perturbation kinds; variants stored, all time)\n")
	fmt.Fprintf(b, "  %-36s %8s %9s %8s  %s\n", "kind", "variants", "in sample", "not made", "why")
	for _, c := range r.Coverage {
		fmt.Fprintf(b, "  %-36s %8d %9d %8d  %s\n", c.Axis+"/"+c.Kind, c.Variants, c.InSample, c.NotMade, c.Reason)
	}
}
