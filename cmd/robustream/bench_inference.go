package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"syscall"
	"time"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// cmdBenchInference measures the infer stage's dispatcher against the
// simulated GPU server (processors/provider/simserver), every figure from
// the same run: the throughput achieved as a share of the server's
// modelled capacity and the server's slot utilization, with the automatic
// window steered by vLLM's queue gauges, by SGLang's, by latency alone (a
// server without gauges, and one whose gauges are for another served
// name), with a fixed window of max_num_seqs, and with prefix-aware
// ordering off, each with its prefix-cache hit rate; then the stage's own
// ceiling against a server that answers at once, and the process CPU per
// request there. A run that served nothing is an error, not a figure.
func cmdBenchInference(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench inference", flag.ContinueOnError)
	periods := fs.Int("periods", 8, "demo periods to derive requests from")
	n := fs.Int("requests", 3000, "requests per run")
	seqs := fs.Int("max-num-seqs", simserver.DefaultMaxNumSeqs, "the simulated server's concurrent sequences")
	cacheBlocks := fs.Int("prefix-cache-blocks", 256, "the simulated server's prefix cache, in blocks of 16 tokens (small: GPU memory under pressure)")
	cfg, err := parseConfig(fs, args, stdout, "log.level", "log.format", "kafka.partitions")
	if err != nil {
		return err
	}
	e, inputs, err := benchSetup(ctx, cfg, *periods)
	if err != nil {
		return err
	}
	defer e.close()
	reqs, distinct, err := simRequests(inputs[streams.TopicVariants], *n)
	if err != nil {
		return err
	}
	reqs = interleave(reqs)
	if err := e.kafka.EnsureTopics(ctx, reader.Outputs()...); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "robustream bench inference: %d requests (%d distinct prompts, questions interleaved) from %d demo periods, simulated server with max_num_seqs %d and a prefix cache of %d blocks\n\n",
		len(reqs), distinct, *periods, *seqs, *cacheBlocks)
	fmt.Fprintf(stdout, "%-44s %9s %9s %9s %11s %9s\n", "dispatcher", "req/s", "capacity", "share", "utilization", "prefix hit")
	runs := []struct {
		name     string
		window   int
		affinity bool
		metrics  simserver.MetricsFlavor
		served   string // model_name of the gauges; empty: the model asked for
	}{
		{"max_in_flight auto, vLLM's gauges", 0, true, simserver.MetricsVLLM, ""},
		{"max_in_flight auto, SGLang's gauges", 0, true, simserver.MetricsSGLang, ""},
		{"max_in_flight auto, no gauges (latency)", 0, true, simserver.MetricsNone, ""},
		{"auto, vLLM's gauges for another name", 0, true, simserver.MetricsVLLM, "another/model"},
		{fmt.Sprintf("max_in_flight %d (= max_num_seqs)", *seqs), *seqs, true, simserver.MetricsVLLM, ""},
		{"auto, prefix-aware ordering off", 0, false, simserver.MetricsVLLM, ""},
	}
	for i, r := range runs {
		sim, err := simserver.Start(simserver.Config{MaxNumSeqs: *seqs, PrefixCacheBlocks: *cacheBlocks, Seed: 7, Metrics: r.metrics, MetricsModel: r.served})
		if err != nil {
			return err
		}
		st, err := runSimInfer(ctx, e, fmt.Sprintf("bench.infer.%d", i), sim, *seqs, reqs, distinct, r.window, r.affinity)
		sim.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		if st.Served == 0 || st.Elapsed <= 0 || st.Capacity == 0 {
			return fmt.Errorf("%s: the simulated server served nothing (%+v)", r.name, st)
		}
		rate := float64(st.Served) / st.Elapsed.Seconds()
		hit := 0.0
		if st.PromptTokens > 0 {
			hit = float64(st.CachedTokens) / float64(st.PromptTokens)
		}
		fmt.Fprintf(stdout, "%-44s %9.0f %9.0f %8.1f%% %10.1f%% %8.1f%%\n", r.name, rate, st.Capacity, 100*rate/st.Capacity, 100*st.Utilization, 100*hit)
	}

	// The stage's ceiling: a server that answers at once.
	sim, err := simserver.Start(simserver.Config{MaxNumSeqs: 512, PrefillPerToken: time.Nanosecond, CachedPrefillPerToken: time.Nanosecond,
		DecodePerToken: time.Nanosecond, Seed: 7})
	if err != nil {
		return err
	}
	defer sim.Close()
	cpu0 := cpuTime()
	start := time.Now()
	if _, err := runSimInfer(ctx, e, "bench.infer.zero", sim, 512, reqs, distinct, 256, true); err != nil {
		return fmt.Errorf("zero-latency server: %w", err)
	}
	took, cpu := time.Since(start), cpuTime()-cpu0
	fmt.Fprintf(stdout, "\nzero-latency server: %.0f requests/s through the infer stage (Kafka in and out, judge, cache), %.0f µs CPU per request (this process: engine, broker and the simulated server)\n",
		float64(len(reqs))/took.Seconds(), float64(cpu.Microseconds())/float64(len(reqs)))
	fmt.Fprintf(stdout, "\npeak RSS of this process: %s\n", peakRSS())
	return nil
}

// simRequests fans the demo feed's variants out to one model, "sim", and
// returns up to n requests, in fan-out order (the variants of a question
// one after another, as the pipeline sends them), and how many distinct
// prompts they hold.
func simRequests(variants []streams.Message, n int) ([]streams.Message, int, error) {
	fo, err := fanout.NewStage(fanout.Config{Models: []string{"sim"}})
	if err != nil {
		return nil, 0, err
	}
	var out []streams.Message
	ids := map[string]bool{}
	for _, v := range variants {
		recs, err := fo.Process(context.Background(), v)
		if err != nil {
			return nil, 0, err
		}
		for _, r := range recs {
			if len(out) == n {
				return out, len(ids), nil
			}
			var req schemas.EvalRequest
			if err := schemas.Decode(r.Value, &req); err != nil {
				return nil, 0, err
			}
			ids[req.RequestID] = true
			out = append(out, streams.Message{Topic: r.Topic, Key: r.Key, Value: r.Value})
		}
	}
	if len(out) == 0 {
		return nil, 0, errors.New("the demo feed gave no requests")
	}
	return out, len(ids), nil
}

// interleave mixes the requests of different questions, as when many
// questions are in flight at once, deterministically: the order the
// dispatcher must make up for when it groups prompts sharing contexts.
func interleave(reqs []streams.Message) []streams.Message {
	out := slices.Clone(reqs)
	rng := rand.New(rand.NewPCG(7, 7))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// runSimInfer runs an infer stage whose one model is sim over reqs, on a
// fresh topic, and returns the server's statistics from its first request
// to its last answer (the consumer group's start-up is not the server's
// idle time).
func runSimInfer(ctx context.Context, e *engine, name string, sim *simserver.Server, seqs int, reqs []streams.Message, distinct, window int, affinity bool) (simserver.Stats, error) {
	model, err := provider.NewOpenAI("sim", provider.OpenAIOptions{BaseURL: sim.BaseURL(), Model: simserver.DefaultModel,
		Limits: provider.Limits{MaxInFlight: window}, Timeout: time.Minute})
	if err != nil {
		return simserver.Stats{}, err
	}
	proc, err := reader.NewStage(reader.Config{Models: map[string]provider.Model{"sim": model}, Cache: reader.NewCache(), NoPrefixAffinity: !affinity})
	if err != nil {
		return simserver.Stats{}, err
	}
	topic := "bench.in." + name
	if err := produceInput(ctx, e, topic, reqs); err != nil {
		return simserver.Stats{}, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- e.runner.Run(runCtx, streams.Stage{Name: name, Inputs: []string{topic}, Outputs: reader.Outputs(), Processor: proc, InFlight: inferInFlight})
	}()
	wait := func(what string, cond func(simserver.Stats) bool) (simserver.Stats, error) {
		deadline := time.Now().Add(10 * time.Minute)
		for {
			st := sim.Stats()
			if cond(st) {
				return st, nil
			}
			select {
			case err := <-done:
				return st, fmt.Errorf("stage stopped before %s: %v", what, err)
			case <-time.After(2 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				return st, fmt.Errorf("timed out waiting for %s (%+v)", what, st)
			}
		}
	}
	s0, err := wait("the first request", func(s simserver.Stats) bool { return s.Requests > 0 })
	if err != nil {
		return simserver.Stats{}, err
	}
	st, err := wait("every answer", func(s simserver.Stats) bool {
		return s.Answered >= distinct && s.Running == 0 && s.Waiting == 0
	})
	if err != nil {
		return st, err
	}
	// From the first request on: the busy time, the sequences served and
	// the wall time of the run proper.
	st.Elapsed -= s0.Elapsed
	st.BusyTime -= s0.BusyTime
	st.Served -= s0.Served
	st.Utilization = st.BusyTime.Seconds() / (float64(seqs) * st.Elapsed.Seconds())
	if err := e.runner.WaitDrained(ctx, map[string][]string{name: {topic}}, 20*time.Millisecond, func() bool { return true }, nil); err != nil {
		return st, err
	}
	cancel()
	return st, <-done
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
