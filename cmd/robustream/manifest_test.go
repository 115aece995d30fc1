package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/perturb"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// shouter is a variant producer defined in this file only: it fills the
// query/shout slot of every other question with the question in capitals,
// after a delay that lets the question's other results reach pairing
// first, and marks the slot not made for the rest.
type shouter struct{}

func (shouter) Name() string { return "shouter" }

func (shouter) Process(_ context.Context, m streams.Message) ([]streams.Record, error) {
	var v schemas.Variant
	if err := schemas.Decode(m.Value, &v); err != nil {
		return nil, streams.Permanent(err)
	}
	if v.Axis != schemas.AxisOriginal {
		return nil, nil // only originals are perturbed; this stage's own output comes back here
	}
	time.Sleep(20 * time.Millisecond)
	out := v.NotMade(schemas.AxisQuery, "shout", "nothing to shout about")
	if v.QuestionID[0]%2 == 0 {
		out = v.Derive(schemas.AxisQuery, "shout", strings.ToUpper(v.Query), v.Contexts, v.AnswerAvailable)
	}
	b, err := schemas.Encode(out)
	if err != nil {
		return nil, err
	}
	return []streams.Record{{Topic: streams.TopicVariants, Key: []byte(out.Key()), Value: b}}, nil
}

// TestManifestWaitsForOtherProducers: a perturbation kind made by a stage
// other than perturb is declared in every question's manifest, so each
// pairing set closes exactly when that slot is answered too: with the
// variant's result where it was made, with a marked error result where it
// was not. Nothing stays open, and no set closes without its slot.
func TestManifestWaitsForOtherProducers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	defer func(k []perturb.Kind, p []stageSpec) { perturbKinds, variantProducers = k, p }(perturbKinds, variantProducers)
	perturbKinds = append(perturbKinds, perturb.Kind{Axis: schemas.AxisQuery, Name: "shout", Families: []string{schemas.FamilyRARE}, Producer: "shouter"})
	variantProducers = append(variantProducers, processorStage("shouter", streams.TopicVariants, []string{streams.TopicVariants},
		func(*engine) (streams.Processor, error) { return shouter{}, nil }))

	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "dir:" + writeCorpus(t), "--data-dir", data, "--log-level", "error"}, &out, &errb); code != 0 {
		t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	if !strings.Contains(out.String(), "open pairings 0") {
		t.Errorf("pairings left open:\n%s", out.String())
	}
	q := func(sql string) int64 { return sqlCount(t, sql, "--data-dir", data) }
	models := q("SELECT uniqExact(model_id) FROM robustream.eval_results")
	questions := q("SELECT uniqExact(question_id) FROM robustream.eval_results")
	made := q("SELECT count() FROM robustream.variants WHERE kind = 'shout'")
	if models == 0 || made == 0 || made == questions {
		t.Fatalf("%d models, %d questions, %d shout variants: the corpus must give made and not-made slots", models, questions, made)
	}
	// Every made shout variant is paired: an outcome per model. A set that
	// closed before its shout result arrived would have dropped it.
	if n := q("SELECT count() FROM robustream.outcomes WHERE kind = 'shout'"); n != made*models {
		t.Errorf("%d shout outcomes, want %d variants × %d models", n, made, models)
	}
	// Every other question has its slot marked, once per model, and no
	// outcome for it.
	marked := q("SELECT count() FROM robustream.eval_results WHERE kind = 'shout' AND startsWith(error, 'variant not made: nothing to shout about')")
	if marked != (questions-made)*models {
		t.Errorf("%d not-made results, want %d questions × %d models", marked, questions-made, models)
	}
	// Every question is paired, with every slot of its manifest.
	if n := q("SELECT uniqExact(model_id, question_id) FROM robustream.outcomes"); n != questions*models {
		t.Errorf("%d paired (model, question) sets, want %d", n, questions*models)
	}
	if n := q("SELECT count() FROM robustream.variants WHERE query = ''"); n != 0 {
		t.Errorf("%d not-made markers stored as variants", n)
	}
}

// TestProducerMustBeRegistered: a kind made elsewhere whose stage is not in
// the registry is a start-up error naming the kind and the stage.
func TestProducerMustBeRegistered(t *testing.T) {
	kinds := append(perturb.DefaultKinds(), perturb.Kind{Axis: schemas.AxisQuery, Name: "shout", Families: []string{schemas.FamilyRARE}, Producer: "shouter"})
	err := checkTopology(registry(), kinds)
	if want := fmt.Sprintf("perturbation kind query/shout is made by stage shouter, which is not a registered stage writing %s", streams.TopicVariants); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}
