package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/pair"
	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

// stageSpec is one entry of the stage registry: the topics it reads and
// writes, and how to build it. The registry is explicit (no init side
// effects): this table, with streams.Topology, is the pipeline.
type stageSpec struct {
	name    string
	inputs  []string
	outputs []string
	build   func(e *engine) (streams.Stage, error)
	// enabled, when set, says whether the stage runs under a config (a
	// stage that needs configuring, such as the alert receivers).
	enabled func(c *Config) bool
	// idle, when set, says why the stage, though running, has no work
	// under the engine's models ("" when it has some): source_self
	// without a generator or a model under test that writes. The bench
	// lists such a stage as idle instead of timing a run that makes
	// nothing.
	idle func(e *engine) string
}

func processorStage(name, input string, outs []string, build func(e *engine) (streams.Processor, error)) stageSpec {
	return stageSpec{name: name, inputs: []string{input}, outputs: outs, build: func(e *engine) (streams.Stage, error) {
		p, err := build(e)
		if err != nil {
			return streams.Stage{}, fmt.Errorf("stage %s: %w", name, err)
		}
		return streams.Stage{Name: name, Inputs: []string{input}, Outputs: outs, Processor: p}, nil
	}}
}

// questionStage is the knowledge graph: a singleton reading the triplets
// (its edges, and the End records closing each chunk), its state in a
// changelog.
func questionStage() stageSpec {
	inputs := []string{streams.TopicTriplets}
	return stageSpec{name: question.StageName, inputs: inputs, outputs: []string{streams.TopicQuestions}, build: func(e *engine) (streams.Stage, error) {
		state := streams.NewState(e.kafka, question.StageName)
		qc := e.cfg.Stages.Questions.Config
		qc.Logger = e.log
		st, err := question.NewStage(qc, state)
		if err != nil {
			return streams.Stage{}, fmt.Errorf("stage %s: %w", question.StageName, err)
		}
		if e.models.generator != nil {
			st.SetGenerator(e.models.generator)
		}
		if e.models.embedder != nil {
			st.SetEmbedder(e.models.embedder)
		}
		if why := st.Degraded(); why != "" {
			e.log.Warn("question writing degraded", "reason", why)
		}
		e.exposeRejected(st)
		e.questions = st
		return streams.Stage{Name: question.StageName, Inputs: inputs, Outputs: []string{streams.TopicQuestions},
			Processor: st, State: state, Singleton: true}, nil
	}}
}

// perturbKinds is the perturbation-kind registry, in emission order:
// adding a kind is a perturb.Kind value and one line here. SURE's
// spurious kinds (perturb.SpuriousKinds: ten kinds on golden and noise
// contexts, and the two clean cells) come next, then SURE's LLM kinds
// (perturb.SpuriousLLMKinds: style, source and LLM rerank, needing the
// generator), then PRGB's placeholder variants (each with its noise
// documents).
var perturbKinds = slices.Concat([]perturb.Kind{
	perturb.Char,
	perturb.QWERTY,
	perturb.Synonym,
	perturb.LLMGrammar,
	perturb.LLMIrrelevant,
	perturb.AnswerRemoved,
	perturb.BackTranslation,
}, perturb.SpuriousKinds(), perturb.SpuriousLLMKinds(), perturb.PlaceholderKinds(perturb.DefaultPlaceholders))

// metricFamilies is the metric-family registry of pairing: adding a family
// is a pair.Family value and one line here.
var metricFamilies = []pair.Family{
	pair.RARE,
	pair.SURE,
	pair.PRGB,
	pair.GRADE,
}

// checkKindFamilies checks that each perturbation kind and the metric
// families agree on who scores it: the families a kind declares
// (perturb.Kind.Families) must be exactly the registered families whose
// axes hold the kind's axis (pair.Family.Axes). Pairing goes by the
// family's axes; the kind's list says what its author meant. When they
// differ, a kind would feed a family it was not made for (a spurious
// feature moving RARE's scores) or a family would wait for nothing: a
// start-up error, naming the kind.
func checkKindFamilies(kinds []perturb.Kind, families []pair.Family) error {
	var errs []error
	for _, k := range kinds {
		var scoring []string
		for _, f := range families {
			if f.Scores(k.Axis) {
				scoring = append(scoring, f.Name)
			}
		}
		declared := slices.Clone(k.Families)
		slices.Sort(declared)
		slices.Sort(scoring)
		if !slices.Equal(declared, scoring) {
			errs = append(errs, fmt.Errorf("perturbation kind %s declares families %v, but the families scoring axis %s are %v",
				k.Slot(), k.Families, k.Axis, scoring))
		}
	}
	return errors.Join(errs...)
}

// externalOutputs are the topics written from outside the stage registry:
// documents by the sources (run --source, eval --source, or another process
// in cluster mode), and alerts, which no stage of this build writes yet (the
// drift stage will); its sink stores what an external job produces.
// sinkBatchSize is the most messages a ClickHouse sink writes at once
// (with a 50 ms linger); `bench` writes in batches of this size too.
const sinkBatchSize = 5000

var externalOutputs = []string{streams.TopicDocuments, streams.TopicAlerts}

// variantProducers is the registry of the stages that fill the slots of
// perturbation kinds made outside perturb (perturb.Kind.Producer): each
// reads the original variants from rs.variants and writes the slot's
// variant, or a not-made marker, back to it. Perturb declares their slots
// in every question's manifest, so pairing waits for them: the retrieve
// stage makes the retrieval axis (retrieve.go), source_self's producer
// each model's own rewrite (selfsource.go).
var variantProducers = []stageSpec{retrieveStage(), selfSourceStage()}

// checkTopology verifies that every input of every stage has a producer: a
// stage of the registry or a source, and that every perturbation kind made
// outside perturb names a registered stage that writes variants. A stage
// added with an input nobody writes would wait for ever with zero lag, and
// a slot nobody fills would keep its pairing sets open: this says so at
// start-up.
func checkTopology(specs []stageSpec, kinds []perturb.Kind) error {
	produced := map[string]bool{}
	for _, t := range externalOutputs {
		produced[t] = true
	}
	for _, sp := range specs {
		for _, t := range sp.outputs {
			produced[t] = true
		}
	}
	var errs []error
	for _, sp := range specs {
		for _, t := range sp.inputs {
			if !produced[t] {
				errs = append(errs, fmt.Errorf("stage %s reads %s, which no stage or source writes", sp.name, t))
			}
		}
	}
	for _, k := range kinds {
		if k.Producer == "" {
			continue
		}
		i := slices.IndexFunc(specs, func(sp stageSpec) bool { return sp.name == k.Producer })
		if i < 0 || !slices.Contains(specs[i].outputs, streams.TopicVariants) {
			errs = append(errs, fmt.Errorf("perturbation kind %s is made by stage %s, which is not a registered stage writing %s",
				k.Slot(), k.Producer, streams.TopicVariants))
		}
	}
	errs = append(errs, checkKindFamilies(kinds, metricFamilies))
	return errors.Join(errs...)
}

func sinkStage(topic, table string) stageSpec {
	name := "sink." + table
	return stageSpec{name: name, inputs: []string{topic}, build: func(e *engine) (streams.Stage, error) {
		s, err := clickhouse.NewSink(e.ch, table, e.log)
		if err != nil {
			return streams.Stage{}, fmt.Errorf("stage %s: %w", name, err)
		}
		return streams.Stage{Name: name, Inputs: []string{topic}, Sink: s, BatchSize: sinkBatchSize, Linger: 50e6}, nil
	}}
}

// registry lists every stage in pipeline order.
func registry() []stageSpec {
	specs := []stageSpec{
		processorStage(chunk.StageName, streams.TopicDocuments, []string{streams.TopicChunks}, func(e *engine) (streams.Processor, error) {
			return chunk.NewStage(e.cfg.Stages.Chunk.Config)
		}),
		processorStage(triplet.StageName, streams.TopicChunks, []string{streams.TopicTriplets}, func(e *engine) (streams.Processor, error) {
			tc := e.cfg.Stages.Triplets.Config
			tc.Logger = e.log
			st, err := triplet.NewStage(tc)
			if err != nil {
				return nil, err
			}
			if e.models.generator != nil {
				st.SetGenerator(e.models.generator)
			}
			if why := st.Degraded(); why != "" {
				e.log.Warn("triplet extraction degraded", "reason", why)
			}
			return st, nil
		}),
		questionStage(),
		processorStage(perturb.StageName, streams.TopicQuestions, []string{streams.TopicVariants}, func(e *engine) (streams.Processor, error) {
			pc := e.cfg.Stages.Perturb.Config
			pc.Logger = e.log
			pc.Kinds = e.kinds()
			st, err := perturb.NewStage(pc)
			if err != nil {
				return nil, err
			}
			if e.models.generator != nil {
				// The LLM kinds run with the generator that triplets and
				// questions get; without one they are skipped, counted and
				// shown in /api/coverage as needing it.
				st.SetGenerator(e.models.generator, perturbReplyCache(e.cfg.DataDir, e.log))
			}
			if e.models.embedder != nil {
				// wordnet variants must stay within the similarity
				// floor of their question (stages.perturb.
				// wordnet_similarity_floor; docs/methods.md, Query
				// perturbations); without an embedder the rules alone.
				st.SetEmbedder(e.models.embedder, pc.SynonymFloor())
			}
			e.exposeSkipped(st)
			return st, nil
		}),
	}
	specs = append(specs, variantProducers...)
	specs = append(specs, []stageSpec{
		processorStage(fanout.StageName, streams.TopicVariants, []string{streams.TopicEvalRequests}, func(e *engine) (streams.Processor, error) {
			st, err := fanout.NewStage(fanoutConfigOf(e.cfg.Stages.Fanout.Config, e.models))
			e.fanout = st
			e.exposeCalls()
			return st, err
		}),
		inferStage(),
		{name: pair.StageName, inputs: []string{streams.TopicEvalResults}, outputs: []string{streams.TopicOutcomes}, build: func(e *engine) (streams.Stage, error) {
			st := streams.NewState(e.kafka, pair.StageName)
			e.pairState = st
			ps := pair.NewStage(st, metricFamilies...)
			e.exposeUnscorable(ps)
			return streams.Stage{Name: pair.StageName, Inputs: []string{streams.TopicEvalResults}, Outputs: []string{streams.TopicOutcomes},
				Processor: ps, State: st}, nil
		}},
	}...)
	for _, t := range clickhouse.Topics() {
		specs = append(specs, sinkStage(t, clickhouse.TableForTopic(t)))
	}
	// Retirement records of rs.questions have a table of their own.
	specs = append(specs, sinkStage(streams.TopicQuestions, schemas.QuestionRetirementsTable.Name))
	// So have the summaries of rs.alerts.
	specs = append(specs, sinkStage(streams.TopicAlerts, schemas.AlertSummariesTable.Name))
	specs = append(specs, receiversStage())
	return specs
}

func stageNames() []string {
	var out []string
	for _, s := range registry() {
		out = append(out, s.name)
	}
	for _, s := range periodicStages() {
		out = append(out, s.name)
	}
	return out
}

func knownStage(name string) bool {
	for _, s := range registry() {
		if s.name == name || (name == "sinks" && strings.HasPrefix(s.name, "sink.")) {
			return true
		}
	}
	return name == "sinks" || name == "source"
}

// selectStages returns the specs named (all when names is empty); "sinks"
// selects every ClickHouse sink.
func selectStages(names []string) []stageSpec {
	all := registry()
	if len(names) == 0 {
		return all
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []stageSpec
	for _, s := range all {
		if want[s.name] || (want["sinks"] && strings.HasPrefix(s.name, "sink.")) {
			out = append(out, s)
		}
	}
	return out
}
