package sources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// fixedSource emits one document version per text, all for the same doc.
type fixedSource struct{ texts []string }

func (f fixedSource) Name() string { return "fixed" }

func (f fixedSource) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	for _, text := range f.texts {
		sum := sha256.Sum256([]byte(text))
		d := &schemas.DocumentVersion{DocID: "doc-1", Version: 1, Source: "fixed", Text: text, ContentHash: hex.EncodeToString(sum[:])}
		schemas.Stamp(d, schemas.ID(d.DocID, d.ContentHash))
		b, err := schemas.Encode(d)
		if err != nil {
			return err
		}
		if err := emit(ctx, streams.Record{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: b}); err != nil {
			return err
		}
	}
	return nil
}

// TestVersionedDropsUnchangedAndNumbersChanges runs against the embedded
// broker: the version state lives in a changelog topic and must survive a
// new Versioned (a restart).
func TestVersionedDropsUnchangedAndNumbersChanges(t *testing.T) {
	ctx := context.Background()
	b, err := streams.StartBroker(t.TempDir(), "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	k, err := streams.NewKafka(b.ClientConfig().WithPartitions(2))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	var got []schemas.DocumentVersion
	run := func(texts ...string) *Versioned {
		st := streams.NewState(k, "source.fixed")
		if err := st.RestoreAll(ctx); err != nil {
			t.Fatal(err)
		}
		v := NewVersioned(fixedSource{texts}, st, k.Partitions())
		err := v.Run(ctx, func(_ context.Context, recs ...streams.Record) error {
			for _, r := range recs {
				var d schemas.DocumentVersion
				if err := schemas.Decode(r.Value, &d); err != nil {
					t.Fatal(err)
				}
				got = append(got, d)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v := run("first text", "first text", "second text")
	if v.Emitted.Load() != 2 || v.Unchanged.Load() != 1 {
		t.Fatalf("emitted %d unchanged %d, want 2 and 1", v.Emitted.Load(), v.Unchanged.Load())
	}
	// A restart: the state comes back from the changelog.
	v = run("second text", "third text")
	if v.Emitted.Load() != 1 || v.Unchanged.Load() != 1 {
		t.Fatalf("after restart: emitted %d unchanged %d, want 1 and 1", v.Emitted.Load(), v.Unchanged.Load())
	}
	want := []struct {
		version uint32
		text    string
	}{{1, "first text"}, {2, "second text"}, {3, "third text"}}
	if len(got) != len(want) {
		t.Fatalf("got %d versions, want %d", len(got), len(want))
	}
	ids := map[string]bool{}
	for i, w := range want {
		if got[i].Version != w.version || got[i].Text != w.text {
			t.Errorf("version %d: got (%d, %q), want (%d, %q)", i, got[i].Version, got[i].Text, w.version, w.text)
		}
		ids[got[i].ID] = true
	}
	if len(ids) != 3 {
		t.Errorf("version ids are not distinct: %v", ids)
	}
}
