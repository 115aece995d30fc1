package question_test

import (
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/chunk"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
)

var showCorpus = flag.Bool("show", false, "print the questions of the corpus tests")

// corpusDoc is one document of a test corpus, read as the dir source
// would: front matter gives title and published_at.
type corpusDoc struct {
	id, text  string
	published time.Time
	words     int
}

func readCorpus(t testing.TB, dir string) []corpusDoc {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	sort.Strings(files)
	var out []corpusDoc
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := corpusDoc{id: filepath.Base(f), text: string(b)}
		if rest, ok := strings.CutPrefix(d.text, "---\n"); ok {
			if fm, body, ok := strings.Cut(rest, "\n---\n"); ok {
				d.text = body
				for _, l := range strings.Split(fm, "\n") {
					if v, ok := strings.CutPrefix(l, "published_at:"); ok {
						d.published, _ = time.Parse("2006-01-02", strings.TrimSpace(v))
					}
				}
			}
		}
		d.words = len(strings.Fields(d.text))
		out = append(out, d)
	}
	return out
}

// feed chunks a document version and extracts its triplets offline, in the
// order the engine's stages would deliver them.
func feed(k *question.Knowledge, d corpusDoc, version uint32) (chunks []*schemas.Chunk, triplets []*schemas.Triplet) {
	pieces := chunk.Split(d.text, 0)
	for i, p := range pieces {
		c := &schemas.Chunk{ChunkID: schemas.ID(d.id, p.Text), DocID: d.id, DocVersion: version, Ordinal: uint32(i),
			Chunks: uint32(len(pieces)), Text: p.Text, Kind: p.Kind, PublishedAt: d.published}
		chunks = append(chunks, c)
		chunkDocs[c.ChunkID] = d.id
		for _, x := range triplet.Extract(p.Text) {
			triplets = append(triplets, &schemas.Triplet{TripletID: schemas.ID(x.Head, x.Relation, x.Tail, c.ChunkID),
				Head: x.Head, Relation: x.Relation, Tail: x.Tail, Kind: x.Kind, ChunkID: c.ChunkID, DocID: d.id,
				DocVersion: version, SourceSentence: x.Sentence.Text, ChunkText: p.Text, PublishedAt: d.published})
		}
		triplets = append(triplets, &schemas.Triplet{End: true, ChunkID: c.ChunkID, DocID: d.id, DocVersion: version,
			Chunks: uint32(len(pieces))})
	}
	return chunks, triplets
}

func build(t testing.TB, docs []corpusDoc) *question.Knowledge {
	k := question.NewKnowledge(question.PatternLimits{})
	for _, d := range docs {
		_, triplets := feed(k, d, 1)
		for _, tr := range triplets {
			apply(k, tr)
		}
	}
	return k
}

// apply hands a triplet record to the graph as the stage does.
func apply(k *question.Knowledge, tr *schemas.Triplet) (question.Change, bool) {
	if tr.End {
		return k.ChunkDone(tr.DocID, tr.ChunkID, tr.DocVersion, tr.Chunks), false
	}
	return k.AddTriplet(tr)
}

func TestReportsCorpus(t *testing.T) {
	docs := readCorpus(t, "../../testdata/corpora/reports")
	k := build(t, docs)
	words := 0
	for _, d := range docs {
		words += d.words
	}
	qs := k.Active()
	byPattern := map[string]int{}
	for _, q := range qs {
		byPattern[q.Pattern]++
		if *showCorpus {
			t.Logf("%-13s %s → %s", q.Pattern, q.Question, q.Answer)
		}
	}
	t.Logf("%d words, %d edges, %d entities, %d questions (%.1f words per question): %v; rejected %v",
		words, k.Graph().Len(), k.Graph().Entities(), len(qs), float64(words)/float64(max(len(qs), 1)), byPattern, k.Rejected)
}

func words(docs []corpusDoc) int {
	n := 0
	for _, d := range docs {
		n += d.words
	}
	return n
}

// docsOf returns the distinct documents of a question's ground-truth chunks.
func docsOf(_ *question.Knowledge, q *schemas.Question) map[string]bool {
	out := map[string]bool{}
	for _, id := range q.GTChunkIDs {
		out[chunkDocs[id]] = true
	}
	return out
}

// chunkDocs maps the chunk ids feed made to their documents.
var chunkDocs = map[string]string{}

// The yield criterion on a fact-dense corpus of related reports:
// one question per 25 words of prose at least, chain and star questions
// whose evidence spans documents, and every answer in its ground truth.
func TestReportsYield(t *testing.T) {
	docs := readCorpus(t, "../../testdata/corpora/reports")
	k := build(t, docs)
	qs := k.Active()
	if w := words(docs); len(qs)*25 < w {
		t.Errorf("%d questions from %d words: fewer than one per 25 words", len(qs), w)
	}
	cross := map[string]int{}
	for _, q := range qs {
		if len(docsOf(k, q)) >= 2 && len(q.GTChunkIDs) >= 2 {
			cross[q.Pattern]++
		}
		answered := false
		for _, c := range q.GTChunks {
			answered = answered || question.AnswerInText(q.Answer, c)
		}
		if !answered {
			t.Errorf("%q: answer %q is in none of its ground-truth chunks", q.Question, q.Answer)
		}
		if q.Hops > 1 && len(q.GTChunkIDs) < 2 {
			t.Errorf("%q: a %d-hop question answered by one chunk", q.Question, q.Hops)
		}
	}
	for _, p := range []string{schemas.PatternChain, schemas.PatternStar} {
		if cross[p] == 0 {
			t.Errorf("no %s question spans two documents (cross-document counts: %v)", p, cross)
		}
	}
}

// The same documents in another order give the same questions: the set is
// a function of the graph.
func TestOrderDoesNotMatter(t *testing.T) {
	docs := readCorpus(t, "../../testdata/corpora/reports")
	forward := ids(build(t, docs).Active())
	rev := slices.Clone(docs)
	slices.Reverse(rev)
	if backward := ids(build(t, rev).Active()); !slices.Equal(forward, backward) {
		t.Errorf("reversed order: %d questions, forward %d; they differ", len(backward), len(forward))
	}
	for seed := range uint64(5) {
		shuffled := slices.Clone(docs)
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := ids(build(t, shuffled).Active()); !slices.Equal(forward, got) {
			t.Errorf("shuffle %d: %d questions, forward %d; they differ", seed, len(got), len(forward))
		}
	}
}

func ids(qs []*schemas.Question) []string {
	var out []string
	for _, q := range qs {
		out = append(out, q.QuestionID)
	}
	slices.Sort(out)
	return out
}

// Editing one fact of one document retires the questions on it, asks the
// new ones, and recomputes nothing else; re-reading an unchanged document
// adds nothing.
func TestEditOneFact(t *testing.T) {
	docs := readCorpus(t, "../../testdata/corpora/reports")
	k := build(t, docs)
	before := ids(k.Active())

	// Unchanged document again, as version 2: nothing changes.
	_, triplets := feed(k, docs[0], 2)
	for _, tr := range triplets {
		if c, _ := apply(k, tr); len(c.New)+len(c.Retired)+len(c.RemovedEdges) > 0 {
			t.Fatalf("unchanged version changed the graph: %+v", c)
		}
	}
	if !slices.Equal(before, ids(k.Active())) {
		t.Fatal("re-reading an unchanged document changed the question set")
	}

	// One fact changes: "1,150 people" → "1,180 people".
	i := slices.IndexFunc(docs, func(d corpusDoc) bool { return strings.Contains(d.text, "1,150 people") })
	if i < 0 {
		t.Fatal("corpus lacks the fact to edit")
	}
	edited := docs[i]
	edited.text = strings.Replace(edited.text, "1,150 people", "1,180 people", 1)
	old := activeWith(k, "1,150 people")
	if len(old) == 0 {
		t.Fatal("no question is asked about the fact to edit")
	}
	var all question.Change
	_, triplets = feed(k, edited, 3)
	for _, tr := range triplets {
		c, _ := apply(k, tr)
		all.New = append(all.New, c.New...)
		all.Retired = append(all.Retired, c.Retired...)
		all.RemovedEdges = append(all.RemovedEdges, c.RemovedEdges...)
	}
	if len(all.RemovedEdges) != 1 {
		t.Errorf("edit: %d edges removed, want 1 (the edited fact)", len(all.RemovedEdges))
	}
	if got := activeWith(k, "1,150 people"); len(got) != 0 {
		t.Errorf("%d questions on the old fact still asked", len(got))
	}
	if len(activeWith(k, "1,180 people")) == 0 {
		t.Error("no question asked about the new fact")
	}
	// A retired question rests on the old fact, or gives its place under
	// the per-fact cap to a new one (same pattern, same answer).
	took := map[string]bool{}
	for _, q := range all.New {
		took[q.Pattern+"\x00"+q.Answer] = true
	}
	retired := map[string]bool{}
	for _, q := range all.Retired {
		retired[q.QuestionID] = true
		if !strings.Contains(q.Question+" "+q.Answer, "1,150") && !took[q.Pattern+"\x00"+q.Answer] {
			t.Errorf("retired %q → %q, which does not rest on the edited fact", q.Question, q.Answer)
		}
	}
	for _, q := range old {
		if !retired[q.QuestionID] {
			t.Errorf("%q was not retired", q.Question)
		}
	}
	// A new question rests on the new fact, or takes the place of a retired
	// one under the per-fact cap (same pattern, same answer).
	replaced := map[string]bool{}
	for _, q := range all.Retired {
		replaced[q.Pattern+"\x00"+q.Answer] = true
	}
	for _, q := range all.New {
		if !strings.Contains(q.Question+" "+q.Answer, "1,180") && !replaced[q.Pattern+"\x00"+q.Answer] {
			t.Errorf("asked %q → %q, which does not rest on the edited fact", q.Question, q.Answer)
		}
	}
	if after := len(k.Active()); after != len(before) {
		t.Errorf("%d questions after the edit, %d before", after, len(before))
	}
	t.Logf("edit: %d edge removed; %d questions retired, %d new, of %d", len(all.RemovedEdges), len(all.Retired), len(all.New), len(before))
}

func activeWith(k *question.Knowledge, answer string) []*schemas.Question {
	var out []*schemas.Question
	for _, q := range k.Active() {
		if q.Answer == answer {
			out = append(out, q)
		}
	}
	return out
}

func citesAny(q *schemas.Question, edges []string) bool {
	for _, id := range q.TripletIDs {
		if slices.Contains(edges, id) {
			return true
		}
	}
	return false
}

// A graph rebuilt from its edges (a restart) supports the same questions,
// and going on from there ends where an uninterrupted run ends.
func TestRebuildMidCorpus(t *testing.T) {
	docs := readCorpus(t, "../../testdata/corpora/reports")
	want := ids(build(t, docs).Active())
	half := build(t, docs[:len(docs)/2])
	restarted := question.NewKnowledge(question.PatternLimits{})
	for _, d := range docs[:len(docs)/2] {
		for _, id := range half.Graph().DocEdges(d.id) {
			e, _ := half.Graph().Edge(id)
			restarted.Graph().Add(e, half.Graph().Chunk(e.ChunkID))
		}
		restarted.SetDoc(d.id, half.Doc(d.id))
	}
	restarted.Rebuild()
	if !slices.Equal(ids(half.Active()), ids(restarted.Active())) {
		t.Fatalf("rebuilt graph asks %d questions, the original %d", len(restarted.Active()), len(half.Active()))
	}
	for _, d := range docs[len(docs)/2:] {
		_, triplets := feed(restarted, d, 1)
		for _, tr := range triplets {
			apply(restarted, tr)
		}
	}
	if got := ids(restarted.Active()); !slices.Equal(want, got) {
		t.Errorf("after a restart mid-corpus: %d questions, uninterrupted %d; the sets differ", len(got), len(want))
	}
}

// Questions about a document dated 2026-04-28 anchor to that date or a
// period named in the text, never to the day the engine runs: every month
// a question names is the publication month or one its document states.
func TestAnchoredToPublication(t *testing.T) {
	docs := readCorpus(t, "../../testdata/corpora/reports")
	k := build(t, docs)
	month := regexp.MustCompile(`\b(?:January|February|March|April|May|June|July|August|September|October|November|December) (?:19|20)\d{2}\b`)
	published := time.Date(2026, 4, 28, 0, 0, 0, 0, time.UTC)
	var doc corpusDoc
	for _, d := range docs {
		if d.published.Equal(published) {
			doc = d
		}
	}
	if doc.id == "" {
		t.Fatal("the corpus has no report dated 2026-04-28")
	}
	anchored := 0
	for _, q := range k.Active() {
		if q.DocID != doc.id {
			continue
		}
		for _, m := range month.FindAllString(q.Question, -1) {
			if m == "April 2026" {
				anchored++
			} else if !strings.Contains(doc.text, m) && !strings.Contains(strings.Join(q.GTChunks, " "), m) {
				t.Errorf("%q names %s, which is neither its publication month nor in its evidence", q.Question, m)
			}
		}
	}
	if anchored == 0 {
		t.Error("no question of the report dated 2026-04-28 is anchored to April 2026")
	}
}
