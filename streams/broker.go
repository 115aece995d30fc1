package streams

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Broker is the embedded Kafka broker: franz-go's kfake, which speaks the
// real wire protocol, persisting to a data directory with synchronous
// writes so that topics and committed offsets survive a kill -9.
type Broker struct {
	cluster *kfake.Cluster
	addr    string
}

// StartBroker starts the embedded broker on listen (host:port on 127.0.0.1;
// port 0 picks a free one), persisting under dir.
func StartBroker(dir, listen string, partitions int) (*Broker, error) {
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
		return nil, fmt.Errorf("broker: %w", err)
	}
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.Ports(port),
		kfake.DataDir(filepath.Clean(dir)),
		kfake.SyncWrites(),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(partitions),
		// Room for large documents: a produce batch may hold up to
		// MaxBatchBytes (the writer's limit) and the broker must accept it.
		kfake.BrokerConfigs(map[string]string{"message.max.bytes": strconv.Itoa(2 * MaxBatchBytes)}),
	)
	if err != nil {
		return nil, fmt.Errorf("broker: cannot start embedded Kafka in %s: %w", dir, err)
	}
	return &Broker{cluster: c, addr: c.ListenAddrs()[0]}, nil
}

// Addr is the host:port clients connect to.
func (b *Broker) Addr() string { return b.addr }

// Close stops the broker and flushes its state to disk.
func (b *Broker) Close() { b.cluster.Close() }

// Compact runs log compaction on the compacted (changelog) topics: kfake
// does not compact on its own.
func (b *Broker) Compact() { b.cluster.Compact() }
