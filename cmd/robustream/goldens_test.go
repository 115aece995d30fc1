package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenFacts are twenty curated questions a support team might keep, each
// with the passage that answers it (two with a second passage).
var goldenFacts = []struct{ q, a, ctx, ctx2 string }{
	{"What was Acme Corp's revenue in Q3 2025?", "$4.2 billion", "Acme Corp's revenue in Q3 2025 was $4.2 billion, up 8 percent on the year.", ""},
	{"Which company did Acme Corp acquire in August 2025?", "Brightline Labs", "Acme Corp acquired Brightline Labs in August 2025 for an undisclosed sum.", ""},
	{"Who is the chief financial officer of Northwind Bank?", "Maria Lopez", "Northwind Bank appointed Maria Lopez as chief financial officer in March.", ""},
	{"How many branches did Northwind Bank open in 2025?", "12", "Northwind Bank opened 12 new branches in 2025, most of them in the north.", ""},
	{"What was Freedonia's inflation rate in October 2025?", "3.1 percent", "Freedonia's inflation rate in October 2025 was 3.1 percent, the statistics office said.", ""},
	{"How many engineers did Globex Industries hire in 2025?", "450", "Globex Industries hired 450 engineers in 2025 to staff its new plant.", ""},
	{"What was Initech's operating margin in 2025?", "18 percent", "Initech's operating margin in 2025 was 18 percent.", ""},
	{"Who is Initech's chief operating officer?", "Peter Gibbons", "Initech appointed Peter Gibbons as chief operating officer.", ""},
	{"Where is the head office of Umbrella Logistics?", "Rotterdam", "Umbrella Logistics moved its head office to Rotterdam in 2024.", ""},
	{"How long is the warranty on the Zephyr X2 router?", "three years", "Every Zephyr X2 router comes with a warranty of three years.", ""},
	{"Within how many days can a customer return an unopened Zephyr product?", "30 days", "An unopened Zephyr product can be returned within 30 days of delivery.", ""},
	{"What port does the Zephyr admin console listen on?", "8443", "The Zephyr admin console listens on port 8443 over HTTPS.", ""},
	{"Which city hosts the Vandelay Industries research centre?", "Tampere", "Vandelay Industries opened its research centre in Tampere.", ""},
	{"How many employees does Soylent Foods have?", "2,300", "Soylent Foods employs 2,300 people across four countries.", ""},
	{"What is the maximum upload size on the Stark Cloud free plan?", "5 GB", "Files of up to 5 GB can be uploaded on the Stark Cloud free plan.", ""},
	{"Who founded Wonka Confections?", "Willa Wonka", "Wonka Confections was founded by Willa Wonka in 1971.", ""},
	{"When does the Hooli support desk open on weekdays?", "8 am", "The Hooli support desk opens at 8 am on weekdays and at 10 am on Saturdays.", ""},
	{"Which river runs through the town of Eastbrook?", "the Severn", "The town of Eastbrook lies on the Severn.", ""},
	{"Who leads the company that acquired Brightline Labs?", "Dana Reyes", "Acme Corp acquired Brightline Labs in August 2025 for an undisclosed sum.", "Dana Reyes has been chief executive of Acme Corp since 2021."},
	{"In which city is the research centre of the firm that Tom Kessler runs?", "Tampere", "Tom Kessler is the managing director of Vandelay Industries.", "Vandelay Industries opened its research centre in Tampere."},
}

// goldenFiller is a second sentence for each first context, as a passage
// in a real knowledge base has one: it holds no answer, so document
// perturbations that remove the answer leave a context behind.
var goldenFiller = []string{
	"The figures were published in the quarterly report.",
	"Analysts had expected the news for some weeks.",
	"Further details are on the company's website.",
	"The announcement was made at the annual meeting.",
}

// goldenContext is the first context of fact i as written to the file.
func goldenContext(i int) string { return goldenFacts[i].ctx + " " + goldenFiller[i%len(goldenFiller)] }

// writeGoldens writes the twenty questions as JSONL (ids on the odd ones,
// an alias and a date on some).
func writeGoldens(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i, f := range goldenFacts {
		rec := map[string]any{"question": f.q, "answer": f.a, "contexts": []string{goldenContext(i)}, "domain": "support"}
		if f.ctx2 != "" {
			rec["contexts"] = []string{goldenContext(i), f.ctx2}
		}
		if i%2 == 1 {
			rec["id"] = fmt.Sprintf("faq-%02d", i)
		}
		if i%5 == 0 {
			rec["published_at"] = "2025-11-0" + fmt.Sprint(1+i/5)
		}
		if f.a == "12" {
			rec["aliases"] = []string{"twelve"}
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "goldens.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGoldensEndToEnd: a goldens file of 20 questions through eval --once
// with the built-in readers: all 20 are in the questions table marked
// curated (generator goldens), their ground-truth chunks are the contexts,
// answer_removed variants were made from them, and every model has
// outcomes for every one of them. Export lists each of them once, curated,
// with its contexts and documents, in all three formats.
func TestGoldensEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a pipeline")
	}
	data := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--once", "--source", "goldens:" + writeGoldens(t), "--data-dir", data, "--log-level", "error"}, &out, &errb); code != 0 {
		t.Fatalf("eval --once exited %d\n%s\n%s", code, out.String(), tail(errb.String(), 3000))
	}
	if !strings.Contains(out.String(), "open pairings 0") {
		t.Errorf("pairings left open:\n%s", out.String())
	}
	q := func(sql string) int64 { t.Helper(); return sqlCount(t, sql, "--data-dir", data) }
	curated := "(SELECT question_id FROM robustream.questions WHERE generator = 'goldens')"
	if n := q("SELECT uniqExact(question_id) FROM robustream.questions WHERE generator = 'goldens'"); n != 20 {
		t.Fatalf("%d curated questions, want 20", n)
	}
	if n := q("SELECT count() FROM (SELECT arrayJoin(gt_chunk_ids) AS c FROM robustream.questions WHERE generator = 'goldens') WHERE c NOT IN (SELECT chunk_id FROM robustream.chunks)"); n != 0 {
		t.Errorf("%d ground-truth chunk ids of curated questions are not chunks", n)
	}
	if n := q("SELECT uniqExact(question_id) FROM robustream.variants WHERE kind = 'answer_removed' AND question_id IN " + curated); n != 20 {
		t.Errorf("answer_removed variants for %d curated questions, want all 20", n)
	}
	models := q("SELECT uniqExact(model_id) FROM robustream.outcomes")
	if models == 0 {
		t.Fatal("no outcomes")
	}
	if n := q("SELECT count() FROM (SELECT model_id, uniqExact(question_id) AS n FROM robustream.outcomes WHERE question_id IN " + curated + " GROUP BY model_id HAVING n = 20)"); n != models {
		t.Errorf("%d of %d models have outcomes for all 20 curated questions", n, models)
	}

	// Export: one line per active question, the curated ones marked.
	active := q("SELECT uniqExact(question_id) FROM robustream.active_questions")
	lines := exportLines(t, data, "jsonl")
	if int64(len(lines)) != active {
		t.Fatalf("export wrote %d lines for %d active questions", len(lines), active)
	}
	byQuestion := map[string]map[string]any{}
	for _, l := range lines {
		if l["curated"] == true {
			byQuestion[l["question"].(string)] = l
		}
	}
	if len(byQuestion) != 20 {
		t.Fatalf("export marks %d questions curated, want 20", len(byQuestion))
	}
	for i, f := range goldenFacts {
		l := byQuestion[f.q]
		ctxs, _ := l["contexts"].([]any)
		docs, _ := l["documents"].([]any)
		if l == nil || l["answer"] != f.a || len(ctxs) == 0 || ctxs[0] != goldenContext(i) || len(docs) != len(ctxs) || l["generator"] != "goldens" {
			t.Errorf("export of %q: %v", f.q, l)
		}
		if f.ctx2 != "" && (len(ctxs) != 2 || ctxs[1] != f.ctx2 || l["pattern"] != "path" || l["hops"] != 2.0) {
			t.Errorf("two-context question %q exported as %v", f.q, l)
		}
	}
	for _, l := range exportLines(t, data, "ragas") {
		if l["user_input"] == "" || l["reference"] == nil || l["reference_contexts"] == nil || len(l) != 3 {
			t.Errorf("ragas line %v", l)
		}
	}
	b := robustream(t, "export", "--data-dir", data, "--format", "deepeval")
	var goldens []struct {
		Input, ExpectedOutput string
		Context               []string
		Meta                  map[string]any `json:"additional_metadata"`
	}
	if err := json.Unmarshal([]byte(b), &goldens); err != nil {
		t.Fatalf("deepeval export is not a JSON array: %v\n%s", err, tail(b, 500))
	}
	if int64(len(goldens)) != active || goldens[0].Input == "" || len(goldens[0].Context) == 0 || goldens[0].Meta["question_id"] == "" {
		t.Errorf("deepeval export: %d goldens for %d questions, first %+v", len(goldens), active, goldens[0])
	}
	// --window: questions made within the last hour are all of them; an
	// --out file says how many it wrote.
	outFile := filepath.Join(t.TempDir(), "set.jsonl")
	msg := robustream(t, "export", "--data-dir", data, "--window", "1h", "--out", outFile)
	if !strings.Contains(msg, fmt.Sprintf("%d question(s) written", active)) {
		t.Errorf("export --out said %q", msg)
	}
}

// exportLines runs export in format and decodes its JSONL.
func exportLines(t *testing.T, data, format string) []map[string]any {
	t.Helper()
	out := robustream(t, "export", "--data-dir", data, "--format", format)
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("export %s: a line is not JSON: %v: %q", format, err, sc.Text())
		}
		lines = append(lines, m)
	}
	return lines
}
