package alert_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/alert"
	"github.com/robustream/robustream/streams"
)

// recorder is a real HTTP receiver that records what it is sent and can be
// told to fail first.
type recorder struct {
	mu       sync.Mutex
	paths    []string
	bodies   [][]byte
	headers  []http.Header
	failures int    // answer this many requests with status
	status   int    // e.g. 503
	retry    string // Retry-After of a failure
	srv      *httptest.Server
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{status: http.StatusServiceUnavailable}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.paths = append(r.paths, req.URL.Path)
		r.headers = append(r.headers, req.Header.Clone())
		if r.failures != 0 {
			r.failures--
			if r.retry != "" {
				w.Header().Set("Retry-After", r.retry)
			}
			http.Error(w, "down", r.status)
			return
		}
		r.bodies = append(r.bodies, b)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) received() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.bodies...)
}

func sampleAlert(state string) streams.Message {
	fired := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a := &schemas.Alert{AlertID: "a1", Rule: "robustness_drop", Series: "m1|rare|query|query/char|*", State: state,
		Baseline: 0.9, Recent: 0.5, PValue: 1e-6, FiredAt: fired,
		Labels:  map[string]string{"model_id": "m1", "family": "rare", "metric": "query", "axis": "query", "kind": "char", "domain": "*"},
		Summary: "m1 dropped. Around it: new model ids in the recent window: m1"}
	a.ProducedAt = fired // the evaluation's time
	switch state {
	case "resolved":
		a.ResolvedAt = fired.Add(time.Hour)
		a.ProducedAt = a.ResolvedAt
	case "repeat":
		a.State, a.Repeat = "firing", true
		a.ProducedAt = fired.Add(time.Minute)
	}
	schemas.Stamp(a, schemas.ID(a.AlertID, state))
	b, _ := json.Marshal(a)
	return streams.Message{Topic: streams.TopicAlerts, Key: []byte(a.Series), Value: b}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestReceiverFormats sends a firing and a resolved alert to one receiver
// of each kind and checks each body.
func TestReceiverFormats(t *testing.T) {
	hook, slack, am := newRecorder(t), newRecorder(t), newRecorder(t)
	s, err := alert.New(alert.Config{
		Receivers: []alert.Receiver{
			{Name: "hook", Kind: alert.Webhook, URL: hook.srv.URL + "/hook"},
			{Name: "slack", Kind: alert.Slack, URL: slack.srv.URL + "/services/T/B/X"},
			{Name: "am", Kind: alert.Alertmanager, URL: am.srv.URL},
		},
		DashboardURL: "http://127.0.0.1:8080/#alerts",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(context.Background(), []streams.Message{sampleAlert("firing"), sampleAlert("resolved")}); err != nil {
		t.Fatal(err)
	}
	// Generic webhook.
	got := hook.received()
	if len(got) != 2 {
		t.Fatalf("webhook got %d posts, want 2", len(got))
	}
	var w map[string]any
	if err := json.Unmarshal(got[0], &w); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"series": "m1|rare|query|query/char|*", "state": "firing", "baseline": 0.9,
		"recent": 0.5, "p_value": 1e-6, "dashboard_url": "http://127.0.0.1:8080/#alerts", "alert_id": "a1"} {
		if w[k] != want {
			t.Errorf("webhook %s = %v, want %v", k, w[k], want)
		}
	}
	if _, ok := w["resolved_at"]; ok {
		t.Error("a firing alert has resolved_at")
	}
	json.Unmarshal(got[1], &w)
	if w["state"] != "resolved" || w["resolved_at"] != "2026-03-01T13:00:00Z" {
		t.Errorf("resolved webhook: %v", w)
	}
	// Slack: text and blocks.
	got = slack.received()
	var sl struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
		} `json:"blocks"`
	}
	json.Unmarshal(got[0], &sl)
	if !strings.Contains(sl.Text, "FIRING") || !strings.Contains(sl.Text, "m1|rare|query|query/char|*") || len(sl.Blocks) != 2 {
		t.Errorf("slack message: %s", got[0])
	}
	if !strings.Contains(string(got[0]), "<http://127.0.0.1:8080/#alerts|Open the dashboard>") {
		t.Errorf("slack message has no dashboard link: %s", got[0])
	}
	json.Unmarshal(got[1], &sl)
	if !strings.Contains(sl.Text, "RESOLVED") {
		t.Errorf("slack resolution: %s", got[1])
	}
	// Alertmanager API v2.
	if am.paths[0] != "/api/v2/alerts" {
		t.Errorf("alertmanager path = %s", am.paths[0])
	}
	got = am.received()
	var ams []struct {
		Labels       map[string]string `json:"labels"`
		Annotations  map[string]string `json:"annotations"`
		StartsAt     time.Time         `json:"startsAt"`
		EndsAt       *time.Time        `json:"endsAt"`
		GeneratorURL string            `json:"generatorURL"`
	}
	json.Unmarshal(got[0], &ams)
	if len(ams) != 1 || ams[0].Labels["alertname"] != "robustness_drop" || ams[0].Labels["model_id"] != "m1" ||
		ams[0].Labels["series"] != "m1|rare|query|query/char|*" || ams[0].EndsAt == nil ||
		!ams[0].EndsAt.Equal(time.Date(2026, 3, 1, 12, 4, 0, 0, time.UTC)) || // expires unless refreshed
		!ams[0].StartsAt.Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) ||
		ams[0].GeneratorURL != "http://127.0.0.1:8080/#alerts" || ams[0].Annotations["summary"] == "" {
		t.Errorf("alertmanager firing: %s", got[0])
	}
	json.Unmarshal(got[1], &ams)
	if ams[0].EndsAt == nil || !ams[0].EndsAt.Equal(time.Date(2026, 3, 1, 13, 0, 0, 0, time.UTC)) {
		t.Errorf("alertmanager resolution has no endsAt: %s", got[1])
	}
}

// TestRepeatsRefreshAlertmanagerOnly: a firing alert sent again (a repeat)
// reaches Alertmanager, with endsAt four minutes past the repeat, and not
// the webhook or Slack; a repeat Alertmanager fails is not dead-lettered.
func TestRepeatsRefreshAlertmanagerOnly(t *testing.T) {
	hook, slack, am := newRecorder(t), newRecorder(t), newRecorder(t)
	s, err := alert.New(alert.Config{Receivers: []alert.Receiver{
		{Name: "hook", Kind: alert.Webhook, URL: hook.srv.URL},
		{Name: "slack", Kind: alert.Slack, URL: slack.srv.URL},
		{Name: "am", Kind: alert.Alertmanager, URL: am.srv.URL},
	}, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(context.Background(), []streams.Message{sampleAlert("repeat")}); err != nil {
		t.Fatal(err)
	}
	if n, m := len(hook.received()), len(slack.received()); n != 0 || m != 0 {
		t.Errorf("the repeat reached the webhook %d times and Slack %d times", n, m)
	}
	got := am.received()
	var ams []struct {
		EndsAt *time.Time `json:"endsAt"`
	}
	if len(got) != 1 || json.Unmarshal(got[0], &ams) != nil || len(ams) != 1 || ams[0].EndsAt == nil ||
		!ams[0].EndsAt.Equal(time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC)) {
		t.Fatalf("alertmanager got %q", got)
	}
	am.mu.Lock()
	am.failures = 10
	am.mu.Unlock()
	if err := s.Write(context.Background(), []streams.Message{sampleAlert("repeat")}); err != nil {
		t.Errorf("a missed refresh failed the batch: %v", err)
	}
}

// TestReceiverRetriesHonourRetryAfter: two 503s, then success; the second
// pause is the receiver's Retry-After (1s), longer than the backoff (10ms).
func TestReceiverRetriesHonourRetryAfter(t *testing.T) {
	r := newRecorder(t)
	r.failures = 2
	r.retry = "1"
	s, err := alert.New(alert.Config{Receivers: []alert.Receiver{{Name: "hook", Kind: alert.Webhook, URL: r.srv.URL}},
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond, MaxAttempts: 5})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := s.Write(context.Background(), []streams.Message{sampleAlert("firing")}); err != nil {
		t.Fatal(err)
	}
	if n := len(r.received()); n != 1 {
		t.Fatalf("delivered %d, want 1", n)
	}
	if len(r.paths) != 3 {
		t.Errorf("attempts = %d, want 3", len(r.paths))
	}
	// Not a timing assertion of speed: Retry-After is a floor the sink must respect.
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("took %s: the Retry-After of 1s was not honoured twice", d)
	}
}

// TestReceiverDownIsDeadLettered: a receiver that stays down gets
// MaxAttempts tries, then the alert is reported in a BatchError (the
// runner's dead-letter path) while the healthy receiver still gets it; a
// receiver refusing with a 4xx is not retried.
func TestReceiverDownIsDeadLettered(t *testing.T) {
	down, up, refuses := newRecorder(t), newRecorder(t), newRecorder(t)
	down.failures = -1 // for ever
	refuses.failures, refuses.status = -1, http.StatusBadRequest
	s, err := alert.New(alert.Config{Receivers: []alert.Receiver{
		{Name: "down", Kind: alert.Webhook, URL: down.srv.URL},
		{Name: "up", Kind: alert.Slack, URL: up.srv.URL},
	}, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []streams.Message{sampleAlert("firing"), {Topic: streams.TopicAlerts, Key: []byte("x"), Value: []byte("{not json")}}
	err = s.Write(context.Background(), msgs)
	var be *streams.BatchError
	if !errors.As(err, &be) || len(be.Errs) != 2 {
		t.Fatalf("Write = %v, want a BatchError for both messages", err)
	}
	if len(down.paths) != 3 {
		t.Errorf("down receiver tried %d times, want 3", len(down.paths))
	}
	if !strings.Contains(be.Errs[0].Error(), "receiver down") || !strings.Contains(be.Errs[0].Error(), "after 3 attempts") {
		t.Errorf("error = %v", be.Errs[0])
	}
	if !streams.IsPermanent(be.Errs[1]) {
		t.Errorf("a malformed alert should be permanent: %v", be.Errs[1])
	}
	if len(up.received()) != 1 {
		t.Errorf("healthy receiver got %d, want 1", len(up.received()))
	}
	dl := streams.DeadLetter(alert.StageName, msgs[0], be.Errs[0], 3)
	if dl.Topic != streams.TopicDLQ || string(dl.Key) != string(msgs[0].Key) {
		t.Errorf("dead letter: %+v", dl)
	}

	s, _ = alert.New(alert.Config{Receivers: []alert.Receiver{{Name: "refuses", Kind: alert.Webhook, URL: refuses.srv.URL}},
		MinBackoff: time.Millisecond, MaxAttempts: 5})
	err = s.Write(context.Background(), msgs[:1])
	if !errors.As(err, &be) || !streams.IsPermanent(be.Errs[0]) || len(refuses.paths) != 1 {
		t.Errorf("4xx: err %v after %d attempts, want one permanent attempt", err, len(refuses.paths))
	}
}

// TestReceiverSecretsFromEnvNeverLogged: the token in a header and in the
// URL comes from the environment, reaches the receiver, and appears in no
// log line nor error, success or failure.
func TestReceiverSecretsFromEnvNeverLogged(t *testing.T) {
	const secret = "s3cr3t-token-value"
	r := newRecorder(t)
	r.failures = 1
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	getenv := env(map[string]string{"HOOK_TOKEN": secret})
	s, err := alert.New(alert.Config{Receivers: []alert.Receiver{{Name: "hook", Kind: alert.Webhook,
		URL: r.srv.URL + "/hook/${HOOK_TOKEN}", Headers: map[string]string{"Authorization": "Bearer ${HOOK_TOKEN}"}}},
		MinBackoff: time.Millisecond, MaxAttempts: 3, Logger: log, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(context.Background(), []streams.Message{sampleAlert("firing")}); err != nil {
		t.Fatal(err)
	}
	if got := r.headers[1].Get("Authorization"); got != "Bearer "+secret {
		t.Errorf("Authorization = %q", got)
	}
	if r.paths[1] != "/hook/"+secret {
		t.Errorf("path = %q", r.paths[1])
	}
	// A receiver that cannot be reached at all: the transport's error
	// names the URL, which must not leak.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	s, _ = alert.New(alert.Config{Receivers: []alert.Receiver{{Name: "dead", Kind: alert.Slack,
		URL: dead.URL + "/services/${HOOK_TOKEN}", Headers: map[string]string{"X-Token": "${HOOK_TOKEN}"}}},
		MinBackoff: time.Millisecond, MaxAttempts: 2, Logger: log, Getenv: getenv})
	err = s.Write(context.Background(), []streams.Message{sampleAlert("firing")})
	if err == nil {
		t.Fatal("a dead receiver succeeded")
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error leaks the secret: %v", err)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("logs leak the secret:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "receiver=dead") {
		t.Errorf("logs do not name the failing receiver:\n%s", logs.String())
	}
}

func TestValidateReceivers(t *testing.T) {
	errs := alert.ValidateReceivers("alerts.receivers", []alert.Receiver{
		{Name: "a", Kind: "pager", URL: "ftp://x"},
		{Name: "a", Kind: alert.Webhook, URL: "https://example.com/${NOPE}", Headers: map[string]string{"Authorization": "Bearer ${ALSO_NOPE}"}},
		{Kind: alert.Slack, URL: "https://hooks.example.com/${TOKEN}"},
	}, env(map[string]string{"TOKEN": "t"}))
	var all []string
	for _, e := range errs {
		all = append(all, e.Error())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{
		`alerts.receivers[0].kind: "pager" is not webhook, slack or alertmanager`,
		"alerts.receivers[0].url: not an http(s) URL",
		`alerts.receivers[1].name: "a" is used twice`,
		"alerts.receivers[1].url: references ${NOPE}, which is not set",
		"alerts.receivers[1].headers.Authorization: references ${ALSO_NOPE}, which is not set",
		"alerts.receivers[2].name: must not be empty",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing error %q in:\n%s", want, joined)
		}
	}
	if len(errs) != 6 {
		t.Errorf("%d errors, want 6:\n%s", len(errs), joined)
	}
}
