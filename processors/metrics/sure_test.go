package metrics

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/robustream/robustream/sinks/clickhouse"
)

// wilsonGo is the 95% Wilson score interval of k successes in n, written
// here from its textbook form (not from the SQL).
func wilsonGo(k, n float64) [2]float64 {
	z := 1.96
	p := k / n
	d := 1 + z*z/n
	c := (p + z*z/(2*n)) / d
	h := z / d * math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	return [2]float64{math.Max(0, c-h), math.Min(1, c+h)}
}

// TestSUREShares: the four format_json instances of baseOutcomes (C = 0,
// −1, 1, 0) give RR 1/2, WR 1/4, LR 1/4 with Wilson intervals; a share
// of 0 still has an interval of positive width.
func TestSUREShares(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		insert(t, e, time.Now(), 0, baseOutcomes())
		rep, err := BuildReport(context.Background(), e.Query, "all", 0)
		if err != nil {
			t.Fatal(err)
		}
		var all *SURERow
		for i := range rep.SURE {
			if rep.SURE[i].Split == "all" && rep.SURE[i].Kind == "" {
				all = &rep.SURE[i]
			}
		}
		if all == nil || all.N != 4 || !near(all.RR, 0.5) || !near(all.WR, 0.25) || !near(all.LR, 0.25) {
			t.Fatalf("SURE total %+v", all)
		}
		for _, c := range []struct {
			name string
			got  CI
			k    float64
		}{{"rr", all.RRCI, 2}, {"wr", all.WRCI, 1}, {"lr", all.LRCI, 1}} {
			want := wilsonGo(c.k, 4)
			if !near(c.got[0], want[0]) || !near(c.got[1], want[1]) {
				t.Errorf("%s CI %v, want %v", c.name, c.got, want)
			}
		}
		// known/golden holds s1 and s3 (C = −1, 0): LR is 0 there.
		for _, r := range rep.SURE {
			if r.Split == "known/golden" {
				if !near(r.LR, 0) || !(float64(r.LRCI[1]) > 0) || !near(r.LRCI[1], wilsonGo(0, 2)[1]) {
					t.Errorf("known/golden LR %v CI %v, want 0 and %v", r.LR, r.LRCI, wilsonGo(0, 2))
				}
			}
		}
	})
}
