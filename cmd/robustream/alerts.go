package main

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/robustream/robustream/processors/drift"
	"github.com/robustream/robustream/sinks/alert"
	"github.com/robustream/robustream/streams"
)

// AlertsConfig is the alerts section: the drift evaluator's windows and
// thresholds (drift.Config) and the receivers notified of its alerts.
type AlertsConfig struct {
	Enabled      bool `yaml:"enabled" help:"run the drift evaluator (on as well when receivers are listed)"`
	drift.Config `yaml:",inline"`
	// Receivers are YAML only: a list of {name, kind, url, headers}.
	Receivers    []alert.Receiver `yaml:"receivers"`
	DashboardURL string           `yaml:"dashboard_url" help:"dashboard link in every notification (default: http://<http>/)"`
}

func defaultAlerts() AlertsConfig { return AlertsConfig{Config: drift.Defaults()} }

// on reports whether alerts are configured.
func (c AlertsConfig) on() bool { return c.Enabled || len(c.Receivers) > 0 }

func (c AlertsConfig) validate() []error {
	errs := c.Config.Validate("alerts")
	return append(errs, alert.ValidateReceivers("alerts.receivers", c.Receivers, nil)...)
}

func (c *Config) dashboardURL() string {
	if c.Alerts.DashboardURL != "" || c.HTTP == "" {
		return c.Alerts.DashboardURL
	}
	return "http://" + c.HTTP + "/"
}

// clock is the engine's clock for what it stamps and compares in time: the
// evaluated_at of every answer and the drift evaluator's windows. Tests
// replace it to evaluate hours of traffic in seconds.
var clock = time.Now

// receiversStage is the receivers' sink: it reads rs.alerts, whoever wrote
// them, and notifies every receiver; it runs when receivers are listed.
func receiversStage() stageSpec {
	inputs := []string{streams.TopicAlerts}
	return stageSpec{name: alert.StageName, inputs: inputs,
		enabled: func(c *Config) bool { return len(c.Alerts.Receivers) > 0 },
		build: func(e *engine) (streams.Stage, error) {
			s, err := alert.New(alert.Config{Receivers: e.cfg.Alerts.Receivers, DashboardURL: e.cfg.dashboardURL(), Logger: e.log})
			if err != nil {
				return streams.Stage{}, fmt.Errorf("stage %s: %w", alert.StageName, err)
			}
			// Small batches: an alert should not wait for others.
			return streams.Stage{Name: alert.StageName, Inputs: inputs, Sink: s, BatchSize: 50}, nil
		}}
}

// periodicSpec is a stage driven by a clock rather than by input topics: a
// streams.Source run beside the consuming stages.
type periodicSpec struct {
	name    string
	outputs []string
	enabled func(c *Config) bool
	build   func(e *engine) (streams.Source, error)
}

// periodicStages is the registry of clock-driven stages.
func periodicStages() []periodicSpec {
	return []periodicSpec{{
		name: drift.StageName, outputs: []string{streams.TopicAlerts},
		enabled: func(c *Config) bool { return c.Alerts.on() },
		build: func(e *engine) (streams.Source, error) {
			if e.ch == nil {
				return nil, errors.New("stage alerts: needs ClickHouse")
			}
			dc := e.cfg.Alerts.Config
			dc.Logger, dc.Now = e.log, clock
			return drift.New(dc, e.ch)
		},
	}, freshnessSpec()}
}

// periodic builds the clock-driven stages a process runs: those named, or
// when none is named, every one that is configured. The drift evaluator
// must run in one process only (processors/drift's package doc): in cluster
// mode, name it in one process's --stages.
func (e *engine) periodic(names []string) ([]streams.Source, error) {
	var out []streams.Source
	for _, sp := range periodicStages() {
		if !sp.enabled(e.cfg) || (len(names) > 0 && !slices.Contains(names, sp.name)) {
			continue
		}
		src, err := sp.build(e)
		if err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, nil
}

func isPeriodicStage(name string) bool {
	return slices.ContainsFunc(periodicStages(), func(sp periodicSpec) bool { return sp.name == name })
}
