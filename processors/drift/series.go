package drift

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/robustream/robustream/schemas"
)

// Querier runs a read query against ClickHouse and returns its output in
// format ("" is TabSeparated). sinks/clickhouse's Engine satisfies it; this
// package does not import it (processors depend only on streams and
// schemas).
type Querier interface {
	Query(ctx context.Context, query, format string) ([]byte, error)
}

// AllDomains is the domain label of a series pooled over every domain.
const AllDomains = "*"

// seriesKey identifies a series: model × family × metric × axis/kind, over
// every domain (Domain AllDomains) or one.
type seriesKey struct {
	Model, Family, Metric, Axis, Kind, Domain string
}

// parseSeries reads a series name back (String); the model id, first, may
// itself hold a '|'.
func parseSeries(s string) (seriesKey, bool) {
	f := strings.Split(s, "|")
	if len(f) < 5 {
		return seriesKey{}, false
	}
	n := len(f)
	axis, kind, ok := strings.Cut(f[n-2], "/")
	if !ok {
		return seriesKey{}, false
	}
	return seriesKey{Model: strings.Join(f[:n-4], "|"), Family: f[n-4], Metric: f[n-3], Axis: axis, Kind: kind, Domain: f[n-1]}, true
}

// String is the series name, the Kafka key of its alerts:
// model|family|metric|axis/kind|domain.
func (k seriesKey) String() string {
	return strings.Join([]string{k.Model, k.Family, k.Metric, k.Axis + "/" + k.Kind, k.Domain}, "|")
}

func (k seriesKey) labels() map[string]string {
	return map[string]string{"model_id": k.Model, "family": k.Family, "metric": k.Metric,
		"axis": k.Axis, "kind": k.Kind, "domain": k.Domain}
}

// counts are one series' outcomes in the two windows: n outcomes, x the
// sum of their values (the successes, for 0/1 verdicts).
type counts struct {
	baseN, baseX, recentN, recentX float64
	// strata are the same counts per question pattern (single, chain,
	// star…), for a comparison of like with like (compare).
	strata map[string]*stratum
}

// stratum is one question pattern's counts in the two windows.
type stratum struct {
	baseN, baseX, recentN, recentX float64
}

func (c *counts) add(pattern string, recent bool, n, x float64) {
	if c.strata == nil {
		c.strata = map[string]*stratum{}
	}
	s := c.strata[pattern]
	if s == nil {
		s = &stratum{}
		c.strata[pattern] = s
	}
	if recent {
		c.recentN, c.recentX, s.recentN, s.recentX = c.recentN+n, c.recentX+x, s.recentN+n, s.recentX+x
	} else {
		c.baseN, c.baseX, s.baseN, s.baseX = c.baseN+n, c.baseX+x, s.baseN+n, s.baseX+x
	}
}

// comparison is a series' two windows compared like with like.
type comparison struct {
	baseN, recentN   float64 // outcomes compared: of the patterns both windows have
	baseline, recent float64 // rates; the baseline reweighted to the recent mix of patterns
	p                float64
	test             string
}

// compare compares the windows within each question pattern. The mix of
// questions shifts as the knowledge graph grows (new documents make star
// and chain questions about older ones, harder than single-hop ones), and
// a shift alone would read as a drop of every model. So only patterns
// asked in both windows are compared; the baseline is the rate the
// baseline window would have on the recent window's mix of patterns
// (direct standardization), and with more than one pattern the p-value is
// the Cochran–Mantel–Haenszel test's over the patterns. With one pattern
// it is Test's.
func (c *counts) compare() comparison {
	var out comparison
	var both []*stratum
	for _, s := range c.strata {
		if s.baseN > 0 && s.recentN > 0 {
			both = append(both, s)
			out.baseN += s.baseN
			out.recentN += s.recentN
		}
	}
	if len(both) == 0 {
		return comparison{p: 1, test: "none"}
	}
	var bx, rx float64
	for _, s := range both {
		bx += s.recentN * s.baseX / s.baseN
		rx += s.recentX
	}
	out.baseline, out.recent = rate(bx, out.recentN), rate(rx, out.recentN)
	if len(both) == 1 {
		s := both[0]
		out.p, out.test = Test(s.baseX, s.baseN, s.recentX, s.recentN)
		return out
	}
	tables := make([][4]float64, len(both))
	for i, s := range both {
		tables[i] = [4]float64{s.baseX, s.baseN, s.recentX, s.recentN}
	}
	out.p, out.test = MantelHaenszel(tables), "cmh"
	return out
}

// windows are the edges of one evaluation, rounded down to the rollup's
// bucket: baseline [baseStart, recentStart), recent [recentStart, end].
type windows struct {
	baseStart, recentStart, end time.Time
}

func windowsAt(now time.Time, c Config) windows {
	recentStart := now.Add(-c.RecentWindow).Truncate(bucket)
	return windows{baseStart: recentStart.Add(-c.BaselineWindow).Truncate(bucket), recentStart: recentStart, end: now}
}

// readCounts reads the windows' counts per series from the 5-minute rollup:
// a few rows per series and bucket instead of every outcome. It returns the
// series pooled over domains and, where a series spans more than one
// domain, each domain's own (with one domain the two would be the same
// series, alerting twice for one change).
//
// SURE's c (Y(original) − Y(perturbed), −1, 0 or 1) is a signed
// difference, not a rate: its y_original rows carry the rate a drop shows
// in, so c is not read.
//
// The baseline leaves out the buckets of incidents (Evaluator.incidents) of
// the series' model and family.
func readCounts(ctx context.Context, q Querier, w windows, skip []incident) (map[seriesKey]*counts, error) {
	exclude := ""
	for _, in := range skip {
		exclude += fmt.Sprintf("\n    AND NOT (model_id = %s AND toString(family) = %s AND bucket >= toDateTime(%d) AND bucket < toDateTime(%d) AND bucket < toDateTime(%d))",
			quote(in.model), quote(in.family), in.from.Unix(), in.to.Unix(), w.recentStart.Unix())
	}
	query := fmt.Sprintf(`SELECT model_id, toString(family), metric, axis, kind, domain,
    bucket >= toDateTime(%d) AS recent, sum(n), sum(value_sum), pattern
FROM robustream.robustness_5m
WHERE bucket >= toDateTime(%d) AND bucket <= toDateTime(%d)%s
    AND NOT (toString(family) = 'sure' AND metric = 'c')
GROUP BY model_id, family, metric, axis, kind, domain, recent, pattern`,
		w.recentStart.Unix(), w.baseStart.Unix(), w.end.Unix(), exclude)
	out, err := q.Query(ctx, query, "TabSeparated")
	if err != nil {
		return nil, fmt.Errorf("cannot read the rollup: %w", err)
	}
	rows := tsvRows(out)
	retrieval, err := readRetrieval(ctx, q, w, skip)
	if err != nil {
		return nil, err
	}
	rows = append(rows, retrieval...)
	perDomain := map[seriesKey]*counts{}
	pooled := map[seriesKey]*counts{}
	domains := map[seriesKey]map[string]bool{}
	for _, f := range rows {
		if len(f) != 10 {
			return nil, fmt.Errorf("rollup row has %d fields, want 10", len(f))
		}
		n, err1 := strconv.ParseFloat(f[7], 64)
		x, err2 := strconv.ParseFloat(f[8], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("rollup row %q: bad counts", f)
		}
		k := seriesKey{Model: f[0], Family: f[1], Metric: f[2], Axis: f[3], Kind: f[4], Domain: f[5]}
		all := k
		all.Domain = AllDomains
		if domains[all] == nil {
			domains[all] = map[string]bool{}
		}
		domains[all][k.Domain] = true
		for _, m := range []struct {
			m map[seriesKey]*counts
			k seriesKey
		}{{perDomain, k}, {pooled, all}} {
			c := m.m[m.k]
			if c == nil {
				c = &counts{}
				m.m[m.k] = c
			}
			c.add(f[9], f[6] == "1", n, x)
		}
	}
	for k, c := range perDomain {
		all := k
		all.Domain = AllDomains
		if len(domains[all]) > 1 {
			pooled[k] = c
		}
	}
	return pooled, nil
}

// RetrievalFamily, RetrievalMetric and RetrievalAxis name a retriever's
// series: model|retrieval|recall|retriever/<retriever>|domain, the mean
// context recall of the model's results through that retriever
// (docs/methods.md, Retrieval metrics), "service" for a RAG service's own.
const (
	RetrievalFamily = "retrieval"
	RetrievalMetric = "recall"
	RetrievalAxis   = "retriever"
	// RetrievalHitMetric is the metric of a service's retrieval-hit
	// outcomes (family rare), which its retriever's series covers.
	RetrievalHitMetric = "retrieval_hit"
)

// readRetrieval reads the retrievers' series in readCounts' row layout,
// from the eval results (recall is no outcome, so it is in no rollup): the
// results with retrieved passages, without failed calls and results asked
// before a service had indexed their document. Incidents of the
// retrieval family leave the baseline as they do for the rollup.
func readRetrieval(ctx context.Context, q Querier, w windows, skip []incident) ([][]string, error) {
	exclude := ""
	for _, in := range skip {
		if in.family != RetrievalFamily {
			continue
		}
		exclude += fmt.Sprintf("\n    AND NOT (model_id = %s AND evaluated_at >= toDateTime(%d) AND evaluated_at < toDateTime(%d) AND evaluated_at < toDateTime(%d))",
			quote(in.model), in.from.Unix(), in.to.Unix(), w.recentStart.Unix())
	}
	query := fmt.Sprintf(`SELECT model_id, %s, %s, %s, retriever, domain,
    evaluated_at >= toDateTime(%d) AS recent, count(), sum(retrieval_recall), pattern
FROM robustream.eval_results FINAL
WHERE evaluated_at >= toDateTime(%d) AND evaluated_at <= toDateTime(%d)
    AND retriever != '' AND error = '' AND index_state != %s%s
GROUP BY model_id, retriever, domain, recent, pattern`,
		quote(RetrievalFamily), quote(RetrievalMetric), quote(RetrievalAxis),
		w.recentStart.Unix(), w.baseStart.Unix(), w.end.Unix(), quote(schemas.IndexNotIndexed), exclude)
	out, err := q.Query(ctx, query, "TabSeparated")
	if err != nil {
		return nil, fmt.Errorf("cannot read the retrievers' recall: %w", err)
	}
	return tsvRows(out), nil
}

// tsvRows splits TabSeparated output into unescaped fields.
func tsvRows(b []byte) [][]string {
	var rows [][]string
	for _, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var fields []string
		for _, f := range strings.Split(string(line), "\t") {
			fields = append(fields, tsvUnescape(f))
		}
		rows = append(rows, fields)
	}
	return rows
}

var tsvUnescaper = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\'`, "'", `\0`, "\x00", `\r`, "\r")

func tsvUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return tsvUnescaper.Replace(s)
}

// revisionChanges says when model's entry in models.yaml changed since the
// baseline window began, from robustream.model_revisions (the engine
// records the revision in use at start and at every reload): each change
// of revision between consecutive records, in time order.
func revisionChanges(ctx context.Context, q Querier, model string, w windows) ([]string, error) {
	out, err := q.Query(ctx, fmt.Sprintf(`SELECT revision, toUnixTimestamp(seen_at) FROM robustream.model_revisions
WHERE model_id = %s AND seen_at <= toDateTime(%d) ORDER BY seen_at, revision`, quote(model), w.end.Unix()), "TabSeparated")
	if err != nil {
		return nil, fmt.Errorf("cannot read the models' revisions: %w", err)
	}
	var notes []string
	prev := ""
	for _, r := range tsvRows(out) {
		if len(r) != 2 {
			continue
		}
		at, _ := strconv.ParseInt(r[1], 10, 64)
		if prev != "" && r[0] != prev && at > w.baseStart.Unix() {
			notes = append(notes, fmt.Sprintf("the entry of %s in models.yaml changed at %s (revision %s → %s)",
				model, time.Unix(at, 0).UTC().Format("2006-01-02 15:04"), prev, r[0]))
		}
		prev = r[0]
	}
	return notes, nil
}

// quote renders s as a ClickHouse string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// around says what changed around a drop, from the raw outcomes of the
// series: recent outcomes about documents published after everything the
// baseline asked about (a new period of documents the model may not know),
// and models with outcomes in the recent window but none in the baseline (a
// model added, or a new model id for an updated one).
func around(ctx context.Context, q Querier, k seriesKey, w windows) (string, error) {
	where := fmt.Sprintf("model_id = %s AND family = %s AND metric = %s AND axis = %s AND kind = %s",
		quote(k.Model), quote(k.Family), quote(k.Metric), quote(k.Axis), quote(k.Kind))
	if k.Domain != AllDomains {
		where += " AND domain = " + quote(k.Domain)
	}
	rs, bs, end := w.recentStart.Unix(), w.baseStart.Unix(), w.end.Unix()
	if k.Family == RetrievalFamily {
		// No outcomes: the eval results' own published_at.
		where = strings.Replace(where, "family = "+quote(k.Family)+" AND metric = "+quote(k.Metric)+" AND axis = "+quote(k.Axis)+" AND kind = "+quote(k.Kind),
			"retriever = "+quote(k.Kind), 1)
	}
	table := "outcomes"
	if k.Family == RetrievalFamily {
		table = "eval_results"
	}
	query := fmt.Sprintf(`SELECT count(), countIf(published_at > (SELECT max(published_at) FROM robustream.%[5]s
    WHERE %[1]s AND evaluated_at >= toDateTime(%[2]d) AND evaluated_at < toDateTime(%[3]d))),
    toUnixTimestamp((SELECT max(published_at) FROM robustream.%[5]s
    WHERE %[1]s AND evaluated_at >= toDateTime(%[2]d) AND evaluated_at < toDateTime(%[3]d)))
FROM robustream.%[5]s WHERE %[1]s AND evaluated_at >= toDateTime(%[3]d) AND evaluated_at <= toDateTime(%[4]d)`,
		where, bs, rs, end, table)
	out, err := q.Query(ctx, query, "TabSeparated")
	if err != nil {
		return "", fmt.Errorf("cannot read the outcomes around the drop: %w", err)
	}
	var notes []string
	if rows := tsvRows(out); len(rows) == 1 && len(rows[0]) == 3 {
		total, _ := strconv.ParseFloat(rows[0][0], 64)
		newer, _ := strconv.ParseFloat(rows[0][1], 64)
		last, _ := strconv.ParseInt(rows[0][2], 10, 64)
		if total > 0 && newer > 0 && last > 0 {
			notes = append(notes, fmt.Sprintf("%.0f%% of the recent outcomes ask about documents published after %s, the latest the baseline asked about (a new period of documents)",
				100*newer/total, time.Unix(last, 0).UTC().Format(time.DateOnly)))
		}
	}
	query = fmt.Sprintf(`SELECT DISTINCT model_id FROM robustream.robustness_5m
WHERE bucket >= toDateTime(%d) AND bucket <= toDateTime(%d) AND model_id NOT IN
    (SELECT DISTINCT model_id FROM robustream.robustness_5m WHERE bucket >= toDateTime(%d) AND bucket < toDateTime(%d))
ORDER BY model_id`, rs, end, bs, rs)
	if out, err = q.Query(ctx, query, "TabSeparated"); err != nil {
		return "", fmt.Errorf("cannot read the models of the windows: %w", err)
	}
	var models []string
	for _, r := range tsvRows(out) {
		models = append(models, r[0])
	}
	sort.Strings(models)
	if len(models) > 0 {
		notes = append(notes, "new model ids in the recent window: "+strings.Join(models, ", ")+" (a model added or changed)")
	}
	changes, err := revisionChanges(ctx, q, k.Model, w)
	if err != nil {
		return "", err
	}
	notes = append(notes, changes...)
	if len(notes) == 0 {
		return "no new period of documents, no new model and no change of the model's entry in models.yaml", nil
	}
	return strings.Join(notes, "; "), nil
}
