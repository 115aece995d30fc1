package jsonl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
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

// entry is where a valid record's line is and when it was published: the
// index that orders the replay. The records themselves are read again when
// their turn comes, so the source holds one batch of documents, not the
// file.
type entry struct {
	off  int64 // offset of the line in the file
	size int   // its length without the line end
	n    int   // its line number
	at   int64 // published_at in Unix nanoseconds, undated for none
}

// undated sorts records without published_at first. Plausible dates
// (1900 to now) fit Unix nanoseconds, which reach 1677 to 2262.
const undated = math.MinInt64

// Run implements streams.Source: it indexes the file, dead-letters the bad
// lines as it goes, then emits the documents in published_at order
// (records without a date first, in file order; ties keep file order),
// re-reading each line when its turn comes and pausing between them by
// Speed. A document whose record is too large for Kafka is dead-lettered
// like a bad line. It returns nil at the end of the file, or when ctx is
// cancelled; an emit error is returned.
func (s *Source) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	f, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	defer f.Close()
	index, err := s.index(ctx, f, emit)
	if err != nil {
		return err
	}
	sort.SliceStable(index, func(i, j int) bool { return index[i].at < index[j].at })
	var batch []streams.Record
	var lines []entry // the line of each record of batch
	var batchBytes int
	flush := func() error {
		n, err := sources.EmitSkippingTooLarge(ctx, emit, batch, func(i int, err error) *streams.Record {
			dl := s.deadLetter(f, lines[i], err)
			return &dl
		})
		s.emitted.Add(int64(n))
		if err != nil {
			return fmt.Errorf("jsonl: emit: %w", err)
		}
		batch, lines, batchBytes = batch[:0], lines[:0], 0
		return nil
	}
	for i, e := range index {
		if s.cfg.Speed > 0 && i > 0 {
			prev := index[i-1].at
			if gap := time.Duration(e.at - prev); prev != undated && gap > 0 {
				if err := flush(); err != nil {
					return err
				}
				if err := s.sleep(ctx, time.Duration(float64(gap)/s.cfg.Speed)); err != nil {
					return nil // cancelled
				}
			}
		}
		doc, err := s.reread(f, e)
		if err != nil {
			// The file changed under the replay: this line is no longer
			// the record the index saw.
			if err := s.emitDead(ctx, emit, s.deadLetter(f, e, fmt.Errorf("changed since it was read: %w", err))); err != nil {
				return err
			}
			continue
		}
		b, err := schemas.Encode(doc)
		if err != nil {
			return fmt.Errorf("jsonl: line %d: %w", e.n, err)
		}
		r := streams.Record{Topic: streams.TopicDocuments, Key: []byte(doc.DocID), Value: b}
		batch, lines = append(batch, r), append(lines, e)
		if batchBytes += sources.RecordBytes(r); len(batch) >= sources.BatchRecords || batchBytes >= sources.BatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// index reads every line once: a valid record gets an entry, a bad line is
// dead-lettered (in bounded batches, as they come).
func (s *Source) index(ctx context.Context, f *os.File, emit func(context.Context, ...streams.Record) error) ([]entry, error) {
	r := bufio.NewReaderSize(f, 64<<10)
	var index []entry
	var dead []streams.Record
	var deadBytes int
	flushDead := func() error {
		if len(dead) == 0 {
			return nil
		}
		if err := emit(ctx, dead...); err != nil {
			return fmt.Errorf("jsonl: emit: %w", err)
		}
		dead, deadBytes = dead[:0], 0
		return nil
	}
	var off int64
	for n := 1; ; n++ {
		raw, consumed, tooLong, err := readLine(r, s.cfg.MaxLineBytes)
		start := off
		off += int64(consumed)
		if err == io.EOF && raw == nil {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("jsonl: %s line %d: %w", s.path, n, err)
		}
		if trimmed := trimSpace(raw); len(trimmed) == 0 && !tooLong {
			if err == io.EOF {
				break
			}
			continue // blank lines separate nothing
		}
		var bad error
		var doc *schemas.DocumentVersion
		if tooLong {
			bad = fmt.Errorf("line is over %d bytes", s.cfg.MaxLineBytes)
		} else {
			doc, bad = s.parse(raw)
		}
		if bad != nil {
			s.bad.Add(1)
			s.log.Warn("bad JSONL line", "path", s.path, "line", n, "reason", bad)
			m := streams.Message{Topic: "jsonl:" + s.path, Key: []byte(strconv.Itoa(n)), Value: raw, Offset: int64(n)}
			dl := sources.DeadLetter(SourceName, m, fmt.Errorf("line %d: %w", n, bad))
			dead = append(dead, dl)
			if deadBytes += sources.RecordBytes(dl); len(dead) >= sources.BatchRecords || deadBytes >= sources.BatchBytes {
				if err := flushDead(); err != nil {
					return nil, err
				}
			}
		} else {
			at := int64(undated)
			if !doc.PublishedAt.IsZero() {
				at = doc.PublishedAt.UnixNano()
			}
			index = append(index, entry{off: start, size: len(raw), n: n, at: at})
		}
		if err == io.EOF {
			break
		}
	}
	return index, flushDead()
}

// parse reads one line as a record and its document.
func (s *Source) parse(raw []byte) (*schemas.DocumentVersion, error) {
	rec, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	uri := (&url.URL{Scheme: "file", Path: s.path}).String()
	return rec.Document(SourceName, uri+"#"+url.PathEscape(rec.ID))
}

// reread reads e's line again and parses it.
func (s *Source) reread(f *os.File, e entry) (*schemas.DocumentVersion, error) {
	raw := make([]byte, e.size)
	if _, err := f.ReadAt(raw, e.off); err != nil {
		return nil, err
	}
	return s.parse(raw)
}

// deadLetter is the dead letter of e's line, for why; the line is read
// again for it (only the rare refused line costs the read).
func (s *Source) deadLetter(f *os.File, e entry, why error) streams.Record {
	s.bad.Add(1)
	s.log.Warn("JSONL line dead-lettered", "path", s.path, "line", e.n, "reason", why)
	raw := make([]byte, min(e.size, sources.MaxDeadValue))
	n, _ := f.ReadAt(raw, e.off)
	m := streams.Message{Topic: "jsonl:" + s.path, Key: []byte(strconv.Itoa(e.n)), Value: raw[:n], Offset: int64(e.n)}
	return sources.DeadLetter(SourceName, m, fmt.Errorf("line %d: %w", e.n, why))
}

func (s *Source) emitDead(ctx context.Context, emit func(context.Context, ...streams.Record) error, r streams.Record) error {
	if err := emit(ctx, r); err != nil {
		return fmt.Errorf("jsonl: emit: %w", err)
	}
	return nil
}

// readLine returns the next line without its line end, and how many bytes
// it consumed (line end included). A line longer than max is consumed and
// returned cut to sources.MaxDeadValue bytes (what its dead letter keeps)
// with tooLong set.
func readLine(r *bufio.Reader, max int) (raw []byte, consumed int, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		consumed += len(chunk)
		if len(raw)+len(chunk) > max+1 {
			tooLong = true
		}
		if !tooLong {
			raw = append(raw, chunk...)
		} else if len(raw) < sources.MaxDeadValue {
			raw = append(raw, chunk[:min(len(chunk), sources.MaxDeadValue-len(raw))]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(raw) == 0 && !tooLong {
				return nil, consumed, false, io.EOF
			}
			return trimNewline(raw), consumed, tooLong, io.EOF
		case err != nil:
			return nil, consumed, false, err
		}
		return trimNewline(raw), consumed, tooLong, nil
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
