package dir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Why an entry that is not a readable document file was left alone. Each is
// logged once per path (firstWarning) and counted in Stats.Skipped.
var (
	// ErrSymlink is a symbolic link under the folder: never followed, so a
	// link to a file outside the folder cannot bring that file in.
	ErrSymlink = errors.New("symbolic link, not followed")
	// ErrNotRegular is a FIFO, socket or device node: opening one can block
	// or have side effects, and none holds a document.
	ErrNotRegular = errors.New("not a regular file")
	// ErrLoop is a directory that is one of its own ancestors (a bind
	// mount of a parent, since links are not followed).
	ErrLoop = errors.New("directory loop")
	// ErrTooDeep is a directory nested deeper than maxDepth; every level
	// holds a descriptor while the walk is inside it.
	ErrTooDeep = errors.New("directory nested too deep")
	// ErrChanged is an entry replaced between the listing and the open
	// (by a link, a FIFO or another file). It is retried at the next scan.
	ErrChanged = errors.New("replaced while being read")
	// ErrUnreadable is an entry that cannot be listed, stat'ed or opened.
	ErrUnreadable = errors.New("cannot read")
)

// errNotDocument is a configured single file of a format the source does
// not read; inside a folder such files are simply not documents.
var errNotDocument = errors.New("not a Markdown, text or HTML file")

// maxDepth bounds how deep the walk descends below the folder.
const maxDepth = 64

// Flags for every open below the folder: O_NOFOLLOW refuses a symbolic link
// in the last component (earlier components are directory descriptors the
// walk opened itself, so none is a link); O_NONBLOCK keeps a FIFO swapped in
// after the listing from blocking the open forever; O_NOCTTY keeps a
// terminal swapped in from becoming the engine's.
const (
	openFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY
	dirFlags  = openFlags | unix.O_DIRECTORY
)

// fileID identifies a file whatever its name: the walk compares the entry
// it listed with the one it opened.
type fileID struct{ dev, ino uint64 }

func idOf(st *unix.Stat_t) fileID { return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)} }

// openedFile is a regular file the walk opened without following links and
// checked to be the entry it listed. The visitor owns f.
type openedFile struct {
	path string
	f    *os.File
	info fs.FileInfo
	id   fileID
}

// walker is one scan's pass over the folder.
type walker struct {
	s       *Source
	ctx     context.Context
	present map[string]bool // every entry met, for forgetting state of the gone
	visit   func(*openedFile) error
}

// walk visits every document file under the folder, in lexical order, as an
// open descriptor. The configured path itself is opened as given (links in
// it are the operator's choice and are followed); below it every directory
// and file is opened relative to its parent's descriptor with O_NOFOLLOW, so
// that neither a file nor a parent directory swapped for a link is
// followed. Entries that are not documents are warned about once and left.
func (s *Source) walk(ctx context.Context, present map[string]bool, visit func(*openedFile) error) error {
	w := &walker{s: s, ctx: ctx, present: present, visit: visit}
	present[s.root] = true
	fd, err := unix.Open(s.root, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		s.warnOnce(s.root, ErrUnreadable, fmt.Errorf("%w: %w", ErrUnreadable, err))
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		s.warnOnce(s.root, ErrUnreadable, fmt.Errorf("%w: %w", ErrUnreadable, err))
		return nil
	}
	switch mode(&st) {
	case unix.S_IFDIR:
		return w.dir(fd, s.root, []fileID{idOf(&st)})
	case unix.S_IFREG:
		s.docFiles++
		if mimeOf(s.root) == "" {
			unix.Close(fd)
			s.warnOnce(s.root, errNotDocument, errNotDocument)
			return nil
		}
		f, err := checkOpened(fd, s.root, idOf(&st))
		if err != nil {
			s.warnOnce(s.root, ErrUnreadable, err)
			return nil
		}
		return visit(f)
	default:
		unix.Close(fd)
		s.warnOnce(s.root, ErrNotRegular, fmt.Errorf("%w: %s", ErrNotRegular, kindName(mode(&st))))
		return nil
	}
}

func mode(st *unix.Stat_t) uint32 { return uint32(st.Mode) & unix.S_IFMT }

// dir walks the directory open as fd (which it closes); path names it and
// up holds the identities of it and its ancestors.
func (w *walker) dir(fd int, path string, up []fileID) error {
	// The *os.File owns fd; keeping it referenced until return keeps a
	// finalizer from closing fd while openat still uses it.
	d := os.NewFile(uintptr(fd), path)
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if errors.Is(err, unix.ENOENT) {
		return nil // removed since it was opened: nothing left to read
	}
	if err != nil {
		w.s.warnOnce(path, ErrUnreadable, fmt.Errorf("%w: %w", ErrUnreadable, err))
		if len(names) == 0 {
			return nil
		}
	} else if w.s.listed != nil {
		w.s.listed[path] = true // an entry missing here is gone
	}
	slices.Sort(names)
	for _, name := range names {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if err := w.entry(fd, path, name, up); err != nil {
			return err
		}
	}
	return nil
}

// entry handles one name of the directory open as dfd.
func (w *walker) entry(dfd int, dir, name string, up []fileID) error {
	s := w.s
	path := filepath.Join(dir, name)
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if !errors.Is(err, unix.ENOENT) { // ENOENT: removed since the listing
			w.present[path] = true
			if mimeOf(name) != "" {
				s.docFiles++ // perhaps a document: the folder is not empty
			}
			s.warnOnce(path, ErrUnreadable, fmt.Errorf("%w: %w", ErrUnreadable, err))
		}
		return nil
	}
	w.present[path] = true
	switch mode(&st) {
	case unix.S_IFDIR:
		if strings.HasPrefix(name, ".") {
			return nil // .git and friends hold no documents
		}
		id := idOf(&st)
		if slices.Contains(up, id) {
			s.warnOnce(path, ErrLoop, ErrLoop)
			return nil
		}
		if len(up) > maxDepth {
			s.warnOnce(path, ErrTooDeep, fmt.Errorf("%w (over %d levels)", ErrTooDeep, maxDepth))
			return nil
		}
		w.s.beforeOpen(path)
		fd, err := unix.Openat(dfd, name, dirFlags, 0)
		if err != nil {
			s.warnOnce(path, openClass(err), openError(err))
			return nil
		}
		var got unix.Stat_t
		if err := unix.Fstat(fd, &got); err != nil || idOf(&got) != id {
			unix.Close(fd)
			s.warnOnce(path, ErrChanged, fmt.Errorf("%w: another directory", ErrChanged))
			return nil
		}
		return w.dir(fd, path, append(up[:len(up):len(up)], id))
	case unix.S_IFREG:
		if mimeOf(name) == "" {
			return nil // not a document format: not skipped, just not ours
		}
		s.docFiles++
		w.s.beforeOpen(path)
		fd, err := unix.Openat(dfd, name, openFlags, 0)
		if err != nil {
			if !errors.Is(err, unix.ENOENT) {
				s.warnOnce(path, openClass(err), openError(err))
			}
			return nil
		}
		f, err := checkOpened(fd, path, idOf(&st))
		if err != nil {
			s.warnOnce(path, ErrChanged, err)
			return nil
		}
		return w.visit(f)
	case unix.S_IFLNK:
		if s.firstWarning(path, ErrSymlink) {
			s.log.Warn("file skipped", "path", path, "reason", ErrSymlink.Error(),
				"target", linkTarget(dfd, name), "points_to", linkKind(dfd, name))
		}
		return nil
	default:
		s.warnOnce(path, ErrNotRegular, fmt.Errorf("%w: %s", ErrNotRegular, kindName(mode(&st))))
		return nil
	}
}

// beforeOpen runs the test hook, if any, between the listing of path and
// its open: tests use it to replace the entry exactly in that window, which
// a real attacker can only hit by chance.
func (s *Source) beforeOpen(path string) {
	if s.hookBeforeOpen != nil {
		s.hookBeforeOpen(path)
	}
}

// checkOpened checks that fd, just opened for path, is a regular file and
// the one listed as want; it returns it ready to read, or closes it.
func checkOpened(fd int, path string, want fileID) (*openedFile, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	if m := mode(&st); m != unix.S_IFREG {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: now a %s", ErrChanged, kindName(m))
	}
	if idOf(&st) != want {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: another file", ErrChanged)
	}
	// A regular file never blocks a read; blocking mode keeps os.File from
	// trying to register it with the network poller.
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	f := os.NewFile(uintptr(fd), path)
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return &openedFile{path: path, f: f, info: info, id: want}, nil
}

// openClass sorts an open error: a name that became a link (ELOOP from
// O_NOFOLLOW; EMLINK on FreeBSD) or stopped being a directory (ENOTDIR)
// changed under the walk; anything else is unreadable.
func openClass(err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) || errors.Is(err, unix.ENOTDIR) {
		return ErrChanged
	}
	return ErrUnreadable
}

func openError(err error) error {
	if c := openClass(err); c == ErrChanged {
		return fmt.Errorf("%w: now a symbolic link or not a directory (%w)", ErrChanged, err)
	}
	return fmt.Errorf("%w: %w", ErrUnreadable, err)
}

// kindName names a file type in the words of ls and find.
func kindName(m uint32) string {
	switch m {
	case unix.S_IFIFO:
		return "named pipe (FIFO)"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFCHR:
		return "character device"
	case unix.S_IFBLK:
		return "block device"
	case unix.S_IFLNK:
		return "symbolic link"
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFREG:
		return "regular file"
	}
	return fmt.Sprintf("file of type %#o", m)
}

// linkTarget is what the link at dfd/name says, for the warning.
func linkTarget(dfd int, name string) string {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dfd, name, buf)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return string(buf[:n])
}

// linkKind says what the link at dfd/name leads to, so that the warning
// tells a link to a folder from a loop or a dangling link. It only stats the
// target (a stat never opens, so never blocks on a FIFO) and reads nothing.
func linkKind(dfd int, name string) string {
	var st unix.Stat_t
	err := unix.Fstatat(dfd, name, &st, 0)
	switch {
	case errors.Is(err, unix.ELOOP):
		return "symbolic link loop"
	case errors.Is(err, unix.ENOENT):
		return "nothing (dangling)"
	case err != nil:
		return "unknown (" + err.Error() + ")"
	}
	return kindName(mode(&st))
}

// warnKey is a path and the class of the reason it was skipped for.
type warnKey struct {
	path  string
	class string
}

// firstWarning reports whether path has not been warned about for class
// since it last appeared, and counts it as skipped if so. Keys of paths gone
// from a scan are dropped (forgetWarnings), so a reappearing entry is named
// again; an entry that stays is named once, not at every poll.
func (s *Source) firstWarning(path string, class error) bool {
	k := warnKey{path, class.Error()}
	if s.warned[k] {
		return false
	}
	s.warned[k] = true
	s.skipped.Add(1)
	return true
}

// warnOnce logs "file skipped" for path with reason, once per class.
func (s *Source) warnOnce(path string, class, reason error) {
	if s.firstWarning(path, class) {
		s.log.Warn("file skipped", "path", path, "reason", reason.Error())
	}
}

// forgetWarnings drops the warnings given about entries the last scan did
// not meet, so that an entry that reappears is named again; an entry that
// stays is named once, not at every poll. (What is remembered of gone files
// themselves is dropped by settleGone, once their deletions are written; a
// file the scan could not confirm gone, under a directory it could not
// list, stays remembered so that its deletion is not lost.)
func (s *Source) forgetWarnings(present map[string]bool) {
	for k := range s.warned {
		if !present[k.path] {
			delete(s.warned, k)
		}
	}
}
