package streams

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
	"github.com/twmb/franz-go/pkg/kgo"
	franzplain "github.com/twmb/franz-go/pkg/sasl/plain"
	franzscram "github.com/twmb/franz-go/pkg/sasl/scram"
)

// KafkaConfig says how to reach a Kafka cluster.
type KafkaConfig struct {
	// Brokers are host:port seed addresses.
	Brokers []string `yaml:"brokers" flag:"kafka-brokers" help:"Kafka seed brokers host:port,…; empty runs the embedded broker"`
	// SASL mechanism: "", "plain", "scram-sha-256" or "scram-sha-512".
	SASLMechanism string `yaml:"sasl_mechanism" help:"SASL mechanism: plain, scram-sha-256 or scram-sha-512"`
	SASLUser      string `yaml:"sasl_user" help:"SASL user name"`
	// SASLPasswordEnv names the environment variable holding the password,
	// so that the secret never sits in a config file or a log line.
	SASLPasswordEnv string `yaml:"sasl_password_env" help:"environment variable holding the SASL password"`
	// SASLPasswordFile names a file holding the password instead: how a
	// process reaches the embedded broker of another (see `robustream
	// broker`), or a secret mounted as a file.
	SASLPasswordFile string `yaml:"sasl_password_file" help:"file holding the SASL password (instead of sasl_password_env)"`
	TLS              bool   `yaml:"tls" help:"connect with TLS"`
	TLSCAFile        string `yaml:"tls_ca_file" help:"PEM file of CAs to trust (default: system pool)"`
	// Partitions is the partition count of topics robustream creates.
	Partitions int `yaml:"partitions" help:"partition count of topics robustream creates"`
}

// Validate reports configuration errors, with their paths.
func (c KafkaConfig) Validate() []error {
	var errs []error
	switch c.SASLMechanism {
	case "", "plain", "scram-sha-256", "scram-sha-512":
	default:
		errs = append(errs, fmt.Errorf("kafka.sasl_mechanism: unknown mechanism %q (want plain, scram-sha-256 or scram-sha-512)", c.SASLMechanism))
	}
	if c.SASLMechanism != "" && c.SASLUser == "" {
		errs = append(errs, errors.New("kafka.sasl_user: required when kafka.sasl_mechanism is set"))
	}
	if c.SASLPasswordEnv != "" && c.SASLPasswordFile != "" {
		errs = append(errs, errors.New("kafka.sasl_password_file: set either it or kafka.sasl_password_env, not both"))
	}
	if c.Partitions < 1 || c.Partitions > 1024 {
		errs = append(errs, fmt.Errorf("kafka.partitions: %d is out of range 1..1024", c.Partitions))
	}
	return errs
}

// Kafka is a connection factory for one cluster: writers, readers, groups and
// an admin client sharing one transport configuration.
type Kafka struct {
	cfg       KafkaConfig
	pass      string      // the SASL password, for the franz-go client
	tls       *tls.Config // nil without TLS
	dialer    *kafka.Dialer
	transport *kafka.Transport
	client    *kafka.Client

	writerOnce sync.Once
	writer     *kafka.Writer
}

// sharedWriter is a writer for occasional writes outside the runner.
func (k *Kafka) sharedWriter() *kafka.Writer {
	k.writerOnce.Do(func() { k.writer = k.NewWriter() })
	return k.writer
}

// Close releases the shared writer.
func (k *Kafka) Close() error {
	if k.writer != nil {
		return k.writer.Close()
	}
	return nil
}

// NewKafka builds the connection factory; it does not dial.
func NewKafka(cfg KafkaConfig) (*Kafka, error) {
	if len(cfg.Brokers) == 0 {
		return nil, errors.New("kafka: no brokers")
	}
	if cfg.Partitions == 0 {
		cfg.Partitions = 4
	}
	var mech sasl.Mechanism
	var pass string
	if cfg.SASLMechanism != "" {
		pass = os.Getenv(cfg.SASLPasswordEnv)
		if cfg.SASLPasswordFile != "" {
			raw, err := os.ReadFile(cfg.SASLPasswordFile)
			if err != nil {
				return nil, fmt.Errorf("kafka: cannot read the SASL password: %w", err)
			}
			pass = strings.TrimSpace(string(raw))
		}
		var err error
		switch cfg.SASLMechanism {
		case "plain":
			mech = plain.Mechanism{Username: cfg.SASLUser, Password: pass}
		case "scram-sha-256":
			mech, err = scram.Mechanism(scram.SHA256, cfg.SASLUser, pass)
		case "scram-sha-512":
			mech, err = scram.Mechanism(scram.SHA512, cfg.SASLUser, pass)
		default:
			err = fmt.Errorf("unknown SASL mechanism %q", cfg.SASLMechanism)
		}
		if err != nil {
			return nil, fmt.Errorf("kafka: %w", err)
		}
	}
	var tlsCfg *tls.Config
	if cfg.TLS {
		tlsCfg = &tls.Config{MinVersion: tls.VersionTLS12}
		if cfg.TLSCAFile != "" {
			pem, err := os.ReadFile(cfg.TLSCAFile)
			if err != nil {
				return nil, fmt.Errorf("kafka: cannot read CA file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("kafka: no certificates in %s", cfg.TLSCAFile)
			}
			tlsCfg.RootCAs = pool
		}
	}
	k := &Kafka{
		cfg:       cfg,
		pass:      pass,
		tls:       tlsCfg,
		dialer:    &kafka.Dialer{Timeout: 10 * time.Second, DualStack: true, SASLMechanism: mech, TLS: tlsCfg},
		transport: &kafka.Transport{DialTimeout: 10 * time.Second, SASL: mech, TLS: tlsCfg, MetadataTTL: 2 * time.Second},
	}
	k.client = &kafka.Client{Addr: kafka.TCP(cfg.Brokers...), Transport: k.transport, Timeout: 10 * time.Second}
	return k, nil
}

// Brokers returns the seed brokers.
func (k *Kafka) Brokers() []string { return k.cfg.Brokers }

// Dialer is the dialer readers must use: it carries the cluster's SASL
// and TLS settings.
func (k *Kafka) Dialer() *kafka.Dialer { return k.dialer }

// franzOpts are the options a franz-go client needs to reach the same
// cluster with the same credential (the trimmer's DeleteRecords goes
// through franz-go).
func (k *Kafka) franzOpts() []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(k.cfg.Brokers...)}
	switch k.cfg.SASLMechanism {
	case "plain":
		opts = append(opts, kgo.SASL(franzplain.Auth{User: k.cfg.SASLUser, Pass: k.pass}.AsMechanism()))
	case "scram-sha-256":
		opts = append(opts, kgo.SASL(franzscram.Auth{User: k.cfg.SASLUser, Pass: k.pass}.AsSha256Mechanism()))
	case "scram-sha-512":
		opts = append(opts, kgo.SASL(franzscram.Auth{User: k.cfg.SASLUser, Pass: k.pass}.AsSha512Mechanism()))
	}
	if k.tls != nil {
		opts = append(opts, kgo.DialTLSConfig(k.tls.Clone()))
	}
	return opts
}

// Partitions returns the partition count used for new topics.
func (k *Kafka) Partitions() int { return k.cfg.Partitions }

// Client returns the admin client.
func (k *Kafka) Client() *kafka.Client { return k.client }

// EnsureTopics creates the topics that do not exist yet, each with the
// configured partition count. Changelog topics are compacted.
func (k *Kafka) EnsureTopics(ctx context.Context, topics ...string) error {
	req := &kafka.CreateTopicsRequest{}
	for _, t := range topics {
		tc := kafka.TopicConfig{Topic: t, NumPartitions: k.cfg.Partitions, ReplicationFactor: 1}
		if isChangelog(t) {
			tc.ConfigEntries = []kafka.ConfigEntry{{ConfigName: "cleanup.policy", ConfigValue: "compact"}}
		}
		req.Topics = append(req.Topics, tc)
	}
	var resp *kafka.CreateTopicsResponse
	var err error
	// A broker that has just started may not accept admin requests for a
	// moment; retry briefly rather than fail start-up.
	for attempt := 0; attempt < 20; attempt++ {
		resp, err = k.client.CreateTopics(ctx, req)
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	if err != nil {
		if errors.Is(err, kafka.BrokerNotAvailable) && k.cfg.SASLMechanism == "" {
			// What a broker that requires SASL (the embedded one does)
			// answers a client that has not authenticated.
			return fmt.Errorf("cannot create topics: %w (does the broker require SASL? "+
				"`robustream broker` prints the --kafka-sasl-* flags that reach it)", err)
		}
		return fmt.Errorf("cannot create topics: %w", err)
	}
	for t, terr := range resp.Errors {
		if terr != nil && !errors.Is(terr, kafka.TopicAlreadyExists) {
			return fmt.Errorf("cannot create topic %q: %w", t, terr)
		}
	}
	return nil
}

// NewWriter returns a synchronous writer: WriteMessages returns once every
// record is acknowledged by the broker. Records go to the partition chosen by
// the hash of their key, or to the partition named by a PartitionHeader.
func (k *Kafka) NewWriter() *kafka.Writer {
	return &kafka.Writer{
		Addr:         kafka.TCP(k.cfg.Brokers...),
		Transport:    k.transport,
		Balancer:     keyBalancer{},
		RequiredAcks: kafka.RequireAll,
		BatchSize:    1000,
		// A produced record batch must fit the broker's message.max.bytes,
		// or the whole batch is rejected with MESSAGE_TOO_LARGE and, being
		// retried as is, never goes through (a stage stuck for good on a
		// backlog). kafka-go overestimates record sizes, so a batch stays
		// under MaxBatchBytes, which the embedded broker accepts twice over.
		BatchBytes:             MaxBatchBytes,
		BatchTimeout:           time.Millisecond,
		AllowAutoTopicCreation: false,
		MaxAttempts:            10,
		WriteBackoffMin:        50 * time.Millisecond,
		WriteBackoffMax:        2 * time.Second,
	}
}

// MaxBatchBytes bounds a produce request's record batch per partition, and
// so the largest single record robustream can write. A real cluster must
// allow it (message.max.bytes); the embedded broker is configured to.
const MaxBatchBytes = 8 << 20

// PartitionHeader pins a record to a partition (used by state changelogs,
// whose partitions mirror the input partitions of their stage).
const PartitionHeader = "rs-partition"

// keyBalancer hashes keys with FNV-1a (stable across processes and
// languages), or honours PartitionHeader.
type keyBalancer struct{}

func (keyBalancer) Balance(msg kafka.Message, partitions ...int) int {
	for _, h := range msg.Headers {
		if h.Key == PartitionHeader {
			if p, err := strconv.Atoi(string(h.Value)); err == nil {
				for _, q := range partitions {
					if q == p {
						return p
					}
				}
			}
		}
	}
	return PartitionFor(msg.Key, len(partitions))
}

// PartitionFor returns the partition a key maps to among n.
func PartitionFor(key []byte, n int) int {
	if n <= 0 {
		return 0
	}
	h := fnv.New32a()
	h.Write(key)
	return int(h.Sum32() % uint32(n))
}

func toKafka(recs []Record) []kafka.Message {
	out := make([]kafka.Message, len(recs))
	for i, r := range recs {
		out[i] = kafka.Message{Topic: r.Topic, Key: r.Key, Value: r.Value, Headers: toKafkaHeaders(r.Headers)}
	}
	return out
}

func toKafkaHeaders(hs []Header) []kafka.Header {
	if len(hs) == 0 {
		return nil
	}
	out := make([]kafka.Header, len(hs))
	for i, h := range hs {
		out[i] = kafka.Header{Key: h.Key, Value: h.Value}
	}
	return out
}

func fromKafka(m kafka.Message) Message {
	var hs []Header
	for _, h := range m.Headers {
		hs = append(hs, Header{Key: h.Key, Value: h.Value})
	}
	return Message{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Key: m.Key, Value: m.Value, Headers: hs, Time: m.Time}
}

// Produce writes records synchronously with w.
func Produce(ctx context.Context, w *kafka.Writer, recs ...Record) error {
	if len(recs) == 0 {
		return nil
	}
	if err := w.WriteMessages(ctx, toKafka(recs)...); err != nil {
		if w.Addr != nil {
			if d := embeddedDiskFull(w.Addr.String(), err); d != nil {
				return fmt.Errorf("cannot produce %d record(s): %w", len(recs), d)
			}
		}
		var werrs kafka.WriteErrors
		if errors.As(err, &werrs) {
			// One line per distinct cause, not one per record.
			for _, e := range werrs {
				if e != nil {
					return fmt.Errorf("cannot produce %d of %d record(s): %w", werrs.Count(), len(recs), e)
				}
			}
		}
		return fmt.Errorf("cannot produce %d record(s): %w", len(recs), err)
	}
	return nil
}

// EndOffsets returns the high watermark of each partition of each topic.
func (k *Kafka) EndOffsets(ctx context.Context, topics ...string) (map[string]map[int]int64, error) {
	meta, err := k.client.Metadata(ctx, &kafka.MetadataRequest{Topics: topics})
	if err != nil {
		return nil, fmt.Errorf("cannot read metadata: %w", err)
	}
	req := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for _, t := range meta.Topics {
		if t.Error != nil {
			return nil, fmt.Errorf("topic %q: %w", t.Name, t.Error)
		}
		for _, p := range t.Partitions {
			req.Topics[t.Name] = append(req.Topics[t.Name], kafka.LastOffsetOf(p.ID))
		}
	}
	resp, err := k.client.ListOffsets(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("cannot list offsets: %w", err)
	}
	out := map[string]map[int]int64{}
	for t, ps := range resp.Topics {
		out[t] = map[int]int64{}
		for _, p := range ps {
			if p.Error != nil {
				return nil, fmt.Errorf("offsets of %s/%d: %w", t, p.Partition, p.Error)
			}
			out[t][p.Partition] = p.LastOffset
		}
	}
	return out, nil
}

// CommittedOffsets returns a group's committed offsets for the partitions
// of parts (as returned by EndOffsets); -1 where none is committed.
func (k *Kafka) CommittedOffsets(ctx context.Context, group string, parts map[string]map[int]int64) (map[string]map[int]int64, error) {
	req := &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{}}
	for t, ps := range parts {
		for p := range ps {
			req.Topics[t] = append(req.Topics[t], p)
		}
	}
	resp, err := k.client.OffsetFetch(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("cannot fetch offsets of group %q: %w", group, err)
	}
	out := map[string]map[int]int64{}
	if errors.Is(resp.Error, kafka.GroupIdNotFound) {
		return out, nil // nothing committed yet
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("offsets of group %q: %w", group, resp.Error)
	}
	for t, ps := range resp.Topics {
		out[t] = map[int]int64{}
		for _, p := range ps {
			out[t][p.Partition] = p.CommittedOffset
		}
	}
	return out, nil
}
