package goldens

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type got struct {
	docs      []schemas.DocumentVersion
	questions []schemas.Question
	dead      []streams.Record
	order     []string // topics in emit order
}

func collect(t *testing.T, path string, score func(*schemas.Question)) got {
	t.Helper()
	s, err := New(Config{Path: path, Score: score}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	var g got
	err = s.Run(context.Background(), func(_ context.Context, recs ...streams.Record) error {
		for _, r := range recs {
			if len(g.order) == 0 || g.order[len(g.order)-1] != r.Topic {
				g.order = append(g.order, r.Topic)
			}
			switch r.Topic {
			case streams.TopicDLQ:
				g.dead = append(g.dead, r)
			case streams.TopicDocuments:
				var d schemas.DocumentVersion
				if err := schemas.Decode(r.Value, &d); err != nil {
					t.Fatal(err)
				}
				if string(r.Key) != d.DocID {
					t.Errorf("document key %q, doc id %q", r.Key, d.DocID)
				}
				g.docs = append(g.docs, d)
			case streams.TopicQuestions:
				var q schemas.Question
				if err := schemas.Decode(r.Value, &q); err != nil {
					t.Fatal(err)
				}
				if string(r.Key) != q.QuestionID {
					t.Errorf("question key %q, id %q", r.Key, q.QuestionID)
				}
				g.questions = append(g.questions, q)
			default:
				t.Errorf("record on %s", r.Topic)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Questions != int64(len(g.questions)) || st.Documents != int64(len(g.docs)) || st.Bad != int64(len(g.dead)) {
		t.Errorf("stats %+v for %d questions, %d documents, %d dead", st, len(g.questions), len(g.docs), len(g.dead))
	}
	return g
}

const goodJSONL = `{"id": "faq-1", "question": "What was Acme's revenue in Q3 2025?", "answer": "$4.2 billion", "aliases": ["4.2 billion dollars", " $4.2 billion "], "contexts": ["Acme Corp's revenue in Q3 2025 was $4.2 billion.\r\n"], "published_at": "2025-10-01", "domain": "finance"}

{"question": "Who is Northwind's CFO and where is its head office?", "answer": "Maria Lopez", "contexts": ["Northwind Bank appointed Maria Lopez as chief financial officer.", "Northwind Bank's head office is in Leeds."]}
{"id": "faq-3", "question": "How many branches did Northwind open?", "answer": "12", "contexts": ["Northwind Bank's head office is in Leeds.", "Northwind Bank opened 12 new branches in 2025."], "pattern": "chain", "hops": 2}
`

// TestGoldens: every record becomes a curated question whose ground-truth
// chunk ids are the ids the chunk stage gives its contexts' whole chunks;
// a context shared by two questions is one document; documents go out
// before questions; ids are the same from another copy of the file.
func TestGoldens(t *testing.T) {
	scored := 0
	g := collect(t, write(t, "g.jsonl", goodJSONL), func(q *schemas.Question) { scored++; q.DR = 0.25 })
	if len(g.dead) != 0 || len(g.questions) != 3 || len(g.docs) != 4 || scored != 3 {
		t.Fatalf("%d questions, %d documents, %d dead, %d scored", len(g.questions), len(g.docs), len(g.dead), scored)
	}
	if !slices.Equal(g.order, []string{streams.TopicDocuments, streams.TopicQuestions}) {
		t.Errorf("emit order %v", g.order)
	}
	docs := map[string]schemas.DocumentVersion{}
	for _, d := range g.docs {
		sum := sha256.Sum256([]byte(d.Text))
		if d.Source != SourceName || d.ContentHash != hex.EncodeToString(sum[:]) || d.Metadata[schemas.MetaChunking] != schemas.ChunkWhole || d.ID == "" {
			t.Errorf("document %+v", d)
		}
		docs[d.DocID] = d
	}
	q1 := g.questions[0]
	if !q1.Curated() || q1.QuestionID != schemas.ID(SourceName, "id:faq-1") || q1.Answer != "$4.2 billion" ||
		!slices.Equal(q1.Aliases, []string{"4.2 billion dollars"}) || q1.Pattern != schemas.PatternSingle || q1.Hops != 1 ||
		q1.Domain != "finance" || q1.PublishedAt.Format("2006-01-02") != "2025-10-01" || q1.DR != 0.25 {
		t.Errorf("question 1: %+v", q1)
	}
	if !slices.Equal(q1.GTChunks, []string{"Acme Corp's revenue in Q3 2025 was $4.2 billion."}) {
		t.Errorf("contexts not trimmed: %q", q1.GTChunks)
	}
	for _, q := range g.questions {
		if _, ok := docs[q.DocID]; !ok {
			t.Errorf("question %s: doc_id %s not emitted", q.QuestionID, q.DocID)
		}
		for i, id := range q.GTChunkIDs {
			doc := ContextDocID(q.GTChunks[i])
			if _, ok := docs[doc]; !ok || id != schemas.ID(doc, q.GTChunks[i]) {
				t.Errorf("question %s: chunk %d id %s is not the whole chunk of an emitted document", q.QuestionID, i, id)
			}
		}
	}
	q2, q3 := g.questions[1], g.questions[2]
	if q2.QuestionID != schemas.ID(SourceName, "question:"+q2.Question) || q2.Pattern != schemas.PatternPath || q2.Hops != 2 || q2.Domain != "general" || !q2.PublishedAt.IsZero() {
		t.Errorf("question 2 (no id, two contexts): %+v", q2)
	}
	if q3.Pattern != schemas.PatternChain || q3.Hops != 2 || q3.GTChunkIDs[0] != q2.GTChunkIDs[1] {
		t.Errorf("question 3 (shared context, given pattern): %+v", q3)
	}

	// The same file elsewhere, as a JSON array: the same ids.
	var arr []string
	for _, l := range strings.Split(goodJSONL, "\n") {
		if strings.TrimSpace(l) != "" {
			arr = append(arr, l)
		}
	}
	h := collect(t, write(t, "copy.json", "[\n"+strings.Join(arr, ",\n")+"\n]\n"), nil)
	if len(h.questions) != 3 || len(h.dead) != 0 {
		t.Fatalf("array: %d questions, %d dead", len(h.questions), len(h.dead))
	}
	for i := range h.questions {
		if h.questions[i].QuestionID != g.questions[i].QuestionID || h.questions[i].ID != g.questions[i].ID ||
			!slices.Equal(h.questions[i].GTChunkIDs, g.questions[i].GTChunkIDs) {
			t.Errorf("question %d differs from another copy", i)
		}
	}
}

// TestGoldensBadRecords: each bad record is dead-lettered with its line
// number and why; the good ones around it go on.
func TestGoldensBadRecords(t *testing.T) {
	lines := []string{
		`{"id": "ok-1", "question": "Q1?", "answer": "A1", "contexts": ["A1 is here."]}`,
		`{"id": "x", "question": "Q?", "answer": "A", "contexts": ["c"], "ground_truth": "A"}`,
		`{"id": "y", "question": "Q?", "answer": "", "contexts": ["c"]}`,
		`{"id": "z", "question": "Q?", "answer": "A", "contexts": []}`,
		`{"id": "w", "question": "Q?", "answer": "A", "contexts": ["  "]}`,
		`{"id": "v", "question": "Q?", "answer": "A", "contexts": ["c"], "published_at": "yesterday"}`,
		`{"id": "u", "question": "Q?", "answer": "A", "contexts": ["c"], "pattern": "loop"}`,
		`not json at all`,
		`{"id": "ok-1", "question": "Another?", "answer": "B", "contexts": ["B."]}`,
		`{"id": "ok-2", "question": "Q2?", "answer": "A2", "contexts": ["A2 is here."]}`,
	}
	g := collect(t, write(t, "bad.jsonl", strings.Join(lines, "\n")), nil)
	if len(g.questions) != 2 || g.questions[0].Question != "Q1?" || g.questions[1].Question != "Q2?" {
		t.Fatalf("good questions: %+v", g.questions)
	}
	want := map[string]string{"2": "ground_truth", "3": "no answer", "4": "no contexts", "5": "contexts[0] is empty",
		"6": "not a date", "7": `pattern "loop"`, "8": "not a goldens record", "9": "as line 1"}
	if len(g.dead) != len(want) {
		t.Fatalf("%d dead letters, want %d", len(g.dead), len(want))
	}
	for _, r := range g.dead {
		var reason, off string
		for _, h := range r.Headers {
			switch h.Key {
			case streams.HeaderDLQError:
				reason = string(h.Value)
			case streams.HeaderDLQOffset:
				off = string(h.Value)
			}
		}
		line := string(r.Key)
		if w, ok := want[line]; !ok || !strings.Contains(reason, "line "+line+": ") || !strings.Contains(reason, w) || off != line {
			t.Errorf("dead letter key %q offset %q: %q (want %q)", line, off, reason, w)
		}
		if string(r.Value) != lines[mustAtoi(t, line)-1] {
			t.Errorf("dead letter of line %s holds %q", line, r.Value)
		}
	}

	// A JSON array that breaks: the elements before it are read, the rest
	// is one dead letter at the line where it broke.
	g = collect(t, write(t, "broken.json", "[\n"+lines[0]+",\n"+`{"id": "q", "question": `+"\n"), nil)
	if len(g.questions) != 1 || len(g.dead) != 1 || string(g.dead[0].Key) != "3" {
		t.Errorf("broken array: %d questions, %d dead (key %q)", len(g.questions), len(g.dead), keyOf(g.dead))
	}
}

func keyOf(rs []streams.Record) string {
	if len(rs) == 0 {
		return ""
	}
	return string(rs[0].Key)
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a line number: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestGoldensErrors: a missing file fails New; an emit error is returned.
func TestGoldensErrors(t *testing.T) {
	if _, err := New(Config{Path: filepath.Join(t.TempDir(), "none.jsonl")}, quiet); err == nil {
		t.Error("a missing file was accepted")
	}
	if _, err := New(Config{Path: t.TempDir()}, quiet); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	s, err := New(Config{Path: write(t, "g.jsonl", goodJSONL)}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("broker gone")
	if err := s.Run(context.Background(), func(context.Context, ...streams.Record) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("emit error: %v", err)
	}
}
