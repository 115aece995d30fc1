package question_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources/demo"
	"github.com/robustream/robustream/streams"
)

// TestDeletionRetiresExactlyItsQuestions runs the demo's documents of two
// periods through the chunk, triplet and question stages, then a deletion of
// one document (a version with no text and metadata deleted=true, as
// sources.Deletion makes): the questions retired are exactly the active
// ones with ground truth in that document, and nothing new is asked.
func TestDeletionRetiresExactlyItsQuestions(t *testing.T) {
	ctx := context.Background()
	cs, err := chunk.NewStage(chunk.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := triplet.NewStage(triplet.Config{})
	qs, _ := question.NewStage(question.Config{}, nil)
	chunkDoc := map[string]string{} // chunk id → doc id
	active := map[string]*schemas.Question{}
	feed := func(d *schemas.DocumentVersion) (retired, asked []*schemas.Question) {
		t.Helper()
		crecs, err := cs.Process(ctx, streams.Message{Value: encode(t, d, schemas.ID(d.DocID, d.ContentHash))})
		if err != nil {
			t.Fatal(err)
		}
		for _, cr := range crecs {
			var c schemas.Chunk
			if err := schemas.Decode(cr.Value, &c); err != nil {
				t.Fatal(err)
			}
			chunkDoc[c.ChunkID] = c.DocID
			trecs, err := ts.Process(ctx, streams.Message{Value: cr.Value})
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range trecs {
				qrecs, err := qs.Process(ctx, streams.Message{Value: tr.Value})
				if err != nil {
					t.Fatal(err)
				}
				for _, qr := range qrecs {
					var q schemas.Question
					if err := schemas.Decode(qr.Value, &q); err != nil {
						t.Fatal(err)
					}
					if q.Retired != "" {
						delete(active, q.QuestionID)
						retired = append(retired, &q)
					} else {
						active[q.QuestionID] = &q
						asked = append(asked, &q)
					}
				}
			}
		}
		return retired, asked
	}
	var docs []schemas.DocumentVersion
	for p := range 2 {
		docs = append(docs, demo.Generate(5, p)...)
	}
	for i := range docs {
		feed(&docs[i])
	}
	// The document with the most questions grounded in it.
	grounded := func(q *schemas.Question, doc string) bool {
		return slices.ContainsFunc(q.GTChunkIDs, func(id string) bool { return chunkDoc[id] == doc })
	}
	best, most := "", 0
	for i := range docs {
		n := 0
		for _, q := range active {
			if grounded(q, docs[i].DocID) {
				n++
			}
		}
		if n > most {
			best, most = docs[i].DocID, n
		}
	}
	if most == 0 {
		t.Fatal("no document has questions")
	}
	want := map[string]bool{}
	for id, q := range active {
		if grounded(q, best) {
			want[id] = true
		}
	}
	before := len(active)
	sum := sha256.Sum256(nil)
	del := &schemas.DocumentVersion{DocID: best, Version: 99, Source: "test", ContentHash: hex.EncodeToString(sum[:]),
		Metadata: map[string]string{"deleted": "true"}}
	retired, asked := feed(del)
	got := map[string]bool{}
	for _, q := range retired {
		got[q.QuestionID] = true
		if !want[q.QuestionID] {
			t.Errorf("deleting %s retired %q (%s), which has no ground truth there", best, q.Question, q.Retired)
		}
	}
	for id := range want {
		if !got[id] {
			t.Errorf("deleting %s left %q active", best, active[id].Question)
		}
	}
	if len(asked) != 0 {
		t.Errorf("deleting a document asked %d new questions, e.g. %q", len(asked), asked[0].Question)
	}
	t.Logf("%d active questions; deleting one document retired %d, %d left", before, len(retired), len(active))
	if len(active) != before-len(want) || len(active) == 0 {
		t.Errorf("%d questions left, want %d", len(active), before-len(want))
	}

	// Put back as it was: the same questions are asked again, under new
	// ids (a retirement is final for an id), and a second deletion retires
	// exactly those.
	var back *schemas.DocumentVersion
	for i := range docs {
		if docs[i].DocID == best {
			d := docs[i]
			d.Version = 100
			back = &d
		}
	}
	wasRetired := map[string]string{} // question → id it was retired under
	for _, q := range retired {
		wasRetired[q.Question] = q.QuestionID
	}
	retired, asked = feed(back)
	if len(retired) != 0 {
		t.Errorf("putting %s back retired %d questions, e.g. %q", best, len(retired), retired[0].Question)
	}
	again := map[string]bool{}
	for _, q := range asked {
		old, ok := wasRetired[q.Question]
		switch {
		case !ok:
			t.Errorf("putting %s back asked %q, which its deletion did not retire", best, q.Question)
		case old == q.QuestionID:
			t.Errorf("%q is asked again under its retired id %s", q.Question, old)
		}
		again[q.QuestionID] = true
	}
	if len(asked) != len(wasRetired) {
		t.Errorf("putting %s back asked %d questions, want the %d its deletion retired", best, len(asked), len(wasRetired))
	}
	del.Version = 101
	retired, _ = feed(del)
	for _, q := range retired {
		if !again[q.QuestionID] {
			t.Errorf("the second deletion retired %q under %s, not the id it was asked again under", q.Question, q.QuestionID)
		}
	}
	if len(retired) != len(again) {
		t.Errorf("the second deletion retired %d questions, want %d", len(retired), len(again))
	}
}
