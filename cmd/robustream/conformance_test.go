package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/processors/retrieve"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/streams"
)

// procFeatures is what legitimately differs between processor stages; the
// rest of the contract is the same for all of them.
type procFeatures struct {
	// stateful: the stage keeps keyed state (streams.Stage.State). Its
	// replay after a crash runs on the state restored from the changelog,
	// which the runner writes together with the outputs: the replay of a
	// sequence starts from the state before it, i.e. a fresh state replaying
	// the same sequence. A redelivery on the warm state is a duplicate and
	// must yield nothing.
	stateful bool
	// accepts maps the name of a garbage input (see confGarbage) that the
	// stage legitimately accepts (returns no error) to the reason. Any other
	// garbage input must be a permanent error, and an input listed here that
	// the stage rejects fails the suite too, so the list stays exact.
	accepts map[string]string
	// idle, when set, says why the stage produces nothing from the demo
	// feed under the default configuration (it needs a model or service
	// the default has not); the realistic-input check then expects
	// nothing rather than something.
	idle string
}

// confWrongType is the garbage case name of an event of another type.
func confWrongType(event string) string { return "wrong type " + event }

// The envelope (schemas.Meta) carries no event type, and stages tell a
// payload from garbage by the fields they require. An event of another type
// that has those fields is indistinguishable from a sparse event of the
// right type: these are the accepts entries whose reason starts with
// untyped.
const untyped = "untyped envelope: "

// procConformance lists every processor stage of the registry.
var procConformance = map[string]procFeatures{
	chunk.StageName: {accepts: map[string]string{
		"1 MB key field":             "a document with a doc_id and no text is an empty document: no chunks (chunk.Stage.Process)",
		confWrongType("Chunk"):       untyped + "a Chunk has doc_id and text, the fields a document needs; it is chunked as one",
		confWrongType("Triplet"):     untyped + "a Triplet has a doc_id; without text it is an empty document (no chunks)",
		confWrongType("Question"):    untyped + "a Question has a doc_id; without text it is an empty document (no chunks)",
		"invalid UTF-8 in key field": "decodes with U+FFFD for the bad bytes; still a doc_id and no text (no chunks)",
	}},
	triplet.StageName: {accepts: map[string]string{
		confWrongType("Triplet"): untyped + "a Triplet has chunk_id and doc_id, the fields a chunk needs; with no text it yields no triplets",
	}},
	question.StageName:    {stateful: true},
	perturb.StageName:     {},
	perturb.SelfStageName: {idle: "source_self is declared only with a generator and a remote model under test; the default has the built-in readers alone"},
	retrieve.StageName:    {stateful: true},
	fanout.StageName:      {},
	reader.StageName: {accepts: map[string]string{
		confWrongType("EvalResult"): untyped + "an EvalResult has the model_id a request needs; the model answers its empty query",
		confWrongType("Outcome"):    untyped + "an Outcome has the model_id a request needs; the model answers its empty query",
	}},
	pair.StageName: {stateful: true, accepts: map[string]string{
		confWrongType("EvalRequest"): untyped + "an EvalRequest has model_id, question_id, variant_id and expected, all a result needs; it joins its set as an unanswered result",
	}},
}

// confWallClock lists, by topic ("" for every topic), the fields documented
// as wall-clock, the only bytes a replay may change: produced_at is set by
// schemas.Stamp from time.Now; evaluated_at and latency_ms of a result come
// from reader.Config.Now, which the registry leaves at time.Now. (An
// outcome's evaluated_at is the latest of its results' and must replay
// identically.)
var confWallClock = map[string][]string{
	"":                       {"produced_at"},
	streams.TopicEvalResults: {"evaluated_at", "latency_ms"},
}

// confEvents maps streams.Topology's Event names to the schemas types.
var confEvents = map[string]func() schemas.Event{
	"DocumentVersion": func() schemas.Event { return new(schemas.DocumentVersion) },
	"Chunk":           func() schemas.Event { return new(schemas.Chunk) },
	"Triplet":         func() schemas.Event { return new(schemas.Triplet) },
	"Question":        func() schemas.Event { return new(schemas.Question) },
	"Variant":         func() schemas.Event { return new(schemas.Variant) },
	"EvalRequest":     func() schemas.Event { return new(schemas.EvalRequest) },
	"EvalResult":      func() schemas.Event { return new(schemas.EvalResult) },
	"Outcome":         func() schemas.Event { return new(schemas.Outcome) },
	"Alert":           func() schemas.Event { return new(schemas.Alert) },
}

const (
	confSeed    = 11
	confPeriods = 3
	// confTimeout bounds one Process call: a stage that hangs on an input
	// fails the suite instead of the whole test binary.
	confTimeout = 2 * time.Minute
)

// confStage is one processor stage under test.
type confStage struct {
	spec stageSpec
	feat procFeatures
	// proc is the instance that ran the pipeline (its state is warm).
	proc   streams.Processor
	inputs []streams.Message
	// outputs[i] holds the records of inputs[i].
	outputs [][]streams.Record
}

// TestProcessorConformance is the contract every processor stage of the
// registry meets (the counterpart of sources.TestSourceConformance):
//
//   - realistic inputs (the demo feed run through the stages in pipeline
//     order, so each stage gets the real outputs of the one before) are
//     processed without error;
//   - garbage (empty, {}, null, invalid or truncated JSON, bytes that are not
//     UTF-8, JSON that is not an object, another event type, an unknown
//     schema version, a 1 MB key field) is a permanent error unless the
//     stage's features say why it accepts it, and never a panic;
//   - hostile but well-formed input (a 1 MB field, invalid UTF-8 inside a
//     string) may be accepted, but never panics or fails transiently;
//   - a replay yields byte-identical records except for the wall-clock
//     fields of confWallClock;
//   - every record goes to a topic the stage declares, is a valid event of
//     that topic's type in valid UTF-8, and is keyed, non-empty, by the
//     field streams.Topology declares for the topic.
func TestProcessorConformance(t *testing.T) {
	e := confEngine(t)
	var stages []*confStage
	seen := map[string]bool{}
	for _, spec := range registry() {
		if strings.HasPrefix(spec.name, "sink.") {
			continue
		}
		seen[spec.name] = true
		feat, ok := procConformance[spec.name]
		if !ok {
			t.Errorf("processor stage %s has no entry in procConformance: add its features", spec.name)
			continue
		}
		stages = append(stages, &confStage{spec: spec, feat: feat, proc: confBuild(t, e, spec, feat)})
	}
	for name := range procConformance {
		if !seen[name] {
			t.Errorf("procConformance lists %s, which is not a processor stage of the registry", name)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// 1. Realistic inputs: the demo feed through the stages in pipeline
	// (registry) order.
	topics := map[string][]streams.Message{streams.TopicDocuments: confDocuments(t)}
	for _, st := range stages {
		for _, in := range st.spec.inputs {
			st.inputs = append(st.inputs, topics[in]...)
		}
		if len(st.inputs) == 0 {
			t.Fatalf("stage %s: no realistic input on %v: the stages before it produced nothing", st.spec.name, st.spec.inputs)
		}
		produced := 0
		for i, m := range st.inputs {
			r := confProcess(st.proc, m)
			if msg := r.failure(); msg != "" {
				t.Errorf("stage %s, realistic input %d (%s): %s", st.spec.name, i, confShow(m.Value), msg)
			} else if r.err != nil {
				t.Errorf("stage %s, realistic input %d (%s): error %v", st.spec.name, i, confShow(m.Value), r.err)
			}
			st.outputs = append(st.outputs, r.recs)
			for _, rec := range r.recs {
				topics[rec.Topic] = append(topics[rec.Topic], streams.Message{Topic: rec.Topic, Offset: int64(len(topics[rec.Topic])),
					Key: rec.Key, Value: rec.Value, Headers: rec.Headers})
				produced++
			}
		}
		t.Logf("stage %s: %d realistic inputs → %d records", st.spec.name, len(st.inputs), produced)
		if produced > 0 && st.feat.idle != "" {
			t.Errorf("stage %s produced %d records, though its features say it is idle here (%s)", st.spec.name, produced, st.feat.idle)
		}
		if produced == 0 && st.feat.idle == "" {
			t.Errorf("stage %s produced no record from %d realistic inputs: the stages after it would be tested on nothing", st.spec.name, len(st.inputs))
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	samples := map[string]streams.Message{}
	for topic, msgs := range topics {
		samples[topic] = msgs[0]
	}
	samples[streams.TopicAlerts] = confAlert(t)

	for _, st := range stages {
		t.Run(st.spec.name, func(t *testing.T) {
			t.Run("outputs", func(t *testing.T) {
				for i, recs := range st.outputs {
					confCheckRecords(t, st.spec, fmt.Sprintf("realistic input %d", i), recs)
				}
			})
			t.Run("replay", func(t *testing.T) { confReplay(t, e, st) })
			t.Run("garbage", func(t *testing.T) { confGarbageCheck(t, e, st, samples) })
			t.Run("hostile", func(t *testing.T) { confHostileCheck(t, e, st, samples) })
		})
	}
}

// confEngine is the part of an engine the stage builders use: the default
// configuration, a logger, a metrics registry and the models (loadModels as
// startEngine does). No broker: streams.NewState needs none until the
// runner restores it.
func confEngine(t *testing.T) *engine {
	cfg := defaultConfig()
	models, err := loadModels(cfg.Models)
	if err != nil {
		t.Fatal(err)
	}
	return &engine{cfg: &cfg, log: slog.New(slog.NewTextHandler(io.Discard, nil)), reg: prometheus.NewRegistry(), models: models}
}

// confBuild builds a fresh instance of a stage (fresh state for a stateful
// one) and checks that it is what the spec declares.
func confBuild(t *testing.T, e *engine, spec stageSpec, feat procFeatures) streams.Processor {
	t.Helper()
	st, err := spec.build(e)
	if err != nil {
		t.Fatalf("stage %s: %v", spec.name, err)
	}
	switch {
	case st.Processor == nil:
		t.Fatalf("stage %s: no processor", spec.name)
	case st.Name != spec.name || st.Processor.Name() != spec.name:
		t.Fatalf("stage %s: built as %q, processor named %q", spec.name, st.Name, st.Processor.Name())
	case !slices.Equal(st.Inputs, spec.inputs) || !slices.Equal(st.Outputs, spec.outputs):
		t.Fatalf("stage %s: built with inputs %v outputs %v, registry declares %v %v", spec.name, st.Inputs, st.Outputs, spec.inputs, spec.outputs)
	case (st.State != nil) != feat.stateful:
		t.Fatalf("stage %s: has state %v, features say stateful %v", spec.name, st.State != nil, feat.stateful)
	}
	return st.Processor
}

// confDocuments is the demo feed of confPeriods periods as the demo source
// emits it (fetched_at and produced_at stamped now); the version stands in
// for the one sources.Versioned assigns.
func confDocuments(t *testing.T) []streams.Message {
	var out []streams.Message
	for p := 0; p < confPeriods; p++ {
		for _, d := range demo.Generate(confSeed, p) {
			d.Version = uint32(p + 1)
			d.FetchedAt = time.Now().UTC()
			schemas.Stamp(&d, d.ID)
			b, err := schemas.Encode(&d)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, streams.Message{Topic: streams.TopicDocuments, Offset: int64(len(out)), Key: []byte(d.DocID), Value: b})
		}
	}
	if len(out) == 0 {
		t.Fatal("the demo feed generated no documents")
	}
	return out
}

// confAlert is an alert, the one event type no stage of this build writes.
func confAlert(t *testing.T) streams.Message {
	a := &schemas.Alert{AlertID: schemas.ID("conformance", "alert"), Rule: "rare_f_drop", Series: "builtin:lexical|rare|f",
		State: "firing", Baseline: 0.8, Recent: 0.5, PValue: 0.001, FiredAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	schemas.Stamp(a, a.AlertID)
	b, err := schemas.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	return streams.Message{Topic: streams.TopicAlerts, Key: []byte(a.Key()), Value: b}
}

// confResult is the outcome of one Process call.
type confResult struct {
	recs     []streams.Record
	err      error
	panicked any
	stack    []byte
	timedOut bool
}

// failure describes a panic or a hang, or is "".
func (r confResult) failure() string {
	switch {
	case r.panicked != nil:
		return fmt.Sprintf("panic: %v\n%s", r.panicked, r.stack)
	case r.timedOut:
		return fmt.Sprintf("Process did not return within %v", confTimeout)
	}
	return ""
}

// confProcess calls p.Process as the runner does (partition in the
// context), recovering a panic: the runner would dead-letter it, but a stage
// must reject bad input with an error.
func confProcess(p streams.Processor, m streams.Message) confResult {
	done := make(chan confResult, 1)
	go func() {
		var r confResult
		defer func() {
			if v := recover(); v != nil {
				r = confResult{panicked: v, stack: debug.Stack()}
			}
			done <- r
		}()
		r.recs, r.err = p.Process(streams.WithPartition(context.Background(), 0), m)
	}()
	t := time.NewTimer(confTimeout)
	defer t.Stop()
	select {
	case r := <-done:
		return r
	case <-t.C:
		return confResult{timedOut: true}
	}
}

// confShow quotes a value for a failure message, shortened.
func confShow(v []byte) string {
	const n = 160
	if len(v) <= n {
		return strconv.Quote(string(v))
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(string(v[:n])), len(v))
}

// confTopic returns the topology entry of topic.
func confTopic(topic string) (streams.TopicSpec, bool) {
	i := slices.IndexFunc(streams.Topology, func(s streams.TopicSpec) bool { return s.Name == topic })
	if i < 0 {
		return streams.TopicSpec{}, false
	}
	return streams.Topology[i], true
}

// confCheckRecords checks records of one input: declared topic, valid
// UTF-8, a valid event of the topic's type, keyed by the topology's key
// field, non-empty.
func confCheckRecords(t *testing.T, spec stageSpec, where string, recs []streams.Record) {
	t.Helper()
	for j, r := range recs {
		at := fmt.Sprintf("stage %s, %s, record %d", spec.name, where, j)
		if !slices.Contains(spec.outputs, r.Topic) {
			t.Errorf("%s: topic %q is not among the declared outputs %v", at, r.Topic, spec.outputs)
			continue
		}
		ts, ok := confTopic(r.Topic)
		if !ok {
			t.Errorf("%s: topic %q is not in streams.Topology", at, r.Topic)
			continue
		}
		newEvent, ok := confEvents[ts.Event]
		if !ok {
			t.Errorf("%s: topology event %q of %s has no schemas type in confEvents", at, ts.Event, r.Topic)
			continue
		}
		if !utf8.Valid(r.Key) || !utf8.Valid(r.Value) {
			t.Errorf("%s: key or value is not valid UTF-8: key %s value %s", at, confShow(r.Key), confShow(r.Value))
		}
		ev := newEvent()
		if err := schemas.Decode(r.Value, ev); err != nil {
			t.Errorf("%s: not a valid %s: %v: %s", at, ts.Event, err, confShow(r.Value))
			continue
		}
		field, ok := confJSONField(reflect.ValueOf(ev).Elem(), ts.Key)
		if !ok || field.Kind() != reflect.String {
			t.Errorf("%s: %s has no string field %q, the key streams.Topology declares for %s", at, ts.Event, ts.Key, r.Topic)
			continue
		}
		switch want := field.String(); {
		case len(r.Key) == 0:
			t.Errorf("%s: empty key on %s", at, r.Topic)
		case string(r.Key) != want:
			t.Errorf("%s: key %s on %s, but its %s is %s", at, confShow(r.Key), r.Topic, ts.Key, confShow([]byte(want)))
		case ev.Key() != want:
			t.Errorf("%s: %s.Key() is %q, its %s %q", at, ts.Event, ev.Key(), ts.Key, want)
		}
	}
}

// confJSONField finds the field of struct v whose JSON name is name, in
// embedded structs too (Meta, QuestionRef).
func confJSONField(v reflect.Value, name string) (reflect.Value, bool) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if tag := strings.Split(f.Tag.Get("json"), ",")[0]; tag == name {
			return v.Field(i), true
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if fv, ok := confJSONField(v.Field(i), name); ok {
				return fv, true
			}
		}
	}
	return reflect.Value{}, false
}

// confNormalizers replace the value of each wall-clock field.
var confNormalizers = func() map[string]*regexp.Regexp {
	out := map[string]*regexp.Regexp{}
	for _, fields := range confWallClock {
		for _, f := range fields {
			// A quote inside a JSON string is escaped, so `"name":` only
			// matches a key.
			out[f] = regexp.MustCompile(`"` + regexp.QuoteMeta(f) + `":("[^"]*"|[-+.0-9eE]+)`)
		}
	}
	return out
}()

// confNormalize replaces the wall-clock fields of a record of topic.
func confNormalize(topic string, v []byte) []byte {
	for _, f := range append(append([]string(nil), confWallClock[""]...), confWallClock[topic]...) {
		v = confNormalizers[f].ReplaceAll(v, []byte(`"`+f+`":"<wall-clock>"`))
	}
	return v
}

// confDiff says how two record lists of one input differ after
// normalization, or "".
func confDiff(a, b []streams.Record) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d records, then %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		switch {
		case x.Topic != y.Topic:
			return fmt.Sprintf("record %d: topic %q, then %q", i, x.Topic, y.Topic)
		case !bytes.Equal(x.Key, y.Key):
			return fmt.Sprintf("record %d: key %s, then %s", i, confShow(x.Key), confShow(y.Key))
		case !reflect.DeepEqual(x.Headers, y.Headers):
			return fmt.Sprintf("record %d: headers %v, then %v", i, x.Headers, y.Headers)
		}
		nx, ny := confNormalize(x.Topic, x.Value), confNormalize(y.Topic, y.Value)
		if !bytes.Equal(nx, ny) {
			k := 0
			for k < len(nx) && k < len(ny) && nx[k] == ny[k] {
				k++
			}
			from := max(0, k-60)
			return fmt.Sprintf("record %d: values differ at byte %d (wall-clock fields normalized): …%s vs …%s",
				i, k, confShow(nx[from:min(len(nx), k+60)]), confShow(ny[from:min(len(ny), k+60)]))
		}
	}
	return ""
}

// confReplay processes the stage's realistic inputs again: on a fresh
// instance (fresh state) in the same order, and redelivered one by one to
// the warm instance that ran the pipeline.
func confReplay(t *testing.T, e *engine, st *confStage) {
	fresh := confBuild(t, e, st.spec, st.feat)
	for i, m := range st.inputs {
		r := confProcess(fresh, m)
		if msg := r.failure(); msg != "" || r.err != nil {
			t.Fatalf("stage %s, fresh replay of input %d (%s): %s%v", st.spec.name, i, confShow(m.Value), msg, r.err)
		}
		if d := confDiff(st.outputs[i], r.recs); d != "" {
			t.Errorf("stage %s, fresh replay of input %d (%s): %s", st.spec.name, i, confShow(m.Value), d)
		}
	}
	for i, m := range st.inputs {
		r := confProcess(st.proc, m)
		if msg := r.failure(); msg != "" || r.err != nil {
			t.Fatalf("stage %s, redelivery of input %d (%s): %s%v", st.spec.name, i, confShow(m.Value), msg, r.err)
		}
		if st.feat.stateful {
			if len(r.recs) != 0 {
				t.Errorf("stage %s (stateful), redelivery of input %d on warm state: %d records, want none (a duplicate)", st.spec.name, i, len(r.recs))
			}
			continue
		}
		if d := confDiff(st.outputs[i], r.recs); d != "" {
			t.Errorf("stage %s, redelivery of input %d (%s): %s", st.spec.name, i, confShow(m.Value), d)
		}
	}
}

// confCase is a crafted input.
type confCase struct {
	name  string
	value []byte
}

// confSetField returns the JSON object v with field set to the JSON value
// raw (fields keep their order; a new field goes first).
func confSetField(t *testing.T, v []byte, field string, raw []byte) []byte {
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(field) + `":("(?:[^"\\]|\\.)*"|[-+.0-9eE]+|true|false|null)`)
	if loc := re.FindIndex(v); loc != nil {
		return slices.Concat(v[:loc[0]], []byte(`"`+field+`":`), raw, v[loc[1]:])
	}
	if len(v) < 2 || v[0] != '{' {
		t.Fatalf("not a JSON object: %s", confShow(v))
	}
	return slices.Concat([]byte(`{"`+field+`":`), raw, []byte(","), v[1:])
}

// confLongestString names the top-level string field of the JSON object v
// with the longest value, other than the envelope's id and the field skip
// (first in name order among equals, so that case names are stable).
func confLongestString(t *testing.T, v []byte, skip string) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(v, &fields); err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(fields))
	best, bestLen := "", -1
	for _, name := range names {
		var s string
		if json.Unmarshal(fields[name], &s) == nil && len(s) > bestLen && name != "id" && name != skip {
			best, bestLen = name, len(s)
		}
	}
	if best == "" {
		t.Fatalf("no string field in %s", confShow(v))
	}
	return best
}

// confGarbage lists the garbage inputs for a stage reading topic, from a
// realistic sample of every topic.
func confGarbage(t *testing.T, topic string, samples map[string]streams.Message) []confCase {
	ts, _ := confTopic(topic)
	sample := samples[topic].Value
	big := bytes.Repeat([]byte("x"), 1<<20)
	cases := []confCase{
		{"nil value (tombstone)", nil},
		{"empty value", []byte{}},
		{"{}", []byte(`{}`)},
		{"null", []byte(`null`)},
		{"JSON array", []byte(`[{"schema_version":1}]`)},
		{"JSON string", []byte(`"rs"`)},
		{"JSON number", []byte(`1`)},
		{"invalid JSON", []byte(`{"schema_version":1,`)},
		{"truncated event", sample[:len(sample)/2]},
		{"trailing garbage", slices.Concat(sample, []byte(`}x`))},
		{"not UTF-8", []byte("\xff\xfe\xfd\x00\x01")},
		{"unknown schema_version", confSetField(t, sample, "schema_version", []byte(strconv.Itoa(schemas.Version+1)))},
		{"schema_version 0", confSetField(t, sample, "schema_version", []byte(`0`))},
		{"schema_version as a string", confSetField(t, sample, "schema_version", []byte(`"1"`))},
		{"1 MB key field", []byte(`{"schema_version":1,"` + ts.Key + `":"` + string(big) + `"}`)},
		{"invalid UTF-8 in key field", []byte(`{"schema_version":1,"` + ts.Key + "\":\"\xff\xfe\"}")},
	}
	for _, other := range streams.Topology {
		if other.Name == topic || confEvents[other.Event] == nil {
			continue
		}
		s, ok := samples[other.Name]
		if !ok {
			t.Fatalf("no sample of %s to feed as a wrong event type", other.Name)
		}
		cases = append(cases, confCase{confWrongType(other.Event), s.Value})
	}
	return cases
}

// confGarbageCheck: garbage is a permanent error, or accepted as the
// features say; never a panic.
func confGarbageCheck(t *testing.T, e *engine, st *confStage, samples map[string]streams.Message) {
	proc := confBuild(t, e, st.spec, st.feat)
	names := map[string]bool{}
	for _, in := range st.spec.inputs {
		for _, c := range confGarbage(t, in, samples) {
			names[c.name] = true
			m := streams.Message{Topic: in, Key: samples[in].Key, Value: c.value}
			r := confProcess(proc, m)
			at := fmt.Sprintf("stage %s, garbage %q on %s (%s)", st.spec.name, c.name, in, confShow(c.value))
			reason, accepted := st.feat.accepts[c.name]
			switch {
			case r.failure() != "":
				t.Errorf("%s: %s", at, r.failure())
			case r.err == nil && !accepted:
				t.Errorf("%s: accepted (%d records, no error); want a permanent error, or an accepts entry with the reason", at, len(r.recs))
			case r.err == nil:
				t.Logf("%s: accepted, %d records: %s", at, len(r.recs), reason)
				confCheckRecords(t, st.spec, "garbage "+c.name, r.recs)
			case !streams.IsPermanent(r.err):
				t.Errorf("%s: error %v is not permanent: it would be retried", at, r.err)
			case accepted:
				t.Errorf("%s: permanent error %v, but features say it is accepted (%s): remove the stale entry", at, r.err, reason)
			}
		}
	}
	for name := range st.feat.accepts {
		if !names[name] {
			t.Errorf("stage %s: features accept %q, which is no garbage case", st.spec.name, name)
		}
	}
}

// confHostile lists well-formed events with hostile content, from the
// realistic sample of topic: a stage may accept them.
func confHostile(t *testing.T, topic string, samples map[string]streams.Message) []confCase {
	ts, _ := confTopic(topic)
	sample := samples[topic].Value
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(sample, &fields); err != nil {
		t.Fatal(err)
	}
	str := func(field string) string {
		var s string
		if err := json.Unmarshal(fields[field], &s); err != nil {
			t.Fatalf("field %s of %s: %v", field, topic, err)
		}
		return s
	}
	longest := confLongestString(t, sample, ts.Key)
	// Numbered copies of the field's text, so that no stage can shorten
	// the work by dropping repeats.
	var b strings.Builder
	for n := 1; b.Len() < 1<<20; n++ {
		fmt.Fprintf(&b, "Part %d. %s\n\n", n, str(longest))
	}
	mb, _ := json.Marshal(b.String())
	// Raw invalid bytes inside the JSON string (json.Marshal would have
	// replaced them with U+FFFD).
	badUTF8 := func(field string) []byte {
		q, _ := json.Marshal(str(field))
		return confSetField(t, sample, field, slices.Concat([]byte("\"\xff\xfe"), q[1:]))
	}
	return []confCase{
		{"1 MB " + longest, confSetField(t, sample, longest, mb)},
		{"invalid UTF-8 in " + ts.Key, badUTF8(ts.Key)},
		{"invalid UTF-8 in " + longest, badUTF8(longest)},
	}
}

// confHostileCheck: hostile but well-formed input never panics nor fails
// transiently; what it yields meets the record contract and replays
// identically (on a fresh instance each time).
func confHostileCheck(t *testing.T, e *engine, st *confStage, samples map[string]streams.Message) {
	for _, in := range st.spec.inputs {
		for _, c := range confHostile(t, in, samples) {
			m := streams.Message{Topic: in, Key: samples[in].Key, Value: c.value}
			at := fmt.Sprintf("stage %s, %s on %s (%s)", st.spec.name, c.name, in, confShow(c.value))
			r := confProcess(confBuild(t, e, st.spec, st.feat), m)
			if msg := r.failure(); msg != "" {
				t.Errorf("%s: %s", at, msg)
				continue
			}
			if r.err != nil {
				if !streams.IsPermanent(r.err) {
					t.Errorf("%s: error %v is not permanent: it would be retried", at, r.err)
				} else {
					t.Logf("%s: rejected: %v", at, r.err)
				}
				continue
			}
			t.Logf("%s: accepted, %d records", at, len(r.recs))
			confCheckRecords(t, st.spec, c.name, r.recs)
			again := confProcess(confBuild(t, e, st.spec, st.feat), m)
			if msg := again.failure(); msg != "" || again.err != nil {
				t.Errorf("%s: replay: %s%v", at, msg, again.err)
			} else if d := confDiff(r.recs, again.recs); d != "" {
				t.Errorf("%s: replay: %s", at, d)
			}
		}
	}
}
