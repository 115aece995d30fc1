package dir

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/sources"
	"github.com/robustream/robustream/streams"
)

// SourceName is the folder source's name and the Source field of its
// documents.
const SourceName = "dir"

// Defaults applied by New.
const (
	DefaultPollInterval = 5 * time.Second
	DefaultDomain       = "general"
	// DefaultMaxBytes bounds what one file may cost to read and convert.
	// It does not make the document fit a Kafka record: JSON escaping can
	// grow text up to six times ("<" becomes \u003c), so the encoded
	// record is checked on its own against maxRecordBytes.
	DefaultMaxBytes = 4 << 20
)

// maxRecordBytes is the largest record the engine produces: the runner
// (streams, unexported maxRecordBytes) refuses anything bigger with
// streams.ErrTooLarge. Checking it here lets the source skip and name the
// file instead of failing the whole batch; TestRecordLimitMatchesRunner
// fails if the two drift apart.
const maxRecordBytes = streams.MaxBatchBytes - 64<<10

// Reasons a file is skipped; Run logs them and counts them in Stats.
var (
	ErrTooLarge = errors.New("file larger than max_bytes")
	ErrEmpty    = errors.New("file has no text")
	// ErrBinary and ErrInvalidUTF8 are sources.CheckText's: the record
	// sources refuse the same input for the same reasons.
	ErrBinary      = sources.ErrBinary
	ErrInvalidUTF8 = sources.ErrInvalidUTF8
	// ErrRecordTooLarge is a file under MaxBytes whose event is still too
	// large for one Kafka record.
	ErrRecordTooLarge = errors.New("document too large for one Kafka record")
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
	// Memory, when set, is where the source remembers across processes
	// which files of Path it emitted (memory.go; the state named
	// MemoryStage). Run restores it before its first scan, so that a file
	// removed while the engine was not running (between two eval --once,
	// or before a restart of run) is noticed and its deletion emitted.
	// Without it only files removed while Run runs are noticed.
	Memory *streams.State
	// Partitions is the number of partitions of Memory's changelog
	// (kafka.partitions); 0 means 1.
	Partitions int
}

// Stats counts what the source did since it was created.
type Stats struct {
	Emitted int64 // documents emitted
	Deleted int64 // deletions emitted for files that disappeared
	// Skipped counts files skipped as malformed or unreadable, and entries
	// that are not regular files (links, FIFOs, sockets, devices, loops),
	// each once per warning.
	Skipped int64
}

// Source reads a folder. It implements streams.Source.
type Source struct {
	cfg  Config
	root string
	log  *slog.Logger
	seen map[string]fileState // by absolute path, owned by Run
	// warned holds the entries already named in a warning, so that a link
	// or FIFO that stays is named once and not at every poll; owned by Run.
	warned map[warnKey]bool
	// maxRecord is maxRecordBytes; tests lower or raise it to reach both
	// the source's own check and the emit-side rejection.
	maxRecord int
	// hookBeforeOpen, nil outside tests, runs between an entry's listing
	// and its open (beforeOpen).
	hookBeforeOpen func(path string)
	// listed holds the directories the current scan listed completely
	// (deletion.go); owned by Run.
	listed map[string]bool
	// docFiles counts the document files (regular files of a format the
	// source reads, readable or not) the current scan met; owned by Run.
	docFiles int
	// files maps each file in Config.Memory under this folder to the
	// document id it was emitted under; recalled says the memory was
	// restored; emptyWarned that the warning about a folder without
	// document files was given (deletion.go). Owned by Run.
	files       map[string]string
	recalled    bool
	emptyWarned bool
	emitted     atomic.Int64
	skipped     atomic.Int64
	deleted     atomic.Int64
}

// fileState is what a scan remembers of a file to notice changes cheaply:
// identity, modification time and size gate the read, the hash gates the
// emit.
type fileState struct {
	id   fileID
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
	return &Source{cfg: cfg, root: root, log: log.With("source", SourceName), seen: make(map[string]fileState), files: make(map[string]string), warned: make(map[warnKey]bool), maxRecord: maxRecordBytes}, nil
}

// Name implements streams.Source.
func (s *Source) Name() string { return SourceName }

// Stats returns the counters; safe to call while Run runs.
func (s *Source) Stats() Stats {
	return Stats{Emitted: s.emitted.Load(), Skipped: s.skipped.Load(), Deleted: s.deleted.Load()}
}

// Run implements streams.Source. Without Watch it emits every readable file
// once and returns nil; with Watch it rescans until ctx is cancelled and then
// returns nil. A file is emitted again only when its text changed. Errors
// from emit are returned; problems with single files are logged and counted.
func (s *Source) Run(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	if err := s.recall(ctx); err != nil {
		return err
	}
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

// pendingFile is a record of the current batch and what to remember of its
// file once the record is written.
type pendingFile struct {
	path string
	st   fileState
	raw  int // bytes read from the file, for the warning if it is refused
}

func (s *Source) scan(ctx context.Context, emit func(context.Context, ...streams.Record) error) error {
	var recs []streams.Record
	var pending []pendingFile
	var batchBytes int
	flush := func() error {
		if len(recs) == 0 {
			return nil
		}
		if err := s.remember(ctx, pending); err != nil {
			return err
		}
		// Something downstream (sources.Versioned, the runner) may still
		// find a record too large, though the check below passed: a
		// re-encoding can add a few bytes. Only that file is skipped.
		n, err := sources.EmitSkippingTooLarge(ctx, emit, recs, func(i int, err error) *streams.Record {
			p := &pending[i]
			s.log.Warn("file skipped", "path", p.path, "reason", err, "raw_bytes", p.raw, "encoded_bytes", sources.RecordBytes(recs[i]))
			s.skipped.Add(1)
			p.st.hash = "" // as for any skipped file: retried when it changes
			return nil
		})
		s.emitted.Add(int64(n))
		if err != nil {
			return fmt.Errorf("dir: emit: %w", err)
		}
		for _, p := range pending {
			s.seen[p.path] = p.st
		}
		recs, pending, batchBytes = recs[:0], pending[:0], 0
		return nil
	}
	present := make(map[string]bool)
	s.listed = make(map[string]bool)
	s.docFiles = 0
	err := s.walk(ctx, present, func(f *openedFile) error {
		defer f.f.Close()
		path, info := f.path, f.info
		st := fileState{id: f.id, mod: info.ModTime(), size: info.Size()}
		prev, known := s.seen[path]
		if known && prev.id == st.id && prev.mod.Equal(st.mod) && prev.size == st.size {
			return nil
		}
		skip := func(reason error, attrs ...any) error {
			s.log.Warn("file skipped", append([]any{"path", path, "reason", reason}, attrs...)...)
			s.skipped.Add(1)
			st.hash = ""
			s.seen[path] = st // warn once per version of a bad file
			return nil
		}
		doc, raw, err := s.read(ctx, f)
		if err != nil {
			return skip(err)
		}
		st.hash = doc.ContentHash
		if known && prev.hash == st.hash {
			s.seen[path] = st // touched, same text: nothing to emit
			return nil
		}
		b, err := schemas.Encode(doc)
		if err != nil {
			// Only odd metadata fails here (a modification time past year
			// 9999); it is this file's problem, not the folder's.
			return skip(fmt.Errorf("cannot encode: %w", err))
		}
		rec := streams.Record{Topic: streams.TopicDocuments, Key: []byte(doc.DocID), Value: b}
		// The check is on the record as produced, not on the file: escaping
		// makes a 3.8 MiB file of "<" a 23 MB record.
		if n := sources.RecordBytes(rec); n > s.maxRecord {
			return skip(ErrRecordTooLarge, "raw_bytes", raw, "encoded_bytes", n, "limit_bytes", s.maxRecord)
		}
		recs = append(recs, rec)
		pending = append(pending, pendingFile{path: path, st: st, raw: raw})
		batchBytes += sources.RecordBytes(rec)
		if len(recs) >= sources.BatchRecords || batchBytes >= sources.BatchBytes {
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
	return s.settleGone(ctx, emit, present)
}

// formats are the file formats the source reads, by extension: the one list
// that mimeOf and ErrUnsupported's message derive from.
var formats = []struct {
	name, mime string
	exts       []string
}{
	{"Markdown", "text/markdown", []string{".md", ".markdown"}},
	{"plain text", "text/plain", []string{".txt"}},
	{"HTML", "text/html", []string{".html", ".htm"}},
	{"PDF", mimePDF, []string{".pdf"}},
}

// docNameList holds the upper-case names plain-text documentation goes by,
// with or without a suffix ("README.Debian"; "NEWS.md" is read as Markdown
// by its extension first).
var docNameList = []string{"README", "NEWS", "CHANGES", "CHANGELOG", "HISTORY", "INSTALL", "TODO", "AUTHORS", "THANKS",
	"BUGS", "FAQ", "NOTES", "RELEASE-NOTES", "RELEASE_NOTES", "ReleaseNotes"}

var docNames = func() map[string]bool {
	m := make(map[string]bool, len(docNameList))
	for _, n := range docNameList {
		m[n] = true
	}
	return m
}()

func mimeOf(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".gz", ".bz2", ".xz", ".zst", ".zip":
		return "" // compressed: not read
	}
	for _, f := range formats {
		if slices.Contains(f.exts, ext) {
			return f.mime
		}
	}
	// Plain-text documentation named by convention rather than by an
	// extension: README, NEWS, README.Debian, NEWS.Debian, CHANGES …
	base := filepath.Base(path)
	if name, _, _ := strings.Cut(base, "."); docNames[name] {
		return "text/plain"
	}
	return ""
}

// supportedTypes names every format the source reads, for the message of
// ErrUnsupported: "Markdown (.md, .markdown), plain text (.txt, or a file
// named README, NEWS, … with or without a suffix), HTML (.html, .htm) or
// PDF (.pdf)".
func supportedTypes() string {
	var parts []string
	for _, f := range formats {
		exts := strings.Join(f.exts, ", ")
		if f.mime == "text/plain" {
			exts += ", or a file named " + strings.Join(docNameList, ", ") + " with or without a suffix"
		}
		parts = append(parts, f.name+" ("+exts+")")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// read loads and converts one file, from the descriptor the walk opened and
// checked (never by its path again). Text is the readable text (HTML reduced
// to it); MIME names the file's original format. It also returns the number
// of bytes read, for the warning when the document turns out too large.
func (s *Source) read(ctx context.Context, f *openedFile) (*schemas.DocumentVersion, int, error) {
	path, info := f.path, f.info
	if info.Size() > s.cfg.MaxBytes {
		return nil, 0, fmt.Errorf("%w (%d bytes)", ErrTooLarge, info.Size())
	}
	// The limit guards against a file that grew since the stat.
	raw, err := io.ReadAll(io.LimitReader(f.f, s.cfg.MaxBytes+1))
	if err != nil {
		return nil, 0, err
	}
	if int64(len(raw)) > s.cfg.MaxBytes {
		return nil, 0, ErrTooLarge
	}
	mime := mimeOf(path)
	title, text, err := extract(ctx, mime, raw)
	if err != nil {
		return nil, 0, err
	}
	if title == "" {
		title = fileTitle(path)
	}
	sum := sha256.Sum256([]byte(text))
	published, from := publishedAt(mime, raw, text)
	d := &schemas.DocumentVersion{
		DocID:       s.docID(path),
		Version:     1, // the engine assigns versions (docs/architecture.md, Stages)
		Source:      SourceName,
		URI:         (&url.URL{Scheme: "file", Path: path}).String(),
		Title:       title,
		Domain:      s.cfg.Domain,
		PublishedAt: published,
		FetchedAt:   time.Now().UTC(),
		ContentHash: hex.EncodeToString(sum[:]),
		MIME:        mime,
		Text:        text,
		Metadata: map[string]string{"path": path, MetaPublishedFrom: from,
			MetaFileMtime: info.ModTime().UTC().Format(time.RFC3339)},
	}
	schemas.Stamp(d, schemas.ID(d.DocID, d.ContentHash))
	return d, len(raw), nil
}

// docID is the identity of the document at path: its path relative to the
// source's root, with forward slashes (the file's own name when the root is
// a single file). The same corpus copied to another folder, or read from
// another working directory, gets the same ids, hence the same questions,
// perturbation seeds and scores; the absolute path stays in the URI and in
// Metadata["path"].
func (s *Source) docID(path string) string {
	rel, err := filepath.Rel(s.root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		rel = filepath.Base(path)
	}
	return schemas.ID(SourceName, filepath.ToSlash(rel))
}

// extract checks a file's bytes and converts them to the document's title
// ("" when the format has none) and text, by MIME type. It is the whole
// conversion, kept apart from file access so that it can be fuzzed.
func extract(ctx context.Context, mime string, raw []byte) (title, text string, err error) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(raw)) == 0 {
		return "", "", ErrEmpty
	}
	if mime == mimePDF {
		return pdfText(ctx, raw) // binary by nature: pdf.go
	}
	if err := sources.CheckText(string(raw)); err != nil {
		return "", "", err
	}
	switch mime {
	case "text/html":
		if title, text, err = htmlText(raw); errors.Is(err, ErrEmpty) {
			return "", "", err
		} else if err != nil {
			return "", "", fmt.Errorf("cannot parse HTML: %w", err)
		}
	case "text/markdown":
		// Front matter is metadata (publishedAt reads its date), not text.
		fields, body := frontMatter(string(raw))
		text = strings.ReplaceAll(body, "\r\n", "\n")
		if title = fields["title"]; title == "" {
			title = markdownTitle(text)
		}
	default:
		text = strings.ReplaceAll(string(raw), "\r\n", "\n")
	}
	if strings.TrimSpace(text) == "" {
		return "", "", ErrEmpty
	}
	if title = withManualTitle(title, text); title == "" && mime == "text/plain" {
		title = textTitle(text)
	}
	return title, text, nil
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
