package jsonl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// SourceName is the source's name and its documents' Source field.
const SourceName = "jsonl"

// DefaultMaxLineBytes bounds one line (one document).
const DefaultMaxLineBytes = 4 << 20

// Config configures a jsonl source.
type Config struct {
	// Path is the JSONL file.
	Path string
	// Speed replays the records at Speed seconds of publication time per
	// second of wall time: the pause before a record is the gap between
	// its published_at and the previous record's, divided by Speed. 0
	// emits them back to back (still in published_at order), as eval
	// --once does.
	Speed float64
	// MaxLineBytes bounds one line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// Stats counts what the source did.
type Stats struct {
	Emitted int64 // records emitted as documents
	Bad     int64 // lines dead-lettered
}

// Source replays a JSONL file. It implements streams.Source.
type Source struct {
	cfg     Config
	path    string
	log     *slog.Logger
	emitted atomic.Int64
	bad     atomic.Int64
	// sleep waits d or until ctx ends (tests record the pauses).
	sleep func(ctx context.Context, d time.Duration) error
}

var _ streams.Source = (*Source)(nil)

// New checks cfg and that the file can be opened. A nil log means
// slog.Default().
func New(cfg Config, log *slog.Logger) (*Source, error) {
	if cfg.Path == "" {
		return nil, errors.New("jsonl: path is required (jsonl:PATH)")
	}
	if cfg.Speed < 0 || cfg.MaxLineBytes < 0 {
		return nil, errors.New("jsonl: speed and max_line_bytes must be >= 0")
	}
	if cfg.MaxLineBytes == 0 {
		cfg.MaxLineBytes = DefaultMaxLineBytes
	}
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("jsonl: %s is not a regular file", abs)
	}
	if log == nil {
		log = slog.Default()
	}
	return &Source{cfg: cfg, path: abs, log: log.With("source", SourceName), sleep: sleepCtx}, nil
}

// Name implements streams.Source.
func (s *Source) Name() string { return SourceName }

// Stats returns the counters; safe while Run runs.
func (s *Source) Stats() Stats { return Stats{Emitted: s.emitted.Load(), Bad: s.bad.Load()} }

// line is a parsed record with where it was.
type line struct {
	n   int
	doc *schemas.DocumentVersion
}

// batchSize bounds the records of one emit call.
const batchSize = 64

// Run implements streams.Source: it reads the whole file, dead-letters the
// bad lines, then emits the documents in published_at order (records
// without a date first, in file order; ties keep file order), pausing
// between them by Speed. It returns nil at the end of the file, or when ctx
// is cancelled; an emit error is returned.
func (s *Source) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	lines, dead, err := s.read()
	if err != nil {
		return err
	}
	if len(dead) > 0 {
		if err := emit(ctx, dead...); err != nil {
			return fmt.Errorf("jsonl: emit: %w", err)
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].doc.PublishedAt.Before(lines[j].doc.PublishedAt) })
	var batch []streams.Record
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := emit(ctx, batch...); err != nil {
			return fmt.Errorf("jsonl: emit: %w", err)
		}
		s.emitted.Add(int64(len(batch)))
		batch = batch[:0]
		return nil
	}
	for i, l := range lines {
		if s.cfg.Speed > 0 && i > 0 {
			prev, cur := lines[i-1].doc.PublishedAt, l.doc.PublishedAt
			if gap := cur.Sub(prev); !prev.IsZero() && gap > 0 {
				if err := flush(); err != nil {
					return err
				}
				if err := s.sleep(ctx, time.Duration(float64(gap)/s.cfg.Speed)); err != nil {
					return nil // cancelled
				}
			}
		}
		b, err := schemas.Encode(l.doc)
		if err != nil {
			return fmt.Errorf("jsonl: line %d: %w", l.n, err)
		}
		batch = append(batch, streams.Record{Topic: streams.TopicDocuments, Key: []byte(l.doc.DocID), Value: b})
		if len(batch) >= batchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// read parses every line; bad ones become dead letters.
func (s *Source) read() ([]line, []streams.Record, error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, nil, fmt.Errorf("jsonl: %w", err)
	}
	defer f.Close()
	uri := (&url.URL{Scheme: "file", Path: s.path}).String()
	r := bufio.NewReaderSize(f, 64<<10)
	var lines []line
	var dead []streams.Record
	for n := 1; ; n++ {
		raw, tooLong, err := readLine(r, s.cfg.MaxLineBytes)
		if err == io.EOF && raw == nil {
			break
		}
		if err != nil && err != io.EOF {
			return nil, nil, fmt.Errorf("jsonl: %s line %d: %w", s.path, n, err)
		}
		if trimmed := trimSpace(raw); len(trimmed) == 0 && !tooLong {
			continue // blank lines separate nothing
		}
		var doc *schemas.DocumentVersion
		var bad error
		if tooLong {
			bad = fmt.Errorf("line is over %d bytes", s.cfg.MaxLineBytes)
		} else if rec, perr := Parse(raw); perr != nil {
			bad = perr
		} else if doc, perr = rec.Document(SourceName, uri+"#"+url.PathEscape(rec.ID)); perr != nil {
			bad = perr
		}
		if bad != nil {
			s.bad.Add(1)
			s.log.Warn("bad JSONL line", "path", s.path, "line", n, "reason", bad)
			m := streams.Message{Topic: "jsonl:" + s.path, Key: []byte(strconv.Itoa(n)), Value: raw, Offset: int64(n)}
			dead = append(dead, streams.DeadLetter("source."+SourceName, m, fmt.Errorf("line %d: %w", n, bad), 1))
		} else {
			lines = append(lines, line{n: n, doc: doc})
		}
		if err == io.EOF {
			break
		}
	}
	return lines, dead, nil
}

// maxDeadValue is how much of an over-long line the dead letter keeps.
const maxDeadValue = 64 << 10

// readLine returns the next line without its newline. A line longer than
// max is consumed and returned cut to maxDeadValue bytes with tooLong set.
func readLine(r *bufio.Reader, max int) (raw []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(raw)+len(chunk) > max+1 {
			tooLong = true
		}
		if !tooLong {
			raw = append(raw, chunk...)
		} else if len(raw) < maxDeadValue {
			raw = append(raw, chunk[:min(len(chunk), maxDeadValue-len(raw))]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(raw) == 0 && !tooLong {
				return nil, false, io.EOF
			}
			return trimNewline(raw), tooLong, io.EOF
		case err != nil:
			return nil, false, err
		}
		return trimNewline(raw), tooLong, nil
	}
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\r') {
		j--
	}
	return b[i:j]
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
