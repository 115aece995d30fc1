package streams

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// selfSigned returns a server certificate for 127.0.0.1 and its PEM.
func selfSigned(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "robustream test broker"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestSecureCluster runs a stage against a broker that requires TLS and
// SASL (SCRAM-SHA-256, and PLAIN), configured the way --kafka-brokers users
// configure a real cluster: CA file, mechanism, user, password from the
// environment.
func TestSecureCluster(t *testing.T) {
	cert, caPEM := selfSigned(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mech := range []struct{ kfake, ours string }{{"SCRAM-SHA-256", "scram-sha-256"}, {"PLAIN", "plain"}} {
		t.Run(mech.ours, func(t *testing.T) {
			c, err := kfake.NewCluster(
				kfake.NumBrokers(1),
				kfake.EnableSASL(),
				kfake.Superuser(mech.kfake, "robustream", "s3cret"),
				kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}),
				kfake.AllowAutoTopicCreation(),
			)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			t.Setenv("RS_TEST_KAFKA_PASSWORD", "s3cret")
			cfg := KafkaConfig{
				Brokers: c.ListenAddrs(), Partitions: 2,
				SASLMechanism: mech.ours, SASLUser: "robustream", SASLPasswordEnv: "RS_TEST_KAFKA_PASSWORD",
				TLS: true, TLSCAFile: caFile,
			}
			if errs := cfg.Validate(); len(errs) > 0 {
				t.Fatal(errs)
			}
			k, err := NewKafka(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			produceN(t, k, "secure.in", 50, func(i int) string { return "v" + strconv.Itoa(i) })
			if err := k.EnsureTopics(context.Background(), "secure.out"); err != nil {
				t.Fatal(err)
			}
			r := NewRunner(k, quietLog(), nil)
			copyTo := funcProcessor{name: "copy", fn: func(_ context.Context, m Message) ([]Record, error) {
				return []Record{{Topic: "secure.out", Key: m.Key, Value: m.Value}}, nil
			}}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx, Stage{Name: "copy", Inputs: []string{"secure.in"}, Processor: copyTo}) }()
			drain(t, r, map[string][]string{"copy": {"secure.in"}})
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			ends, err := k.EndOffsets(context.Background(), "secure.out")
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			for _, e := range ends["secure.out"] {
				n += e
			}
			if n != 50 {
				t.Fatalf("%d records copied over TLS+SASL, want 50", n)
			}
			// A wrong password is refused.
			t.Setenv("RS_TEST_KAFKA_PASSWORD", "wrong")
			bad, err := NewKafka(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer bad.Close()
			ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel2()
			if _, err := bad.EndOffsets(ctx2, "secure.out"); err == nil {
				t.Fatal("a wrong SASL password was accepted")
			}
		})
	}
}
