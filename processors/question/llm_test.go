package question_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// llmRecorded is the directory of the recorded generator replies and the
// two reports (a robot maker's and its largest customer's) they were
// written for.
const llmRecorded = "../provider/simserver/testdata/recorded"

// llmServer starts the simulated server playing the recording, with quick
// costs, and returns it with a generator client.
func llmServer(t *testing.T) (*simserver.Server, provider.Generator) {
	t.Helper()
	rec, err := simserver.LoadRecording(filepath.Join(llmRecorded, "recording.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := simserver.Start(simserver.Config{Recorded: rec, PrefillPerToken: time.Nanosecond,
		CachedPrefillPerToken: time.Nanosecond, DecodePerToken: time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g, err := provider.NewOpenAI("generator", provider.OpenAIOptions{BaseURL: s.BaseURL(), Model: simserver.DefaultModel})
	if err != nil {
		t.Fatal(err)
	}
	return s, g
}

// The facts of the two reports the recorded questions were written from.
var (
	factRevenue  = question.Fact{Head: "Northwind Robotics", Relation: "reported revenue of", Tail: "$412 million", ChunkID: "n1", Sentence: "Northwind Robotics reported revenue of $412 million for the first quarter of 2026, up 18% from a year earlier."}
	factHQ       = question.Fact{Head: "Northwind Robotics", Relation: "is headquartered in", Tail: "Gothenburg, Sweden", ChunkID: "n1", Sentence: "Northwind is headquartered in Gothenburg, Sweden, and employs 2,870 people."}
	factStaff    = question.Fact{Head: "Northwind Robotics", Relation: "employs", Tail: "2,870 people", ChunkID: "n1", Sentence: "Northwind is headquartered in Gothenburg, Sweden, and employs 2,870 people."}
	factOrder    = question.Fact{Head: "Harbor Keel Logistics", Relation: "ordered robots from", Tail: "Northwind Robotics", ChunkID: "h2", Sentence: "Harbor Keel ordered 600 Tern AMR-40 robots from Northwind Robotics in February 2026 to replace manual pallet movement."}
	factLidar    = question.Fact{Head: "Northwind Robotics", Relation: "sources lidar sensors from", Tail: "Ostrava Photonics", ChunkID: "n5", Sentence: "Northwind sources its lidar sensors from Ostrava Photonics, which supplied 4,100 units in the quarter."}
	factFire     = question.Fact{Head: "Ostrava Photonics", Relation: "operates factory in", Tail: "Plzeň", ChunkID: "n5", Sentence: "A fire at Ostrava Photonics' Plzeň factory on 9 January 2026 delayed 380 robot deliveries by about three weeks."}
	factPacifica = question.Fact{Head: "Pacifica Freight", Relation: "signed warehouse contract with", Tail: "Northwind Robotics", ChunkID: "n2", Sentence: "Sales to customers outside Europe rose to 31% of revenue, led by a warehouse contract with Pacifica Freight in Melbourne."}
	factParcels  = question.Fact{Head: "Harbor Keel Logistics", Relation: "handled", Tail: "18.4 million parcels", ChunkID: "h1", Sentence: "Harbor Keel Logistics handled 18.4 million parcels in the first quarter of 2026, an increase of 9% year on year."}
	factMargin   = question.Fact{Head: "gross margin", Relation: "helped by", Tail: "lower actuator costs", ChunkID: "n1", Sentence: "Gross margin rose to 41.2%, helped by lower actuator costs."}
	factLumeris  = question.Fact{Head: "Lumeris", Relation: "is based in", Tail: "Grenoble", ChunkID: "n5", Sentence: "Northwind has since qualified Lumeris of Grenoble as a second lidar supplier."}
)

// TestLLMWriter writes one question per pattern, through replies in clean
// JSON, in a fence with prose, and with typographic quotes and a trailing
// comma.
func TestLLMWriter(t *testing.T) {
	_, g := llmServer(t)
	w := question.NewLLMWriter(g)
	for _, tc := range []struct {
		pattern, answer, pivot, period string
		facts                          []question.Fact
		want                           string
	}{
		{schemas.PatternSingle, "$412 million", "", "Q1 2026", []question.Fact{factRevenue}, "What revenue did Northwind Robotics report"},
		{schemas.PatternChain, "Gothenburg, Sweden", "Northwind Robotics", "February 2026", []question.Fact{factOrder, factHQ}, "In which city is the robot maker"},
		{schemas.PatternStar, "2,870 people", "Northwind Robotics", "", []question.Fact{factStaff, factHQ, factRevenue}, "How many people are employed"},
		{schemas.PatternInvertedStar, "Pacifica Freight", "Northwind Robotics", "", []question.Fact{factOrder, factPacifica}, "Which Melbourne company"},
		{schemas.PatternPath, "Plzeň", "Northwind Robotics", "", []question.Fact{factOrder, factLidar, factFire}, "in which city is that supplier's factory"},
	} {
		q, err := w.Write(context.Background(), tc.pattern, tc.facts, tc.answer, tc.pivot, tc.period)
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if !strings.Contains(q, tc.want) || !strings.HasSuffix(q, "?") {
			t.Errorf("%s: %q, want a question containing %q", tc.pattern, q, tc.want)
		}
	}
}

// TestLLMWriterRejects: the checks refuse a question that names the pivot,
// gives the answer away or is not a question; an empty question is the
// model declining; prose is unusable. Rejected replies are not cached.
func TestLLMWriterRejects(t *testing.T) {
	s, g := llmServer(t)
	w := question.NewLLMWriter(g)
	for _, tc := range []struct {
		name, pattern, answer, pivot string
		facts                        []question.Fact
		err                          error
		reason                       string
	}{
		{"pivot named", schemas.PatternChain, "Plzeň", "Ostrava Photonics", []question.Fact{factLidar, factFire}, question.ErrQuestionRejected, `names "Ostrava Photonics"`},
		{"answer leaked", schemas.PatternStar, "$412 million", "Northwind Robotics", []question.Fact{factRevenue, factHQ, factStaff}, question.ErrQuestionRejected, "gives the answer"},
		{"no question mark", schemas.PatternSingle, "18.4 million parcels", "", []question.Fact{factParcels}, question.ErrQuestionRejected, "question mark"},
		{"declined", schemas.PatternSingle, "lower actuator costs", "", []question.Fact{factMargin}, question.ErrQuestionRejected, "declined"},
		{"prose", schemas.PatternSingle, "Grenoble", "", []question.Fact{factLumeris}, question.ErrLLMOutput, "no JSON object"},
	} {
		before := s.Stats().Requests
		for range 2 {
			q, err := w.Write(context.Background(), tc.pattern, tc.facts, tc.answer, tc.pivot, "")
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("%s: %q, err %v; want %v saying %q", tc.name, q, err, tc.err, tc.reason)
			}
		}
		if n := s.Stats().Requests - before; n != 2 {
			t.Errorf("%s: %d requests for two calls, want 2 (nothing cached)", tc.name, n)
		}
	}
	if _, err := w.Write(context.Background(), "triangle", []question.Fact{factHQ}, "Gothenburg", "", ""); err == nil {
		t.Error("unknown pattern accepted")
	}
}

// TestLLMWriterCache: the same facts asked again are answered from the
// cache without a request.
func TestLLMWriterCache(t *testing.T) {
	s, g := llmServer(t)
	w := question.NewLLMWriter(g)
	var qs []string
	for range 2 {
		q, err := w.Write(context.Background(), schemas.PatternSingle, []question.Fact{factRevenue}, "$412 million", "", "Q1 2026")
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	if n := s.Stats().Requests; n != 1 || qs[0] != qs[1] {
		t.Errorf("%d requests, questions %q; want 1 request and the same question", n, qs)
	}
}

func TestWriterPrompt(t *testing.T) {
	p, err := question.WriterPrompt(schemas.PatternPath, []question.Fact{factOrder, factLidar, factFire}, "Plzeň", "Northwind Robotics", "January 2026")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Answer: Plzeň\n", "Time frame: January 2026", "Question type: path", `Do not name "Northwind Robotics" or "Ostrava Photonics"`, `{"question": "..."}`} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}

// TestLLMScorer reads scores flat, nested in a fence, followed by prose and
// as strings, and applies the keep rule (all above 3).
func TestLLMScorer(t *testing.T) {
	_, g := llmServer(t)
	sc := question.NewLLMScorer(g)
	chunks := []string{factOrder.Sentence, factHQ.Sentence}
	for _, tc := range []struct {
		question string
		want     [3]float64 // reasonableness, clarity, correctness
		keep     bool
	}{
		{"What revenue did Northwind Robotics report for the first quarter of 2026?", [3]float64{5, 5, 5}, true},
		{"In which city is the robot maker that Harbor Keel Logistics ordered 600 Tern AMR-40 robots from in February 2026 headquartered?", [3]float64{4, 4, 5}, true},
		{"How many people are employed by the robot maker headquartered in Gothenburg, Sweden, that reported first-quarter 2026 revenue of $412 million?", [3]float64{2, 4, 5}, false},
		{"Which Melbourne company holds a warehouse contract with the robot maker that Harbor Keel Logistics ordered 600 Tern AMR-40 robots from in February 2026?", [3]float64{4, 3, 5}, false},
	} {
		scores, err := sc.Score(context.Background(), tc.question, "x", chunks)
		if err != nil {
			t.Errorf("%q: %v", tc.question, err)
			continue
		}
		got := [3]float64{scores[question.ScoreReasonableness], scores[question.ScoreClarity], scores[question.ScoreCorrectness]}
		if got != tc.want || len(scores) != 3 || question.LLMKeep(scores) != tc.keep {
			t.Errorf("%q: scores %v, keep %v; want %v, keep %v", tc.question, scores, question.LLMKeep(scores), tc.want, tc.keep)
		}
	}
}

// TestLLMScorerErrors: scores off the 1–5 scale are unusable, not clamped
// into a pass; a 429 is a retryable rate limit with its Retry-After.
func TestLLMScorerErrors(t *testing.T) {
	_, g := llmServer(t)
	sc := question.NewLLMScorer(g)
	_, err := sc.Score(context.Background(), "The robot maker that Harbor Keel Logistics ordered 600 Tern AMR-40 robots from in February 2026 buys its lidar sensors from one main supplier; in which city is that supplier's factory where a fire broke out on 9 January 2026?", "Plzeň", nil)
	if !errors.Is(err, question.ErrLLMOutput) || !strings.Contains(err.Error(), "1–5 scale") {
		t.Errorf("1–10 scores: err %v, want ErrLLMOutput about the scale", err)
	}
	q := "In which Belgian city is Harbor Keel Logistics based?"
	_, err = sc.Score(context.Background(), q, "Antwerp", nil)
	var ra interface{ RetryAfter() time.Duration }
	if !errors.Is(err, provider.ErrRateLimited) || streams.IsPermanent(err) || !errors.As(err, &ra) || ra.RetryAfter() != time.Second {
		t.Fatalf("first call: err %v, want a rate limit with Retry-After 1s", err)
	}
	scores, err := sc.Score(context.Background(), q, "Antwerp", nil)
	if err != nil || !question.LLMKeep(scores) {
		t.Errorf("second call: %v, %v; want kept scores", scores, err)
	}
}

func TestLLMKeep(t *testing.T) {
	for _, tc := range []struct {
		scores map[string]float64
		keep   bool
	}{
		{map[string]float64{question.ScoreReasonableness: 4, question.ScoreClarity: 4, question.ScoreCorrectness: 4}, true},
		{map[string]float64{question.ScoreReasonableness: 5, question.ScoreClarity: 3, question.ScoreCorrectness: 5}, false},
		{map[string]float64{question.ScoreReasonableness: 5, question.ScoreClarity: 5}, false},
		{nil, false},
	} {
		if got := question.LLMKeep(tc.scores); got != tc.keep {
			t.Errorf("LLMKeep(%v) = %v", tc.scores, got)
		}
	}
}

// TestLLMRecordedReports keeps the facts above honest: every sentence is
// in one of the reports.
func TestLLMRecordedReports(t *testing.T) {
	var all strings.Builder
	for _, f := range []string{"northwind_q1_2026.md", "harbor_keel_march_2026.md"} {
		b, err := os.ReadFile(filepath.Join(llmRecorded, f))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, f := range []question.Fact{factRevenue, factHQ, factStaff, factOrder, factLidar, factFire, factPacifica, factParcels, factMargin, factLumeris} {
		if !strings.Contains(all.String(), f.Sentence) {
			t.Errorf("%q is not in the reports", f.Sentence)
		}
	}
}

func TestWriterPromptSingle(t *testing.T) {
	p, err := question.WriterPrompt(schemas.PatternSingle, []question.Fact{factRevenue}, "$412 million", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p, "%!") || strings.Contains(p, "{pivot}") || strings.Contains(p, "Time frame") {
		t.Errorf("single prompt malformed:\n%s", p)
	}
}
