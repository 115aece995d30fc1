package simserver

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkClients measures how much of the modelled capacity (default
// costs, MaxNumSeqs 16) a closed loop of clients reaches: about half with
// 8 clients, close to all from 16 on, the queue absorbing the rest. The
// capacity share, not the wall time, is the figure to read; it is what a
// dispatcher's benchmark reports against this server.
func BenchmarkClients(b *testing.B) {
	contexts := []string{
		"Acme Corp published its quarterly report on Monday. Acme Corp's revenue in Q3 2025 was $4.2 billion.",
		"Its operating margin was 18%, up from 15% a year earlier, and the company raised its full-year outlook.",
		"Northwind Bank appointed Maria Lopez as chief financial officer in March.",
	}
	for _, clients := range []int{8, 16, 32, 64} {
		b.Run(fmt.Sprint("clients=", clients), func(b *testing.B) {
			s, err := Start(Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
			var next atomic.Int64
			var wg sync.WaitGroup
			s.ResetStats()
			b.ResetTimer()
			for range clients {
				wg.Go(func() {
					for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
						q := fmt.Sprintf("What was Acme Corp's revenue in Q3 2025 (variant %d)?", i)
						r := post(client, s, "/chat/completions", chat(enginePrompt(q, contexts...)))
						if r.status != http.StatusOK {
							b.Errorf("request %d: %v %d %s", i, r.err, r.status, strings.TrimSpace(string(r.body)))
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			st := s.Stats()
			b.ReportMetric(st.CapacityShare(), "capacity-share")
			b.ReportMetric(st.Utilization, "utilization")
			b.ReportMetric(st.Capacity, "capacity/s")
			b.ReportMetric(st.PrefixHitRate(), "prefix-hit-rate")
		})
	}
}
