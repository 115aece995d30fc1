package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider/simserver"
	"github.com/robustream/robustream/processors/question"
	"github.com/robustream/robustream/processors/triplet"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// recordedDir holds the recorded generator replies and the two reports
// they were written for.
const recordedDir = "../../processors/provider/simserver/testdata/recorded"

// outlookStart opens the Northwind paragraph that knowledgeCorpus moves
// into a document of its own: the recording answers it with prose.
const outlookStart = "For the full year 2026"

// knowledgeCorpus writes the two recorded reports to a folder, with
// Northwind's outlook paragraph as a third document. The triplet stage
// dead-letters that paragraph's chunk (its reply holds no JSON), and a
// document with a dead-lettered chunk is never closed for the question
// stage; apart, it leaves the Northwind report's questions alone.
func knowledgeCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"northwind_q1_2026.md", "harbor_keel_march_2026.md"} {
		b, err := os.ReadFile(filepath.Join(recordedDir, name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if i := strings.Index(text, outlookStart); i > 0 {
			n := strings.Index(text[i:], "\n\n")
			write("northwind_outlook_2026.md", "# Northwind Robotics: 2026 outlook\n\n"+text[i:i+n+1])
			text = text[:i] + text[i+n+2:]
		}
		write(name, text)
	}
	return dir
}

// knowledgeConfig writes a robustream.yaml asking the LLM of both
// knowledge stages, chunking the reports one paragraph a chunk.
func knowledgeConfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "robustream.yaml")
	cfg := "stages:\n  chunk: {max_tokens: 160}\n  triplets: {extractor: llm, window: 1}\n  questions: {writer: llm, llm_checks: true}\n"
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// knowledgeModels writes a models.yaml with the built-in reader and, given
// a server, the generator on it.
func knowledgeModels(t *testing.T, sim *simserver.Server) string {
	t.Helper()
	yaml := "models:\n  - {id: builtin:lexical, kind: builtin}\n"
	if sim != nil {
		yaml += fmt.Sprintf("generator: {base_url: %q, model: %s, timeout: 10s}\n", sim.BaseURL(), simserver.DefaultModel)
	}
	p := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// sqlRows runs a query and returns its rows, split into their
// tab-separated fields (quotes and backslashes unescaped).
func sqlRows(t *testing.T, data, q string) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(sqlOut(t, data, q)), "\n") {
		if line != "" {
			line = strings.NewReplacer(`\'`, "'", `\\`, `\`).Replace(line)
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows
}

// TestKnowledgeLLM runs the knowledge stages end to end with the LLM
// extractor, writer and QA scorer against a server replaying recorded
// replies (the shared recording, with e2e.yaml's triplet entries fitted to
// the engine's chunks first): clean, repairable and invalid triplet
// replies, prose instead of JSON, a 429 before success, questions kept
// and dropped on their scores.
func TestKnowledgeLLM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	rec, err := simserver.LoadRecording(filepath.Join(recordedDir, "e2e.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	shared, err := simserver.LoadRecording(filepath.Join(recordedDir, "recording.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rec.Entries = append(rec.Entries, shared.Entries...)
	sim, err := simserver.Start(simserver.Config{Recorded: rec, PrefillPerToken: time.Nanosecond,
		CachedPrefillPerToken: time.Nanosecond, DecodePerToken: time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	tb := startBroker(t)
	k := testKafka(t, tb)
	data := t.TempDir()
	start := time.Now()
	out := robustreamWithStderr(t, append([]string{"eval", "--once", "--config", knowledgeConfig(t), "--source", "dir:" + knowledgeCorpus(t),
		"--data-dir", data, "--models", knowledgeModels(t, sim), "--log-level", "warn"}, tb.args()...)...)
	t.Logf("eval --once: %.1fs, %d generator requests", time.Since(start).Seconds(), sim.Stats().Requests)
	defer func() {
		if t.Failed() {
			t.Logf("engine:\n%s", tail(out, 4000))
		}
	}()

	// 1–3. Triplets per chunk (named by its first words): every one from
	// the LLM, each sentence verbatim in its chunk and each tail in its
	// sentence. The counts leave out the objects validation refuses:
	// Northwind's first chunk has 19, of which a sentence not in the chunk,
	// an unknown chunk id (c3), an empty entity_2, a tail not in its
	// sentence and a duplicate; Harbor Keel's second a label no chunk has
	// (c0); its fourth a sentence reworded ("17 percent"). Fence, trailing
	// commas, a cut-off reply and an object wrapper with typographic quotes
	// are repaired. The first Harbor Keel chunk is answered after a 429.
	want := map[string]int64{
		"Northwind Robotics reported r": 14, // clean JSON, 5 objects refused
		"Harbor Keel Logistics remaine": 15, // fenced, prose around, trailing commas
		"Research and development spen": 10, // cut off by max_tokens
		"Northwind sources its lidar s": 9,  // wrapped in an object, smart quotes
		"# Harbor Keel Logistics: oper": 10, // 429, then success
		"Automation is central to the ": 5,  // unknown chunk id c0 refused
		"Harbor Keel's chief operating": 9,
		"Harbor Keel reported revenue ": 6, // reworded sentence refused
	}
	got := map[string]int64{}
	for _, r := range sqlRows(t, data, `SELECT substring(c.text, 1, 29), t.extractor, uniqExact(t.triplet_id),
			countIf(position(c.text, t.source_sentence) = 0 OR position(t.source_sentence, t.tail) = 0 OR t.source_sentence = '')
		FROM robustream.triplets AS t LEFT JOIN (SELECT chunk_id, any(text) AS text FROM robustream.chunks GROUP BY chunk_id) AS c ON c.chunk_id = t.chunk_id
		GROUP BY 1, 2 ORDER BY 1, 2`) {
		if len(r) != 4 {
			t.Fatalf("triplets per chunk: row %q", r)
		}
		if r[1] != triplet.ExtractorLLM {
			t.Errorf("chunk %q: %s triplets of extractor %q, want only %q", r[0], r[2], r[1], triplet.ExtractorLLM)
		}
		if r[3] != "0" {
			t.Errorf("chunk %q: %s triplets whose sentence is not verbatim in the chunk or whose tail is not in the sentence", r[0], r[3])
		}
		var n int64
		fmt.Sscan(r[2], &n)
		got[r[0]] += n
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("triplets per chunk:\n got  %v\n want %v", got, want)
	}
	if n := sqlCount(t, `SELECT count() FROM robustream.triplets WHERE relation = 'reported revenue growth of'
		OR tail = '1,240 Tern AMR-40 robots' OR position(source_sentence, '17 percent') > 0`, "--data-dir", data); n != 0 {
		t.Errorf("%d triplets stored from objects validation must refuse", n)
	}
	if n := sim.Played("e2e-triplets-harbor-1-rate-limited"); n != 2 {
		t.Errorf("the rate-limited chunk was asked %d times, want 2: the 429, then the retry", n)
	}

	// 2. The chunk answered with prose is dead-lettered by the triplet
	// stage, once, with the reason; no other chunk is.
	var dead []string
	for _, m := range readTopic(t, k, streams.TopicDLQ) {
		if header(m, streams.HeaderDLQStage) != triplet.StageName {
			continue
		}
		var c schemas.Chunk
		if err := schemas.Decode(m.Value, &c); err != nil {
			t.Fatalf("dead letter of the triplet stage is not a chunk: %v", err)
		}
		reason := header(m, streams.HeaderDLQError)
		dead = append(dead, reason)
		t.Logf("dead letter of the triplet stage: %s", reason)
		if !strings.Contains(c.Text, outlookStart) || !strings.Contains(reason, triplet.ErrLLMOutput.Error()) ||
			!strings.Contains(reason, "no JSON array") || header(m, streams.HeaderDLQAttempts) != "1" {
			t.Errorf("dead letter of chunk %.40q: error %q after %s attempt(s); want the outlook chunk, at once, for an unusable reply with no JSON array",
				c.Text, reason, header(m, streams.HeaderDLQAttempts))
		}
	}
	if len(dead) != 1 {
		t.Errorf("the triplet stage dead-lettered %d chunks (%q), want 1", len(dead), dead)
	}

	// 4. The writer's questions are stored with its scores; the one the
	// scorer gave 2 for reasonableness is not.
	written := map[string]string{}
	for _, r := range sqlRows(t, data, `SELECT question, arrayStringConcat(arrayMap((n, v) -> concat(n, '=', toString(v)),
			arrayFilter(n -> startsWith(n, 'llm_'), qa_score_names), arrayFilter((v, n) -> startsWith(n, 'llm_'), qa_score_values, qa_score_names)), ' ')
		FROM robustream.questions WHERE generator = '`+question.GeneratorLLM+`' GROUP BY 1, 2 ORDER BY 1`) {
		if len(r) != 2 {
			t.Fatalf("LLM questions: row %q", r)
		}
		written[r[0]] = r[1]
	}
	for q, scores := range map[string]string{
		"What revenue did Northwind Robotics report for the first quarter of 2026?":                                                       "llm_clarity=5 llm_correctness=5 llm_reasonableness=5",
		"In which city is the robot maker that Harbor Keel Logistics ordered 600 Tern AMR-40 robots from in February 2026 headquartered?": "llm_clarity=4 llm_correctness=5 llm_reasonableness=4",
	} {
		if got, ok := written[q]; !ok || got != scores {
			t.Errorf("question %q: stored %v with scores %q; want it stored by the LLM writer with %q (LLM questions: %q)", q, ok, got, scores, written)
		}
	}
	for q, scores := range written {
		for _, s := range strings.Fields(scores) {
			if v, err := strconv.ParseFloat(s[strings.IndexByte(s, '=')+1:], 64); err != nil || v <= question.LLMKeepAbove {
				t.Errorf("question %q is stored with %s: a score of 3 or less must drop it", q, s)
			}
		}
	}
	const lowScored = "How many people are employed by the robot maker headquartered in Gothenburg"
	if sim.Played("score-star-low-reasonableness") == 0 {
		t.Errorf("the question scored 2 for reasonableness was never written and scored")
	}
	if n := sqlCount(t, "SELECT count() FROM robustream.questions WHERE startsWith(question, '"+lowScored+"')", "--data-dir", data); n != 0 {
		t.Errorf("%d rows of the question scored 2 for reasonableness, want none", n)
	}
}

// TestKnowledgeLLMWithoutGenerator: with the LLM extractor, writer and
// checks configured but no generator in models.yaml, the engine runs,
// says why in its log, and falls back to the rule extractor and template
// questions.
func TestKnowledgeLLMWithoutGenerator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	data := t.TempDir()
	out := robustreamWithStderr(t, "eval", "--once", "--config", knowledgeConfig(t), "--source", "dir:"+writeCorpus(t),
		"--data-dir", data, "--models", knowledgeModels(t, nil), "--log-level", "warn")
	for _, want := range []string{"triplet extraction degraded", "needs a generator LLM", "question writing degraded", "models.yaml has no generator"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log does not say %q:\n%s", want, tail(out, 3000))
		}
	}
	rows := sqlRows(t, data, "SELECT extractor, uniqExact(triplet_id) FROM robustream.triplets GROUP BY extractor")
	if len(rows) != 1 || rows[0][0] != triplet.ExtractorRule || rows[0][1] == "0" {
		t.Errorf("triplets by extractor %q, want rule ones only\n%s", rows, out)
	}
	rows = sqlRows(t, data, "SELECT generator, count() FROM robustream.questions GROUP BY generator")
	if len(rows) != 1 || rows[0][0] != question.GeneratorTemplate {
		t.Errorf("questions by generator %q, want template ones only\n%s", rows, out)
	}
}
