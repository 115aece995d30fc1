package dir

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/streams"
)

// TestRemovedFileIsDeleted drives the scans of a watched folder one by one:
// a removed file, and the files of a removed folder, are each emitted once
// as their document's deletion; a folder swapped for a link (its files not
// listed, so not known to be gone) deletes nothing; a file put back is read
// again.
func TestRemovedFileIsDeleted(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"a.md":      "# A\n\nAcme opened a plant in Oslo.\n",
		"b.txt":     "Globex hired 450 engineers.\n",
		"sub/c.md":  "Initech appointed Peter Gibbons.\n",
		"sub2/d.md": "Umbrella sold 12 ships.\n",
	}
	for name, text := range files {
		write(t, filepath.Join(root, name), []byte(text))
	}
	s, err := New(Config{Path: root, Watch: true}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var got []schemas.DocumentVersion
	scan := func() []schemas.DocumentVersion {
		t.Helper()
		got = got[:0]
		err := s.scan(context.Background(), func(_ context.Context, recs ...streams.Record) error {
			for _, r := range recs {
				var d schemas.DocumentVersion
				if err := schemas.Decode(r.Value, &d); err != nil {
					t.Fatal(err)
				}
				if string(r.Key) != d.DocID {
					t.Fatalf("deletion keyed %q, doc %q", r.Key, d.DocID)
				}
				got = append(got, d)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	deletionOf := func(docs []schemas.DocumentVersion, names ...string) {
		t.Helper()
		if len(docs) != len(names) {
			t.Fatalf("%d records, want the deletions of %v", len(docs), names)
		}
		for i, n := range names {
			d := docs[i]
			if !sources.IsDeletion(&d) || d.DocID != s.docID(filepath.Join(root, n)) || d.Source != SourceName {
				t.Errorf("record %d is %+v, want the deletion of %s", i, d, n)
			}
		}
	}
	if n := len(scan()); n != 4 {
		t.Fatalf("first scan emitted %d documents, want 4", n)
	}
	if err := os.Remove(filepath.Join(root, "a.md")); err != nil {
		t.Fatal(err)
	}
	deletionOf(scan(), "a.md")
	deletionOf(scan()) // once
	if err := os.RemoveAll(filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	deletionOf(scan(), "sub/c.md")
	// sub2 swapped for a link to a copy without d.md: the link is not
	// followed, so nothing says d.md is gone.
	elsewhere := t.TempDir()
	if err := os.RemoveAll(filepath.Join(root, "sub2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "sub2")); err != nil {
		t.Fatal(err)
	}
	deletionOf(scan())
	if _, ok := s.seen[filepath.Join(root, "sub2/d.md")]; !ok {
		t.Error("a file not known to be gone was forgotten")
	}
	write(t, filepath.Join(root, "a.md"), []byte(files["a.md"]))
	if back := scan(); len(back) != 1 || sources.IsDeletion(&back[0]) || back[0].Text == "" {
		t.Errorf("a file put back: %+v, want its document again", back)
	}
	if st := s.Stats(); st.Deleted != 2 {
		t.Errorf("stats %+v, want 2 deletions", st)
	}
}
