package alert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/robustream/robustream/schemas"
)

// webhookBody is the generic webhook's JSON document.
type webhookBody struct {
	Receiver   string            `json:"receiver"`
	AlertID    string            `json:"alert_id"`
	Rule       string            `json:"rule"`
	Series     string            `json:"series"`
	State      string            `json:"state"`
	Labels     map[string]string `json:"labels,omitempty"`
	Baseline   float64           `json:"baseline"`
	Recent     float64           `json:"recent"`
	PValue     float64           `json:"p_value"`
	FiredAt    time.Time         `json:"fired_at"`
	ResolvedAt *time.Time        `json:"resolved_at,omitempty"`
	Summary    string            `json:"summary,omitempty"`
	Dashboard  string            `json:"dashboard_url,omitempty"`
}

// body renders a for a receiver kind; the path is appended to the URL
// (Alertmanager's API path when the URL is the server's root).
func body(kind, receiver, dashboard string, a *schemas.Alert) ([]byte, error) {
	switch kind {
	case Webhook:
		b := webhookBody{Receiver: receiver, AlertID: a.AlertID, Rule: a.Rule, Series: a.Series, State: a.State,
			Labels: a.Labels, Baseline: a.Baseline, Recent: a.Recent, PValue: a.PValue, FiredAt: a.FiredAt,
			Summary: a.Summary, Dashboard: dashboard}
		if a.State == "resolved" {
			r := a.ResolvedAt
			b.ResolvedAt = &r
		}
		return marshal(b)
	case Slack:
		return marshal(slackBody(dashboard, a))
	case Alertmanager:
		return marshal([]amAlert{alertmanagerAlert(dashboard, a)})
	}
	return nil, fmt.Errorf("unknown receiver kind %q", kind)
}

// marshal encodes v without escaping <, > and &: Slack's link syntax
// <url|text> must reach it as written.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// slackBody is a Slack incoming-webhook message: text for notifications
// and clients without blocks, blocks for the channel.
func slackBody(dashboard string, a *schemas.Alert) map[string]any {
	icon := ":red_circle: FIRING"
	if a.State == "resolved" {
		icon = ":large_green_circle: RESOLVED"
	}
	text := fmt.Sprintf("%s %s `%s`: %.3f → %.3f (p %.3g)", icon, a.Rule, a.Series, a.Baseline, a.Recent, a.PValue)
	detail := a.Summary
	if dashboard != "" {
		detail += fmt.Sprintf("\n<%s|Open the dashboard>", dashboard)
	}
	return map[string]any{
		"text": text,
		"blocks": []any{
			map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": text}},
			map[string]any{"type": "context", "elements": []any{map[string]any{"type": "mrkdwn", "text": strings.TrimSpace(detail)}}},
		},
	}
}

// amAlert is one alert of Alertmanager's API v2 (POST /api/v2/alerts).
type amAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       *time.Time        `json:"endsAt,omitempty"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

// alertmanagerAlert maps an alert: its labels identify it (Alertmanager
// groups and deduplicates on them), so a refresh or a resolution is the
// same labels with a later endsAt.
func alertmanagerAlert(dashboard string, a *schemas.Alert) amAlert {
	labels := map[string]string{"alertname": a.Rule, "series": a.Series, "severity": "warning"}
	keys := make([]string, 0, len(a.Labels))
	for k := range a.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		labels[k] = a.Labels[k]
	}
	out := amAlert{
		Labels: labels,
		Annotations: map[string]string{
			"summary":  a.Summary,
			"baseline": fmt.Sprintf("%.4f", a.Baseline),
			"recent":   fmt.Sprintf("%.4f", a.Recent),
			"p_value":  fmt.Sprintf("%.3g", a.PValue),
			"alert_id": a.AlertID,
		},
		StartsAt:     a.FiredAt,
		GeneratorURL: dashboard,
	}
	end := a.ProducedAt.Add(alertmanagerHold)
	if a.State == "resolved" {
		end = a.ResolvedAt
	}
	out.EndsAt = &end
	return out
}

// alertmanagerHold is how long past its sending a firing alert stays firing
// in Alertmanager (its endsAt): four times the drift evaluator's resend
// interval (processors/drift Resend), as Prometheus does, so that one
// missed refresh changes nothing while an engine that stopped lets its
// alerts expire instead of firing forever.
const alertmanagerHold = 4 * time.Minute
