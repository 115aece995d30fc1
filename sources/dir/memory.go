package dir

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/robustream/robustream/streams"
)

// MemoryStage names the state (streams.NewState) in which the folder source
// remembers, across processes, which files of which folder it emitted:
// its changelog is rs.state.source.dir.files.
const MemoryStage = "source." + SourceName + ".files"

// The memory holds one key per emitted file: the folder's absolute path, a
// NUL (no path contains one) and the file's path relative to the folder
// with forward slashes; the value is the document id the file was emitted
// under. Keying by folder keeps two folders apart on one data dir: a scan
// of one never takes the other's files for gone. A key is written before
// its file's document is emitted and deleted after its deletion is: a
// crash in between leaves a key too many, whose deletion sources.Versioned
// later drops as a deletion of nothing (or of a document already deleted),
// never a document forgotten.
func (s *Source) memoryKey(path string) string {
	rel, err := filepath.Rel(s.root, path)
	if err != nil {
		rel = path
	}
	return s.root + "\x00" + filepath.ToSlash(rel)
}

// memoryCtx tells the state which changelog partition key belongs to.
func (s *Source) memoryCtx(ctx context.Context, key string) context.Context {
	n := s.cfg.Partitions
	if n < 1 {
		n = 1
	}
	return streams.WithPartition(ctx, streams.PartitionFor([]byte(key), n))
}

// recall restores the memory (once per Source) and takes every file it
// lists under this folder as seen, with nothing known of its content: the
// first scan reads such a file again (sources.Versioned drops it if
// unchanged) and, if the scan confirms it gone, emits its deletion. This is
// how a file removed while the engine was not running is noticed.
func (s *Source) recall(ctx context.Context) error {
	if s.cfg.Memory == nil || s.recalled {
		return nil
	}
	if err := s.cfg.Memory.RestoreAll(ctx); err != nil {
		return fmt.Errorf("dir: restore the list of emitted files: %w", err)
	}
	prefix := s.root + "\x00"
	n := 0
	s.cfg.Memory.Range(func(key string, value []byte) bool {
		rel, ok := strings.CutPrefix(key, prefix)
		if !ok || rel == "" {
			return true
		}
		path := filepath.Join(s.root, filepath.FromSlash(rel))
		if rel == "." {
			path = s.root // the folder is a single file
		}
		s.files[path] = string(value)
		if _, ok := s.seen[path]; !ok {
			s.seen[path] = fileState{}
		}
		n++
		return true
	})
	s.recalled = true
	if n > 0 {
		s.log.Debug("files emitted by earlier runs recalled", "path", s.root, "files", n)
	}
	return nil
}

// remember records, before their documents are emitted, the files of a
// batch not yet in the memory, and writes them.
func (s *Source) remember(ctx context.Context, pending []pendingFile) error {
	if s.cfg.Memory == nil {
		return nil
	}
	var added []string
	for _, p := range pending {
		id := s.docID(p.path)
		if s.files[p.path] == id {
			continue
		}
		key := s.memoryKey(p.path)
		if err := s.cfg.Memory.Put(s.memoryCtx(ctx, key), key, []byte(id)); err != nil {
			return err
		}
		added = append(added, p.path)
	}
	if len(added) == 0 {
		return nil
	}
	if err := s.cfg.Memory.Flush(ctx); err != nil {
		return fmt.Errorf("dir: record the emitted files: %w", err)
	}
	for _, p := range added {
		s.files[p] = s.docID(p)
	}
	return nil
}

// forget drops, once their deletions are written, the files from the
// memory.
func (s *Source) forget(ctx context.Context, paths []string) error {
	if s.cfg.Memory == nil {
		for _, p := range paths {
			delete(s.files, p)
		}
		return nil
	}
	var dropped []string
	for _, p := range paths {
		if _, ok := s.files[p]; !ok {
			continue
		}
		key := s.memoryKey(p)
		if err := s.cfg.Memory.Delete(s.memoryCtx(ctx, key), key); err != nil {
			return err
		}
		dropped = append(dropped, p)
	}
	if len(dropped) == 0 {
		return nil
	}
	if err := s.cfg.Memory.Flush(ctx); err != nil {
		return fmt.Errorf("dir: record the deleted files: %w", err)
	}
	for _, p := range dropped {
		delete(s.files, p)
	}
	return nil
}
