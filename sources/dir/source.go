package dir

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// SourceName is the folder source's name and the Source field of its
// documents.
const SourceName = "dir"

// Defaults applied by New.
const (
	DefaultPollInterval = 5 * time.Second
	DefaultDomain       = "general"
	DefaultMaxBytes     = 4 << 20 // 4 MiB: its event must fit one Kafka record (streams.MaxBatchBytes)
)

// Reasons a file is skipped; Run logs them and counts them in Stats.
var (
	ErrTooLarge    = errors.New("file larger than max_bytes")
	ErrEmpty       = errors.New("file has no text")
	ErrBinary      = errors.New("file is binary")
	ErrInvalidUTF8 = errors.New("file is not valid UTF-8")
)

// Config configures the folder source.
type Config struct {
	// Path is the folder to read (a single file is accepted too).
	Path string
	// Watch keeps rescanning the folder every PollInterval and emits files
	// whose content changed; without it Run returns after one pass.
	Watch bool
	// PollInterval is the pause between scans when watching; 0 means
	// DefaultPollInterval.
	PollInterval time.Duration
	// Domain is written to every document; "" means DefaultDomain.
	Domain string
	// MaxBytes is the largest file read; 0 means DefaultMaxBytes.
	MaxBytes int64
}

// Stats counts what the source did since it was created.
type Stats struct {
	Emitted int64 // documents emitted
	Skipped int64 // files skipped as malformed or unreadable
}

// Source reads a folder. It implements streams.Source.
type Source struct {
	cfg     Config
	root    string
	log     *slog.Logger
	seen    map[string]fileState // by absolute path, owned by Run
	emitted atomic.Int64
	skipped atomic.Int64
}

// fileState is what a scan remembers of a file to notice changes cheaply:
// modification time and size gate the read, the hash gates the emit.
type fileState struct {
	mod  time.Time
	size int64
	hash string // "" for a skipped file
}

var _ streams.Source = (*Source)(nil)

// New applies defaults, checks that cfg.Path exists and returns the source.
// A nil log means slog.Default().
func New(cfg Config, log *slog.Logger) (*Source, error) {
	if cfg.Path == "" {
		return nil, errors.New("dir: path is required")
	}
	if cfg.PollInterval < 0 || cfg.MaxBytes < 0 {
		return nil, fmt.Errorf("dir: poll_interval and max_bytes must be >= 0")
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Domain == "" {
		cfg.Domain = DefaultDomain
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	root, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("dir: cannot resolve %q: %w", cfg.Path, err)
	}
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("dir: %w", err)
	}
	if log == nil {
		log = slog.Default()
	}
	return &Source{cfg: cfg, root: root, log: log.With("source", SourceName), seen: make(map[string]fileState)}, nil
}

// Name implements streams.Source.
func (s *Source) Name() string { return SourceName }

// Stats returns the counters; safe to call while Run runs.
func (s *Source) Stats() Stats {
	return Stats{Emitted: s.emitted.Load(), Skipped: s.skipped.Load()}
}

// Run implements streams.Source. Without Watch it emits every readable file
// once and returns nil; with Watch it rescans until ctx is cancelled and then
// returns nil. A file is emitted again only when its text changed. Errors
// from emit are returned; problems with single files are logged and counted.
func (s *Source) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	for {
		if err := s.scan(ctx, emit); err != nil {
			if ctx.Err() != nil && s.cfg.Watch {
				return nil
			}
			return err
		}
		if !s.cfg.Watch {
			return nil
		}
		t := time.NewTimer(s.cfg.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// batchSize bounds the records written per emit call: large enough to
// amortise the durable write, small enough to bound memory.
const batchSize = 64

func (s *Source) scan(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	var recs []streams.Record
	pending := make(map[string]fileState)
	flush := func() error {
		if len(recs) == 0 {
			return nil
		}
		if err := emit(ctx, recs...); err != nil {
			return fmt.Errorf("dir: emit: %w", err)
		}
		s.emitted.Add(int64(len(recs)))
		for p, st := range pending {
			s.seen[p] = st
		}
		recs, pending = recs[:0], make(map[string]fileState)
		return nil
	}
	present := make(map[string]bool)
	err := filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			s.log.Warn("cannot read, skipped", "path", path, "err", err)
			s.skipped.Add(1)
			return nil // WalkDir skips an unreadable directory's contents
		}
		if d.IsDir() {
			if path != s.root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // .git and friends hold no documents
			}
			return nil
		}
		if !d.Type().IsRegular() || mimeOf(path) == "" {
			return nil
		}
		present[path] = true
		info, err := d.Info()
		if err != nil {
			s.log.Warn("cannot stat, skipped", "path", path, "err", err)
			s.skipped.Add(1)
			return nil
		}
		st := fileState{mod: info.ModTime(), size: info.Size()}
		prev, known := s.seen[path]
		if known && prev.mod.Equal(st.mod) && prev.size == st.size {
			return nil
		}
		doc, err := s.read(path, info)
		if err != nil {
			s.log.Warn("file skipped", "path", path, "reason", err)
			s.skipped.Add(1)
			s.seen[path] = st // warn once per version of a bad file
			return nil
		}
		st.hash = doc.ContentHash
		if known && prev.hash == st.hash {
			s.seen[path] = st // touched, same text: nothing to emit
			return nil
		}
		b, err := schemas.Encode(doc)
		if err != nil {
			return fmt.Errorf("dir: cannot encode %s: %w", path, err)
		}
		recs = append(recs, streams.Record{Topic: streams.TopicDocuments, Key: []byte(doc.DocID), Value: b})
		pending[path] = st
		if len(recs) >= batchSize {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	for p := range s.seen {
		if !present[p] {
			delete(s.seen, p) // deleted: a file re-created later is new again
		}
	}
	return nil
}

func mimeOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return "text/markdown"
	case ".txt":
		return "text/plain"
	case ".html", ".htm":
		return "text/html"
	}
	return ""
}

// read loads and converts one file. Text is the readable text (HTML reduced
// to it); MIME names the file's original format.
func (s *Source) read(path string, info fs.FileInfo) (*schemas.DocumentVersion, error) {
	if info.Size() > s.cfg.MaxBytes {
		return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, info.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The limit guards against a file that grew since the stat.
	raw, err := io.ReadAll(io.LimitReader(f, s.cfg.MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > s.cfg.MaxBytes {
		return nil, ErrTooLarge
	}
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	switch {
	case len(bytes.TrimSpace(raw)) == 0:
		return nil, ErrEmpty
	case bytes.IndexByte(raw, 0) >= 0:
		return nil, ErrBinary
	case !utf8.Valid(raw):
		return nil, ErrInvalidUTF8
	}
	mime := mimeOf(path)
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var title, text string
	switch mime {
	case "text/html":
		if title, text, err = htmlText(raw); err != nil {
			return nil, fmt.Errorf("cannot parse HTML: %w", err)
		}
	case "text/markdown":
		text = strings.ReplaceAll(string(raw), "\r\n", "\n")
		title = markdownTitle(text)
	default:
		text = strings.ReplaceAll(string(raw), "\r\n", "\n")
	}
	if strings.TrimSpace(text) == "" {
		return nil, ErrEmpty
	}
	if title == "" {
		title = base
	}
	sum := sha256.Sum256([]byte(text))
	d := &schemas.DocumentVersion{
		DocID:       schemas.ID(SourceName, path),
		Version:     1, // the engine assigns versions (ARCHITECTURE §3)
		Source:      SourceName,
		URI:         (&url.URL{Scheme: "file", Path: path}).String(),
		Title:       title,
		Domain:      s.cfg.Domain,
		PublishedAt: info.ModTime().UTC(),
		FetchedAt:   time.Now().UTC(),
		ContentHash: hex.EncodeToString(sum[:]),
		MIME:        mime,
		Text:        text,
		Metadata:    map[string]string{"path": path},
	}
	schemas.Stamp(d, schemas.ID(d.DocID, d.ContentHash))
	return d, nil
}

// markdownTitle is the text of the first heading line ("# Title").
func markdownTitle(text string) string {
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		rest := strings.TrimLeft(t, "#")
		if len(rest) < len(t) && strings.HasPrefix(rest, " ") { // "#tag" is not a heading
			if title := strings.TrimSpace(rest); title != "" {
				return title
			}
		}
	}
	return ""
}
