package streams

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Broker is the embedded Kafka broker: franz-go's kfake, which speaks the
// real wire protocol, persisting to a data directory with synchronous
// writes so that topics and committed offsets survive a kill -9.
//
// It admits only clients that authenticate as BrokerUser with the data dir's
// password (see brokerauth.go), and it refuses to open a data dir whose logs
// do not decode (see logcheck.go).
type Broker struct {
	cluster  *kfake.Cluster
	addr     string
	dir      string
	passFile string
	log      *slog.Logger
	diskFull atomic.Pointer[diskFullAt] // the last write that failed for want of space
}

// BrokerOpt tunes StartBroker.
type BrokerOpt func(*Broker)

// BrokerLogger sends the broker's warnings (a torn tail found at start, a
// failed write) to log instead of slog's default logger.
func BrokerLogger(log *slog.Logger) BrokerOpt { return func(b *Broker) { b.log = log } }

// StartBroker starts the embedded broker on listen (host:port on 127.0.0.1;
// port 0 picks a free one), persisting under dir.
func StartBroker(dir, listen string, partitions int, opts ...BrokerOpt) (*Broker, error) {
	b := &Broker{dir: filepath.Clean(dir), log: slog.Default()}
	for _, o := range opts {
		o(b)
	}
	port := 0
	if listen != "" {
		host, p, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fmt.Errorf("broker: bad listen address %q: %w", listen, err)
		}
		if host != "" && host != "127.0.0.1" && host != "localhost" {
			return nil, fmt.Errorf("broker: the embedded broker listens on 127.0.0.1 only, not %q", host)
		}
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("broker: bad port in %q", listen)
		}
	}
	if port == 0 {
		// kfake needs a concrete port: ask the kernel for a free one.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("broker: no free port: %w", err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("broker: %w", DiskFull(err, dir))
	}
	if err := privateDir(b.dir); err != nil {
		return nil, err
	}
	// Read everything before kfake does: it cuts a log short at the first
	// record it cannot decode, so a refusal must come first.
	tails, err := CheckBrokerData(b.dir)
	if err != nil {
		return nil, err
	}
	for _, t := range tails {
		b.log.Warn("embedded broker: a crash left an unfinished write at the end of a log; it held nothing acknowledged and is dropped now",
			"file", t.File, "byte", t.Pos, "record_offset", t.Offset, "what", t.What)
	}
	pass, err := brokerPassword(b.dir)
	if err != nil {
		return nil, err
	}
	b.passFile = BrokerPasswordFile(b.dir)
	// kfake keeps the SCRAM users it knew in sasl.json and, when it finds
	// one, prefers it to the users it is given. The password file is the
	// one source of truth (deleting it rotates the password), so the copy
	// goes; kfake writes a fresh one from the user below.
	if err := os.Remove(filepath.Join(b.dir, "sasl.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("broker: %w", err)
	}
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.Ports(port),
		kfake.DataDir(b.dir),
		// Only the engine's user: an unauthenticated client may ask
		// for API versions and a SASL handshake, nothing else.
		kfake.EnableSASL(),
		kfake.Superuser(BrokerMechanism, BrokerUser, pass),
		kfake.WithLogger(brokerLog{b}),
		kfake.SyncWrites(),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(partitions),
		// Room for large documents: a produce batch may hold up to
		// MaxBatchBytes (the writer's limit) and the broker must accept it.
		kfake.BrokerConfigs(map[string]string{"message.max.bytes": strconv.Itoa(2 * MaxBatchBytes)}),
	)
	if err != nil {
		return nil, fmt.Errorf("broker: cannot start embedded Kafka in %s: %w", dir, DiskFull(err, dir))
	}
	b.cluster, b.addr = c, c.ListenAddrs()[0]
	if err := advertiseHandshakeV0(c, b.addr); err != nil {
		c.Close()
		return nil, err
	}
	registerBroker(b)
	return b, nil
}

// privateDir makes sure no other user can enter the broker's directory:
// kfake creates its files with mode 0644, and one of them (sasl.json) holds
// the salted password, which is enough to authenticate with SCRAM. A
// directory of another user is refused rather than changed.
func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("broker: %s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("broker: %s is owned by uid %d, not by this user (uid %d)", dir, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("broker: cannot make %s private: %w", dir, err)
		}
	}
	return nil
}

// Addr is the host:port clients connect to.
func (b *Broker) Addr() string { return b.addr }

// Close stops the broker and flushes its state to disk.
func (b *Broker) Close() {
	unregisterBroker(b)
	b.cluster.Close()
}

// Compact runs log compaction on the compacted (changelog) topics: kfake
// does not compact on its own.
func (b *Broker) Compact() { b.cluster.Compact() }

// brokerLog receives kfake's log lines. kfake reports a failed write only
// there, and answers the producer with UNKNOWN_SERVER_ERROR ("an unexpected
// server error occurred"); a write that failed for want of space is
// remembered, so that the producer's error can say "disk full" and where.
type brokerLog struct{ b *Broker }

func (l brokerLog) Logf(level kfake.LogLevel, msg string, args ...any) {
	if level > kfake.LogLevelWarn || level == kfake.LogLevelNone {
		return // info and debug are kfake's chatter
	}
	for _, a := range args {
		if err, ok := a.(error); ok && IsDiskFull(err) {
			path := l.b.dir
			var pe *fs.PathError
			if errors.As(err, &pe) {
				path = pe.Path
			}
			d := &DiskFullError{Path: path, Err: err}
			l.b.diskFull.Store(&diskFullAt{err: d, at: time.Now()})
			l.b.log.Error("embedded broker: "+d.Error(), "detail", fmt.Sprintf(msg, args...))
			return
		}
	}
	l.b.log.Warn("embedded broker: " + fmt.Sprintf(msg, args...))
}

type diskFullAt struct {
	err *DiskFullError
	at  time.Time
}

// The brokers of this process by address, so that a producer's error can
// be explained by the broker it came from.
var (
	brokersMu sync.Mutex
	brokers   = map[string]*Broker{}
)

func registerBroker(b *Broker) {
	brokersMu.Lock()
	brokers[b.addr] = b
	brokersMu.Unlock()
}

func unregisterBroker(b *Broker) {
	brokersMu.Lock()
	if brokers[b.addr] == b {
		delete(brokers, b.addr)
	}
	brokersMu.Unlock()
}

// embeddedDiskFull returns the disk-full error an embedded broker of this
// process at one of addrs (comma-separated) met in the last minute, if err
// is the generic server error such a write failure turns into.
func embeddedDiskFull(addrs string, err error) *DiskFullError {
	unknown := errors.Is(err, kafka.Unknown)
	var werrs kafka.WriteErrors // one error per message, not wrapped
	if errors.As(err, &werrs) {
		for _, e := range werrs {
			unknown = unknown || errors.Is(e, kafka.Unknown)
		}
	}
	if !unknown {
		return nil
	}
	brokersMu.Lock()
	defer brokersMu.Unlock()
	for _, a := range strings.Split(addrs, ",") {
		if b := brokers[strings.TrimSpace(a)]; b != nil {
			if d := b.diskFull.Load(); d != nil && time.Since(d.at) < time.Minute {
				return d.err
			}
		}
	}
	return nil
}
