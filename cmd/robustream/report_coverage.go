package main

import (
	"fmt"
	"strings"
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
	var questions int64
	for _, c := range rows {
		if c[0] == "original" {
			questions += rcount(c[2])
			continue
		}
		made[c[0]+"/"+c[1]] += rcount(c[2])
	}
	r.Coverage = []coverageRow{}
	for _, k := range perturbKinds {
		row := coverageRow{Axis: k.Axis, Kind: k.Name, Variants: made[k.Slot()], needsLLM: k.NeedsLLM}
		row.NotMade = max(questions-row.Variants, 0)
		r.Coverage = append(r.Coverage, row)
	}
	r.setGenerator(false)
	return nil
}

// setGenerator says whether the engine's configuration has a generator,
// which decides what an LLM kind without variants is missing.
func (r *metricReport) setGenerator(configured bool) {
	for i := range r.Coverage {
		c := &r.Coverage[i]
		switch {
		case c.needsLLM && !configured:
			c.Reason = "needs a generator (generator: in models.yaml)"
		case c.NotMade > 0:
			c.Reason = "skipped for some questions: reasons counted by the engine (/api/coverage)"
		default:
			c.Reason = ""
		}
	}
}

// writeCoverage prints the coverage section.
func (r *metricReport) writeCoverage(b *strings.Builder) {
	fmt.Fprintf(b, "\nCoverage (perturbation kinds; variants stored, all time)\n")
	fmt.Fprintf(b, "  %-36s %8s %8s  %s\n", "kind", "variants", "not made", "why")
	for _, c := range r.Coverage {
		fmt.Fprintf(b, "  %-36s %8d %8d  %s\n", c.Axis+"/"+c.Kind, c.Variants, c.NotMade, c.Reason)
	}
}
