package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/robustream/robustream/schemas"
)

// Export formats.
const (
	exportJSONL    = "jsonl"
	exportRagas    = "ragas"
	exportDeepEval = "deepeval"
)

// exportPage is how many questions one query of export reads: the
// running engine's SQL API bounds each result, so a large test set comes
// in pages, ordered by question id.
const exportPage = 200

func cmdExport(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	format := fs.String("format", exportJSONL, "output: jsonl (every field), ragas (JSONL of user_input, reference, reference_contexts) or deepeval (a JSON array of goldens: input, expected_output, context, additional_metadata)")
	window := fs.String("window", "all", "only questions made or read within this time: a duration (1h, 24h), days (7d) or all")
	out := fs.String("out", "", "write to `FILE` instead of stdout")
	cfg, err := parseConfig(fs, args, stdout, sqlKeys...)
	if err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected argument %q (usage: robustream export [--format jsonl|ragas|deepeval] [--window W] [--out FILE])", fs.Arg(0))
	}
	switch *format {
	case exportJSONL, exportRagas, exportDeepEval:
	default:
		return fmt.Errorf("--format %q: want jsonl, ragas or deepeval", *format)
	}
	win, err := parseWindow(*window)
	if err != nil {
		return err
	}
	q, err := newQuerier(ctx, cfg)
	if err != nil {
		return err
	}
	defer q.close()
	w := stdout
	var f *os.File
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		w = f
	}
	var since time.Time
	if win > 0 {
		since = clock().Add(-win)
	}
	n, err := exportQuestions(ctx, q.query, *format, since, w)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(stdout, "%d question(s) written to %s (%s)\n", n, *out, *format)
	}
	return nil
}

// exportRow is one active question as exported in the jsonl format.
type exportRow struct {
	ID          string      `json:"id"`
	Question    string      `json:"question"`
	Answer      string      `json:"answer"`
	Aliases     []string    `json:"aliases"`
	Contexts    []string    `json:"contexts"`
	ContextIDs  []string    `json:"context_ids"`
	Pattern     string      `json:"pattern"`
	Hops        int         `json:"hops"`
	DR          float64     `json:"d_r"`
	Domain      string      `json:"domain"`
	PublishedAt string      `json:"published_at"`
	Documents   []exportDoc `json:"documents"`
	Curated     bool        `json:"curated"`
	Generator   string      `json:"generator"`
	// missing counts ground-truth chunks not found in the chunks table.
	missing int
}

// exportDoc is a document a question's contexts come from.
type exportDoc struct {
	DocID string `json:"doc_id"`
	Title string `json:"title"`
	URI   string `json:"uri"`
}

// exportQuestions writes the active (not retired) questions produced since
// since (zero: all) in format and returns how many.
func exportQuestions(ctx context.Context, query queryFunc, format string, since time.Time, w io.Writer) (int, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if format == exportDeepEval {
		bw.WriteString("[")
	}
	n, missing, last := 0, 0, ""
	for {
		rows, err := exportPageOf(ctx, query, last, since)
		if err != nil {
			return n, err
		}
		for _, r := range rows {
			if format == exportDeepEval {
				if n > 0 {
					bw.WriteString(",")
				}
				bw.WriteString("\n")
			}
			if err := enc.Encode(exportAs(format, r)); err != nil {
				return n, err
			}
			if format == exportDeepEval {
				// Encode ends with a newline; the array's comma follows it.
				bw.Flush()
			}
			n++
			if r.missing > 0 {
				missing++
			}
			last = r.ID
		}
		if len(rows) < exportPage {
			break
		}
	}
	if format == exportDeepEval {
		bw.WriteString("]\n")
	}
	if err := bw.Flush(); err != nil {
		return n, err
	}
	if missing > 0 {
		fmt.Fprintf(os.Stderr, "export: %d question(s) have ground-truth chunks not (yet) in robustream.chunks; their contexts are incomplete\n", missing)
	}
	return n, nil
}

// exportAs is r in format's field names.
func exportAs(format string, r *exportRow) any {
	switch format {
	case exportRagas:
		// ragas 0.2+ SingleTurnSample names (EvaluationDataset.from_jsonl).
		return struct {
			UserInput         string   `json:"user_input"`
			Reference         string   `json:"reference"`
			ReferenceContexts []string `json:"reference_contexts"`
		}{r.Question, r.Answer, r.Contexts}
	case exportDeepEval:
		// deepeval's Golden (EvaluationDataset.add_goldens_from_json_file).
		return struct {
			Input              string         `json:"input"`
			ExpectedOutput     string         `json:"expected_output"`
			Context            []string       `json:"context"`
			AdditionalMetadata map[string]any `json:"additional_metadata"`
		}{r.Question, r.Answer, r.Contexts, map[string]any{
			"question_id": r.ID, "aliases": r.Aliases, "pattern": r.Pattern, "hops": r.Hops, "d_r": r.DR,
			"domain": r.Domain, "published_at": r.PublishedAt, "documents": r.Documents, "curated": r.Curated,
			"generator": r.Generator,
		}}
	}
	return r
}

// exportPageOf reads the next page of active questions after question id
// last, with their chunk texts and documents.
func exportPageOf(ctx context.Context, query queryFunc, last string, since time.Time) ([]*exportRow, error) {
	where := "question_id > " + sqlString(last) +
		" AND question_id NOT IN (SELECT question_id FROM robustream.question_retirements)"
	if !since.IsZero() {
		where += fmt.Sprintf(" AND produced_at >= toDateTime(%d)", since.Unix())
	}
	b, err := query(ctx, `SELECT question_id, question, answer, aliases, pattern, hops, gt_chunk_ids, d_r, domain,
 toUnixTimestamp(published_at) AS published, generator
FROM robustream.questions FINAL
WHERE `+where+`
ORDER BY question_id
LIMIT `+fmt.Sprint(exportPage), "JSONEachRow")
	if err != nil {
		return nil, fmt.Errorf("export: reading questions: %w", err)
	}
	type qrow struct {
		ID        string   `json:"question_id"`
		Question  string   `json:"question"`
		Answer    string   `json:"answer"`
		Aliases   []string `json:"aliases"`
		Pattern   string   `json:"pattern"`
		Hops      int      `json:"hops"`
		ChunkIDs  []string `json:"gt_chunk_ids"`
		DR        float64  `json:"d_r"`
		Domain    string   `json:"domain"`
		Published int64    `json:"published"`
		Generator string   `json:"generator"`
	}
	var rows []*exportRow
	var chunkIDs []string
	for _, line := range jsonLines(b) {
		var q qrow
		if err := json.Unmarshal(line, &q); err != nil {
			return nil, fmt.Errorf("export: a question row: %w", err)
		}
		r := &exportRow{ID: q.ID, Question: q.Question, Answer: q.Answer, Aliases: nonNil(q.Aliases), ContextIDs: nonNil(q.ChunkIDs),
			Pattern: q.Pattern, Hops: q.Hops, DR: q.DR, Domain: q.Domain, Generator: q.Generator,
			Curated: q.Generator == schemas.GeneratorGoldens, Contexts: []string{}, Documents: []exportDoc{}}
		if q.Published > 0 {
			r.PublishedAt = time.Unix(q.Published, 0).UTC().Format(time.RFC3339)
		}
		rows = append(rows, r)
		chunkIDs = append(chunkIDs, q.ChunkIDs...)
	}
	if len(chunkIDs) == 0 {
		return rows, nil
	}
	b, err = query(ctx, `SELECT chunk_id, any(text) AS text, any(doc_id) AS doc_id FROM robustream.chunks
WHERE chunk_id IN (`+sqlList(chunkIDs)+`) GROUP BY chunk_id`, "JSONEachRow")
	if err != nil {
		return nil, fmt.Errorf("export: reading chunks: %w", err)
	}
	type crow struct {
		ID    string `json:"chunk_id"`
		Text  string `json:"text"`
		DocID string `json:"doc_id"`
	}
	chunks := map[string]crow{}
	var docIDs []string
	for _, line := range jsonLines(b) {
		var c crow
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("export: a chunk row: %w", err)
		}
		chunks[c.ID] = c
		docIDs = append(docIDs, c.DocID)
	}
	docs := map[string]exportDoc{}
	if len(docIDs) > 0 {
		b, err = query(ctx, `SELECT doc_id, argMax(title, version) AS title, argMax(uri, version) AS uri FROM robustream.documents
WHERE doc_id IN (`+sqlList(docIDs)+`) GROUP BY doc_id`, "JSONEachRow")
		if err != nil {
			return nil, fmt.Errorf("export: reading documents: %w", err)
		}
		for _, line := range jsonLines(b) {
			var d exportDoc
			if err := json.Unmarshal(line, &d); err != nil {
				return nil, fmt.Errorf("export: a document row: %w", err)
			}
			docs[d.DocID] = d
		}
	}
	for _, r := range rows {
		seen := map[string]bool{}
		for _, id := range r.ContextIDs {
			c, ok := chunks[id]
			if !ok {
				r.missing++
				continue
			}
			r.Contexts = append(r.Contexts, c.Text)
			if !seen[c.DocID] {
				seen[c.DocID] = true
				d, ok := docs[c.DocID]
				if !ok {
					d = exportDoc{DocID: c.DocID}
				}
				r.Documents = append(r.Documents, d)
			}
		}
	}
	return rows, nil
}

// jsonLines splits JSONEachRow output into its rows.
func jsonLines(b []byte) [][]byte {
	var out [][]byte
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, []byte(l))
		}
	}
	return out
}

// sqlList renders ids as a list of string literals (distinct, in order).
func sqlList(ids []string) string {
	seen := map[string]bool{}
	var parts []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			parts = append(parts, sqlString(id))
		}
	}
	return strings.Join(parts, ", ")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
