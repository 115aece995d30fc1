package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/streams"
)

// freshnessSpec is the clock-driven stage that asks again the questions of
// the rag-endpoint models listed in stages.infer.freshness.models until
// their service retrieves them, and raises their stale-index alerts
// (processors/reader/freshness.go). It runs in the process of the infer
// stage, whose tracker it is.
func freshnessSpec() periodicSpec {
	return periodicSpec{
		name: reader.FreshnessStage, outputs: []string{streams.TopicEvalRequests, streams.TopicAlerts, streams.ChangelogTopic(reader.FreshnessStage)},
		enabled: func(c *Config) bool { return len(c.Stages.Infer.Config.Freshness.Models) > 0 },
		build: func(e *engine) (streams.Source, error) {
			if e.infer == nil || e.infer.Freshness() == nil {
				return nil, errors.New("stage freshness: runs in the process of the infer stage")
			}
			return e.infer.Freshness(), nil
		},
	}
}

// restoreFreshness loads the questions waiting to be retrieved from the
// freshness changelog, once per process (nothing without Kafka or without
// tracked models).
func (e *engine) restoreFreshness(st *reader.Stage) error {
	f := st.Freshness()
	if f == nil || e.kafka == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	state := streams.NewState(e.kafka, reader.FreshnessStage)
	if err := state.RestoreAll(ctx); err != nil {
		return fmt.Errorf("cannot load the questions waiting for their service to index them: %w", err)
	}
	n := 0
	state.Range(func(k string, v []byte) bool {
		f.Load(k, v)
		n++
		return true
	})
	e.log.Info("questions waiting to be retrieved", "stage", reader.FreshnessStage, "n", n)
	return nil
}
