package clickhouse

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// scoreViews are the score views of schemas/sql 030 and 050, generated
// from processors/metrics: row views first, then the all-time
// aggregations (retrieval_hit_rates, listed apart, is RARE's too).
var scoreViews = []string{
	"rare_question_scores", "rare_retrieval_questions", "sure_instances", "grade_questions", "prgb_points",
	"rare_scores", "rare_retrieval_scores", "sure_scores", "sure_kind_scores", "sure_split_scores", "sure_model_scores",
	"grade_matrix", "grade_matrix_by_dr_agg", "grade_dr_quartiles", "prgb_scores", "prgb_task_scores",
}

// viewColumns are the columns users and cmd/robustream read, in order.
var viewColumns = map[string]string{
	"rare_question_scores":     "model_id question_id pattern hops domain published_at evaluated_at n f_sum query_n query_sum document_n document_sum retrieval_n retrieval_sum overall query_robustness document_robustness retrieval_robustness",
	"rare_retrieval_questions": "model_id question_id retriever pattern hops domain published_at evaluated_at n f_sum retrieval_robustness",
	"rare_retrieval_scores":    "model_id retriever n questions retrieval_robustness retrieval_robustness_pooled",
	"sure_split_scores":        "model_id known golden n rr wr lr acc_original acc_perturbed",
	"sure_model_scores":        "model_id n rr wr lr acc_original acc_perturbed",
	"grade_dr_quartiles":       "sim_func dr_agg dr_quartile questions dr_min dr_max",
	"rare_scores":              "model_id overall query_robustness document_robustness retrieval_robustness n questions overall_pooled query_robustness_pooled document_robustness_pooled retrieval_robustness_pooled",
	"sure_instances":           "model_id question_id variant_id axis kind known golden pattern hops domain published_at evaluated_at c y_original y_perturbed",
	"sure_scores":              "model_id axis kind known golden n rr wr lr acc_original acc_perturbed",
	"sure_kind_scores":         "model_id axis kind n rr wr lr acc_original acc_perturbed",
	"grade_questions":          "model_id question_id sim_func dr_agg difficulty hops pattern domain published_at evaluated_at n correct accuracy",
	"grade_matrix_by_dr_agg":   "model_id hops dr_quartile n error_rate questions sim_func dr_agg error_rate_pooled dr_min dr_max",
	"grade_matrix":             "model_id hops dr_quartile n error_rate questions sim_func error_rate_pooled dr_min dr_max",
	"prgb_points":              "model_id question_id task_class pattern hops domain published_at evaluated_at variants score",
	"prgb_scores":              "model_id n score all_correct_share partial_share all_wrong_share",
	"prgb_task_scores":         "model_id task_class n score all_correct_share partial_share all_wrong_share",
}

func TestScoreViewColumns(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		for _, v := range scoreViews {
			got := strings.Join(strings.Fields(scalar(t, e, "SELECT name FROM system.columns WHERE database = 'robustream' AND table = '"+v+"'")), " ")
			if got != viewColumns[v] {
				t.Errorf("%s columns:\n got %s\nwant %s", v, got, viewColumns[v])
			}
		}
	})
}

// The views tests build outcomes for tens of questions per family, compute
// every expected figure here in Go from the constructed rows (not with the
// views' SQL), and compare with the views, the rolling tables and the
// window queries of docs/queries.sql. Times: evaluations spread over
// 2024-03-31 to 2024-04-02, facts published in February, March and April
// 2024; the example queries' windows are 2024-04-01 (evaluation) and March
// 2024 (publication).

var viewsStart = time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC)

var (
	evalWindow = [2]time.Time{time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 4, 2, 0, 0, 0, 0, time.UTC)}
	pubWindow  = [2]time.Time{time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)}
)

func in(t time.Time, w [2]time.Time) bool { return !t.Before(w[0]) && t.Before(w[1]) }

// evalTime and pubTime spread questions over the windows: question i of
// model m is evaluated every 97 minutes from viewsStart (47 h for 30
// questions), its facts published in February, March or April.
func evalTime(i, m int) time.Time { return viewsStart.Add(time.Duration(i*97+m*13) * time.Minute) }
func pubTime(i int) time.Time {
	return time.Date(2024, time.Month(2+i%3), 1+i%27, 8, 0, 0, 0, time.UTC)
}

// cell is an expected value: a string compared as is, or a float64
// compared within 1e-9 (NaN equals NaN).
type cell any

func rowsOf(tb testing.TB, e Engine, q string) [][]string {
	tb.Helper()
	out := scalar(tb, e, q)
	if out == "" {
		return nil
	}
	var rows [][]string
	for _, l := range strings.Split(out, "\n") {
		rows = append(rows, strings.Split(l, "\t"))
	}
	return rows
}

func checkRows(t *testing.T, what string, got [][]string, want [][]cell) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d\n got %v\nwant %v", what, len(got), len(want), got, want)
		return
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("%s row %d: got %v, want %v", what, i, got[i], want[i])
			continue
		}
		for j, w := range want[i] {
			g := got[i][j]
			switch w := w.(type) {
			case float64:
				f, err := strconv.ParseFloat(g, 64)
				if err != nil || !(math.IsNaN(w) && math.IsNaN(f) || math.Abs(f-w) <= 1e-9) {
					t.Errorf("%s row %d (%v) column %d: got %s, want %v", what, i, want[i][0], j+1, g, w)
				}
			default:
				if g != fmt.Sprint(w) {
					t.Errorf("%s row %d (%v) column %d: got %q, want %q", what, i, want[i][0], j+1, g, fmt.Sprint(w))
				}
			}
		}
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// exampleQueries reads docs/queries.sql: each query follows a
// "-- name: X" line and ends with a line ending in ';'.
func exampleQueries(tb testing.TB) map[string]string {
	tb.Helper()
	b, err := os.ReadFile("../../docs/queries.sql")
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	name := ""
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		if n, ok := strings.CutPrefix(t, "-- name: "); ok {
			name = n
			continue
		}
		if t == "" || strings.HasPrefix(t, "--") || name == "" {
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(t, ";") {
			out[name] = strings.TrimSuffix(strings.TrimSpace(cur.String()), ";")
			cur.Reset()
			name = ""
		}
	}
	return out
}

func writeEvents(t *testing.T, e Engine, topic string, first int64, events []schemas.Event) {
	t.Helper()
	s := newSink(t, e, topic)
	if err := s.Write(context.Background(), batchOf(t, topic, first, events...)); err != nil {
		t.Fatal(err)
	}
}

// rareQ is one (model, question) of the RARE fixture.
type rareQ struct {
	model, question string
	eval, pub       time.Time
	f               map[string][]float64 // by axis
	kinds           map[string][]string  // by axis, parallel to f
}

func (q *rareQ) sums(axis string) (n, sum float64) {
	for a, vs := range q.f {
		if axis != "" && a != axis {
			continue
		}
		for _, v := range vs {
			n++
			sum += v
		}
	}
	return n, sum
}

// rareFixture: m1 and m2 on 30 questions with 0–3 query, 0–2 document, 0–2
// cross and (m2 only) 0–2 retrieval outcomes besides the original; m2 also
// has retrieval_hit outcomes, which no score counts; m3 is the two
// questions with f = (1,1,1,1,1) and (1,0): 0.75 per question, 6/7 pooled.
func rareFixture() ([]*rareQ, []schemas.Event) {
	rng := rand.New(rand.NewSource(1))
	var qs []*rareQ
	for m, model := range []string{"m1", "m2"} {
		for i := 0; i < 30; i++ {
			q := &rareQ{model: model, question: fmt.Sprintf("rq%02d", i), eval: evalTime(i, m), pub: pubTime(i),
				f: map[string][]float64{}, kinds: map[string][]string{}}
			counts := map[string]int{schemas.AxisOriginal: 1, schemas.AxisQuery: rng.Intn(4), schemas.AxisDocument: rng.Intn(3), "cross": rng.Intn(3)}
			if model == "m2" {
				counts[schemas.AxisRetrieval] = rng.Intn(3)
			}
			for axis, k := range counts {
				for j := 0; j < k; j++ {
					q.f[axis] = append(q.f[axis], float64(rng.Intn(3)/2)) // one in three is 1
					q.kinds[axis] = append(q.kinds[axis], fmt.Sprintf("%s_k%d", axis, j%2))
				}
			}
			qs = append(qs, q)
		}
	}
	qs = append(qs,
		&rareQ{model: "m3", question: "ex1", eval: evalTime(20, 0), pub: pubTime(1),
			f:     map[string][]float64{schemas.AxisOriginal: {1}, schemas.AxisQuery: {1, 1, 1, 1}},
			kinds: map[string][]string{schemas.AxisOriginal: {"original"}, schemas.AxisQuery: {"char", "qwerty", "wordnet", "llm_grammar"}}},
		&rareQ{model: "m3", question: "ex2", eval: evalTime(21, 0), pub: pubTime(1),
			f:     map[string][]float64{schemas.AxisOriginal: {1}, schemas.AxisQuery: {0}},
			kinds: map[string][]string{schemas.AxisOriginal: {"original"}, schemas.AxisQuery: {"char"}}})
	var events []schemas.Event
	for _, q := range qs {
		for axis, vs := range q.f {
			for j, v := range vs {
				id := fmt.Sprintf("%s-%s-%s-%d", q.model, q.question, axis, j)
				o := &schemas.Outcome{OutcomeID: "r-" + id, Family: schemas.FamilyRARE, Metric: "f", ModelID: q.model,
					VariantID: id, Axis: axis, Kind: q.kinds[axis][j], Value: v, EvaluatedAt: q.eval,
					QuestionRef: schemas.QuestionRef{QuestionID: q.question, Pattern: schemas.PatternSingle, Hops: 1, Domain: "finance", PublishedAt: q.pub}}
				events = append(events, stamped(o, o.OutcomeID))
				if q.model == "m2" {
					h := *o
					h.OutcomeID, h.Metric, h.Value = "h-"+id, "retrieval_hit", 1
					events = append(events, stamped(&h, h.OutcomeID))
				}
			}
		}
	}
	return qs, events
}

// rareExpect aggregates the (model, question)s that keep passes: per
// question means averaged over questions, and pooled means.
func rareExpect(qs []*rareQ, keep func(*rareQ) bool) [][]cell {
	type agg struct {
		questions float64
		qmean, qn map[string]float64 // by axis, "" = overall
		n, sum    map[string]float64
	}
	by := map[string]*agg{}
	var models []string
	for _, q := range qs {
		if !keep(q) {
			continue
		}
		a := by[q.model]
		if a == nil {
			a = &agg{qmean: map[string]float64{}, qn: map[string]float64{}, n: map[string]float64{}, sum: map[string]float64{}}
			by[q.model] = a
			models = append(models, q.model)
		}
		a.questions++
		for _, axis := range []string{"", schemas.AxisQuery, schemas.AxisDocument, schemas.AxisRetrieval} {
			n, s := q.sums(axis)
			if n > 0 {
				a.qmean[axis] += s / n
				a.qn[axis]++
			}
			a.n[axis] += n
			a.sum[axis] += s
		}
	}
	sort.Strings(models)
	var out [][]cell
	for _, m := range models {
		a := by[m]
		out = append(out, []cell{m,
			ratio(a.qmean[""], a.qn[""]), ratio(a.qmean["query"], a.qn["query"]), ratio(a.qmean["document"], a.qn["document"]), ratio(a.qmean["retrieval"], a.qn["retrieval"]),
			a.n[""], a.questions,
			ratio(a.sum[""], a.n[""]), ratio(a.sum["query"], a.n["query"]), ratio(a.sum["document"], a.n["document"]), ratio(a.sum["retrieval"], a.n["retrieval"])})
	}
	return out
}

func TestRAREScoresViews(t *testing.T) {
	qs, events := rareFixture()
	forEachEngine(t, func(t *testing.T, e Engine) {
		writeEvents(t, e, streams.TopicOutcomes, 0, events)
		rolled(t, e, len(events))
		all := func(*rareQ) bool { return true }
		want := rareExpect(qs, all)
		if want[2][0] != "m3" || want[2][1] != 0.75 || want[2][7] != 6.0/7 {
			t.Fatalf("fixture: m3 = %v, want overall 0.75 per question, 6/7 pooled", want[2])
		}
		if !math.IsNaN(want[0][4].(float64)) {
			t.Fatalf("fixture: m1 has retrieval outcomes")
		}
		checkRows(t, "rare_scores", rowsOf(t, e, "SELECT * FROM robustream.rare_scores ORDER BY model_id"), want)

		// An arbitrary window: docs/queries.sql, by evaluation and by period.
		ex := exampleQueries(t)
		win := rareExpect(qs, func(q *rareQ) bool { return in(q.eval, evalWindow) })
		if len(win) == 0 || win[0][6].(float64) >= want[0][6].(float64) {
			t.Fatalf("fixture: the evaluation window holds %v", win)
		}
		checkRows(t, "rare_by_evaluation", rowsOf(t, e, ex["rare_by_evaluation"]), win)

		checkRows(t, "rare_by_period", rowsOf(t, e, ex["rare_by_period"]), rareExpect(qs, func(q *rareQ) bool { return in(q.pub, pubWindow) }))

		// The rolling tables: pooled sums per bucket of evaluated_at.
		type key struct {
			bucket     time.Time
			model      string
			axis, kind string
		}
		for _, r := range []struct {
			table string
			size  time.Duration
		}{{"robustness_5m", 5 * time.Minute}, {"robustness_1h", time.Hour}, {"robustness_1d", 24 * time.Hour}} {
			n, sum := map[key]float64{}, map[key]float64{}
			var keys []key
			for _, q := range qs {
				for axis, vs := range q.f {
					for j, v := range vs {
						k := key{q.eval.Truncate(r.size), q.model, axis, q.kinds[axis][j]}
						if _, ok := n[k]; !ok {
							keys = append(keys, k)
						}
						n[k]++
						sum[k] += v
					}
				}
			}
			sort.Slice(keys, func(i, j int) bool {
				a, b := keys[i], keys[j]
				if !a.bucket.Equal(b.bucket) {
					return a.bucket.Before(b.bucket)
				}
				return a.model+"\x00"+a.axis+"\x00"+a.kind < b.model+"\x00"+b.axis+"\x00"+b.kind
			})
			var want [][]cell
			for _, k := range keys {
				want = append(want, []cell{k.bucket.Unix(), k.model, k.axis, k.kind, n[k], sum[k]})
			}
			checkRows(t, r.table, rowsOf(t, e, "SELECT toUnixTimestamp(bucket), model_id, axis, kind, sum(n), sum(value_sum) FROM robustream."+r.table+
				" WHERE family = 'rare' AND metric = 'f' GROUP BY bucket, model_id, axis, kind ORDER BY bucket, model_id, axis, kind"), want)

			if r.table == "robustness_1h" {
				// rare_hourly_rollup: per model and hour of the window.
				type hk struct {
					model string
					hour  time.Time
				}
				hn, hs := map[hk]float64{}, map[hk]float64{}
				var hks []hk
				for _, k := range keys {
					if !in(k.bucket, evalWindow) {
						continue
					}
					h := hk{k.model, k.bucket}
					if _, ok := hn[h]; !ok {
						hks = append(hks, h)
					}
					hn[h] += n[k]
					hs[h] += sum[k]
				}
				sort.Slice(hks, func(i, j int) bool {
					if hks[i].model != hks[j].model {
						return hks[i].model < hks[j].model
					}
					return hks[i].hour.Before(hks[j].hour)
				})
				var hw [][]cell
				for _, h := range hks {
					hw = append(hw, []cell{h.model, h.hour.Format(time.DateTime), hn[h], hs[h] / hn[h]})
				}
				checkRows(t, "rare_hourly_rollup", rowsOf(t, e, ex["rare_hourly_rollup"]), hw)
			}
			if r.table == "robustness_1d" {
				sort.Slice(keys, func(i, j int) bool {
					a, b := keys[i], keys[j]
					if a.model != b.model {
						return a.model < b.model
					}
					if !a.bucket.Equal(b.bucket) {
						return a.bucket.Before(b.bucket)
					}
					return a.axis+"\x00"+a.kind < b.axis+"\x00"+b.kind
				})
				var dw [][]cell
				for _, k := range keys {
					dw = append(dw, []cell{k.model, k.bucket.Format(time.DateTime), k.axis, k.kind, n[k], sum[k] / n[k]})
				}
				checkRows(t, "rare_daily_kinds", rowsOf(t, e, ex["rare_daily_kinds"]), dw)
			}
		}

		// A delivery repeated under another token (at-least-once) may add
		// rows to outcomes until they merge: the views count each outcome
		// once.
		writeEvents(t, e, streams.TopicOutcomes, 100000, events[:10])
		checkRows(t, "rare_scores after a repeated delivery", rowsOf(t, e, "SELECT * FROM robustream.rare_scores ORDER BY model_id"), want)
		if got := scalar(t, e, "SELECT count() FROM robustream.outcomes FINAL"); got != fmt.Sprint(len(events)) {
			t.Errorf("outcomes FINAL after a repeated delivery: %s, want %d", got, len(events))
		}
	})
}

// sureInst is one (model, perturbed instance) of the SURE fixture.
type sureInst struct {
	model, question, kind string
	known, golden         bool
	yo, yp                float64
	eval                  time.Time
}

func TestSUREScoresViews(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	kinds := []string{"format_json", "format_html", "logic_reverse"}
	var insts []sureInst
	var events []schemas.Event
	for m, model := range []string{"m1", "m2"} {
		for i := 0; i < 24; i++ {
			for j := 0; j < 2; j++ {
				in := sureInst{model: model, question: fmt.Sprintf("sq%02d", i), kind: kinds[(i+j)%3],
					known: rng.Intn(2) == 1, golden: rng.Intn(3) > 0, yo: float64(rng.Intn(2)), yp: float64(rng.Intn(2)), eval: evalTime(i, m)}
				insts = append(insts, in)
				vid := fmt.Sprintf("%s-%s-%d", model, in.question, j)
				for metric, v := range map[string]float64{"c": in.yo - in.yp, "y_original": in.yo} {
					o := &schemas.Outcome{OutcomeID: "s-" + vid + "-" + metric, Family: schemas.FamilySURE, Metric: metric, ModelID: model,
						VariantID: vid, Axis: schemas.AxisSpurious, Kind: in.kind, Known: in.known, Golden: in.golden, Value: v, EvaluatedAt: in.eval,
						QuestionRef: schemas.QuestionRef{QuestionID: in.question, Pattern: schemas.PatternSingle, Hops: 1, Domain: "finance", PublishedAt: pubTime(i)}}
					events = append(events, stamped(o, o.OutcomeID))
				}
			}
		}
	}
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	// expect groups the instances that keep passes by key; each row is
	// the key's cells then n, RR, WR, LR, Acc(original), Acc(perturbed),
	// counted from Y(original) and Y(perturbed) directly.
	expect := func(keep func(sureInst) bool, key func(sureInst) []cell) [][]cell {
		type agg struct{ n, rr, wr, lr, yo, yp float64 }
		by := map[string]*agg{}
		keys := map[string][]cell{}
		var order []string
		for _, in := range insts {
			if !keep(in) {
				continue
			}
			k := key(in)
			ks := fmt.Sprint(k)
			a := by[ks]
			if a == nil {
				a = &agg{}
				by[ks] = a
				keys[ks] = k
				order = append(order, ks)
			}
			a.n++
			switch {
			case in.yo == in.yp:
				a.rr++
			case in.yo == 0:
				a.wr++ // wrong → right
			default:
				a.lr++
			}
			a.yo += in.yo
			a.yp += in.yp
		}
		sort.Strings(order)
		var out [][]cell
		for _, ks := range order {
			a := by[ks]
			if a.rr+a.wr+a.lr != a.n {
				t.Fatalf("RR + WR + LR != n for %s", ks)
			}
			out = append(out, append(append([]cell{}, keys[ks]...), a.n, a.rr/a.n, a.wr/a.n, a.lr/a.n, a.yo/a.n, a.yp/a.n))
		}
		return out
	}
	split := func(in sureInst) []cell {
		return []cell{in.model, schemas.AxisSpurious, in.kind, b2i(in.known), b2i(in.golden)}
	}
	all := func(sureInst) bool { return true }
	forEachEngine(t, func(t *testing.T, e Engine) {
		writeEvents(t, e, streams.TopicOutcomes, 0, events)
		want := expect(all, split)
		if len(want) < 12 {
			t.Fatalf("fixture: only %d Known × Golden × kind cells", len(want))
		}
		checkRows(t, "sure_scores", rowsOf(t, e, "SELECT * FROM robustream.sure_scores ORDER BY model_id, axis, kind, known, golden"), want)
		checkRows(t, "sure_kind_scores", rowsOf(t, e, "SELECT * FROM robustream.sure_kind_scores ORDER BY model_id, axis, kind"),
			expect(all, func(in sureInst) []cell { return []cell{in.model, schemas.AxisSpurious, in.kind} }))
		// The identities, on the view's own figures.
		for _, v := range []string{"sure_scores", "sure_kind_scores"} {
			if bad := scalar(t, e, "SELECT count() FROM robustream."+v+" WHERE abs(rr + wr + lr - 1) > 1e-9 OR abs(acc_perturbed - (acc_original + wr - lr)) > 1e-9"); bad != "0" {
				t.Errorf("%s: %s rows break RR + WR + LR = 1 or Acc = Org + WR − LR", v, bad)
			}
		}
		checkRows(t, "sure_by_evaluation", rowsOf(t, e, exampleQueries(t)["sure_by_evaluation"]),
			expect(func(in sureInst) bool {
				return in.eval.After(evalWindow[0].Add(-time.Second)) && in.eval.Before(evalWindow[1])
			}, split))
	})
}

// gradeQ is one question of the GRADE fixture.
type gradeQ struct {
	id, simFunc     string
	hops            uint8
	dr, mean, power float64 // NaN: not recorded
}

// gradeRow is one (model, question) of the GRADE fixture.
type gradeRow struct {
	q          *gradeQ
	model      string
	n, correct float64
	eval       time.Time
}

func TestGRADEMatrixViews(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	// Three similarity functions with 10, 8 and 4 questions: bins of
	// 3/2/3/2, 2/2/2/2 and 1/1/1/1. probe has GRADE's four D_r 0.1–0.4;
	// embedding has a tie, split by question id; lexical also records the
	// mean and power-mean D_r (in another order).
	var qs []*gradeQ
	for i, dr := range []float64{0.55, 0.05, 0.95, 0.35, 0.15, 0.75, 0.45, 0.85, 0.25, 0.65} {
		qs = append(qs, &gradeQ{id: fmt.Sprintf("gl%02d", i), simFunc: "lexical_cosine", hops: uint8(1 + i%3), dr: dr, mean: 1 - dr, power: dr / 2})
	}
	for i, dr := range []float64{0.3, 0.1, 0.3, 0.8, 0.6, 0.2, 0.7, 0.5} {
		qs = append(qs, &gradeQ{id: fmt.Sprintf("ge%02d", i), simFunc: "embedding_cosine", hops: uint8(1 + i%2), dr: dr, mean: math.NaN(), power: math.NaN()})
	}
	for i, dr := range []float64{0.4, 0.2, 0.1, 0.3} {
		qs = append(qs, &gradeQ{id: fmt.Sprintf("gp%02d", i), simFunc: "probe_cosine", hops: 2, dr: dr, mean: math.NaN(), power: math.NaN()})
	}
	var rows []gradeRow
	var outcomes, questions []schemas.Event
	for i, q := range qs {
		scores := map[string]float64{"fluency": 0.9}
		if !math.IsNaN(q.mean) {
			scores["dr_mean"], scores["dr_power_mean"] = q.mean, q.power
		}
		questions = append(questions, stamped(&schemas.Question{QuestionID: q.id, Question: "Which?", Answer: "x", Hops: q.hops, DR: q.dr, SimFunc: q.simFunc, QAScores: scores}, q.id))
		for m, model := range []string{"m1", "m2"} {
			r := gradeRow{q: q, model: model, n: float64(1 + rng.Intn(2)), eval: evalTime(i, m)}
			for j := 0; j < int(r.n); j++ {
				v := float64(rng.Intn(2))
				r.correct += v
				o := &schemas.Outcome{OutcomeID: fmt.Sprintf("g-%s-%s-%d", model, q.id, j), Family: schemas.FamilyGRADE, Metric: "correct", ModelID: model,
					VariantID: fmt.Sprintf("%s-%d", q.id, j), Axis: schemas.AxisRetrieval, Kind: fmt.Sprintf("top3_%d", j), Value: v, EvaluatedAt: r.eval,
					QuestionRef: schemas.QuestionRef{QuestionID: q.id, Pattern: schemas.PatternChain, Hops: q.hops, DR: q.dr, Domain: "finance", PublishedAt: pubTime(i)}}
				outcomes = append(outcomes, stamped(o, o.OutcomeID))
			}
			rows = append(rows, r)
		}
	}
	// expect ranks the distinct questions of the kept rows per (sim_func,
	// dr_agg) by (difficulty, id) and gives each rank r of N the quartile
	// (r−1)·4/N + 1; cells: questions, outcomes, 1 − mean accuracy,
	// 1 − pooled accuracy, D_r range. sizes: questions per quartile.
	type cellKey struct {
		simFunc, agg, model string
		hops                uint8
		quartile            int
	}
	expect := func(keep func(gradeRow) bool) (map[cellKey][]float64, map[string][4]int) {
		diff := func(q *gradeQ, agg string) float64 {
			return map[string]float64{"min": q.dr, "mean": q.mean, "power_mean": q.power}[agg]
		}
		cells := map[cellKey][]float64{}
		sizes := map[string][4]int{}
		for _, agg := range []string{"min", "mean", "power_mean"} {
			groups := map[string][]*gradeQ{}
			seen := map[*gradeQ]bool{}
			for _, r := range rows {
				if keep(r) && !seen[r.q] && !math.IsNaN(diff(r.q, agg)) {
					seen[r.q] = true
					groups[r.q.simFunc] = append(groups[r.q.simFunc], r.q)
				}
			}
			for sf, g := range groups {
				sort.Slice(g, func(i, j int) bool {
					a, b := diff(g[i], agg), diff(g[j], agg)
					return a < b || a == b && g[i].id < g[j].id
				})
				quart := map[*gradeQ]int{}
				var sz [4]int
				for r, q := range g {
					quart[q] = r*4/len(g) + 1
					sz[quart[q]-1]++
				}
				sizes[sf+"/"+agg] = sz
				for _, r := range rows {
					if !keep(r) || quart[r.q] == 0 {
						continue
					}
					k := cellKey{sf, agg, r.model, r.q.hops, quart[r.q]}
					c := cells[k]
					if c == nil {
						c = []float64{0, 0, 0, 0, math.Inf(1), math.Inf(-1)}
					}
					d := diff(r.q, agg)
					c[0]++
					c[1] += r.n
					c[2] += r.correct / r.n
					c[3] += r.correct
					c[4], c[5] = math.Min(c[4], d), math.Max(c[5], d)
					cells[k] = c
				}
			}
		}
		return cells, sizes
	}
	// table turns cells into rows ordered by sim_func, dr_agg, model,
	// hops, quartile: questions, n, error rate, pooled error rate, range.
	table := func(cells map[cellKey][]float64, onlyMin bool) [][]cell {
		var keys []cellKey
		for k := range cells {
			if !onlyMin || k.agg == "min" {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool {
			a, b := keys[i], keys[j]
			if x, y := a.simFunc+"\x00"+a.agg+"\x00"+a.model, b.simFunc+"\x00"+b.agg+"\x00"+b.model; x != y {
				return x < y
			}
			if a.hops != b.hops {
				return a.hops < b.hops
			}
			return a.quartile < b.quartile
		})
		var out [][]cell
		for _, k := range keys {
			c := cells[k]
			out = append(out, []cell{k.simFunc, k.agg, k.model, int(k.hops), k.quartile, c[0], c[1], 1 - c[2]/c[0], 1 - c[3]/c[1], c[4], c[5]})
		}
		return out
	}
	all := func(gradeRow) bool { return true }
	cells, sizes := expect(all)
	for sf, want := range map[string][4]int{"lexical_cosine/min": {3, 2, 3, 2}, "lexical_cosine/mean": {3, 2, 3, 2}, "lexical_cosine/power_mean": {3, 2, 3, 2},
		"embedding_cosine/min": {2, 2, 2, 2}, "probe_cosine/min": {1, 1, 1, 1}} {
		if sizes[sf] != want {
			t.Fatalf("fixture: %s bins %v, want %v", sf, sizes[sf], want)
		}
	}
	if len(sizes) != 5 {
		t.Fatalf("fixture: bins for %v", sizes)
	}
	forEachEngine(t, func(t *testing.T, e Engine) {
		writeEvents(t, e, streams.TopicQuestions, 0, questions)
		writeEvents(t, e, streams.TopicOutcomes, 0, outcomes)
		const cols = "sim_func, dr_agg, model_id, hops, dr_quartile, questions, n, error_rate, error_rate_pooled, dr_min, dr_max"
		const order = " ORDER BY sim_func, dr_agg, model_id, hops, dr_quartile"
		checkRows(t, "grade_matrix_by_dr_agg", rowsOf(t, e, "SELECT "+cols+" FROM robustream.grade_matrix_by_dr_agg"+order), table(cells, false))
		checkRows(t, "grade_matrix", rowsOf(t, e, "SELECT sim_func, 'min', model_id, hops, dr_quartile, questions, n, error_rate, error_rate_pooled, dr_min, dr_max FROM robustream.grade_matrix ORDER BY sim_func, model_id, hops, dr_quartile"), table(cells, true))
		// Equal bins, read off the view: each question is asked of both
		// models, so m1's questions per quartile are the bin sizes.
		got := rowsOf(t, e, "SELECT sim_func, dr_agg, groupArray(q) FROM (SELECT sim_func, dr_agg, dr_quartile, sum(questions) AS q FROM robustream.grade_matrix_by_dr_agg WHERE model_id = 'm1' GROUP BY sim_func, dr_agg, dr_quartile ORDER BY sim_func, dr_agg, dr_quartile) GROUP BY sim_func, dr_agg ORDER BY sim_func, dr_agg")
		checkRows(t, "bin sizes", got, [][]cell{
			{"embedding_cosine", "min", "[2,2,2,2]"},
			{"lexical_cosine", "mean", "[3,2,3,2]"}, {"lexical_cosine", "min", "[3,2,3,2]"}, {"lexical_cosine", "power_mean", "[3,2,3,2]"},
			{"probe_cosine", "min", "[1,1,1,1]"}})
		// A window re-ranks its own questions.
		ex := exampleQueries(t)
		wcells, wsizes := expect(func(r gradeRow) bool { return in(r.eval, evalWindow) })
		if len(wsizes) == 0 {
			t.Fatal("fixture: no GRADE question in the evaluation window")
		}
		checkRows(t, "grade_by_evaluation", rowsOf(t, e, "SELECT "+cols+" FROM ("+ex["grade_by_evaluation"]+")"+order), table(wcells, false))
		var lex [][]cell
		for _, r := range table(cells, false) {
			if r[0] == "lexical_cosine" {
				lex = append(lex, []cell{r[1], r[2], r[3], r[4], r[5], r[7], r[9], r[10]})
			}
		}
		checkRows(t, "grade_mean_power_mean", rowsOf(t, e, ex["grade_mean_power_mean"]), lex)
	})
}

func TestPRGBScoresViews(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	classes := []string{"filtering", "combination", "reasoning"}
	type point struct {
		model, class string
		score        float64
		pub          time.Time
	}
	var points []point
	var events []schemas.Event
	for _, model := range []string{"m1", "m2"} {
		for i := 0; i < 27; i++ {
			p := point{model: model, class: classes[i%3], pub: pubTime(i / 3)}
			k := 1 + rng.Intn(4)
			for j := 0; j < k; j++ {
				v := float64(rng.Intn(2))
				p.score += v / float64(k)
				o := &schemas.Outcome{OutcomeID: fmt.Sprintf("p-%s-%d-%d", model, i, j), Family: schemas.FamilyPRGB, Metric: p.class, ModelID: model,
					VariantID: fmt.Sprintf("pq%02d-%d", i, j), Axis: schemas.AxisPlaceholder, Kind: "date", Value: v, EvaluatedAt: evalTime(i, 0),
					QuestionRef: schemas.QuestionRef{QuestionID: fmt.Sprintf("pq%02d", i), Pattern: schemas.PatternSingle, Hops: 1, Domain: "finance", PublishedAt: p.pub}}
				events = append(events, stamped(o, o.OutcomeID))
			}
			points = append(points, p)
		}
	}
	expect := func(keep func(point) bool, byClass bool) [][]cell {
		type agg struct{ n, sum, all, partial, none float64 }
		by := map[string]*agg{}
		var keys []string
		for _, p := range points {
			if !keep(p) {
				continue
			}
			k := p.model
			if byClass {
				k += "\t" + p.class
			}
			a := by[k]
			if a == nil {
				a = &agg{}
				by[k] = a
				keys = append(keys, k)
			}
			a.n++
			a.sum += p.score
			switch {
			case math.Abs(p.score-1) < 1e-12:
				a.all++
			case p.score == 0:
				a.none++
			default:
				a.partial++
			}
		}
		sort.Strings(keys)
		var out [][]cell
		for _, k := range keys {
			a := by[k]
			var row []cell
			for _, s := range strings.Split(k, "\t") {
				row = append(row, s)
			}
			out = append(out, append(row, a.n, a.sum/a.n, a.all/a.n, a.partial/a.n, a.none/a.n))
		}
		return out
	}
	all := func(point) bool { return true }
	forEachEngine(t, func(t *testing.T, e Engine) {
		writeEvents(t, e, streams.TopicOutcomes, 0, events)
		want := expect(all, false)
		for _, r := range want {
			if r[3].(float64) == 0 || r[4].(float64) == 0 || r[5].(float64) == 0 {
				t.Fatalf("fixture: %v lacks all-correct, partial or all-wrong points", r)
			}
		}
		checkRows(t, "prgb_scores", rowsOf(t, e, "SELECT * FROM robustream.prgb_scores ORDER BY model_id"), want)
		checkRows(t, "prgb_task_scores", rowsOf(t, e, "SELECT * FROM robustream.prgb_task_scores ORDER BY model_id, task_class"), expect(all, true))
		checkRows(t, "prgb_by_period", rowsOf(t, e, exampleQueries(t)["prgb_by_period"]), expect(func(p point) bool { return in(p.pub, pubWindow) }, true))
	})
}

// TestExampleQueries runs every query of docs/queries.sql: those the
// tests above do not check figure by figure must at least run.
func TestExampleQueries(t *testing.T) {
	ex := exampleQueries(t)
	for _, name := range []string{"rare_by_evaluation", "rare_by_period", "rare_retrieval_by_evaluation", "rare_hourly_rollup", "rare_daily_kinds",
		"sure_by_evaluation", "grade_by_evaluation", "grade_quartiles_by_evaluation", "grade_mean_power_mean", "prgb_by_period"} {
		if ex[name] == "" {
			t.Errorf("docs/queries.sql has no query %s", name)
		}
	}
	if len(ex) != 10 {
		t.Errorf("docs/queries.sql has %d queries, the tests know 10", len(ex))
	}
	forEachEngine(t, func(t *testing.T, e Engine) {
		for name, q := range ex {
			if _, err := e.Query(context.Background(), q, ""); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
}
