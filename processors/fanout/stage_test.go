package fanout

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestPromptGolden(t *testing.T) {
	f := func(name, query string, contexts []string) {
		t.Helper()
		got := Prompt(query, contexts)
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
		}
	}
	f("prompt_rag.golden", "What was Acme Corp's revenue in Q3 2025?", []string{
		"Acme Corp's revenue in Q3 2025 was $4.2 billion.\n",
		"  Its operating margin was 18%.",
	})
	f("prompt_closed_book.golden", " What was Acme Corp's revenue in Q3 2025?", nil)
}

func variant(axis, kind string) *schemas.Variant {
	v := &schemas.Variant{
		QuestionRef:     schemas.QuestionRef{QuestionID: "q1", Pattern: schemas.PatternSingle, Hops: 1, Domain: "finance", PublishedAt: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)},
		Axis:            axis,
		Kind:            kind,
		Query:           "What was Acme Corp's revenue in Q3 2025?",
		Contexts:        []string{"Acme Corp's revenue in Q3 2025 was $4.2 billion."},
		ExpectedAnswer:  "$4.2 billion",
		Aliases:         []string{"4.2 billion dollars"},
		AnswerAvailable: axis != schemas.AxisDocument,
		SetSize:         5,
	}
	v.VariantID = schemas.ID("q1", axis, kind, v.Query)
	schemas.Stamp(v, v.VariantID)
	return v
}

func process(t *testing.T, st *Stage, v *schemas.Variant) []schemas.EvalRequest {
	t.Helper()
	b, err := schemas.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Process(t.Context(), streams.Message{Topic: streams.TopicVariants, Key: []byte(v.QuestionID), Value: b})
	if err != nil {
		t.Fatal(err)
	}
	var out []schemas.EvalRequest
	for _, r := range recs {
		if r.Topic != streams.TopicEvalRequests || string(r.Key) != v.QuestionID {
			t.Errorf("record topic %q key %q", r.Topic, r.Key)
		}
		var req schemas.EvalRequest
		if err := schemas.Decode(r.Value, &req); err != nil {
			t.Fatal(err)
		}
		out = append(out, req)
	}
	return out
}

func TestFanout(t *testing.T) {
	st, err := NewStage(Config{Models: []string{"builtin:lexical", "m2"}, Decoding: map[string]string{"m2": "temperature=0.7"}})
	if err != nil {
		t.Fatal(err)
	}
	orig := process(t, st, variant(schemas.AxisOriginal, "original"))
	type shape struct {
		model, axis string
		closed      bool
	}
	var got []shape
	for _, r := range orig {
		got = append(got, shape{r.ModelID, r.Axis, r.ClosedBook})
		if r.Expected != 6 {
			t.Errorf("Expected = %d, want SetSize+1 = 6", r.Expected)
		}
		if !slices.Equal(r.Accepted, []string{"$4.2 billion", "4.2 billion dollars"}) {
			t.Errorf("Accepted = %q", r.Accepted)
		}
		dec := DefaultDecoding
		if r.ModelID == "m2" {
			dec = "temperature=0.7"
		}
		if r.RequestID != RequestID(r.ModelID, r.Prompt, dec) || r.Prompt != Prompt(r.Query, r.Contexts) {
			t.Errorf("%s: request id or prompt inconsistent", r.ModelID)
		}
		if r.QuestionID != "q1" || r.PublishedAt.IsZero() {
			t.Errorf("QuestionRef lost: %+v", r.QuestionRef)
		}
		if r.ClosedBook {
			if r.VariantID != schemas.ID("q1", "closed_book") || len(r.Contexts) != 0 || r.AnswerAvailable || r.Kind != KindClosedBook {
				t.Errorf("closed-book request wrong: %+v", r)
			}
		} else if !r.AnswerAvailable || len(r.Contexts) != 1 {
			t.Errorf("original request wrong: %+v", r)
		}
	}
	want := []shape{{"builtin:lexical", "original", false}, {"builtin:lexical", "closed_book", true}, {"m2", "original", false}, {"m2", "closed_book", true}}
	if !slices.Equal(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	if orig[0].RequestID == orig[2].RequestID {
		t.Error("different models share a request id")
	}

	doc := process(t, st, variant(schemas.AxisDocument, "answer_removed"))
	if len(doc) != 2 || doc[0].ClosedBook || doc[1].ClosedBook || doc[0].AnswerAvailable {
		t.Errorf("document variant requests: %+v", doc)
	}
	// Same prompt as the original (the contexts are equal in this fixture):
	// same request id, but distinct event ids so each variant gets a result.
	if doc[0].RequestID != orig[0].RequestID || doc[0].ID == orig[0].ID {
		t.Errorf("request ids %s/%s, event ids %s/%s", doc[0].RequestID, orig[0].RequestID, doc[0].ID, orig[0].ID)
	}

	// Deterministic on replay.
	again := process(t, st, variant(schemas.AxisOriginal, "original"))
	for i := range orig {
		if again[i].ID != orig[i].ID || again[i].RequestID != orig[i].RequestID {
			t.Errorf("replay differs at %d", i)
		}
	}
}

func TestFanoutBadInput(t *testing.T) {
	st, _ := NewStage(Config{Models: []string{"m"}})
	noSize := variant(schemas.AxisOriginal, "original")
	noSize.SetSize = 0
	b, _ := schemas.Encode(noSize)
	for name, v := range map[string][]byte{"not json": []byte("]"), "no set size": b, "no version": []byte(`{"question_id":"q"}`)} {
		if _, err := st.Process(t.Context(), streams.Message{Value: v}); !streams.IsPermanent(err) {
			t.Errorf("%s: err = %v, want permanent", name, err)
		}
	}
}

func TestNewStageValidates(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no models": {},
		"empty id":  {Models: []string{""}},
		"duplicate": {Models: []string{"a", "a"}},
		"stray dec": {Models: []string{"a"}, Decoding: map[string]string{"b": "x"}},
	} {
		if _, err := NewStage(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func ExamplePrompt() {
	fmt.Println(Prompt("Whom did Northwind Bank appoint as CFO?", []string{"Northwind Bank appointed Maria Lopez as CFO."}))
	// Output:
	// Answer the question using only the numbered contexts below.
	// Reply with the shortest span of text that answers it, nothing else.
	// If the contexts do not contain the answer, reply exactly: no such info
	//
	// Context [1]:
	// Northwind Bank appointed Maria Lopez as CFO.
	//
	// Question: Whom did Northwind Bank appoint as CFO?
	// Answer:
}

// TestFanoutManifest: requests carry the question's manifest; a variant
// whose slot the manifest does not declare is refused; a not-made marker
// becomes one promptless request per model, carrying its reason.
func TestFanoutManifest(t *testing.T) {
	st, err := NewStage(Config{Models: []string{"m1", "m2"}})
	if err != nil {
		t.Fatal(err)
	}
	orig := variant(schemas.AxisOriginal, "original")
	orig.Manifest = schemas.NewManifest("original/original", "query/char", "query/paraphrase")
	orig.SetSize = len(orig.Manifest)
	orig.CrossSample = "0/0"
	for _, r := range process(t, st, orig) {
		if !slices.Equal(r.Manifest, orig.Manifest) || r.NotMadeReason != "" {
			t.Errorf("%s %s: manifest %q, not made %q", r.ModelID, r.Axis, r.Manifest, r.NotMadeReason)
		}
		// The cross sample travels with every request, closed-book included.
		if r.CrossSample != "0/0" {
			t.Errorf("%s %s: cross sample %q, want the variant's", r.ModelID, r.Axis, r.CrossSample)
		}
	}

	// A cross cell (perturbed query × perturbed context) is one request
	// per model, like any declared slot; only the original adds closed book.
	crossed := variant("cross", "char+answer_removed")
	crossed.Manifest = schemas.NewManifest("original/original", "cross/char+answer_removed")
	crossed.SetSize, crossed.CrossSample = 2, "1/1"
	for _, r := range process(t, st, crossed) {
		if r.ClosedBook || r.Axis != "cross" || r.CrossSample != "1/1" || r.Expected != 3 {
			t.Errorf("cross cell request %+v", r)
		}
	}

	stray := orig.Derive(schemas.AxisQuery, "shout", "WHAT WAS ACME CORP'S REVENUE?", orig.Contexts, true)
	b, _ := schemas.Encode(stray)
	if _, err := st.Process(t.Context(), streams.Message{Value: b}); !streams.IsPermanent(err) || !strings.Contains(err.Error(), "query/shout is not in the question's manifest") {
		t.Errorf("undeclared slot: err = %v", err)
	}

	marker := orig.NotMade(schemas.AxisQuery, "paraphrase", "the generator is down")
	reqs := process(t, st, marker)
	if len(reqs) != 2 {
		t.Fatalf("%d requests for a marker, want one per model", len(reqs))
	}
	for _, r := range reqs {
		if r.NotMadeReason != "the generator is down" || r.Prompt != "" || r.ClosedBook || r.Kind != "paraphrase" || r.VariantID != marker.VariantID {
			t.Errorf("marker request %+v", r)
		}
	}
	if reqs[0].RequestID == reqs[1].RequestID {
		t.Error("the models' marker requests share an id")
	}

	notMadeOriginal := orig.NotMade(schemas.AxisOriginal, "original", "none")
	b, _ = schemas.Encode(notMadeOriginal)
	if _, err := st.Process(t.Context(), streams.Message{Value: b}); !streams.IsPermanent(err) {
		t.Errorf("a not-made original: err = %v, want permanent", err)
	}
}

// A variant made for one model (schemas.Variant.Model: SURE's source_self,
// the model's own rewrite) is asked of that model alone; a marker naming a
// model too; a model not in the line-up gets nothing.
func TestFanoutPerModelVariant(t *testing.T) {
	st, err := NewStage(Config{Models: []string{"m1", "m2", "rag"}, Retrieving: []string{"rag"}})
	if err != nil {
		t.Fatal(err)
	}
	orig := variant(schemas.AxisOriginal, "original")
	orig.Manifest = schemas.NewManifest("original/original", "spurious/source_self")
	orig.SetSize = len(orig.Manifest)
	own := orig.ForModel(orig.Derive(schemas.AxisSpurious, "source_self", orig.Query, []string{"m2's own words about Acme"}, true), "m2")
	reqs := process(t, st, own)
	if len(reqs) != 1 || reqs[0].ModelID != "m2" || reqs[0].VariantID != own.VariantID || reqs[0].Contexts[0] != "m2's own words about Acme" {
		t.Fatalf("requests of m2's variant: %+v", reqs)
	}
	marker := orig.ForModel(orig.NotMade(schemas.AxisSpurious, "source_self", "a built-in reader cannot rewrite"), "m1")
	reqs = process(t, st, marker)
	if len(reqs) != 1 || reqs[0].ModelID != "m1" || reqs[0].NotMadeReason == "" {
		t.Fatalf("requests of m1's marker: %+v", reqs)
	}
	if own.VariantID == marker.VariantID || own.VariantID == orig.ForModel(orig.Derive(schemas.AxisSpurious, "source_self", orig.Query, own.Contexts, true), "m1").VariantID {
		t.Error("two models' variants of the same slot share an id")
	}
	gone := orig.ForModel(orig.Derive(schemas.AxisSpurious, "source_self", orig.Query, own.Contexts, true), "removed")
	if reqs := process(t, st, gone); len(reqs) != 0 {
		t.Errorf("a variant for a model not in the line-up made %d requests", len(reqs))
	}
}
