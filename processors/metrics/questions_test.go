package metrics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/sinks/clickhouse"
)

// drillFixture writes three questions over two documents, their variants,
// two models' answers (closed book included) and RARE outcomes, plus one
// SURE outcome that a RARE filter must leave out:
//
//	q1 (single, 1 hop, d1):    A original correct f 1, char wrong f 0; B original correct f 1, char refused f 1
//	q2 (multi, 2 hops, d2):    A original correct f 1, char correct f 1; B original error (no outcome), char correct f 1
//	q3 (comparison, 2 hops, d1 with a chunk of d2): A original wrong f 0; B original correct f 1
func drillFixture(t *testing.T, e clickhouse.Engine) {
	t.Helper()
	ctx := context.Background()
	// One timestamp for every row: now() in each branch of a UNION ALL
	// may read different seconds, which clickhouse-server 18.16 refuses
	// ("values of constants are different in source and result").
	at := fmt.Sprintf("toDateTime(%d)", time.Now().Unix())
	exec := func(sql string) {
		t.Helper()
		sql = strings.ReplaceAll(sql, "now()", at)
		if err := e.Exec(ctx, sql); err != nil {
			t.Fatalf("%v\n%s", err, sql)
		}
	}
	exec(`INSERT INTO robustream.documents (doc_id, version, source, uri, title, text, produced_at)
SELECT 'd1', toUInt32(1), 'dir', 'file:///corpus/helios.md', 'Helios (old)', 'old', now()
UNION ALL SELECT 'd1', toUInt32(2), 'dir', 'file:///corpus/helios.md', 'Helios results', 'text one', now()
UNION ALL SELECT 'd2', toUInt32(1), 'dir', 'file:///corpus/orion.md', 'Orion report', 'text two', now()`)
	exec(`INSERT INTO robustream.chunks (chunk_id, doc_id, doc_version, ordinal, title, text, produced_at)
SELECT 'c1', 'd1', toUInt32(2), toUInt32(0), 'Helios results', 'Helios margin was 9.3%.', now()
UNION ALL SELECT 'c2', 'd2', toUInt32(1), toUInt32(3), 'Orion report', 'Orion hired 40 people.', now()`)
	exec(`INSERT INTO robustream.questions (question_id, question, answer, aliases, pattern, hops, gt_chunk_ids, d_r, doc_id, produced_at)
SELECT 'q1', 'What was Helios''s margin?', '9.3%', ['9.3 per cent'], 'single', toUInt8(1), ['c1'], toFloat64(0.25), 'd1', now()
UNION ALL SELECT 'q2', 'How many did Orion hire?', '40', emptyArrayString(), 'multi', toUInt8(2), ['c2'], toFloat64(0.5), 'd2', now()
UNION ALL SELECT 'q3', 'Which is larger?', 'Helios', emptyArrayString(), 'comparison', toUInt8(2), ['c1', 'c2'], toFloat64(0.75), 'd1', now()`)
	type v struct{ id, q, axis, kind, query string }
	vs := []v{{"v1o", "q1", "original", "original", "What was Helios's margin?"}, {"v1c", "q1", "query", "char", "Whta was Helios's margin?"},
		{"v2o", "q2", "original", "original", "How many did Orion hire?"}, {"v2c", "q2", "query", "char", "How mnay did Orion hire?"},
		{"v3o", "q3", "original", "original", "Which is larger?"}}
	var sel []string
	for _, x := range vs {
		sel = append(sel, fmt.Sprintf("SELECT '%s', '%s', '%s', '%s', '%s', ['context of %s'], toUInt8(1), now()", x.id, x.q, x.axis, x.kind, strings.ReplaceAll(x.query, "'", "''"), x.id))
	}
	exec(`INSERT INTO robustream.variants (variant_id, question_id, axis, kind, query, contexts, answer_available, produced_at) ` + strings.Join(sel, " UNION ALL "))
	type r struct {
		variant, q, model, axis, kind, answer string
		refused, correct                      int
		err                                   string
		closed                                int
	}
	rs := []r{
		{"v1o", "q1", "A", "original", "original", "9.3%", 0, 1, "", 0}, {"v1c", "q1", "A", "query", "char", "8%", 0, 0, "", 0},
		{"v1o", "q1", "B", "original", "original", "9.3%", 0, 1, "", 0}, {"v1c", "q1", "B", "query", "char", "no such info", 1, 0, "", 0},
		{"v2o", "q2", "A", "original", "original", "40", 0, 1, "", 0}, {"v2c", "q2", "A", "query", "char", "40", 0, 1, "", 0},
		{"v2o", "q2", "B", "original", "original", "", 0, 0, "HTTP 500", 0}, {"v2c", "q2", "B", "query", "char", "40", 0, 1, "", 0},
		{"v3o", "q3", "A", "original", "original", "Orion", 0, 0, "", 0}, {"v3o", "q3", "B", "original", "original", "Helios", 0, 1, "", 0},
		{"cb1", "q1", "A", "closed_book", "closed_book", "no such info", 1, 0, "", 1}, {"cb1", "q1", "B", "closed_book", "closed_book", "9%", 0, 0, "", 1},
	}
	sel = nil
	for i, x := range rs {
		retrieved := "emptyArrayString()"
		if x.variant == "v1o" && x.model == "B" {
			retrieved = "['passage about Helios', 'passage about Orion']"
		}
		sel = append(sel, fmt.Sprintf("SELECT 'r%02d', '%s', '%s', '%s', toUInt8(%d), '%s', '%s', '%s', toUInt8(%d), toUInt8(%d), 'token_seq', '%s', %s, now(), now()",
			i, x.variant, x.q, x.model, x.closed, x.axis, x.kind, x.answer, x.refused, x.correct, x.err, retrieved))
	}
	exec(`INSERT INTO robustream.eval_results (request_id, variant_id, question_id, model_id, closed_book, axis, kind, answer, refused, correct, judge_method, error, retrieved, evaluated_at, produced_at) ` +
		strings.Join(sel, " UNION ALL "))
	type o struct {
		family, metric, model, q, variant, axis, kind, pattern string
		hops                                                   int
		value                                                  float64
	}
	os := []o{
		{"rare", "f", "A", "q1", "v1o", "original", "original", "single", 1, 1}, {"rare", "f", "A", "q1", "v1c", "query", "char", "single", 1, 0},
		{"rare", "f", "B", "q1", "v1o", "original", "original", "single", 1, 1}, {"rare", "f", "B", "q1", "v1c", "query", "char", "single", 1, 1},
		{"rare", "f", "A", "q2", "v2o", "original", "original", "multi", 2, 1}, {"rare", "f", "A", "q2", "v2c", "query", "char", "multi", 2, 1},
		{"rare", "f", "B", "q2", "v2c", "query", "char", "multi", 2, 1},
		{"rare", "f", "A", "q3", "v3o", "original", "original", "comparison", 2, 0}, {"rare", "f", "B", "q3", "v3o", "original", "original", "comparison", 2, 1},
		{"sure", "c", "A", "q1", "v1o", "spurious", "format_html", "single", 1, -1},
	}
	sel = nil
	for i, x := range os {
		dr := map[string]float64{"q1": 0.25, "q2": 0.5, "q3": 0.75}[x.q]
		sel = append(sel, fmt.Sprintf("SELECT 'o%02d', '%s', '%s', '%s', '%s', '%s', '%s', '%s', '%s', toUInt8(%d), toFloat64(%g), toFloat64(%g), now(), now()",
			i, x.family, x.metric, x.model, x.q, x.variant, x.axis, x.kind, x.pattern, x.hops, dr, x.value))
	}
	exec(`INSERT INTO robustream.outcomes (outcome_id, family, metric, model_id, question_id, variant_id, axis, kind, pattern, hops, d_r, value, evaluated_at, produced_at) ` +
		strings.Join(sel, " UNION ALL "))
}

// TestQuestionsDrillDown lists the fixture's questions under filters and
// checks the order, counts, scores and verdicts computed by hand in
// drillFixture's comment; hostile values select nothing and break nothing.
func TestQuestionsDrillDown(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		drillFixture(t, e)
		ctx := context.Background()
		list := func(f QuestionFilter) QuestionPage {
			t.Helper()
			p, err := ListQuestions(ctx, e.Query, f)
			if err != nil {
				t.Fatalf("%+v: %v", f, err)
			}
			return p
		}
		ids := func(p QuestionPage) string {
			var s []string
			for _, it := range p.Items {
				s = append(s, it.QuestionID)
			}
			return strings.Join(s, ",")
		}
		f := func(filter QuestionFilter, wantIDs string, wantTotal int64) QuestionPage {
			t.Helper()
			p := list(filter)
			if got := ids(p); got != wantIDs || p.Total != wantTotal {
				t.Errorf("%+v: questions %q of %d, want %q of %d", filter, got, p.Total, wantIDs, wantTotal)
			}
			return p
		}
		// Worst first: q3 (1/2), q1 (3/4), q2 (3/3).
		all := f(QuestionFilter{}, "q3,q1,q2", 3)
		if all.Family != "rare" || all.NextOffset != nil {
			t.Errorf("family %q, next offset %v", all.Family, all.NextOffset)
		}
		if it := all.Items[1]; it.Question != "What was Helios's margin?" || it.Answer != "9.3%" || it.Pattern != "single" || it.Hops != 1 ||
			it.DR != 0.25 || len(it.Documents) != 1 || it.Documents[0].Title != "Helios results" || it.Documents[0].Version != 2 {
			t.Errorf("q1 item %+v", it)
		}
		if docs := all.Items[0].Documents; len(docs) != 2 || docs[0].DocID != "d1" || docs[1].DocID != "d2" || docs[1].URI != "file:///corpus/orion.md" {
			t.Errorf("q3's documents %+v, want d1 and d2 (its chunk c2)", docs)
		}
		q1 := all.Items[1].Scores
		if len(q1) != 2 || q1[0].Model != "A" || q1[0].N != 2 || q1[0].Score != 0.5 || q1[1].Model != "B" || q1[1].Score != 1 ||
			q1[0].Verdicts["correct"] != 1 || q1[0].Verdicts["wrong"] != 1 || q1[1].Verdicts["refused"] != 1 {
			t.Errorf("q1 scores %+v", q1)
		}
		// A model's kind: q1 (0), q2 (1), with A's verdicts in the cell only.
		p := f(QuestionFilter{Model: "A", Axis: "query", Kind: "char"}, "q1,q2", 2)
		if s := p.Items[0].Scores; len(s) != 1 || s[0].Score != 0 || s[0].N != 1 || s[0].Verdicts["wrong"] != 1 || len(s[0].Verdicts) != 1 {
			t.Errorf("A's char cell of q1: %+v", s)
		}
		f(QuestionFilter{Verdict: "refused"}, "q1", 1)
		f(QuestionFilter{Model: "A", Verdict: "refused"}, "", 0)
		f(QuestionFilter{Verdict: "error"}, "q2", 1)
		f(QuestionFilter{Document: "d2"}, "q3,q2", 2)
		f(QuestionFilter{Pattern: "multi"}, "q2", 1)
		f(QuestionFilter{Hops: 2}, "q3,q2", 2)
		lo, hi, top, bad := 0.3, 0.6, 0.75, 1.5
		f(QuestionFilter{DRMin: &lo, DRMax: &hi}, "q2", 1)
		f(QuestionFilter{DRMin: &lo, DRMax: &top}, "q3,q2", 2) // inclusive
		f(QuestionFilter{Family: "grade", Quartile: 1}, "", 0) // no GRADE rows
		f(QuestionFilter{Family: "sure"}, "q1", 1)
		f(QuestionFilter{Axis: "spurious"}, "q1", 1) // the axis implies SURE
		f(QuestionFilter{Window: Since("now() - INTERVAL 1 HOUR")}, "q3,q1,q2", 3)
		f(QuestionFilter{Window: Window{To: "now() - INTERVAL 1 HOUR"}}, "", 0)
		// Pages.
		p = f(QuestionFilter{Limit: 1, Offset: 1}, "q1", 3)
		if p.NextOffset == nil || *p.NextOffset != 2 {
			t.Errorf("next offset %v, want 2", p.NextOffset)
		}
		if p = f(QuestionFilter{Limit: 1, Offset: 2}, "q2", 3); p.NextOffset != nil {
			t.Errorf("next offset %v on the last page", *p.NextOffset)
		}
		// Hostile values are values: they select nothing.
		for _, bad := range []string{`A' OR '1'='1`, `A\' OR 1=1 --`, `\`, `'); DROP DATABASE robustream; --`, "A'\n OR 1", `q1' UNION ALL SELECT 1 --`} {
			f(QuestionFilter{Model: bad}, "", 0)
			f(QuestionFilter{Kind: bad, Document: bad, Pattern: bad, Verdict: ""}, "", 0)
			if _, err := LoadQuestion(ctx, e.Query, bad, bad); !errors.Is(err, ErrNoQuestion) {
				t.Errorf("LoadQuestion(%q): %v, want ErrNoQuestion", bad, err)
			}
		}
		f(QuestionFilter{}, "q3,q1,q2", 3) // all still there
		for _, bad := range []QuestionFilter{{Verdict: "maybe"}, {Family: "nope"}, {Limit: MaxQuestionLimit + 1}, {Offset: -1},
			{Model: "A\xff"}, {Kind: "a\x00b"}, {Hops: 300}, {DRMax: &bad}, {Quartile: 5}, {Document: strings.Repeat("x", 600)}} {
			if _, err := ListQuestions(ctx, e.Query, bad); !errors.Is(err, ErrBadFilter) {
				t.Errorf("%+v: %v, want ErrBadFilter", bad, err)
			}
		}
	})
}

// TestQuestionDetail loads q1 whole: its document and chunk, each variant
// with both models' answers, verdicts and outcomes, the closed-book
// answers and retrieved passages.
func TestQuestionDetail(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		drillFixture(t, e)
		ctx := context.Background()
		d, err := LoadQuestion(ctx, e.Query, "q1", "")
		if err != nil {
			t.Fatal(err)
		}
		if d.Question.Question != "What was Helios's margin?" || len(d.Question.Aliases) != 1 || d.Question.Retired {
			t.Errorf("question %+v", d.Question)
		}
		if len(d.Documents) != 1 || d.Documents[0].Title != "Helios results" {
			t.Errorf("documents %+v", d.Documents)
		}
		if len(d.Chunks) != 1 || d.Chunks[0].Text != "Helios margin was 9.3%." {
			t.Errorf("chunks %+v", d.Chunks)
		}
		if len(d.Variants) != 2 || d.Variants[0].Kind != "original" || d.Variants[1].Kind != "char" || d.Variants[1].Query != "Whta was Helios's margin?" ||
			len(d.Variants[1].Contexts) != 1 || d.Variants[1].Contexts[0] != "context of v1c" {
			t.Fatalf("variants %+v", d.Variants)
		}
		verdicts := map[string]string{}
		for _, v := range d.Variants {
			for _, a := range v.Answers {
				verdicts[v.Kind+"/"+a.Model] = a.Verdict
				if len(a.Outcomes) != 1 || a.Outcomes[0].Family != "rare" || a.Outcomes[0].Metric != "f" {
					if !(v.Kind == "original" && a.Model == "A") { // A's original also has the SURE row
						t.Errorf("%s/%s outcomes %+v", v.Kind, a.Model, a.Outcomes)
					}
				}
			}
		}
		want := map[string]string{"original/A": "correct", "char/A": "wrong", "original/B": "correct", "char/B": "refused"}
		if fmt.Sprint(verdicts) != fmt.Sprint(want) {
			t.Errorf("verdicts %v, want %v", verdicts, want)
		}
		b := d.Variants[0].Answers[1]
		if b.Model != "B" || len(b.Retrieved) != 2 || b.Retrieved[0] != "passage about Helios" || b.Attempts != 1 {
			t.Errorf("B's original answer %+v", b)
		}
		if len(d.ClosedBook) != 2 || d.ClosedBook[0].Verdict != "refused" || d.ClosedBook[1].Answer != "9%" || d.ClosedBook[1].Verdict != "wrong" {
			t.Errorf("closed book %+v", d.ClosedBook)
		}
		var sawA bool
		for _, s := range d.Scores {
			if s.Model == "A" && s.Family == "rare" && s.Metric == "f" {
				sawA = s.N == 2 && s.Mean == 0.5
			}
		}
		if !sawA {
			t.Errorf("scores %+v: want A's rare f 0.5 over 2", d.Scores)
		}
		// One model only.
		if d, err = LoadQuestion(ctx, e.Query, "q1", "B"); err != nil || len(d.ClosedBook) != 1 || len(d.Variants[0].Answers) != 1 {
			t.Errorf("q1 for B: %v %+v", err, d.ClosedBook)
		}
		if _, err := LoadQuestion(ctx, e.Query, "nope", ""); !errors.Is(err, ErrNoQuestion) {
			t.Errorf("missing question: %v", err)
		}
	})
}
