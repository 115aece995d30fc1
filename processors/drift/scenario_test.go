package drift_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/drift"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sinks/alert"
	"github.com/robustream/robustream/sinks/alert/alerttest"
	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

// The scenarios run the evaluator against chDB (embedded ClickHouse, the
// real DDL and materialized views) and deliver its alerts to real HTTP
// receivers of the three kinds.

var (
	chOnce sync.Once
	chEng  clickhouse.Engine
	chErr  error
)

func engine(t *testing.T) clickhouse.Engine {
	t.Helper()
	chOnce.Do(func() {
		ctx := context.Background()
		// chDB is one engine per process: the package's scenarios share it
		// and empty the tables they use.
		chEng, chErr = clickhouse.Open(ctx, clickhouse.Config{DataDir: ""})
		if chErr == nil {
			chErr = clickhouse.Migrate(ctx, chEng, slog.New(slog.DiscardHandler))
		}
	})
	if chErr != nil {
		if os.Getenv("ROBUSTREAM_CHDB_LIB") == "" {
			t.Skipf("chDB unavailable (set ROBUSTREAM_CHDB_LIB or run make setup): %v", chErr)
		}
		t.Fatal(chErr)
	}
	for _, tbl := range []string{"outcomes", "robustness_5m", "robustness_1h", "robustness_1d", "alerts", "model_revisions", "eval_results"} {
		exec(t, chEng, "TRUNCATE TABLE robustream."+tbl)
	}
	return chEng
}

func exec(t *testing.T, ch clickhouse.Engine, q string) {
	t.Helper()
	if err := ch.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// outcomes inserts n outcomes of one series, evaluated evenly over
// [from, from+span), a share rate of them successes (spread evenly, or
// pseudo-randomly when noisy), about documents published at published.
func outcomes(t *testing.T, ch clickhouse.Engine, model, metric, axis, kind string, from time.Time, span time.Duration, n int, rate float64, published time.Time, noisy bool) {
	t.Helper()
	outcomesIn(t, ch, "finance", model, metric, axis, kind, from, span, n, rate, published, noisy)
}

// outcomesIn is outcomes about documents of one domain.
func outcomesIn(t *testing.T, ch clickhouse.Engine, domain, model, metric, axis, kind string, from time.Time, span time.Duration, n int, rate float64, published time.Time, noisy bool) {
	t.Helper()
	success := fmt.Sprintf("(number * 7919 %% 1000) < %d", int(rate*1000))
	if noisy {
		success = fmt.Sprintf("(cityHash64(number, '%s%s%s%d') %% 1000) < %d", model, metric, kind, from.Unix(), int(rate*1000))
	}
	exec(t, ch, fmt.Sprintf(`INSERT INTO robustream.outcomes
    (outcome_id, family, metric, model_id, question_id, variant_id, axis, kind, domain, value, published_at, evaluated_at, produced_at)
SELECT concat('%[1]s', '|', '%[2]s', '|', '%[4]s', '|', '%[10]s', '|', toString(%[5]d), '|', toString(number)), 'rare', '%[2]s', '%[1]s',
    concat('q', toString(number)), concat('v', toString(number)), '%[3]s', '%[4]s', '%[10]s',
    if(%[6]s, 1, 0), toDateTime(%[7]d), toDateTime(%[5]d + intDiv(number * %[8]d, %[9]d)), toDateTime(%[5]d)
FROM numbers(%[9]d)`, model, metric, axis, kind, from.Unix(), success, published.Unix(), int64(span/time.Second), n, domain))
}

var offset int64

// step evaluates at now and returns the emitted state changes; the
// repeats of firing alerts (for Alertmanager) are left out.
func step(t *testing.T, ev *drift.Evaluator, now time.Time) []streams.Message {
	t.Helper()
	var changes []streams.Message
	for _, m := range stepAll(t, ev, now) {
		if !decode(t, m).Repeat {
			changes = append(changes, m)
		}
	}
	return changes
}

// stepAll evaluates at now and returns every emitted message.
func stepAll(t *testing.T, ev *drift.Evaluator, now time.Time) []streams.Message {
	t.Helper()
	var msgs []streams.Message
	err := ev.Step(context.Background(), now, func(_ context.Context, recs ...streams.Record) error {
		for _, r := range recs {
			// Offsets as Kafka would give them: the ClickHouse sink's
			// deduplication token is the batch's offset range.
			offset++
			msgs = append(msgs, streams.Message{Topic: r.Topic, Key: r.Key, Value: r.Value, Offset: offset})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func decode(t *testing.T, m streams.Message) schemas.Alert {
	t.Helper()
	var a schemas.Alert
	if err := json.Unmarshal(m.Value, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func scenarioConfig() drift.Config {
	c := drift.Defaults()
	c.RecentWindow, c.BaselineWindow = time.Hour, 6*time.Hour
	c.MinSamples, c.Alpha, c.MaxDrop, c.Cooldown = 50, 0.01, 0.1, 30*time.Minute
	return c
}

// TestScenarioOneModelDrops: model-a's query/char series falls from 0.9 to
// 0.5 after six hours, on questions about documents of a new period, while
// model-b and model-a's other series hold. Exactly one alert fires, for
// that series, and reaches a webhook, a Slack and an Alertmanager receiver;
// a restarted evaluator does not fire it again; it resolves once the model
// recovers.
func TestScenarioOneModelDrops(t *testing.T) {
	ch := engine(t)
	oldDocs, newDocs := t0.AddDate(0, -2, 0), t0.AddDate(0, 0, -7)
	for _, m := range []string{"model-a", "model-b"} {
		outcomes(t, ch, m, "query", "query", "char", t0, 6*time.Hour, 600, 0.9, oldDocs, false)
		outcomes(t, ch, m, "overall", "original", "none", t0, 6*time.Hour, 600, 0.8, oldDocs, false)
		outcomes(t, ch, m, "overall", "original", "none", t0.Add(6*time.Hour), time.Hour, 200, 0.8, newDocs, false)
	}
	outcomes(t, ch, "model-a", "query", "query", "char", t0.Add(6*time.Hour), time.Hour, 200, 0.5, newDocs, false)
	outcomes(t, ch, "model-b", "query", "query", "char", t0.Add(6*time.Hour), time.Hour, 200, 0.9, newDocs, false)

	rec := alerttest.Start(t)
	notify, err := alert.New(alert.Config{Receivers: rec.List(), DashboardURL: "http://127.0.0.1:8080/"})
	if err != nil {
		t.Fatal(err)
	}
	store, err := clickhouse.NewSink(ch, "alerts", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	deliver := func(msgs []streams.Message) {
		t.Helper()
		if err := notify.Write(context.Background(), msgs); err != nil {
			t.Fatal(err)
		}
		if err := store.Write(context.Background(), msgs); err != nil {
			t.Fatal(err)
		}
	}

	ev, err := drift.New(scenarioConfig(), ch)
	if err != nil {
		t.Fatal(err)
	}
	// Before the drop: nothing.
	if msgs := step(t, ev, t0.Add(6*time.Hour)); len(msgs) != 0 {
		t.Fatalf("alerts before the drop: %d", len(msgs))
	}
	now := t0.Add(7 * time.Hour)
	msgs := step(t, ev, now)
	if len(msgs) != 1 {
		for _, m := range msgs {
			t.Logf("alert: %s", m.Value)
		}
		t.Fatalf("%d alerts, want exactly 1", len(msgs))
	}
	a := decode(t, msgs[0])
	const series = "model-a|rare|query|query/char|*"
	if a.Series != series || a.State != drift.Firing || string(msgs[0].Key) != series || msgs[0].Topic != streams.TopicAlerts {
		t.Fatalf("alert %+v", a)
	}
	if a.Baseline < 0.89 || a.Baseline > 0.91 || a.Recent < 0.49 || a.Recent > 0.51 || a.PValue > 1e-6 {
		t.Errorf("alert numbers: baseline %.3f recent %.3f p %.3g", a.Baseline, a.Recent, a.PValue)
	}
	t.Logf("summary: %s", a.Summary)
	if want := "published after 2026-01-01"; !contains(a.Summary, want) || !contains(a.Summary, "new period of documents") {
		t.Errorf("summary does not name the new period of documents (%q): %s", want, a.Summary)
	}
	deliver(msgs)
	for _, kind := range []string{alert.Webhook, alert.Slack, alert.Alertmanager} {
		if n := rec.Count(kind); n != 1 {
			t.Errorf("%s receiver got %d notifications, want 1", kind, n)
		}
	}

	// A restart: a new evaluator loads the firing state from the alerts
	// table and does not fire again.
	// It sends the firing alert again, marked a repeat, so Alertmanager
	// keeps it firing: at once after the restart, then once a minute.
	ev, _ = drift.New(scenarioConfig(), ch)
	msgs = stepAll(t, ev, now.Add(5*time.Minute))
	if len(msgs) != 1 {
		t.Fatalf("restarted evaluator: %d alerts, want the repeat alone", len(msgs))
	}
	if r := decode(t, msgs[0]); !r.Repeat || r.State != drift.Firing || r.AlertID != a.AlertID || r.Series != series ||
		!r.FiredAt.Equal(a.FiredAt) || r.Baseline != a.Baseline || r.Recent != a.Recent {
		t.Fatalf("repeat %+v of %+v", r, a)
	}
	if msgs := stepAll(t, ev, now.Add(5*time.Minute+30*time.Second)); len(msgs) != 0 {
		t.Fatalf("a repeat within a minute: %s", msgs[0].Value)
	}
	if msgs := stepAll(t, ev, now.Add(6*time.Minute)); len(msgs) != 1 || !decode(t, msgs[0]).Repeat {
		t.Fatalf("%d alerts a minute later, want the repeat", len(msgs))
	}

	// The model recovers: from 7h on, model-a answers as before.
	outcomes(t, ch, "model-a", "query", "query", "char", t0.Add(7*time.Hour), 2*time.Hour, 400, 0.9, newDocs, false)
	outcomes(t, ch, "model-b", "query", "query", "char", t0.Add(7*time.Hour), 2*time.Hour, 400, 0.9, newDocs, false)
	msgs = step(t, ev, t0.Add(9*time.Hour))
	if len(msgs) != 1 {
		t.Fatalf("%d alerts after the recovery, want the resolution", len(msgs))
	}
	r := decode(t, msgs[0])
	if r.State != drift.Resolved || r.Series != series || r.AlertID != a.AlertID || !r.FiredAt.Equal(a.FiredAt) || r.ResolvedAt.IsZero() {
		t.Fatalf("resolution %+v, firing %+v", r, a)
	}
	deliver(msgs)
	for _, kind := range []string{alert.Webhook, alert.Slack, alert.Alertmanager} {
		if n := rec.Count(kind); n != 2 {
			t.Errorf("%s receiver got %d notifications, want 2 (firing, resolved)", kind, n)
		}
	}
	out, err := ch.Query(context.Background(), "SELECT series, state, count() FROM robustream.alerts FINAL GROUP BY series, state", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), series+"\tresolved\t1\n"; got != want {
		t.Errorf("alerts table:\n%s\nwant\n%s", got, want)
	}
	// Quiet afterwards (and within cool-down anyway).
	if msgs := step(t, ev, t0.Add(9*time.Hour+5*time.Minute)); len(msgs) != 0 {
		t.Errorf("alerts after the resolution: %s", msgs[0].Value)
	}
}

// TestScenarioCauseHoldsItsSymptoms: model-c starts failing every question
// in two domains (clean ones included), and its clean accuracy falls with
// the rest; one alert fires, on its original series over every domain, and
// names the series it holds back. model-d's clean accuracy falls a little
// while typos hurt it far more than before: that drop is robustness drift
// of its own and fires beside the original's.
func TestScenarioCauseHoldsItsSymptoms(t *testing.T) {
	ch := engine(t)
	docs := t0.AddDate(0, -1, 0)
	before, after := t0, t0.Add(6*time.Hour)
	series := func(domain, model, axis, kind string, base, recent float64) {
		outcomesIn(t, ch, domain, model, "f", axis, kind, before, 6*time.Hour, 400, base, docs, false)
		outcomesIn(t, ch, domain, model, "f", axis, kind, after, time.Hour, 200, recent, docs, false)
	}
	for _, d := range []string{"finance", "health"} {
		series(d, "model-c", "original", "original", 0.85, 0.05)
		series(d, "model-c", "query", "char", 0.7, 0)
		series(d, "model-c", "query", "qwerty", 0.7, 0)
		series(d, "model-c", "document", "answer_removed", 0.3, 0.9) // refusing is right here
	}
	// model-c's entry in models.yaml changed as it started failing (an
	// engine restart before re-recorded the same revision).
	exec(t, ch, fmt.Sprintf(`INSERT INTO robustream.model_revisions (model_id, revision, seen_at) VALUES
    ('model-c', 'r1', toDateTime(%d)), ('model-c', 'r1', toDateTime(%d)), ('model-c', 'r2', toDateTime(%d)),
    ('model-d', 'd1', toDateTime(%d))`, t0.AddDate(0, 0, -1).Unix(), t0.Unix(), after.Unix(), t0.Unix()))
	series("finance", "model-d", "original", "original", 0.9, 0.75)
	series("finance", "model-d", "query", "char", 0.8, 0.4)   // 0.4 down: 0.25 more than the original
	series("finance", "model-d", "query", "qwerty", 0.8, 0.6) // 0.2 down: with the original

	ev, err := drift.New(scenarioConfig(), ch)
	if err != nil {
		t.Fatal(err)
	}
	msgs := step(t, ev, after.Add(time.Hour))
	got := map[string]schemas.Alert{}
	for _, m := range msgs {
		a := decode(t, m)
		got[a.Series] = a
		t.Logf("%s %s: %s", a.State, a.Series, a.Summary)
	}
	want := []string{"model-c|rare|f|original/original|*", "model-d|rare|f|original/original|*", "model-d|rare|f|query/char|*"}
	if len(got) != len(want) || len(msgs) != len(want) {
		t.Fatalf("%d alerts, want exactly %v", len(msgs), want)
	}
	for _, s := range want {
		if got[s].State != drift.Firing {
			t.Errorf("no firing alert for %s", s)
		}
	}
	// model-c's alert names the 2 pooled kinds and 6 per-domain series it
	// holds (2 originals, 4 kinds); the rise of answer_removed is not a drop.
	c := got[want[0]].Summary
	// (The evenly spread successes of outcomesIn make a rate of 0.7 over
	// 400 outcomes 0.695, and of 0.05 over 200 0.060.)
	for _, held := range []string{"it explains 8 more series", "model-c|rare|f|query/char|* 0.695 → 0.000",
		"model-c|rare|f|query/qwerty|health 0.695 → 0.000", "model-c|rare|f|original/original|finance 0.850 → 0.060"} {
		if !contains(c, held) {
			t.Errorf("model-c's summary does not say %q: %s", held, c)
		}
	}
	if contains(c, "answer_removed") {
		t.Errorf("model-c's summary names a series that rose: %s", c)
	}
	if want := "the entry of model-c in models.yaml changed at 2026-03-01 06:00 (revision r1 → r2)"; !contains(c, want) {
		t.Errorf("model-c's summary does not say %q: %s", want, c)
	}
	if d := got[want[1]].Summary; contains(d, "models.yaml changed") {
		t.Errorf("model-d's summary says its entry changed: %s", d)
	}
	if d := got[want[1]].Summary; !contains(d, "it explains 1 more series") || !contains(d, "query/qwerty") || contains(d, "query/char") {
		t.Errorf("model-d's original holds back qwerty only: %s", d)
	}
	// Once the cause is firing, the held series stay quiet.
	if msgs := step(t, ev, after.Add(time.Hour+5*time.Minute)); len(msgs) != 0 {
		t.Errorf("held series fired on the next evaluation: %s", msgs[0].Value)
	}
}

// TestScenarioBaselineSkipsIncidents: model-e refuses from 6h to 14h, far
// longer than the 6-hour baseline. Its alert stays firing throughout (a
// baseline that learnt the incident would resolve it at 13h with the model
// still broken), resolves when the model recovers, and the recovery fires
// nothing on the series the refusals had lifted (answer_removed, where
// refusing is right).
func TestScenarioBaselineSkipsIncidents(t *testing.T) {
	ch := engine(t)
	docs := t0.AddDate(0, -1, 0)
	phase := func(from, to time.Duration, orig, removed float64) {
		n := int((to - from) / time.Hour * 100)
		outcomesIn(t, ch, "finance", "model-e", "f", "original", "original", t0.Add(from), to-from, n, orig, docs, false)
		outcomesIn(t, ch, "finance", "model-e", "f", "document", "answer_removed", t0.Add(from), to-from, n, removed, docs, false)
	}
	phase(0, 6*time.Hour, 0.8, 0.3)
	phase(6*time.Hour, 14*time.Hour, 0.05, 0.95) // refusing
	phase(14*time.Hour, 16*time.Hour, 0.8, 0.3)  // recovered

	ev, err := drift.New(scenarioConfig(), ch)
	if err != nil {
		t.Fatal(err)
	}
	const orig = "model-e|rare|f|original/original|*"
	var fired schemas.Alert
	for at := 7 * time.Hour; at <= 14*time.Hour; at += 30 * time.Minute {
		msgs := step(t, ev, t0.Add(at))
		switch {
		case at == 7*time.Hour:
			if len(msgs) != 1 {
				t.Fatalf("%d alerts at 7h, want 1", len(msgs))
			}
			fired = decode(t, msgs[0])
			if fired.Series != orig || fired.State != drift.Firing {
				t.Fatalf("alert %+v", fired)
			}
		case len(msgs) > 0:
			t.Fatalf("at %s, during the incident: %s", at, msgs[0].Value)
		}
	}
	// Recovered: the recent hour (15h–16h) is back at 0.8.
	msgs := step(t, ev, t0.Add(16*time.Hour))
	if len(msgs) != 1 {
		for _, m := range msgs {
			t.Logf("alert: %s", m.Value)
		}
		t.Fatalf("%d alerts after the recovery, want the resolution alone", len(msgs))
	}
	if r := decode(t, msgs[0]); r.Series != orig || r.State != drift.Resolved || r.AlertID != fired.AlertID {
		t.Fatalf("resolution %+v", r)
	}
	for at := 16*time.Hour + 30*time.Minute; at <= 17*time.Hour; at += 30 * time.Minute {
		if msgs := step(t, ev, t0.Add(at)); len(msgs) != 0 {
			t.Fatalf("at %s, after the recovery: %s", at, msgs[0].Value)
		}
	}
}

// TestScenarioStableSeriesFireNothing: 200 series with no change, each
// noisy around its own rate, evaluated together at a 5% false-discovery
// rate with no absolute-drop floor, so that significance alone decides:
// BH keeps every one quiet, where testing each at 5% alone would not.
func TestScenarioStableSeriesFireNothing(t *testing.T) {
	ch := engine(t)
	docs := t0.AddDate(0, -1, 0)
	n := 0
	for m := 0; m < 20; m++ {
		for k := 0; k < 10; k++ {
			rate := 0.5 + 0.04*float64(k)
			model, kind := fmt.Sprintf("model-%02d", m), fmt.Sprintf("kind_%d", k)
			outcomes(t, ch, model, "query", "query", kind, t0, 6*time.Hour, 300, rate, docs, true)
			outcomes(t, ch, model, "query", "query", kind, t0.Add(6*time.Hour), time.Hour, 100, rate, docs, true)
			n++
		}
	}
	c := scenarioConfig()
	c.Alpha, c.MaxDrop = 0.05, 0
	ev, err := drift.New(c, ch)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := step(t, ev, t0.Add(7*time.Hour)); len(msgs) != 0 {
		for _, m := range msgs {
			t.Logf("alert: %s", m.Value)
		}
		t.Fatalf("%d alerts over %d stable series, want none", len(msgs), n)
	}
	// Without the adjustment some of them would have fired.
	out, err := ch.Query(context.Background(), fmt.Sprintf(`SELECT model_id, kind, sumIf(n, bucket < toDateTime(%[1]d)), sumIf(value_sum, bucket < toDateTime(%[1]d)),
    sumIf(n, bucket >= toDateTime(%[1]d)), sumIf(value_sum, bucket >= toDateTime(%[1]d))
FROM robustream.robustness_5m GROUP BY model_id, kind`, t0.Add(6*time.Hour).Unix()), "TSV")
	if err != nil {
		t.Fatal(err)
	}
	raw := 0
	for _, line := range splitLines(string(out)) {
		var model, kind string
		var bn, bx, rn, rx float64
		if _, err := fmt.Sscanf(line, "%s\t%s\t%g\t%g\t%g\t%g", &model, &kind, &bn, &bx, &rn, &rx); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if p, _ := drift.Test(bx, bn, rx, rn); p <= c.Alpha && rx/rn < bx/bn {
			raw++
		}
	}
	t.Logf("%d of %d stable series show a drop with an unadjusted p ≤ %.2f", raw, n, c.Alpha)
	if raw == 0 {
		t.Log("(no series would have fired unadjusted either; the scenario still checks that none fires)")
	}
}

func contains(s, sub string) bool { return len(sub) == 0 || indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
