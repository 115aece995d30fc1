package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/segmentio/kafka-go"

	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/streams"
)

// cmdBench measures each stage and the ClickHouse sink against baselines
// measured in the same run on the same broker and engine: raw kafka-go
// produce+consume of the stage's input bytes, and a raw chDB Arrow insert of
// the sink's rows. It prints events/s and the ratio, and the peak RSS.
func cmdBench(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "inference" {
		return cmdBenchInference(ctx, args[1:], stdout)
	}
	if len(args) > 0 && args[0] == "knowledge" {
		return cmdBenchKnowledge(ctx, args[1:], stdout)
	}
	if len(args) > 0 && args[0] == "retrieval" {
		return cmdBenchRetrieval(ctx, args[1:], stdout)
	}
	if len(args) > 0 && args[0] == "sources" {
		return cmdBenchSources(ctx, args[1:], stdout)
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	periods := fs.Int("periods", 8, "demo periods to generate as input")
	minEvents := fs.Int("min-events", 10000, "repeat each stage's input up to this many events, so fixed start-up costs do not dominate")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	only := fs.String("only", "", "comma-separated stages to measure (default: all, and the sink)")
	cfg, err := parseConfig(fs, args, stdout, "clickhouse.chdb_lib", "log.level", "log.format", "kafka.partitions")
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	e, inputs, err := benchSetup(ctx, cfg, *periods)
	if err != nil {
		return err
	}
	defer e.close()
	fmt.Fprintf(stdout, "robustream bench: %d demo periods, embedded broker, %d partitions\n", *periods, e.kafka.Partitions())
	fmt.Fprintf(stdout, "each stage's input is repeated up to %d events (caches see the repeats; --min-events 1 --periods 40 measures unrepeated input)\n\n", *minEvents)
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	if _, err := benchStages(ctx, e, inputs, *minEvents, names, stdout); err != nil {
		return err
	}
	if *only != "" && !contains(strings.Split(*only, ","), "sink") {
		fmt.Fprintf(stdout, "\npeak RSS of this process: %s\n", peakRSS())
		return nil
	}
	if err := benchSink(ctx, e, cfg, repeatTo(inputs[streams.TopicEvalResults], *minEvents), stdout); err != nil {
		if errors.Is(err, clickhouse.ErrNoChDB) {
			fmt.Fprintf(stdout, "\nsink: skipped (%v; run make setup)\n", err)
		} else {
			return err
		}
	}
	fmt.Fprintf(stdout, "\npeak RSS of this process: %s\n", peakRSS())
	return nil
}

// benchSetup starts an engine on a data dir of its own, removed when the
// engine closes, logging warnings only, and derives every topic's input
// from periods of the demo feed (benchInputs).
func benchSetup(ctx context.Context, cfg *Config, periods int) (*engine, map[string][]streams.Message, error) {
	tmp, err := os.MkdirTemp("", "robustream-bench-")
	if err != nil {
		return nil, nil, err
	}
	cfg.DataDir = tmp
	cfg.Log.Level = "warn"
	e, err := startEngine(ctx, cfg, newLogger(cfg.Log), false)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	e.cleanup = append(e.cleanup, func() { os.RemoveAll(tmp) })
	inputs, err := benchInputs(ctx, e, periods)
	if err != nil {
		e.close()
		return nil, nil, err
	}
	return e, inputs, nil
}

// benchInputs runs the processors in-process over the demo feed to obtain
// realistic input messages for every topic.
func benchInputs(ctx context.Context, e *engine, periods int) (map[string][]streams.Message, error) {
	out := map[string][]streams.Message{}
	var docs []streams.Message
	for p := 0; p < periods; p++ {
		for _, d := range demo.Generate(7, p) {
			d.Version = 1
			schemas.Stamp(&d, schemas.ID(d.DocID, d.ContentHash))
			b, err := schemas.Encode(&d)
			if err != nil {
				return nil, err
			}
			docs = append(docs, streams.Message{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b})
		}
	}
	out[streams.TopicDocuments] = docs
	cur := docs
	st := newMemStore()
	for _, spec := range selectStages(nil) {
		if strings.HasPrefix(spec.name, "sink.") {
			continue
		}
		stage, err := spec.build(e)
		if err != nil {
			return nil, err
		}
		proc := stage.Processor
		if spec.name == pair.StageName {
			proc = pair.NewStage(st)
		}
		in := cur
		// A variant producer (the retrieve stage) reads the corpus too, and
		// its variants join perturb's rather than replace them.
		producer := slices.Contains(spec.inputs, streams.TopicVariants) && slices.Contains(spec.outputs, streams.TopicVariants)
		if producer {
			in = nil
			for _, t := range spec.inputs {
				if t != streams.TopicVariants {
					in = append(in, out[t]...)
				}
			}
			in = append(in, cur...)
		}
		var next []streams.Message
		for i, m := range in {
			recs, err := proc.Process(streams.WithPartition(ctx, 0), m)
			if err != nil {
				return nil, fmt.Errorf("bench input for %s, message %d: %w", spec.name, i, err)
			}
			for _, r := range recs {
				next = append(next, streams.Message{Topic: r.Topic, Key: r.Key, Value: r.Value})
			}
		}
		if producer {
			next = append(slices.Clone(cur), next...)
		}
		if len(next) == 0 {
			break
		}
		out[next[0].Topic] = next
		cur = next
	}
	return out, nil
}

func toRecords(topic string, msgs []streams.Message) []streams.Record {
	recs := make([]streams.Record, len(msgs))
	for i, m := range msgs {
		recs[i] = streams.Record{Topic: topic, Key: m.Key, Value: m.Value}
	}
	return recs
}

// benchRawKafka produces msgs to a fresh topic with kafka-go and consumes
// them back, returning events/s of the whole round trip.
func benchRawKafka(ctx context.Context, e *engine, topic string, msgs []streams.Message) (float64, error) {
	start := time.Now()
	if err := produceInput(ctx, e, topic, msgs); err != nil {
		return 0, err
	}
	ends, err := e.kafka.EndOffsets(ctx, topic)
	if err != nil {
		return 0, err
	}
	// Consume every partition concurrently, as the stage runner does.
	counts := make(chan int, len(ends[topic]))
	errc := make(chan error, len(ends[topic]))
	for p, end := range ends[topic] {
		go func() {
			n, err := readPartition(ctx, e, topic, p, end)
			counts <- n
			errc <- err
		}()
	}
	n := 0
	for range ends[topic] {
		n += <-counts
		if err := <-errc; err != nil {
			return 0, err
		}
	}
	if n != len(msgs) {
		return 0, fmt.Errorf("raw baseline read %d of %d messages", n, len(msgs))
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// repeatTo repeats msgs until there are at least n. Stages are idempotent,
// so a repeated message costs what the first did.
func repeatTo(msgs []streams.Message, n int) []streams.Message {
	if len(msgs) == 0 {
		return nil
	}
	out := msgs
	for len(out) < n {
		out = append(out, msgs...)
	}
	return out
}

// readPartition reads partition p of topic up to end with a plain kafka-go
// reader (no consumer group, no processing).
func readPartition(ctx context.Context, e *engine, topic string, p int, end int64) (int, error) {
	if end == 0 {
		return 0, nil
	}
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: e.kafka.Brokers(), Dialer: e.kafka.Dialer(), Topic: topic, Partition: p,
		MinBytes: 1, MaxBytes: 8 << 20, MaxWait: 250 * time.Millisecond})
	defer r.Close()
	n := 0
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			return n, err
		}
		n++
		if m.Offset >= end-1 {
			return n, nil
		}
	}
}

// produceInput writes msgs to topic (created if needed), as one timed step of
// both the baseline and the stage measurement.
func produceInput(ctx context.Context, e *engine, topic string, msgs []streams.Message) error {
	if err := e.kafka.EnsureTopics(ctx, topic); err != nil {
		return err
	}
	w := e.kafka.NewWriter()
	defer w.Close()
	recs := toRecords(topic, msgs)
	for i := 0; i < len(recs); i += 5000 {
		if err := streams.Produce(ctx, w, recs[i:min(i+5000, len(recs))]...); err != nil {
			return err
		}
	}
	return nil
}

// stageRow is one measured stage: how many inputs it was fed, what it
// made of them (records out, dead letters) and how fast, next to the raw
// Kafka round trip of the same input.
type stageRow struct {
	Name           string
	Events         int
	Out, DLQ       int
	Rate, Raw      float64
	FirstDeadCause string
}

// benchStages measures every processor stage of the registry (those named
// in only, when given) on its input topic's messages, repeated up to
// minEvents, printing each row to w as it is measured. It stops at the
// first stage whose run is not a valid measurement (see checkStageRun).
func benchStages(ctx context.Context, e *engine, inputs map[string][]streams.Message, minEvents int, only []string, w io.Writer) ([]stageRow, error) {
	fmt.Fprintf(w, "%-10s %9s %9s %14s %14s %7s\n", "stage", "events", "out", "stage ev/s", "raw kafka ev/s", "ratio")
	var rows []stageRow
	for i, spec := range selectStages(nil) {
		// Sinks are measured by benchSink; a stage its config leaves off
		// (the alert receivers without receivers) does not run at all.
		off := spec.enabled != nil && !spec.enabled(e.cfg)
		if strings.HasPrefix(spec.name, "sink.") || off || (len(only) > 0 && !contains(only, spec.name)) {
			continue
		}
		if why := stageIdle(spec, e); why != "" {
			// Nothing to time: a figure for a run that makes nothing
			// would be that of reading and dropping its input.
			fmt.Fprintf(w, "%-10s idle under this configuration, not measured: %s\n", spec.name, why)
			continue
		}
		var in []streams.Message
		for _, t := range spec.inputs {
			in = append(in, inputs[t]...)
		}
		msgs := repeatTo(in, minEvents)
		if len(msgs) == 0 {
			// An upstream stage that emitted nothing already failed; a
			// stage left without input here is one benchInputs could not
			// reach, which is an error too, not a row to leave out.
			return rows, fmt.Errorf("bench: stage %s: no input on %s (the stages before it emitted nothing)", spec.name, spec.inputs[0])
		}
		raw, err := benchRawKafka(ctx, e, fmt.Sprintf("bench.raw.%d", i), msgs)
		if err != nil {
			return rows, err
		}
		row, err := benchStage(ctx, e, spec, msgs)
		if err != nil {
			return rows, err
		}
		row.Raw = raw
		fmt.Fprintf(w, "%-10s %9d %9d %14.0f %14.0f %6.2f×\n", row.Name, row.Events, row.Out, row.Rate, row.Raw, row.Rate/row.Raw)
		rows = append(rows, row)
	}
	return rows, nil
}

// stageIdle is why spec has no work under e's models ("" when it has).
func stageIdle(spec stageSpec, e *engine) string {
	if spec.idle == nil {
		return ""
	}
	return spec.idle(e)
}

// benchStage produces msgs to a fresh input topic and runs the stage, with
// its own processor and state, on it until drained. The rate is events/s
// of produce + process + produce + commit. A run that dead-lettered any
// input or emitted nothing is an error (checkStageRun), never a figure.
func benchStage(ctx context.Context, e *engine, spec stageSpec, msgs []streams.Message) (stageRow, error) {
	row := stageRow{Name: spec.name, Events: len(msgs)}
	st, err := spec.build(e)
	if err != nil {
		return row, err
	}
	topic := "bench.in." + spec.name
	st.Inputs = []string{topic}
	st.Name = "bench." + spec.name
	if st.State != nil {
		// The stage keeps the state its spec built (the knowledge graph for
		// questions, the open sets for pairing), restored by the runner from
		// its changelog: that changelog must be empty, or the figure would
		// be that of a stage resuming someone else's work. (The runner
		// creates the topic the same way when it starts.)
		if err := e.kafka.EnsureTopics(ctx, st.State.Topic()); err != nil {
			return row, err
		}
		ends, err := e.kafka.EndOffsets(ctx, st.State.Topic())
		if err != nil {
			return row, err
		}
		for p, end := range ends[st.State.Topic()] {
			if end != 0 {
				return row, fmt.Errorf("bench: stage %s: state changelog %s already holds %d records on partition %d", spec.name, st.State.Topic(), end, p)
			}
		}
	}
	dlqFrom, err := e.kafka.EndOffsets(ctx, streams.TopicDLQ)
	if err != nil {
		return row, err
	}
	start := time.Now()
	if err := produceInput(ctx, e, topic, msgs); err != nil {
		return row, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.runner.Run(runCtx, st) }()
	err = e.runner.WaitDrained(ctx, map[string][]string{st.Name: {topic}}, 20*time.Millisecond, func() bool { return true }, nil)
	took := time.Since(start)
	cancel()
	if rerr := <-done; rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return row, err
	}
	row.Rate = float64(len(msgs)) / took.Seconds()
	row.Out = counterValue(e.metrics.Out, st.Name)
	row.DLQ = counterValue(e.metrics.DLQ, st.Name)
	if row.DLQ > 0 {
		if row.FirstDeadCause, err = firstDeadLetter(ctx, e, st.Name, dlqFrom[streams.TopicDLQ]); err != nil {
			return row, err
		}
	}
	return row, checkStageRun(row)
}

// checkStageRun refuses a run that is not a measurement of the stage doing
// its work. No dead letter is tolerated: the bench input is the stages' own
// output on the demo feed, all of it valid, so a single dead letter means
// the stage was fed the wrong thing or is broken, and its cost (error path,
// DLQ write) is not the cost of processing. A stage that emitted nothing
// did no work worth timing.
func checkStageRun(r stageRow) error {
	switch {
	case r.DLQ > 0:
		return fmt.Errorf("bench: stage %s dead-lettered %d of %d inputs (first: %s); no figure reported", r.Name, r.DLQ, r.Events, r.FirstDeadCause)
	case r.Out == 0:
		return fmt.Errorf("bench: stage %s emitted nothing from %d inputs; no figure reported", r.Name, r.Events)
	}
	return nil
}

// counterValue reads a stage's series of one of the runner's counters.
func counterValue(vec *prometheus.CounterVec, stage string) int {
	var m dto.Metric
	if err := vec.WithLabelValues(stage).Write(&m); err != nil {
		return 0
	}
	return int(m.GetCounter().GetValue())
}

// firstDeadLetter returns the reason of the first dead letter stage wrote
// to rs.dlq after the offsets in from (partition → offset), in partition
// order. It fetches through the engine's client, which carries the
// cluster's authentication.
func firstDeadLetter(ctx context.Context, e *engine, stage string, from map[int]int64) (string, error) {
	ends, err := e.kafka.EndOffsets(ctx, streams.TopicDLQ)
	if err != nil {
		return "", err
	}
	for p := 0; p < len(ends[streams.TopicDLQ]); p++ {
		for off, end := from[p], ends[streams.TopicDLQ][p]; off < end; {
			res, err := e.kafka.Client().Fetch(ctx, &kafka.FetchRequest{Topic: streams.TopicDLQ, Partition: p, Offset: off,
				MinBytes: 1, MaxBytes: 8 << 20, MaxWait: 250 * time.Millisecond})
			if err != nil {
				return "", err
			}
			if res.Error != nil {
				return "", res.Error
			}
			read := false
			for {
				r, err := res.Records.ReadRecord()
				if err != nil {
					break // end of this fetch
				}
				read = true
				off = r.Offset + 1
				var who, why string
				for _, h := range r.Headers {
					switch h.Key {
					case streams.HeaderDLQStage:
						who = string(h.Value)
					case streams.HeaderDLQError:
						why = string(h.Value)
					}
				}
				if who == stage {
					return why, nil
				}
			}
			if !read {
				break
			}
		}
	}
	return "unknown: no dead letter of this stage found on " + streams.TopicDLQ, nil
}

// benchSink compares the ClickHouse sink (JSON decode + Arrow build + insert
// with dedup token) to a raw Arrow insert of the same rows on chDB.
func benchSink(ctx context.Context, e *engine, cfg *Config, results []streams.Message, w io.Writer) error {
	if len(results) == 0 {
		return errors.New("no eval results to insert")
	}
	ch, err := clickhouse.Open(ctx, clickhouse.Config{DataDir: filepath.Join(cfg.DataDir, "sinkbench"), LibPath: cfg.ClickHouse.ChDBLib})
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := clickhouse.Migrate(ctx, ch, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		return err
	}
	table := schemas.TableNamed("eval_results")
	events := make([]schemas.Event, len(results))
	for i, m := range results {
		ev := table.NewEvent()
		if err := schemas.Decode(m.Value, ev); err != nil {
			return err
		}
		events[i] = ev
	}
	sink, err := clickhouse.NewSink(ch, "eval_results", e.log)
	if err != nil {
		return err
	}
	// Rounds alternate between the two and swap who goes first, so that
	// both see the same machine: the merges one round's inserts start,
	// and whatever else the cores are doing, land on both sides alike.
	// A round takes a fraction of a second, so that a burst of other work
	// on a shared machine can swing one round's ratio by half: twelve of
	// them, and the spread of the rounds' own ratios printed beside the
	// total's, show how much one run's figure can be trusted.
	const rounds = 12
	// Process CPU time (every thread, chDB's included) per side, besides
	// the wall time: on a loaded machine it is the steadier figure.
	var rawTime, sinkTime, rawCPU, sinkCPU time.Duration
	var perRound []float64
	for r := 0; r < rounds; r++ {
		raw0, sink0 := rawTime, sinkTime
		batch := make([]streams.Message, len(results))
		for i, m := range results {
			m.Topic, m.Partition, m.Offset = streams.TopicEvalResults, r, int64(i)
			batch[i] = m
		}
		// Both write in the batches the engine's sinks are given.
		raw := func() error {
			start, cpu := time.Now(), cpuTime()
			defer func() { rawTime += time.Since(start); rawCPU += cpuTime() - cpu }()
			for lo := 0; lo < len(events); lo += sinkBatchSize {
				rec := table.RecordWith(clickhouse.Allocator(), events[lo:min(lo+sinkBatchSize, len(events))])
				err := ch.InsertArrow(ctx, "eval_results", rec, "raw-"+strconv.Itoa(r)+"-"+strconv.Itoa(lo))
				rec.Release()
				if err != nil {
					return err
				}
			}
			return nil
		}
		// The sink goes through streams.WriteBatches, which overlaps
		// preparing batch N+1 (decode, Arrow record) with inserting batch N
		// as the stage runner does; the raw side (above) builds each batch's
		// record from events decoded beforehand and inserts it, one batch
		// after another.
		var batches [][]streams.Message
		for lo := 0; lo < len(batch); lo += sinkBatchSize {
			batches = append(batches, batch[lo:min(lo+sinkBatchSize, len(batch))])
		}
		write := func() error {
			start, cpu := time.Now(), cpuTime()
			defer func() { sinkTime += time.Since(start); sinkCPU += cpuTime() - cpu }()
			return streams.WriteBatches(ctx, sink, batches)
		}
		first, second := raw, write
		if r%2 == 1 {
			first, second = write, raw
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
		perRound = append(perRound, (rawTime-raw0).Seconds()/(sinkTime-sink0).Seconds())
	}
	raw := float64(rounds*len(events)) / rawTime.Seconds()
	got := float64(rounds*len(results)) / sinkTime.Seconds()
	slices.Sort(perRound)
	fmt.Fprintf(w, "\n%-10s %9s %14s %14s %7s  %s\n", "sink", "rows", "sink rows/s", "raw chDB rows/s", "ratio", "rounds' ratios (min, median, max)")
	fmt.Fprintf(w, "%-10s %9d %14.0f %14.0f %6.2f×  %.2f× %.2f× %.2f×\n", "clickhouse", rounds*len(results), got, raw, got/raw,
		perRound[0], (perRound[(rounds-1)/2]+perRound[rounds/2])/2, perRound[rounds-1])
	rows := float64(rounds * len(results))
	fmt.Fprintf(w, "%-10s process CPU per row (all threads, chDB's included): sink %.2f µs, raw %.2f µs\n", "",
		sinkCPU.Seconds()*1e6/rows, rawCPU.Seconds()*1e6/rows)
	return nil
}

// memStore is an in-memory pair.Store for building bench inputs.
type memStore struct{ m map[string][]byte }

func newMemStore() *memStore                                        { return &memStore{m: map[string][]byte{}} }
func (s *memStore) Get(k string) ([]byte, bool)                     { v, ok := s.m[k]; return v, ok }
func (s *memStore) Put(_ context.Context, k string, v []byte) error { s.m[k] = v; return nil }
func (s *memStore) Delete(_ context.Context, k string) error        { delete(s.m, k); return nil }

// peakRSS reads VmHWM from /proc/self/status.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseFloat(f[1], 64)
				return fmt.Sprintf("%.0f MiB", kb/1024)
			}
		}
	}
	return "unknown"
}
