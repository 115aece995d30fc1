package drift

import (
	"math"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g", what, got, want)
	}
}

// TestZTest checks p-values computed by hand: 60/100 against 40/100 pools to
// p = 0.5, se = √(0.25·0.02) = 0.0707107, z = 0.2/se = 2√2, so the
// two-sided p-value is erfc(2√2/√2) = erfc(2) = 0.004677735.
func TestZTest(t *testing.T) {
	f := func(x1, n1, x2, n2, want float64) {
		t.Helper()
		near(t, "ZTest", ZTest(x1, n1, x2, n2), want, 1e-9)
	}
	f(60, 100, 40, 100, 0.004677734981047266)
	// Symmetric in the windows.
	f(40, 100, 60, 100, 0.004677734981047266)
	// 90/200 vs 110/200: pooled 0.5, se = √(0.25·0.01) = 0.05, z = 0.1/0.05 = 2, p = erfc(√2) = 0.0455003.
	f(90, 200, 110, 200, 0.04550026389635842)
	// Equal rates: no evidence.
	f(30, 100, 30, 100, 1)
	// No variance at all (both windows all successes): undefined, 1.
	f(100, 100, 50, 50, 1)
	f(0, 0, 1, 2, 1)
}

// TestFisherExact checks small tables against their exact enumeration.
func TestFisherExact(t *testing.T) {
	f := func(a, b, c, d int, want float64) {
		t.Helper()
		near(t, "FisherExact", FisherExact(a, b, c, d), want, 1e-9)
	}
	// Fisher's tea tasting, 3 of 4 right: margins 4/4/4/4 give the
	// hypergeometric probabilities 1, 16, 36, 16, 1 (/70); the tables no
	// more likely than the observed 16/70 sum to 34/70.
	f(3, 1, 1, 3, 34.0/70)
	// The extreme table: 1/70 + 1/70.
	f(4, 0, 0, 4, 2.0/70)
	// The most likely table: everything, 1.
	f(2, 2, 2, 2, 1)
	// The textbook 2×2 (studying vs dieting, Fisher's exact test article):
	// two-sided p = 0.002759456.
	f(1, 9, 11, 3, 0.002759456185220463)
	// A table with one empty margin.
	f(0, 0, 3, 4, 1)
}

// TestTestChoosesExactForSmallCounts: the z-test's normal approximation is
// poor with expected counts below 5, so Test switches to Fisher.
func TestTestChoosesExactForSmallCounts(t *testing.T) {
	p, name := Test(3, 4, 1, 4)
	if name != "fisher" {
		t.Fatalf("test = %s, want fisher", name)
	}
	near(t, "p", p, 34.0/70, 1e-9)
	p, name = Test(60, 100, 40, 100)
	if name != "z" {
		t.Fatalf("test = %s, want z", name)
	}
	near(t, "p", p, 0.004677734981047266, 1e-9)
}

// TestBenjaminiHochberg checks the adjustment against worked examples.
func TestBenjaminiHochberg(t *testing.T) {
	// Sorted 0.005, 0.01, 0.03, 0.04 with m = 4: p·m/rank = 0.02, 0.02,
	// 0.04, 0.04, already monotone (R: p.adjust(p, "BH")).
	got := BenjaminiHochberg([]float64{0.01, 0.04, 0.03, 0.005})
	for i, want := range []float64{0.02, 0.04, 0.04, 0.02} {
		near(t, "q", got[i], want, 1e-12)
	}
	// Monotonicity: 0.01, 0.011 with m = 2 give 0.02 and 0.011; the first
	// takes the minimum over later ranks, 0.011.
	got = BenjaminiHochberg([]float64{0.01, 0.011})
	near(t, "q0", got[0], 0.011, 1e-12)
	near(t, "q1", got[1], 0.011, 1e-12)

	// Benjamini & Hochberg (1995), §4: 15 p-values of a clinical trial;
	// at q* = 0.05 the procedure rejects the four smallest (Bonferroni
	// rejects three).
	ps := []float64{0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
		0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000}
	rejected := 0
	for _, q := range BenjaminiHochberg(ps) {
		if q <= 0.05 {
			rejected++
		}
	}
	if rejected != 4 {
		t.Errorf("BH rejects %d of the 15, want 4", rejected)
	}
	// The fourth: 0.0095·15/4 = 0.035625; the fifth: min over ranks ≥ 5,
	// 0.0201·15/5 = 0.0603 > 0.05.
	q := BenjaminiHochberg(ps)
	near(t, "q[3]", q[3], 0.035625, 1e-12)
	near(t, "q[4]", q[4], 0.0603, 1e-12)
	if len(BenjaminiHochberg(nil)) != 0 {
		t.Error("empty input")
	}
}

// TestMantelHaenszel checks the CMH test by hand. Two strata of 8/10
// against 2/10: each has margins n = 20, m = 10, so E = 5, a − E = 3 and
// V = 10·10·10·10/(20²·19) = 1.3157895; over both, chi = (6 − ½)/√2.6315789
// = 3.3904277 and p = erfc(chi/√2) = 0.000697837.
func TestMantelHaenszel(t *testing.T) {
	near(t, "two strata", MantelHaenszel([][4]float64{{8, 10, 2, 10}, {8, 10, 2, 10}}), 0.0006978365833638171, 1e-12)
	// A shift of the mix alone: 0.8 and 0.2 in both windows, half and half
	// before, one tenth and nine tenths after. Pooled, 0.50 fell to 0.26
	// (the z-test calls it certain); within each pattern nothing changed.
	mix := [][4]float64{{80, 100, 16, 20}, {20, 100, 36, 180}}
	near(t, "mix shift", MantelHaenszel(mix), 1, 0)
	if p := ZTest(100, 200, 52, 200); p > 1e-6 {
		t.Errorf("pooled, the mix shift has z-test p %.3g; the example no longer shows the point", p)
	}
	c := &counts{}
	for i, pattern := range []string{"single", "star"} {
		c.add(pattern, false, mix[i][1], mix[i][0])
		c.add(pattern, true, mix[i][3], mix[i][2])
	}
	// A pattern asked in one window only is not compared.
	c.add("chain", true, 50, 0)
	cmp := c.compare()
	near(t, "standardized baseline", cmp.baseline, 0.26, 1e-12)
	near(t, "recent", cmp.recent, 0.26, 1e-12)
	if cmp.test != "cmh" || cmp.p != 1 || cmp.baseN != 200 || cmp.recentN != 200 {
		t.Errorf("compare: %+v", cmp)
	}
	// No stratum with variance: no evidence.
	near(t, "no variance", MantelHaenszel([][4]float64{{10, 10, 5, 5}}), 1, 0)
}
