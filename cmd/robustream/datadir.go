package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// The data directory holds the embedded broker's log (<data-dir>/kafka) and
// chDB's storage (<data-dir>/clickhouse). Each has a lock file beside it,
// taken before anything opens the directory: a second process on a held
// directory must be refused before it starts a broker or an engine there,
// because a refused broker still rewrites groups.log and every snapshot.json
// on exit, which left the first engine's offsets at 0 after its next restart.
//
// The locks are per part rather than one for the whole directory so that
// `robustream broker --data-dir D` and an engine using D's ClickHouse with
// --kafka-brokers can share a directory, as the README describes.
const (
	lockKafka      = "kafka"
	lockClickHouse = "clickhouse"
)

// errDataDirBusy is returned when another process holds a part of the data
// directory.
var errDataDirBusy = errors.New("data dir is in use by another robustream process")

var (
	heldMu sync.Mutex
	held   = map[string]*os.File{} // lock path → open, flocked file
)

// lockDataDir takes the locks of the named parts of dir, creating dir (0700)
// and the lock files (0600) when missing. It touches nothing else: when a
// lock is held elsewhere it returns errDataDirBusy having opened only lock
// files that already existed. Locks already held by this process are kept;
// unlockDataDir releases them all.
func lockDataDir(dir string, parts ...string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	heldMu.Lock()
	defer heldMu.Unlock()
	for _, part := range parts {
		path, err := filepath.Abs(filepath.Join(dir, part+".lock"))
		if err != nil {
			return fmt.Errorf("data dir: %w", err)
		}
		if held[path] != nil {
			continue
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("data dir: cannot open lock %s: %w", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return busyError(dir, part)
			}
			return fmt.Errorf("data dir: cannot lock %s: %w", path, err)
		}
		held[path] = f
	}
	// A data dir that existed already (made by hand, or by an older
	// version) becomes private too; only now, with the locks held, so that
	// a refused process changes nothing.
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, fi.Mode().Perm()&0o700); err != nil {
			return fmt.Errorf("data dir: cannot make %s private: %w", dir, err)
		}
	}
	return nil
}

// unlockDataDir releases every lock this process holds.
func unlockDataDir() {
	heldMu.Lock()
	defer heldMu.Unlock()
	for path, f := range held {
		f.Close() // closing the descriptor releases the flock
		delete(held, path)
	}
}

func busyError(dir, part string) error {
	what := "its embedded Kafka broker"
	if part == lockClickHouse {
		what = "its ClickHouse (chDB)"
	}
	msg := fmt.Sprintf("%s: %s is held by another process", dir, what)
	if info, ok := runningEngine(dir); ok {
		msg += fmt.Sprintf(" (pid %d, http %s): `robustream sql` and `report` reach it through its HTTP API; stop it before running another engine here", info.PID, info.HTTP)
	} else {
		msg += ": stop it first, or use another --data-dir"
	}
	return fmt.Errorf("%w: %s", errDataDirBusy, msg)
}
