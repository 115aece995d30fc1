package pair

import (
	"slices"
	"testing"

	"github.com/robustream/robustream/processors/metrics"
)

// TestFamiliesMatchMetrics: every family pairing writes is declared in
// processors/metrics under the same name, with the same axes, and writes
// only the metrics declared there; so the views read exactly what pairing
// writes.
func TestFamiliesMatchMetrics(t *testing.T) {
	written := map[string][]string{
		RARE.Name:  {MetricF, MetricRetrievalHit},
		SURE.Name:  {MetricC, MetricYOriginal},
		GRADE.Name: {MetricCorrect},
		PRGB.Name:  {TaskFiltering, TaskCombination, TaskReasoning},
	}
	for _, f := range []Family{RARE, SURE, GRADE, PRGB} {
		m, ok := metrics.Named(f.Name)
		if !ok {
			t.Errorf("family %s is not declared in processors/metrics", f.Name)
			continue
		}
		if !slices.Equal(f.Axes, m.Axes) {
			t.Errorf("family %s: pairing scores axes %v, processors/metrics declares %v", f.Name, f.Axes, m.Axes)
		}
		for _, metric := range written[f.Name] {
			if !slices.Contains(m.Metrics, metric) {
				t.Errorf("family %s writes metric %s, which processors/metrics does not declare (%v)", f.Name, metric, m.Metrics)
			}
		}
	}
}
