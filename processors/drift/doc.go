// Package drift is the drift evaluator: every alerts.interval it compares,
// per series (model × family × metric × axis/kind, pooled over domains and
// per domain), a recent window of outcomes with the baseline window just
// before it, and emits the alerts whose state changes to rs.alerts.
//
// The test: the two-proportion z-test, or Fisher's exact test when an
// expected cell count is below 5; series with fewer than min_samples
// outcomes in either window are not tested. The p-values of the series
// tested together are adjusted by Benjamini–Hochberg, so the share of false
// alarms among one evaluation's alerts stays at alpha however many series
// there are. A series fires when its adjusted p-value is ≤ alpha and its
// rate dropped by at least max_drop; it resolves, with hysteresis, when the
// drop is below half of max_drop, or below max_drop and no longer
// significant at ten times alpha; after a resolution it may fire again only
// when cooldown has passed.
//
// One cause, one alert: a series about to fire is held back while a series
// that explains it fires after the same evaluation. A per-domain series is
// explained by the same series over every domain; a perturbed series by the
// original (unperturbed) series of its model, family, metric and domain,
// unless it dropped at least max_drop more than the original did, which is
// robustness drift of its own. A model that starts refusing everything
// thus raises one alert, on its clean accuracy, which names the series it
// explains.
//
// The baseline never learns an incident: while an alert of a model's family
// fires (from the start of the recent window that fired it until it
// resolves), its buckets are left out of that model's baselines. Otherwise
// a long incident would become the baseline (resolving an alert on a model
// still broken) and the recovery would read as a drop on the series the
// incident had lifted. A firing series whose baseline is all incident is
// judged on its recent window against the rate it fell from.
//
// A firing alert also says what changed around it:
// recent outcomes about documents published after everything the baseline
// asked about, and model ids new in the recent window.
//
// Why it reads ClickHouse rather than consuming rs.outcomes: the 5-minute
// rollup (robustness_5m, kept by a materialized view) already holds n and
// value_sum per series and bucket, so one evaluation reads a few rows per
// series and bucket, whatever the window; consuming rs.outcomes would mean
// keeping every window's outcomes in state and replaying them after each
// restart. The price is that one process must own the evaluation, or each
// would alert on its own: it runs only in the process that runs the
// `alerts` stage (embedded mode has one process; in cluster mode, name
// `alerts` in exactly one process's --stages).
//
// Restarts do not re-fire: each series' state (firing or resolved, when it
// last changed) is rebuilt at start from the alerts table, where the alerts
// sink stores rs.alerts. Delivery to receivers is sinks/alert's, on its own
// consumer of rs.alerts.
//
// The package reads ClickHouse through the small Querier interface and must
// not import sinks, sources or other processors: streams and schemas only.
package drift
