package main

import (
	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/streams"
)

// selfModels are the models under test as source_self's producer sees
// them (docs/methods.md, SURE's LLM kinds): a remote LLM writes its own
// rewrite; a built-in reader cannot (its sets get a not-made marker); a
// RAG service is asked no spurious variant.
func selfModels(set modelSet) []perturb.SelfModel {
	var out []perturb.SelfModel
	for _, id := range set.ids() {
		m := set.byID[id]
		sm := perturb.SelfModel{ID: id, Retrieves: provider.Retrieves(m)}
		if g, ok := m.(provider.Generator); ok && !sm.Retrieves {
			if _, remote := provider.LimitsOf(m); remote {
				sm.Writer = g
			}
		}
		out = append(out, sm)
	}
	return out
}

// withSelfSource puts source_self's producer kinds in place of the
// registry's stand-ins (skipped as no model under test can rewrite) when a
// model under test can write its own rewrite.
func withSelfSource(kinds []perturb.Kind, set modelSet) []perturb.Kind {
	writes := false
	for _, m := range selfModels(set) {
		writes = writes || m.Writer != nil
	}
	if !writes {
		return kinds
	}
	byName := map[string]perturb.Kind{}
	for _, k := range perturb.SelfSourceKinds() {
		byName[k.Slot()] = k
	}
	out := make([]perturb.Kind, len(kinds))
	for i, k := range kinds {
		if p, ok := byName[k.Slot()]; ok {
			k = p
		}
		out[i] = k
	}
	return out
}

// selfSourceStage is source_self's producer: it reads the original
// variants and writes each model's own rewrite, or a marker, back to
// rs.variants, with the perturb stage's reply cache and skip counts.
func selfSourceStage() stageSpec {
	spec := processorStage(perturb.SelfStageName, streams.TopicVariants, []string{streams.TopicVariants}, func(e *engine) (streams.Processor, error) {
		var counter perturb.SkipCounter
		if e.perturb != nil {
			counter = e.perturb
		}
		var cache perturb.ReplyCache
		if e.models.generator != nil {
			cache = perturbReplyCache(e.cfg.DataDir, e.log)
		}
		st := perturb.NewSelfStage(selfModels(e.models), e.models.generator, cache, counter)
		e.selfSource = st
		return st, nil
	})
	spec.idle = selfSourceIdle
	return spec
}

// selfSourceIdle says why source_self has nothing to make under the
// engine's models: perturb declares its slot only with a generator (the
// entailment judge) and only when a model under test writes its own
// rewrite (withSelfSource); otherwise every original passes it by.
func selfSourceIdle(e *engine) string {
	if e.models.generator == nil {
		return "no generator in models.yaml to judge the rewrites, so perturb declares no source_self slot"
	}
	for _, m := range selfModels(e.models) {
		if m.Writer != nil {
			return ""
		}
	}
	return "no model under test writes its own rewrite (only remote LLMs do), so perturb declares no source_self slot"
}
