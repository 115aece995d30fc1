package goldens

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// SourceName is the source's name, its documents' Source field and the
// goldens:PATH prefix.
const SourceName = "goldens"

// MaxFileBytes bounds the file read; MaxRecordBytes one record.
const (
	MaxFileBytes   = 256 << 20
	MaxRecordBytes = 4 << 20
)

// maxDeadValue is how much of an over-long record the dead letter keeps.
const maxDeadValue = 64 << 10

// Config configures a goldens source.
type Config struct {
	// Path is the JSONL or JSON-array file.
	Path string
	// Score sets a question's D_r and qa_scores as the question stage would
	// (cmd wires question.ScoreCurated); nil leaves them zero.
	Score func(*schemas.Question)
}

// Stats counts what the source did.
type Stats struct {
	Questions int64 // curated questions emitted
	Documents int64 // context documents emitted (before versioning)
	Bad       int64 // records dead-lettered
}

// Source reads a goldens file once. It implements streams.Source.
type Source struct {
	cfg                  Config
	path                 string
	log                  *slog.Logger
	questions, docs, bad atomic.Int64
}

var _ streams.Source = (*Source)(nil)

// New checks cfg and that the file is a regular file. A nil log means
// slog.Default().
func New(cfg Config, log *slog.Logger) (*Source, error) {
	if cfg.Path == "" {
		return nil, errors.New("goldens: path is required (goldens:PATH)")
	}
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("goldens: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("goldens: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("goldens: %s is not a regular file", abs)
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("goldens: %s is %d bytes, over %d", abs, st.Size(), MaxFileBytes)
	}
	if log == nil {
		log = slog.Default()
	}
	return &Source{cfg: cfg, path: abs, log: log.With("source", SourceName)}, nil
}

// Name implements streams.Source.
func (s *Source) Name() string { return SourceName }

// Stats returns the counters; safe while Run runs.
func (s *Source) Stats() Stats {
	return Stats{Questions: s.questions.Load(), Documents: s.docs.Load(), Bad: s.bad.Load()}
}

// raw is one record of the file with the line it starts on.
type raw struct {
	line  int
	value []byte
	err   error // set when the record could not even be cut out
}

// batchSize bounds the records of one emit call.
const batchSize = 64

// Run implements streams.Source: it reads the file, dead-letters the bad
// records, emits the contexts of the good ones as documents and then their
// questions, and returns nil. An emit error is returned.
func (s *Source) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	b, err := os.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("goldens: %w", err)
	}
	raws, err := split(b)
	if err != nil {
		return fmt.Errorf("goldens: %s: %w", s.path, err)
	}
	uri := (&url.URL{Scheme: "file", Path: s.path}).String()
	var dead, docs, questions []streams.Record
	seenQ := map[string]int{}  // question id → line
	seenD := map[string]bool{} // doc ids emitted
	for _, r := range raws {
		q, ds, err := s.record(r, uri)
		if err == nil {
			if first, dup := seenQ[q.QuestionID]; dup {
				err = fmt.Errorf("the same id (or, without one, the same question) as line %d", first)
			}
		}
		if err != nil {
			s.bad.Add(1)
			s.log.Warn("bad goldens record", "path", s.path, "line", r.line, "reason", err)
			value := r.value
			if len(value) > maxDeadValue {
				value = value[:maxDeadValue]
			}
			m := streams.Message{Topic: SourceName + ":" + s.path, Key: []byte(strconv.Itoa(r.line)), Value: value, Offset: int64(r.line)}
			dead = append(dead, streams.DeadLetter("source."+SourceName, m, fmt.Errorf("line %d: %w", r.line, err), 1))
			continue
		}
		seenQ[q.QuestionID] = r.line
		for _, d := range ds {
			if seenD[d.DocID] {
				continue
			}
			seenD[d.DocID] = true
			v, err := schemas.Encode(d)
			if err != nil {
				return fmt.Errorf("goldens: line %d: %w", r.line, err)
			}
			docs = append(docs, streams.Record{Topic: streams.TopicDocuments, Key: []byte(d.DocID), Value: v})
		}
		v, err := schemas.Encode(q)
		if err != nil {
			return fmt.Errorf("goldens: line %d: %w", r.line, err)
		}
		questions = append(questions, streams.Record{Topic: streams.TopicQuestions, Key: []byte(q.Key()), Value: v})
	}
	// The documents go first, so that a question's chunks are on their way
	// to the index before the question is.
	for _, group := range []struct {
		recs []streams.Record
		n    *atomic.Int64
	}{{dead, nil}, {docs, &s.docs}, {questions, &s.questions}} {
		for len(group.recs) > 0 {
			n := min(batchSize, len(group.recs))
			if err := emit(ctx, group.recs[:n]...); err != nil {
				return fmt.Errorf("goldens: emit: %w", err)
			}
			if group.n != nil {
				group.n.Add(int64(n))
			}
			group.recs = group.recs[n:]
		}
	}
	return nil
}

// record turns one raw record into its question and context documents.
func (s *Source) record(r raw, uri string) (*schemas.Question, []*schemas.DocumentVersion, error) {
	if r.err != nil {
		return nil, nil, r.err
	}
	if len(r.value) > MaxRecordBytes {
		return nil, nil, fmt.Errorf("record is over %d bytes", MaxRecordBytes)
	}
	rec, err := Parse(r.value)
	if err != nil {
		return nil, nil, err
	}
	published, _ := rec.published()
	ref := uri + "#line=" + strconv.Itoa(r.line)
	if rec.ID != "" {
		ref = uri + "#" + url.PathEscape(rec.ID)
	}
	ds := rec.documents(ref, published)
	q := rec.question(published)
	if s.cfg.Score != nil {
		s.cfg.Score(q)
	}
	// The event id changes with the content, so that an edited record is
	// a new event of the same question.
	parts := append([]string{q.QuestionID, q.Question, q.Answer}, q.Aliases...)
	schemas.Stamp(q, schemas.ID(append(parts, q.GTChunkIDs...)...))
	return q, ds, nil
}

// split cuts the file into records: the elements of a JSON array when the
// file starts with "[", else its non-blank lines (JSONL). Each keeps the
// line it starts on. A broken array ends the file with an error record at
// the line where it broke; the elements before it are kept.
func split(b []byte) ([]raw, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a byte-order mark
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return splitArray(b)
	}
	var out []raw
	for n, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v := line
		if len(v) > MaxRecordBytes {
			v = v[:maxDeadValue]
			out = append(out, raw{line: n + 1, value: v, err: fmt.Errorf("line is over %d bytes", MaxRecordBytes)})
			continue
		}
		out = append(out, raw{line: n + 1, value: v})
	}
	return out, nil
}

func splitArray(b []byte) ([]raw, error) {
	lineAt := func(off int64) int { return 1 + bytes.Count(b[:off], []byte("\n")) }
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // the "["
		return nil, err
	}
	var out []raw
	for dec.More() {
		start := dec.InputOffset()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			// Where the element starts: past the separator and blanks.
			s := int(start)
			for s < len(b) && (b[s] == ',' || b[s] == ' ' || b[s] == '\t' || b[s] == '\r' || b[s] == '\n') {
				s++
			}
			e := min(len(b), s+maxDeadValue)
			return append(out, raw{line: lineAt(int64(s)), value: b[s:e], err: fmt.Errorf("the JSON array breaks here: %w", err)}), nil
		}
		// start is before the separator: the element's own first line is
		// that of its first byte.
		s := int(start)
		for s < len(b) && (b[s] == ',' || b[s] == ' ' || b[s] == '\t' || b[s] == '\r' || b[s] == '\n') {
			s++
		}
		out = append(out, raw{line: lineAt(int64(s)), value: []byte(v)})
	}
	if _, err := dec.Token(); err != nil {
		return append(out, raw{line: lineAt(dec.InputOffset()), value: nil, err: fmt.Errorf("the JSON array does not close: %w", err)}), nil
	}
	return out, nil
}
