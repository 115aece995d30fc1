package streams

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The embedded broker admits one SCRAM-SHA-256 user, the engine. Its
// password is generated once per data dir and kept in a file readable by
// the owner only, so that any process of the same user (the engine, its
// child processes, `robustream broker` and an operator's kcat) can connect,
// and no other local user can: the broker listens on loopback, where every
// local account could otherwise read every document and forge outcomes.
const (
	// BrokerUser is the SASL user of the embedded broker.
	BrokerUser = "robustream"
	// BrokerMechanism is the SASL mechanism the embedded broker requires,
	// spelled as Kafka (and kcat) spell it.
	BrokerMechanism = "SCRAM-SHA-256"
	// brokerPasswordName is the credential file's name in the broker's
	// data dir. kfake ignores files it does not know.
	brokerPasswordName = "sasl-password"
)

// BrokerPasswordFile is where the embedded broker of data dir dir (the
// broker's own directory, <data_dir>/kafka) keeps its password.
func BrokerPasswordFile(dir string) string {
	return filepath.Join(dir, brokerPasswordName)
}

// brokerPassword returns the password of the broker in dir, creating it if
// the data dir has none yet.
func brokerPassword(dir string) (string, error) {
	path := BrokerPasswordFile(dir)
	pass, err := ReadBrokerPassword(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return pass, err
	}
	if err := createBrokerPassword(path); err != nil {
		return "", err
	}
	return ReadBrokerPassword(path)
}

// createBrokerPassword writes a new random password at path without ever
// exposing a partial file there: it is written and synced under a temporary
// name, then linked into place. Link, unlike rename, fails when path exists,
// so of two processes racing on a fresh data dir one wins and the other
// reads the winner's password.
func createBrokerPassword(path string) error {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return fmt.Errorf("broker: cannot generate a password: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+brokerPasswordName+"-*") // mode 0600
	if err != nil {
		return fmt.Errorf("broker: cannot create the credential file: %w", DiskFull(err, dir))
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(hex.EncodeToString(raw[:]))
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("broker: cannot write the credential file: %w", DiskFull(werr, dir))
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("broker: cannot create %s: %w", path, err)
	}
	// The link is durable only once the directory entry is.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// ReadBrokerPassword reads the embedded broker's password from path,
// refusing a file that other users could read or replace: a symlink, a
// non-regular file, a mode granting group or others any access, or an owner
// other than this process's user.
func ReadBrokerPassword(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return "", fmt.Errorf("broker: credential file %s is a symlink; it must be a regular file", path)
		}
		return "", fmt.Errorf("broker: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("broker: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("broker: credential file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("broker: credential file %s has mode %04o, which lets other users read or change it; "+
			"run `chmod 600 %s` if you trust its content, or delete it to generate a new one", path, perm, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return "", fmt.Errorf("broker: credential file %s is owned by uid %d, not by this user (uid %d); "+
			"run robustream as its owner, or delete it to generate a new one", path, st.Uid, os.Geteuid())
	}
	raw, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("broker: cannot read %s: %w", path, err)
	}
	pass := strings.TrimSpace(string(raw))
	if len(pass) < 16 {
		return "", fmt.Errorf("broker: credential file %s holds no usable password (fewer than 16 characters); delete it to generate a new one", path)
	}
	return pass, nil
}

// ClientConfig is how a client of this process reaches the embedded
// broker: its address and credential.
func (b *Broker) ClientConfig() KafkaConfig {
	return KafkaConfig{
		Brokers:          []string{b.addr},
		SASLMechanism:    "scram-sha-256",
		SASLUser:         BrokerUser,
		SASLPasswordFile: b.passFile,
	}
}

// WithPartitions returns c creating topics with n partitions.
func (c KafkaConfig) WithPartitions(n int) KafkaConfig {
	c.Partitions = n
	return c
}

// PasswordFile is the file holding the broker's password.
func (b *Broker) PasswordFile() string { return b.passFile }

// ConnectHelp says, for an operator, how another local process of the same
// user connects: robustream's own flags and a kcat command line.
func (b *Broker) ConnectHelp() string {
	return fmt.Sprintf(`connect with SASL %s, user %q, password in %s (readable by its owner only):
  robustream run --kafka-brokers %s --kafka-sasl-mechanism scram-sha-256 --kafka-sasl-user %s --kafka-sasl-password-file %s …
  kcat -b %s -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=%s -X sasl.username=%s -X sasl.password="$(cat %s)" -L`,
		BrokerMechanism, BrokerUser, b.passFile,
		b.addr, BrokerUser, b.passFile,
		b.addr, BrokerMechanism, BrokerUser, b.passFile)
}

// advertiseHandshakeV0 makes the embedded broker usable by librdkafka
// clients (kcat, confluent-kafka-*) with SASL. kfake implements
// SaslHandshake v1 only and says so in ApiVersions; librdkafka enables SASL
// only when the advertised range of SaslHandshake includes v0, and
// otherwise fails with "SASL Handshake not supported by broker" before
// sending anything. Once enabled it sends v1 anyway, because the broker
// also offers SaslAuthenticate, so widening the advertised range is enough.
// The ApiVersions answer is kfake's own, read once at start, with that one
// range widened; a request kfake would answer specially (a version above
// its range) is left to kfake.
func advertiseHandshakeV0(c *kfake.Cluster, addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Sent to the seed broker directly: ApiVersions is one of the two
	// requests the broker answers before authentication.
	own, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("broker: cannot read the embedded broker's API versions: %w", err)
	}
	if own.ErrorCode != 0 {
		return fmt.Errorf("broker: the embedded broker's API versions: %w", kerr.ErrorForCode(own.ErrorCode))
	}
	keys := slices.Clone(own.ApiKeys)
	for i := range keys {
		if keys[i].ApiKey == int16(kmsg.SASLHandshake) && keys[i].MinVersion > 0 {
			keys[i].MinVersion = 0
		}
	}
	c.ControlKey(int16(kmsg.ApiVersions), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.ApiVersionsRequest)
		if req.Version > own.Version || req.Version >= 5 {
			return nil, nil, false
		}
		resp := *own
		resp.Version = req.Version
		resp.ApiKeys = slices.Clone(keys)
		return &resp, nil, true
	})
	return nil
}
