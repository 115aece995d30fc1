package reader

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// acmeChunk is a context that holds the answer to the request's query.
const acmeChunk = "Acme Corp published its quarterly report on Monday. " +
	"Acme Corp's revenue in Q3 2025 was $4.2 billion. Its operating margin was 18%."

type failingModel struct{}

func (failingModel) ID() string { return "flaky" }
func (failingModel) Answer(context.Context, provider.Query) (provider.Answer, error) {
	return provider.Answer{}, errors.New("HTTP 503")
}

func request(t *testing.T, model string, contexts []string, closedBook bool) streams.Message {
	t.Helper()
	r := &schemas.EvalRequest{
		QuestionRef:     schemas.QuestionRef{QuestionID: "q1", Pattern: schemas.PatternSingle, Hops: 1, Domain: "finance"},
		RequestID:       "req1",
		ModelID:         model,
		VariantID:       "v1",
		ClosedBook:      closedBook,
		Prompt:          "ignored by built-ins",
		Query:           "What was Acme Corp's revenue in Q3 2025?",
		Contexts:        contexts,
		Accepted:        []string{"$4.2 billion"},
		Axis:            schemas.AxisQuery,
		Kind:            "char",
		AnswerAvailable: true,
		Expected:        6,
	}
	schemas.Stamp(r, "ev-req1")
	b, err := schemas.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return streams.Message{Topic: streams.TopicEvalRequests, Key: []byte("q1"), Value: b}
}

func TestInferStage(t *testing.T) {
	clock := time.Date(2025, 11, 1, 12, 0, 0, 0, time.UTC)
	models := provider.Builtins()
	models["flaky"] = failingModel{}
	st, err := NewStage(Config{Models: models, Now: func() time.Time { clock = clock.Add(5 * time.Millisecond); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	f := func(contexts []string, closedBook bool, answer string, refused, correct bool) {
		t.Helper()
		recs, err := st.Process(t.Context(), request(t, provider.IDLexical, contexts, closedBook))
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || recs[0].Topic != streams.TopicEvalResults || string(recs[0].Key) != "q1" {
			t.Fatalf("records %+v", recs)
		}
		var res schemas.EvalResult
		if err := schemas.Decode(recs[0].Value, &res); err != nil {
			t.Fatal(err)
		}
		if res.Answer != answer || res.Refused != refused || res.Correct != correct {
			t.Errorf("answer %q refused %v correct %v; want %q %v %v", res.Answer, res.Refused, res.Correct, answer, refused, correct)
		}
		if res.JudgeMethod != "token_seq" || res.LatencyMS != 5 || !res.EvaluatedAt.Equal(clock) {
			t.Errorf("method %q latency %v evaluated %v", res.JudgeMethod, res.LatencyMS, res.EvaluatedAt)
		}
		if res.QuestionID != "q1" || res.VariantID != "v1" || res.RequestID != "req1" || res.ModelID != provider.IDLexical ||
			res.Expected != 6 || res.Axis != "query" || res.Kind != "char" || !res.AnswerAvailable || res.ClosedBook != closedBook {
			t.Errorf("carried fields wrong: %+v", res)
		}
		if res.ID != ResultID("req1", "q1", "v1") || len(res.Lineage) != 1 || res.Lineage[0] != "ev-req1" {
			t.Errorf("envelope id %q lineage %q", res.ID, res.Lineage)
		}
	}
	f([]string{acmeChunk}, false, "$4.2 billion", false, true)
	f(nil, true, "no such info", true, false)

	if _, err := st.Process(t.Context(), request(t, "gpt-x", nil, false)); !streams.IsPermanent(err) || !errors.Is(err, ErrUnknownModel) {
		t.Errorf("unknown model: err = %v", err)
	}
	if _, err := st.Process(t.Context(), streams.Message{Value: []byte("nope")}); !streams.IsPermanent(err) {
		t.Errorf("bad JSON: err = %v", err)
	}
	if _, err := st.Process(t.Context(), request(t, "flaky", nil, false)); err == nil || streams.IsPermanent(err) {
		t.Errorf("model error: err = %v, want retryable", err)
	}
}

func TestNewStageValidates(t *testing.T) {
	if _, err := NewStage(Config{}); err == nil {
		t.Error("no models accepted")
	}
	if _, err := NewStage(Config{Models: provider.Builtins(), JudgeMethod: "llm"}); err == nil {
		t.Error("unknown judge method accepted")
	}
	if _, err := NewStage(Config{Models: map[string]provider.Model{"a": provider.Builtins()[provider.IDLexical]}}); err == nil {
		t.Error("id mismatch accepted")
	}
}

// TestNotMadeRequest: a request standing for a slot whose variant was not
// made is answered with an error result, carrying the manifest, without
// calling the model.
func TestNotMadeRequest(t *testing.T) {
	st, err := NewStage(Config{Models: map[string]provider.Model{"flaky": failingModel{}}})
	if err != nil {
		t.Fatal(err)
	}
	r := &schemas.EvalRequest{QuestionRef: schemas.QuestionRef{QuestionID: "q1"}, RequestID: "req-nm", ModelID: "flaky", VariantID: "v-nm",
		Axis: schemas.AxisQuery, Kind: "paraphrase", Manifest: []string{"original/original", "query/paraphrase"}, Expected: 3,
		NotMadeReason: "the generator is down"}
	schemas.Stamp(r, "ev-nm")
	b, err := schemas.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Process(t.Context(), streams.Message{Value: b})
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %d, err %v (the failing model must not be called)", len(recs), err)
	}
	var res schemas.EvalResult
	if err := schemas.Decode(recs[0].Value, &res); err != nil {
		t.Fatal(err)
	}
	if res.Error != "variant not made: the generator is down" || res.Answer != "" || res.Slot() != "query/paraphrase" ||
		len(res.Manifest) != 2 || res.ID != ResultID("req-nm", "q1", "v-nm") {
		t.Errorf("result %+v", res)
	}
}
