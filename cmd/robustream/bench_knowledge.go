package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/schemas"
)

// cmdBenchKnowledge measures what adding one document costs the knowledge
// graph as the graph grows: the graph is filled with N synthetic company
// reports (entities shared across reports: cities, suppliers, board
// members), then a probe of new reports is added one by one and timed. The
// same probe runs at every size, so the ratios compare like with like.
func cmdBenchKnowledge(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench knowledge", flag.ContinueOnError)
	sizes := fs.String("sizes", "200,2000,20000", "documents already in the graph, comma-separated")
	probe := fs.Int("probe", 200, "documents added and timed at each size")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the last size's timed additions to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the run to this file")
	fs.SetOutput(stdout)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *memProfile != "" {
		defer func() {
			if f, err := os.Create(*memProfile); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	var ns []int
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return fmt.Errorf("bench knowledge: -sizes: %q is not a document count", f)
		}
		ns = append(ns, n)
	}
	fmt.Fprintf(stdout, "robustream bench knowledge: time to add one document (%d probe documents, about 9 facts each) to a graph of N documents\n\n", *probe)
	fmt.Fprintf(stdout, "%8s %9s %9s %10s %12s %12s %10s %8s\n", "N", "edges", "entities", "questions", "fill", "per doc", "p95", "ratio")
	var base float64
	for _, n := range ns {
		k := question.NewKnowledge(question.PatternLimits{})
		start := time.Now()
		for i := range n {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			addReport(k, i)
		}
		fill := time.Since(start)
		// Start the timed additions from a collected heap, so that a
		// collection the fill left due does not land on one size only.
		runtime.GC()
		var each []time.Duration
		if *cpuProfile != "" && n == ns[len(ns)-1] {
			f, err := os.Create(*cpuProfile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
		}
		for i := n; i < n+*probe; i++ {
			t0 := time.Now()
			addReport(k, i)
			each = append(each, time.Since(t0))
		}
		if *cpuProfile != "" && n == ns[len(ns)-1] {
			pprof.StopCPUProfile()
		}
		slices.Sort(each)
		var sum time.Duration
		for _, d := range each {
			sum += d
		}
		mean := float64(sum.Microseconds()) / float64(len(each))
		if base == 0 {
			base = mean
		}
		fmt.Fprintf(stdout, "%8d %9d %9d %10d %12s %10.0fµs %8dµs %7.2f×\n", n, k.Graph().Len(), k.Graph().Entities(),
			len(k.Active()), fill.Round(time.Millisecond), mean, each[len(each)*95/100].Microseconds(), mean/base)
		runtime.GC()
	}
	fmt.Fprintf(stdout, "\nratio: mean time per added document against the first size, measured in this run (target: at most 1.3 at 20,000/200)\n")
	return nil
}

var (
	benchCities  = []string{"Trondheim", "Bergen", "Stavanger", "Tromsø", "Bodø", "Ålesund", "Drammen", "Fredrikstad", "Kristiansand", "Hamar", "Molde", "Narvik"}
	benchFirst   = []string{"Anna", "Erik", "Ingrid", "Lars", "Sofie", "Henrik", "Marit", "Ola", "Kari", "Nils", "Eva", "Jonas"}
	benchLast    = []string{"Berg", "Dahl", "Solberg", "Lund", "Vik", "Holm", "Nygaard", "Haugen", "Moen", "Strand", "Bakke", "Lie"}
	benchSectors = []string{"Robotics", "Logistics", "Battery Systems", "Sensorteknikk", "Marine", "Foods", "Energy", "Analytics"}
)

// addReport adds synthetic report i as the question stage would receive
// it: its triplets, then the End record of its one chunk. It names
// companies and people of earlier reports.
func addReport(k *question.Knowledge, i int) {
	r := rand.New(rand.NewPCG(uint64(i), 7))
	name := func(j int) string { return fmt.Sprintf("Company%d %s", j, benchSectors[j%len(benchSectors)]) }
	company := name(i)
	person := func(j int) string {
		return fmt.Sprintf("%s %s%d", benchFirst[j%len(benchFirst)], benchLast[(j/len(benchFirst))%len(benchLast)], j)
	}
	// Links point to reports already in the graph, as a new report names
	// companies and people it knows.
	known := func() int { return r.IntN(max(i, 1)) }
	partner := name(known())
	facts := []struct{ head, rel, tail, kind, sentence string }{
		{company, "based in", benchCities[r.IntN(len(benchCities))], "attribute", "%s, based in %s, reported its results."},
		{company, "chief executive", person(i), "attribute", "%s's chief executive, %s, presented the report."},
		{company, "employs", fmt.Sprintf("%d people", 50+r.IntN(2000)), "verb", "%s employs %s."},
		{company, "revenue", fmt.Sprintf("NOK %d million", 10+r.IntN(900)), "attribute", "%s's revenue was %s."},
		{company, "supplies robots to", partner, "verb", "%s supplies robots to %s."},
		{person(known()), "board member", company, "attribute", "%s is a board member of %s."},
		{company, "opened", fmt.Sprintf("%d new sites", 1+r.IntN(20)), "verb", "%s opened %s in 2025."},
		{company, "acquired", name(known()), "verb", "%s acquired %s."},
		{partner, "uses", company + " robots", "verb", "%s uses %s."},
	}
	doc := fmt.Sprintf("report-%d", i)
	var sentences []string
	for _, f := range facts {
		sentences = append(sentences, fmt.Sprintf(f.sentence, f.head, f.tail))
	}
	text := strings.Join(sentences, " ")
	chunkID := schemas.ID(doc, text)
	published := time.Date(2026, time.Month(1+i%12), 1, 0, 0, 0, 0, time.UTC)
	for j, f := range facts {
		k.AddTriplet(&schemas.Triplet{TripletID: schemas.ID(f.head, f.rel, f.tail, chunkID), Head: f.head, Relation: f.rel,
			Tail: f.tail, Kind: f.kind, ChunkID: chunkID, DocID: doc, DocVersion: 1, SourceSentence: sentences[j],
			ChunkText: text, PublishedAt: published})
	}
	k.ChunkDone(doc, chunkID, 1, 1)
}
