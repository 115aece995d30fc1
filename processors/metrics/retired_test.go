package metrics

import (
	"context"
	"testing"

	"github.com/robustream/robustream/sinks/clickhouse"
)

// TestQuestionRetiredNow: the drill-down says a question is retired while
// its latest retirement is at least as new as its latest emission; asked
// again since, it is not.
func TestQuestionRetiredNow(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e clickhouse.Engine) {
		drillFixture(t, e)
		ctx := context.Background()
		exec := func(sql string) {
			t.Helper()
			if err := e.Exec(ctx, sql); err != nil {
				t.Fatalf("%v\n%s", err, sql)
			}
		}
		check := func(what string, retired bool, reason string) {
			t.Helper()
			d, err := LoadQuestion(ctx, e.Query, "q1", "")
			if err != nil {
				t.Fatal(err)
			}
			if d.Question.Retired != retired || d.Question.RetiredReason != reason {
				t.Errorf("%s: retired %v (%q), want %v (%q)", what, d.Question.Retired, d.Question.RetiredReason, retired, reason)
			}
			qs, err := ListQuestions(ctx, e.Query, QuestionFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range qs.Items {
				if it.QuestionID == "q1" && it.Retired != retired {
					t.Errorf("%s: the question list says retired %v, want %v", what, it.Retired, retired)
				}
			}
		}
		check("never retired", false, "")
		exec(`INSERT INTO robustream.question_retirements (question_id, reason, doc_id, produced_at)
SELECT 'q1', 'deleted', 'd1', now() + 10`)
		check("retired after its emission", true, "deleted")
		exec(`INSERT INTO robustream.questions (question_id, question, answer, aliases, pattern, hops, gt_chunk_ids, d_r, doc_id, produced_at)
SELECT 'q1', 'What was Helios''s margin?', '9.3%', ['9.3 per cent'], 'single', toUInt8(1), ['c1'], toFloat64(0.25), 'd1', now() + 20`)
		check("asked again after its retirement", false, "")
		exec(`INSERT INTO robustream.question_retirements (question_id, reason, doc_id, produced_at)
SELECT 'q1', 'stale_edge', 'd1', now() + 30`)
		check("retired again", true, "stale_edge")
	})
}
