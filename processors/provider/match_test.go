package provider

import (
	"math/rand/v2"
	"testing"
)

// matchRunes is the original, allocating form of match, kept as the
// reference for the allocation-free one.
func matchRunes(qstem, sstem string) float64 {
	if qstem == sstem {
		return 1
	}
	a, b := []rune(qstem), []rune(sstem)
	n := min(len(a), len(b))
	p := 0
	for p < n && a[p] == b[p] {
		p++
	}
	if p >= 4 && 4*p >= 3*n {
		return 0.5
	}
	return 0
}

func TestMatchAgreesWithRuneReference(t *testing.T) {
	alphabet := []string{"a", "b", "e", "r", "é", "ü", "日", "\xff", "\xc3"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		s := ""
		for n := rng.IntN(9); n > 0; n-- {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		return s
	}
	for i := 0; i < 200000; i++ {
		q := word()
		s := q[:rng.IntN(len(q)+1)] + word() // shared prefixes are the interesting case
		if got, want := match(q, s), matchRunes(q, s); got != want {
			t.Fatalf("match(%q, %q) = %v, reference %v", q, s, got, want)
		}
	}
}
