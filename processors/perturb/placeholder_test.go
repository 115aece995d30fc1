package perturb

import (
	"bytes"
	"context"
	"hash/fnv"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/streams"
)

// demoPartitions is how many partitions manyDemoQuestions spreads the
// documents over, keyed by doc_id as the stages key them.
const demoPartitions = 4

// manyDemoQuestions runs several seeds of the demo feed, eight periods
// each, through the chunk, triplet and question stages: the questions,
// with their graph facts, that perturb really gets, a few thousand. The
// triplets reach the question stage as from demoPartitions partitions of
// rs.triplets (by doc_id), each in the source's order with its offsets,
// the partitions interleaved round-robin; reverse interleaves them the
// other way round (the last partition's next record first), as another
// run might.
func manyDemoQuestions(t *testing.T, seeds int, reverse ...bool) []*schemas.Question {
	t.Helper()
	var out []*schemas.Question
	for seed := range seeds {
		ch, err := chunk.NewStage(chunk.Config{})
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := triplet.NewStage(triplet.Config{})
		qs, _ := question.NewStage(question.Config{}, nil)
		var msgs []streams.Message
		for p := range 8 {
			for _, d := range demo.Generate(int64(100+seed), p) {
				schemas.Stamp(&d, schemas.ID(d.DocID, d.ContentHash))
				b, err := schemas.Encode(&d)
				if err != nil {
					t.Fatal(err)
				}
				msgs = append(msgs, streams.Message{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b})
			}
		}
		for _, proc := range []streams.Processor{ch, tr} {
			var next []streams.Message
			for _, m := range msgs {
				recs, err := proc.Process(context.Background(), m)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					next = append(next, streams.Message{Topic: r.Topic, Key: r.Key, Value: r.Value})
				}
			}
			msgs = next
		}
		// rs.triplets: partition by key, offsets per partition, then one
		// interleaving of the partitions.
		parts := make([][]streams.Message, demoPartitions)
		for _, m := range msgs {
			h := fnv.New32a()
			h.Write(m.Key)
			p := int(h.Sum32() % demoPartitions)
			m.Partition, m.Offset = p, int64(len(parts[p]))
			parts[p] = append(parts[p], m)
		}
		var questions []streams.Message
		for i := 0; ; i++ {
			left := false
			for j := range parts {
				p := j
				if len(reverse) > 0 && reverse[0] {
					p = len(parts) - 1 - j
				}
				if i < len(parts[p]) {
					left = true
					recs, err := qs.Process(context.Background(), parts[p][i])
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range recs {
						questions = append(questions, streams.Message{Topic: r.Topic, Key: r.Key, Value: r.Value})
					}
				}
			}
			if !left {
				break
			}
		}
		for _, m := range questions {
			q := new(schemas.Question)
			if err := schemas.Decode(m.Value, q); err != nil {
				t.Fatal(err)
			}
			if q.Retired == "" {
				out = append(out, q)
			}
		}
	}
	return out
}

func prgbStage(t *testing.T) *Stage {
	t.Helper()
	return mustStage(t, Config{WordNetDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Kinds: PlaceholderKinds(DefaultPlaceholders)})
}

// TestPlaceholderProperties checks, over the questions of several demo
// feeds: a placeholder variant's contexts never hold the original answer
// (under the judge's normalization) and its golden contexts hold the
// substitute, which is its expected answer; no noise document holds an
// accepted answer of the substituted question; and the variants are
// byte-identical when made again by a new stage.
func TestPlaceholderProperties(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo feed through four stages")
	}
	qs := manyDemoQuestions(t, 4)
	a, b := prgbStage(t), prgbStage(t)
	var questions, made, noise, weak, moderate, hard, withVariant int
	for _, q := range qs {
		questions++
		va, vb := a.Variants(q), b.Variants(q)
		ea, _ := encodeAll(va)
		eb, _ := encodeAll(vb)
		if !bytes.Equal(ea, eb) {
			t.Fatalf("%s: variants differ between two stages", q.QuestionID)
		}
		original := text.NewAnswers(q.Accepted())
		any := false
		for _, v := range va {
			if v.Axis != schemas.AxisPlaceholder {
				continue
			}
			made++
			any = true
			expr, err := text.ParseExpr(v.ExpectedAnswer)
			if err != nil {
				t.Fatalf("%s %s: expected answer %q does not parse: %v", q.QuestionID, v.Kind, v.ExpectedAnswer, err)
			}
			value := expr.Keywords()[0]
			if original.TokenSeq(value) || text.NewAnswers([]string{value}).TokenSeq(q.Answer) {
				t.Errorf("%s %s: substitute %q equals the answer %q", q.QuestionID, v.Kind, value, q.Answer)
			}
			golden, err := substitute(q.GTChunks, q.Accepted(), value)
			if err != nil {
				t.Fatalf("%s %s: %v", q.QuestionID, v.Kind, err)
			}
			substituted := text.NewAnswers([]string{value})
			holds := false
			for _, c := range v.Contexts {
				if original.TokenSeq(c) {
					t.Errorf("%s %s: a context holds the original answer %q:\n%s", q.QuestionID, v.Kind, q.Answer, c)
				}
				if slices.Contains(golden, c) {
					holds = holds || substituted.TokenSeq(c)
					continue
				}
				noise++
				if substituted.TokenSeq(c) {
					t.Errorf("%s %s: noise document holds the substituted answer %q: %s", q.QuestionID, v.Kind, value, c)
				}
				switch {
				case slices.Contains(q.PRGB.Hard, c):
					hard++
				case slices.Contains(q.PRGB.Moderate, c):
					moderate++
				case slices.Contains(q.PRGB.Weak, c):
					weak++
				}
			}
			if !holds {
				t.Errorf("%s %s: no golden context holds the substitute %q", q.QuestionID, v.Kind, value)
			}
		}
		if any {
			withVariant++
		}
	}
	t.Logf("%d questions, %d with placeholder variants, %d variants, %d noise documents (%.1f per variant: %d weak, %d moderate, %d hard)",
		questions, withVariant, made, noise, float64(noise)/float64(max(made, 1)), weak, moderate, hard)
	t.Logf("skips: %v", a.SkipReasons())
	if questions < 1000 {
		t.Errorf("only %d questions: the property needs thousands of documents' questions", questions)
	}
	if withVariant*10 < questions*8 {
		t.Errorf("%d of %d questions have a placeholder variant, want at least 80%%", withVariant, questions)
	}
	// The noise comes from the documents read before the question's on
	// its partition (question.prgbFacts): every level is drawn, and most
	// variants get several documents (the first documents of a partition
	// have no neighbours; shortfalls are counted, Shortfalls).
	if made == 0 || noise < 3*made || weak == 0 || moderate == 0 || hard == 0 {
		t.Errorf("%d noise documents over %d variants (weak %d, moderate %d, hard %d): want about 4/4/1 per variant", noise, made, weak, moderate, hard)
	}
}

// TestPlaceholderNoiseSameAcrossInterleavings: two runs whose partitions
// interleave differently (round-robin one way, then the other) ask the
// same questions with the same graph facts, so perturb makes byte-identical
// placeholder variants, noise included.
func TestPlaceholderNoiseSameAcrossInterleavings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo feed through four stages")
	}
	a, b := manyDemoQuestions(t, 1), manyDemoQuestions(t, 1, true)
	byID := func(qs []*schemas.Question) map[string]*schemas.Question {
		m := map[string]*schemas.Question{}
		for _, q := range qs {
			m[q.QuestionID] = q
		}
		return m
	}
	ma, mb := byID(a), byID(b)
	if len(ma) != len(mb) || len(ma) == 0 {
		t.Fatalf("%d and %d questions", len(ma), len(mb))
	}
	st := prgbStage(t)
	withNoise := 0
	for id, qa := range ma {
		qb := mb[id]
		if qb == nil {
			t.Fatalf("question %s asked in one interleaving only", id)
		}
		ea, _ := encodeAll(st.Variants(qa))
		eb, _ := encodeAll(st.Variants(qb))
		if !bytes.Equal(ea, eb) {
			t.Fatalf("%s: placeholder variants differ between the interleavings", id)
		}
		if qa.PRGB != nil && len(qa.PRGB.Weak)+len(qa.PRGB.Moderate)+len(qa.PRGB.Hard) > 0 {
			withNoise++
		}
	}
	if withNoise*2 < len(ma) {
		t.Errorf("%d of %d questions carry noise facts", withNoise, len(ma))
	}
}

func encodeAll(vs []*schemas.Variant) ([]byte, error) {
	var b bytes.Buffer
	for _, v := range vs {
		c := *v
		c.ProducedAt = time.Time{} // the stamp's clock, not content
		e, err := schemas.Encode(&c)
		if err != nil {
			return nil, err
		}
		b.Write(e)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// TestPlaceholderValueTypes checks the generated substitutes keep the
// answer's form, by hand.
func TestPlaceholderValueTypes(t *testing.T) {
	q := &schemas.Question{QuestionID: "q", Answer: "$1.31 billion", GTChunks: []string{"Revenue rose to $1.31 billion."}}
	for _, c := range []struct{ answer, form string }{
		{"$1.31 billion", `^\$\d\.\d\d billion$`},
		{"58.4%", `^\d{1,2}\.\d%$`},
		{"4,286 people", `^\d,\d{3} people$`},
		{"3 electric models", `^\d+ electric models$`},
		{"March 2024", `^[A-Z][a-z]+ 20\d\d$`},
		{"Q2 2024", `^Q[1-4] 20\d\d$`},
	} {
		q.Answer = c.answer
		vs := placeholderValues(q, q.QuestionID, text.NewAnswers(q.Accepted()), 3)
		if len(vs) != 3 {
			t.Errorf("%q: %d substitutes %q, want 3", c.answer, len(vs), vs)
		}
		for _, v := range vs {
			if !matches(c.form, v) || strings.EqualFold(v, c.answer) {
				t.Errorf("%q: substitute %q not of the form %s or equal to it", c.answer, v, c.form)
			}
		}
	}
	// A name takes a graph candidate of its shape, never a figure.
	q = &schemas.Question{QuestionID: "q2", Answer: "Mateo Haddad", GTChunks: []string{"Orion appointed Mateo Haddad as CFO."},
		PRGB: &schemas.PRGBFacts{Candidates: []string{"314 technicians", "David Bennett", "mateo haddad"}}}
	if got := placeholderValues(q, q.QuestionID, text.NewAnswers(q.Accepted()), 3); !slices.Equal(got, []string{"David Bennett"}) {
		t.Errorf("name substitutes %q, want [David Bennett]", got)
	}
}

func matches(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
