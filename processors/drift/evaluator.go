package drift

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// Evaluator is the periodic drift evaluator, a streams.Source: every
// interval it compares each series' recent window with its baseline and
// emits the alerts whose state changed to rs.alerts.
type Evaluator struct {
	cfg    Config
	q      Querier
	log    *slog.Logger
	states map[string]seriesState
	// sent is when each series' alert was last emitted (repeats included).
	sent   map[string]time.Time
	loaded bool
	now    func() time.Time
}

// New returns an evaluator reading ClickHouse through q; c is validated.
func New(c Config, q Querier) (*Evaluator, error) {
	if errs := c.Validate("alerts"); len(errs) > 0 {
		return nil, errs[0]
	}
	if q == nil {
		return nil, fmt.Errorf("drift evaluator needs ClickHouse")
	}
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	return &Evaluator{cfg: c, q: q, log: log, states: map[string]seriesState{}, sent: map[string]time.Time{}, now: now}, nil
}

// Name implements streams.Source.
func (e *Evaluator) Name() string { return StageName }

// Run implements streams.Source: it loads the alerts' states, then
// evaluates every interval until ctx ends. A failed evaluation (ClickHouse
// away) is logged and tried again at the next tick; a failed emit ends Run.
func (e *Evaluator) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	t := time.NewTicker(e.cfg.Interval)
	defer t.Stop()
	for {
		if err := e.Step(ctx, e.now().UTC(), emit); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if isEmit(err) {
				return err
			}
			e.log.Warn("drift evaluation failed; trying again at the next interval", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

type emitError struct{ error }

func (e emitError) Unwrap() error { return e.error }

func isEmit(err error) bool { _, ok := err.(emitError); return ok }

// Step runs one evaluation at now: the alerts whose state changes are
// emitted, and only once emit returned (they are durable in Kafka) does the
// evaluator remember the new states, so a failed emit is redone next time.
func (e *Evaluator) Step(ctx context.Context, now time.Time, emit func(context.Context, ...streams.Record) error) error {
	if !e.loaded {
		if err := e.Load(ctx); err != nil {
			return err
		}
	}
	alerts, err := e.Evaluate(ctx, now)
	if err != nil {
		return err
	}
	alerts = append(alerts, e.repeats(now, alerts)...)
	if len(alerts) == 0 {
		return nil
	}
	recs := make([]streams.Record, len(alerts))
	for i := range alerts {
		b, err := json.Marshal(&alerts[i])
		if err != nil {
			return err
		}
		recs[i] = streams.Record{Topic: streams.TopicAlerts, Key: []byte(alerts[i].Key()), Value: b}
	}
	if err := emit(ctx, recs...); err != nil {
		return emitError{fmt.Errorf("cannot emit alerts: %w", err)}
	}
	e.Commit(alerts)
	return nil
}

// Load rebuilds the states from the alerts table: per series, its latest
// row. Rows reach the table through the alerts sink, so an alert emitted
// just before a crash and not yet stored can be emitted once more after the
// restart (same state, new fired_at): receivers see a repeat, never a
// missed alert.
func (e *Evaluator) Load(ctx context.Context) error {
	out, err := e.q.Query(ctx, `SELECT series, argMax(state, produced_at), argMax(alert_id, produced_at),
    toUnixTimestamp(argMax(fired_at, produced_at)), toUnixTimestamp(argMax(resolved_at, produced_at)),
    argMax(baseline, produced_at), argMax(recent, produced_at), argMax(p_value, produced_at)
FROM robustream.alerts WHERE rule = `+quote(Rule)+` GROUP BY series`, "TabSeparated")
	if err != nil {
		return fmt.Errorf("cannot read the alerts' states: %w", err)
	}
	states := map[string]seriesState{}
	for _, f := range tsvRows(out) {
		if len(f) != 8 {
			return fmt.Errorf("alerts row has %d fields, want 8", len(f))
		}
		fired, _ := strconv.ParseInt(f[3], 10, 64)
		resolved, _ := strconv.ParseInt(f[4], 10, 64)
		base, _ := strconv.ParseFloat(f[5], 64)
		recent, _ := strconv.ParseFloat(f[6], 64)
		p, _ := strconv.ParseFloat(f[7], 64)
		s := seriesState{State: f[1], AlertID: f[2], FiredAt: time.Unix(fired, 0).UTC(), Changed: time.Unix(fired, 0).UTC(),
			Baseline: base, Recent: recent, PValue: p}
		if s.State == Resolved {
			s.Changed = time.Unix(resolved, 0).UTC()
		}
		states[f[0]] = s
	}
	e.states, e.loaded = states, true
	e.log.Info("drift evaluator loaded alert states", "series", len(states))
	return nil
}

// Evaluate compares the windows ending at now and returns the alerts whose
// state changes, in series order. It does not change the evaluator's
// states (see Commit).
func (e *Evaluator) Evaluate(ctx context.Context, now time.Time) ([]schemas.Alert, error) {
	w := windowsAt(now, e.cfg)
	all, err := readCounts(ctx, e.q, w, e.incidents(w))
	if err != nil {
		return nil, err
	}
	// The tested series form one family for the BH adjustment.
	type tested struct {
		k   seriesKey
		cmp comparison
	}
	var ts []tested
	// A firing series whose baseline is all incident (it fired longer ago
	// than the baseline window reaches) is judged against the rate it fell
	// from, on its recent window alone.
	var alone []tested
	for k, c := range all {
		cmp := c.compare()
		if cmp.baseN < float64(e.cfg.MinSamples) || cmp.recentN < float64(e.cfg.MinSamples) {
			if st := e.states[k.String()]; st.State == Firing && c.recentN >= float64(e.cfg.MinSamples) {
				alone = append(alone, tested{k: k, cmp: comparison{baseN: c.baseN, recentN: c.recentN, baseline: st.Baseline,
					recent: rate(c.recentX, c.recentN), p: 1, test: "none"}})
			}
			continue
		}
		ts = append(ts, tested{k: k, cmp: cmp})
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].k.String() < ts[j].k.String() })
	ps := make([]float64, len(ts))
	for i, t := range ts {
		ps[i] = t.cmp.p
	}
	qs := BenjaminiHochberg(ps)
	sort.Slice(alone, func(i, j int) bool { return alone[i].k.String() < alone[j].k.String() })
	ts = append(ts, alone...)
	verdicts := make([]verdict, len(ts))
	moves := make([]string, len(ts))
	firing := map[seriesKey]verdict{} // firing after this evaluation
	for i, t := range ts {
		prev := e.states[t.k.String()]
		verdicts[i] = verdict{tested: true, baseline: t.cmp.baseline, recent: t.cmp.recent, q: 1, against: true}
		if i < len(qs) { // tested, not judged against the rate it fell from
			verdicts[i].q, verdicts[i].against = qs[i], false
		}
		moves[i] = next(prev, verdicts[i], e.cfg, now)
		if moves[i] == Firing || (prev.State == Firing && moves[i] != Resolved) {
			firing[t.k] = verdicts[i]
		}
	}
	// Series held back by a firing cause (inhibitor), named in the alert of
	// the cause at the root of the chain (a domain's perturbed series, held
	// by the pooled one, held by the pooled original).
	causes := map[seriesKey]seriesKey{}
	for i, t := range ts {
		if moves[i] != Firing {
			continue
		}
		if cause, ok := inhibitor(t.k, verdicts[i], firing, e.cfg.MaxDrop); ok {
			moves[i], causes[t.k] = "", cause
		}
	}
	held := map[seriesKey][]string{}
	for i, t := range ts {
		cause, ok := causes[t.k]
		if !ok {
			continue
		}
		for {
			up, ok := causes[cause]
			if !ok {
				break
			}
			cause = up
		}
		held[cause] = append(held[cause], fmt.Sprintf("%s %.3f → %.3f", t.k.String(), verdicts[i].baseline, verdicts[i].recent))
		e.log.Info("drop held back by a firing alert", "series", t.k.String(), "cause", cause.String())
	}
	var out []schemas.Alert
	for i, t := range ts {
		series := t.k.String()
		prev := e.states[series]
		v := verdicts[i]
		switch moves[i] {
		case Firing:
			ctxNote, err := around(ctx, e.q, t.k, w)
			if err != nil {
				e.log.Warn("cannot say what changed around a drop", "series", series, "err", err)
				ctxNote = "context unavailable: " + err.Error()
			}
			if h := held[t.k]; len(h) > 0 {
				ctxNote += fmt.Sprintf("; it explains %d more series that fell with it (not alerted on separately): %s", len(h), strings.Join(h, ", "))
			}
			a := e.alert(t.k, Firing, v, now, now, time.Time{})
			a.Summary = fmt.Sprintf("%s dropped from %.3f to %.3f (n %.0f → %.0f; %s test, p %.3g, BH-adjusted %.3g). Around it: %s.",
				series, v.baseline, v.recent, t.cmp.baseN, t.cmp.recentN, t.cmp.test, t.cmp.p, v.q, ctxNote)
			out = append(out, a)
		case Resolved:
			a := e.alert(t.k, Resolved, v, now, prev.FiredAt, now)
			a.AlertID = prev.AlertID
			a.Summary = fmt.Sprintf("%s recovered: %.3f against a baseline of %.3f (n %.0f → %.0f).",
				series, v.recent, v.baseline, t.cmp.baseN, t.cmp.recentN)
			out = append(out, a)
		}
	}
	e.log.Debug("drift evaluated", "series", len(all), "tested", len(ts), "changes", len(out))
	return out, nil
}

// Resend is how often a firing alert is sent again, marked Repeat, for the
// receivers that expire an alert nobody refreshes: Alertmanager resolves
// an alert on its own once its endsAt, or resolve_timeout (5 minutes by
// default), has passed. Prometheus refreshes its alerts as often.
const Resend = time.Minute

// repeats are the firing alerts not sent for Resend, except those changing
// in this evaluation (changes), sent again unchanged.
func (e *Evaluator) repeats(now time.Time, changes []schemas.Alert) []schemas.Alert {
	changed := map[string]bool{}
	for _, a := range changes {
		changed[a.Series] = true
	}
	var out []schemas.Alert
	for series, st := range e.states {
		if st.State != Firing || changed[series] || now.Sub(e.sent[series]) < Resend {
			continue
		}
		k, ok := parseSeries(series)
		if !ok {
			continue
		}
		a := e.alert(k, Firing, verdict{baseline: st.Baseline, recent: st.Recent, q: st.PValue}, now, st.FiredAt, time.Time{})
		a.AlertID, a.Repeat = st.AlertID, true
		a.Summary = fmt.Sprintf("%s still firing since %s: %.3f against a baseline of %.3f.",
			series, st.FiredAt.Format(time.RFC3339), st.Recent, st.Baseline)
		schemas.Stamp(&a, schemas.ID(a.AlertID, "repeat", strconv.FormatInt(now.Unix(), 10)))
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Series < out[j].Series })
	return out
}

// incident is a span of evaluation time during which an alert of a model's
// family was firing, from the start of the recent window that fired it.
type incident struct {
	model, family string
	from, to      time.Time
}

// incidents are the spans the baselines of windows w leave out: while a
// model's series fires, its outcomes are of an incident, and a baseline
// that learnt them would call the incident normal (resolving an alert on a
// model still broken) and the recovery a drop (firing on the series the
// incident had lifted, such as refusals where the answer was removed).
func (e *Evaluator) incidents(w windows) []incident {
	var out []incident
	for series, st := range e.states {
		if st.FiredAt.IsZero() {
			continue
		}
		to := w.recentStart
		if st.State == Resolved && st.Changed.Before(to) {
			to = st.Changed
		}
		from := st.FiredAt.Add(-e.cfg.RecentWindow).Truncate(bucket)
		if !from.Before(to) || !to.After(w.baseStart) {
			continue
		}
		k, ok := parseSeries(series)
		if !ok {
			continue
		}
		out = append(out, incident{model: k.Model, family: k.Family, from: from, to: to})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].model != out[j].model {
			return out[i].model < out[j].model
		}
		return out[i].from.Before(out[j].from)
	})
	return out
}

// OriginalAxis is the axis of the unperturbed questions' series (RARE's
// original/original): the model's clean accuracy.
const OriginalAxis = "original"

// inhibitor says whether a series about to fire is explained by another
// series firing after the same evaluation, and which: an alert per symptom
// of one cause would bury the cause (one model that starts refusing drops
// every kind of every domain at once).
//
//   - A per-domain series is held back while the same series over every
//     domain fires: the pooled alert covers it.
//   - A perturbed series (any axis but original) is held back while the
//     original series of the same model, family, metric and domain fires,
//     unless it dropped at least max_drop more than the original did. When
//     clean answers fail, perturbed ones fail with them; robustness drifts
//     only when a perturbation hurts more than before, beyond what the
//     clean answers lost.
//   - A service's retrieval_hit series is held back while its retriever's
//     recall series fires.
//   - A series of another family (SURE, PRGB) is held back while the
//     model's clean accuracy (RARE's original series) fires, unless it
//     kept max_drop less of its baseline rate than the clean one did.
//   - A built-in retriever is shared by every model (a service's own is
//     not): its recall series of one model is held back while the same
//     retriever's series of a model first by id fires, unless it dropped
//     max_drop more. One retriever, one alert.
//
// The held-back series are named in the summary of the alert that holds
// them; they fire on their own once it no longer fires.
func inhibitor(k seriesKey, v verdict, firing map[seriesKey]verdict, maxDrop float64) (seriesKey, bool) {
	if k.Domain != AllDomains {
		pooled := k
		pooled.Domain = AllDomains
		if _, ok := firing[pooled]; ok {
			return pooled, true
		}
	}
	if k.Axis != OriginalAxis {
		orig := k
		orig.Axis, orig.Kind = OriginalAxis, OriginalAxis
		if ov, ok := firing[orig]; ok && v.drop() < ov.drop()+maxDrop {
			return orig, true
		}
	}
	if k.Family == RetrievalFamily && k.Kind != schemas.RetrieverService {
		var first seriesKey
		for f, fv := range firing {
			if f.Family == RetrievalFamily && f.Kind == k.Kind && f.Domain == k.Domain && f.Model < k.Model &&
				v.drop() < fv.drop()+maxDrop && (first.Model == "" || f.Model < first.Model) {
				first = f
			}
		}
		if first.Model != "" {
			return first, true
		}
	}
	// The retrieval_hit outcomes of a service (RARE's family) fall with
	// its retriever's recall: the retriever's alert covers them.
	if k.Metric == RetrievalHitMetric {
		r := seriesKey{Model: k.Model, Family: RetrievalFamily, Metric: RetrievalMetric, Axis: RetrievalAxis, Kind: schemas.RetrieverService, Domain: k.Domain}
		if _, ok := firing[r]; ok {
			return r, true
		}
	}
	// Every other family asks the same model the same questions in other
	// forms (SURE's spurious features, PRGB's placeholders): when its
	// clean accuracy (RARE's original series) falls, theirs falls with it.
	// Their rates start elsewhere (a placeholder question is easier than
	// a clean one), so what is compared is the share of its rate each
	// kept: a series is explained unless it kept max_drop less of it.
	// A retriever's recall is not one of them: a worse retriever is a
	// cause of falling answers, never their symptom, and alerts of its own.
	clean := seriesKey{Model: k.Model, Family: CleanFamily, Metric: CleanMetric, Axis: OriginalAxis, Kind: OriginalAxis, Domain: k.Domain}
	if k != clean && k.Family != CleanFamily && k.Family != RetrievalFamily {
		if cv, ok := firing[clean]; ok && v.kept() >= cv.kept()-maxDrop {
			return clean, true
		}
	}
	return seriesKey{}, false
}

// CleanFamily and CleanMetric name, with OriginalAxis, the series of a
// model's clean accuracy: RARE's judge f on the unperturbed questions.
const (
	CleanFamily = "rare"
	CleanMetric = "f"
)

func (e *Evaluator) alert(k seriesKey, state string, v verdict, now, fired, resolved time.Time) schemas.Alert {
	a := schemas.Alert{
		AlertID:    schemas.ID(Rule, k.String(), strconv.FormatInt(fired.Unix(), 10)),
		Rule:       Rule,
		Series:     k.String(),
		State:      state,
		Baseline:   v.baseline,
		Recent:     v.recent,
		PValue:     v.q,
		FiredAt:    fired.UTC().Truncate(time.Second),
		ResolvedAt: resolved.UTC().Truncate(time.Second),
		Labels:     k.labels(),
	}
	// produced_at is the evaluation time, so the resolution (a later
	// evaluation) replaces the firing row of the same alert_id.
	a.ProducedAt = now.UTC().Truncate(time.Second)
	schemas.Stamp(&a, schemas.ID(a.AlertID, state))
	return a
}

// Commit records the states of alerts once they are durable.
func (e *Evaluator) Commit(alerts []schemas.Alert) {
	for _, a := range alerts {
		e.sent[a.Series] = a.ProducedAt
		if a.Repeat {
			continue
		}
		s := seriesState{State: a.State, AlertID: a.AlertID, FiredAt: a.FiredAt, Changed: a.ProducedAt,
			Baseline: a.Baseline, Recent: a.Recent, PValue: a.PValue}
		e.states[a.Series] = s
	}
}

func rate(x, n float64) float64 {
	if n <= 0 {
		return 0
	}
	return math.Max(0, math.Min(1, x/n))
}
