package main

import (
	"fmt"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/processors/retrieve"
	"github.com/robustream/robustream/streams"
)

// RetrieveStageConfig is stages.retrieve.
type RetrieveStageConfig struct {
	streams.StageOptions `yaml:",inline"`
	retrieve.Config      `yaml:",inline"`
}

// embedderID is the id of models.yaml's embedder ("" when none), which
// names its retriever (emb_<id>).
func (m modelSet) embedderID() string {
	if m.embedder == nil {
		return ""
	}
	if e, ok := m.embedder.(interface{ ID() string }); ok && e.ID() != "" {
		return e.ID()
	}
	return "embedder"
}

// retrievalKinds are the retrieval axis's kinds under a configuration: the
// BM25 retriever's, and the embedder's when models.yaml has one, with
// their configured top-k ("bm25_top3", "emb_e5_top3"). Perturb declares
// them; the retrieve stage makes them.
func retrievalKinds(cfg *Config, m modelSet) []perturb.Kind {
	rc := cfg.Stages.Retrieve.Config
	kinds := []perturb.Kind{perturb.RetrievalKind(retrieve.StageName, retrieve.KindName(retrieve.BM25Name, rc.K(retrieve.BM25Name)))}
	if id := m.embedderID(); id != "" {
		name := retrieve.DenseName(id)
		kinds = append(kinds, perturb.RetrievalKind(retrieve.StageName, retrieve.KindName(name, rc.K(name))))
	}
	return kinds
}

// kinds is every perturbation kind of the engine: the registry and the
// retrieval kinds of its configuration.
func (e *engine) kinds() []perturb.Kind {
	out := append([]perturb.Kind(nil), perturbKinds...)
	if e == nil || e.cfg == nil {
		return out
	}
	out = withSelfSource(out, e.models)
	return append(out, retrievalKinds(e.cfg, e.models)...)
}

// retrieveStage is the retrieval axis's producer: a singleton over chunks
// and variants (it must see every document's chunks, whatever key a
// question has), with the corpus in a changelog and the embedding
// retrievers' vectors in ClickHouse.
func retrieveStage() stageSpec {
	outs := []string{streams.TopicVariants}
	return stageSpec{name: retrieve.StageName, inputs: retrieve.Inputs, outputs: outs, build: func(e *engine) (streams.Stage, error) {
		state := streams.NewState(e.kafka, retrieve.StageName)
		rc := e.cfg.Stages.Retrieve.Config
		rc.Logger = e.log
		var dense []*retrieve.Dense
		id := e.models.embedderID()
		names := []string{retrieve.BM25Name}
		if id != "" {
			names = append(names, retrieve.DenseName(id))
		}
		if err := rc.Check(names); err != nil {
			return streams.Stage{}, fmt.Errorf("stage %s: %w", retrieve.StageName, err)
		}
		if id != "" && e.ch != nil {
			dense = append(dense, retrieve.NewDense(id, e.models.embedder, e.ch, e.log))
		}
		st := retrieve.NewStage(rc, state, dense...)
		if id != "" && e.ch == nil {
			const why = "the embedding retriever needs ClickHouse, which this process does not open"
			e.log.Warn(why, "embedder", id)
			name := retrieve.DenseName(id)
			st.Unavailable(retrieve.KindName(name, rc.K(name)), why)
		}
		if e.runner != nil { // nil in --dry-run
			st.SetUpstream(&retrieve.Upstream{Kafka: e.kafka, ChunkGroup: e.runner.Group(chunk.StageName), OwnGroup: e.runner.Group(retrieve.StageName), Logger: e.log})
		}
		return streams.Stage{Name: retrieve.StageName, Inputs: retrieve.Inputs, Outputs: outs, Processor: st, State: state, Singleton: true}, nil
	}}
}
