package question

import (
	"math"
	"testing"
)

// GRADE §3.3's aggregations of chunk similarities, by hand: for
// similarities 0.5 and 1, the minimum gives D_r 0.5, the mean 0.25, and
// the power mean with p = −2, ((0.5⁻² + 1⁻²)/2)^(−1/2) = 2.5^(−1/2), gives
// 1 − 0.632456.
func TestDRAggregates(t *testing.T) {
	for _, c := range []struct {
		sims                []float64
		minD, meanD, powerD float64
	}{
		{[]float64{0.5, 1}, 0.5, 0.25, 1 - math.Pow(2.5, -0.5)},
		{[]float64{0.8}, 0.2, 0.2, 0.2},
		{[]float64{0, 0.9}, 1, 0.55, 1}, // a chunk with nothing in common
		{nil, 1, 1, 1},
	} {
		lo, mean, power := drAggregates(c.sims)
		if math.Abs(lo-c.minD) > 1e-9 || math.Abs(mean-c.meanD) > 1e-9 || math.Abs(power-c.powerD) > 1e-6 {
			t.Errorf("%v: got %v %v %v, want %v %v %v", c.sims, lo, mean, power, c.minD, c.meanD, c.powerD)
		}
	}
}
