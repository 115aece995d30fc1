package streams

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestEmbeddedBrokerRefusesAnonymousClients: a client without the data
// dir's credential gets no metadata and cannot produce, while the engine's
// client (SCRAM-SHA-256 with the password file) reads and writes.
func TestEmbeddedBrokerRefusesAnonymousClients(t *testing.T) {
	b, k := newTestKafka(t, "")
	defer b.Close()
	defer k.Close()
	ctx := context.Background()
	produceN(t, k, TopicOutcomes, 3, func(i int) string { return "k" })

	anon, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.RequestRetries(0), kgo.RetryTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(mctx, anon)
	if err == nil {
		t.Fatalf("an anonymous metadata request succeeded: %d topics, first %v", len(meta.Topics), topicNames(meta))
	}
	t.Logf("anonymous metadata: %v", err)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := anon.ProduceSync(pctx, &kgo.Record{Topic: TopicOutcomes, Value: []byte("forged")}).FirstErr(); err == nil {
		t.Fatal("an anonymous produce to rs.outcomes succeeded")
	} else {
		t.Logf("anonymous produce: %v", err)
	}
	// A wrong password is no better than none.
	wrong := b.ClientConfig().WithPartitions(4)
	wrong.SASLPasswordFile = filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(wrong.SASLPasswordFile, []byte("0123456789abcdef0123"), 0o600); err != nil {
		t.Fatal(err)
	}
	kw, err := NewKafka(wrong)
	if err != nil {
		t.Fatal(err)
	}
	defer kw.Close()
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := kw.EndOffsets(wctx, TopicOutcomes); err == nil {
		t.Fatal("a client with a wrong password read metadata")
	}
	// Nothing reached the topic; the engine's own client still works.
	ends, err := k.EndOffsets(ctx, TopicOutcomes)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ends[TopicOutcomes] {
		n += e
	}
	if n != 3 {
		t.Fatalf("rs.outcomes holds %d records, want the 3 the engine wrote", n)
	}
	// The trimmer's franz-go client authenticates too.
	fc, err := kgo.NewClient(k.franzOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, fc); err != nil {
		t.Fatalf("the engine's franz-go client: %v", err)
	}
}

func topicNames(m *kmsg.MetadataResponse) []string {
	var out []string
	for _, t := range m.Topics {
		if t.Topic != nil {
			out = append(out, *t.Topic)
		}
	}
	return out
}

// TestEmbeddedBrokerWithKcat checks the broker from a client the engine
// does not share code with: kcat without credentials is refused, kcat with
// the command line `robustream broker` prints lists the topics and
// produces.
func TestEmbeddedBrokerWithKcat(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not installed (Debian package kcat): the anonymous check runs with franz-go in TestEmbeddedBrokerRefusesAnonymousClients")
	}
	b, k := newTestKafka(t, "")
	defer b.Close()
	defer k.Close()
	produceN(t, k, TopicOutcomes, 2, func(i int) string { return "k" })
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, kcat, args...).CombinedOutput()
		return string(out), err
	}

	out, err := run("-b", b.Addr(), "-L", "-m", "5")
	if err == nil && strings.Contains(out, TopicOutcomes) {
		t.Fatalf("anonymous kcat listed the topics:\n%s", out)
	}
	t.Logf("anonymous kcat -L: %v: %s", err, firstLine(out))
	msg := filepath.Join(t.TempDir(), "forged")
	if err := os.WriteFile(msg, []byte(`{"forged":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = run("-b", b.Addr(), "-P", "-t", TopicOutcomes, "-m", "5", "-X", "message.timeout.ms=5000", msg)
	if err == nil {
		t.Fatalf("anonymous kcat produced to %s:\n%s", TopicOutcomes, out)
	}
	t.Logf("anonymous kcat -P: %v: %s", err, firstLine(out))

	// The command line the broker prints, with the password read as the
	// shell would read $(cat FILE).
	help := b.ConnectHelp()
	if !strings.Contains(help, b.PasswordFile()) || !strings.Contains(help, "sasl.mechanisms=SCRAM-SHA-256") {
		t.Fatalf("ConnectHelp does not say how to connect:\n%s", help)
	}
	pass, err := ReadBrokerPassword(b.PasswordFile())
	if err != nil {
		t.Fatal(err)
	}
	auth := []string{"-b", b.Addr(), "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=SCRAM-SHA-256",
		"-X", "sasl.username=" + BrokerUser, "-X", "sasl.password=" + pass}
	out, err = run(append(auth, "-L", "-m", "10")...)
	if err != nil || !strings.Contains(out, TopicOutcomes) {
		t.Fatalf("kcat with the credential: %v\n%s", err, out)
	}
	out, err = run(append(auth, "-P", "-t", TopicOutcomes, "-m", "10", msg)...)
	if err != nil {
		t.Fatalf("kcat with the credential could not produce: %v\n%s", err, out)
	}
	ends, err := k.EndOffsets(context.Background(), TopicOutcomes)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ends[TopicOutcomes] {
		n += e
	}
	if n != 3 {
		t.Fatalf("rs.outcomes holds %d records after kcat's authenticated produce, want 3", n)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// TestBrokerCredentialFile: the password is created once with mode 0600 and
// reused by a restart; a file other users could read, a symlink, or a file
// of another user is refused with what to do; deleting it rotates the
// password, and the old one stops working.
func TestBrokerCredentialFile(t *testing.T) {
	dir := t.TempDir()
	b, k := newTestKafka(t, dir)
	k.Close()
	file := b.PasswordFile()
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s has mode %04o, want 0600", file, fi.Mode().Perm())
	}
	first, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()

	// Restart: same password, and the engine's client still gets in.
	b, k = newTestKafka(t, dir)
	again, _ := os.ReadFile(file)
	if string(again) != string(first) {
		t.Fatal("a restart replaced the password")
	}
	if err := k.EnsureTopics(context.Background(), "after-restart"); err != nil {
		t.Fatalf("the engine's client after a restart: %v", err)
	}
	k.Close()
	b.Close()

	refused := func(what, want string) {
		t.Helper()
		b, err := StartBroker(dir, "", 4)
		if err == nil {
			b.Close()
			t.Fatalf("%s: the broker started", what)
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
			t.Fatalf("%s: error %q does not name the file and %q", what, err, want)
		}
		t.Logf("%s: %v", what, err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	refused("mode 0644", "chmod 600")
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(file, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		refused("owned by nobody", "owned by uid 65534")
		if err := os.Chown(file, 0, 0); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Log("not root: the other-owner case needs chown and is not checked")
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, first, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(file, file+".saved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, file); err != nil {
		t.Fatal(err)
	}
	refused("a symlink", "symlink")

	// Rotation: a new password is generated; the old one is refused.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	b, k = newTestKafka(t, dir)
	defer b.Close()
	defer k.Close()
	rotated, _ := os.ReadFile(file)
	if len(rotated) == 0 || string(rotated) == string(first) {
		t.Fatal("deleting the password file did not rotate the password")
	}
	if err := k.EnsureTopics(context.Background(), "after-rotation"); err != nil {
		t.Fatalf("the new password: %v", err)
	}
	old := b.ClientConfig().WithPartitions(4)
	old.SASLPasswordFile = file + ".saved"
	ko, err := NewKafka(old)
	if err != nil {
		t.Fatal(err)
	}
	defer ko.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := ko.EndOffsets(ctx, "after-rotation"); err == nil {
		t.Fatal("the old password still works after rotation")
	}
}

// TestKafkaConfigPasswordFile: sasl_password_file and sasl_password_env
// exclude each other.
func TestKafkaConfigPasswordFile(t *testing.T) {
	c := KafkaConfig{Brokers: []string{"127.0.0.1:1"}, Partitions: 1, SASLMechanism: "scram-sha-256", SASLUser: "u",
		SASLPasswordEnv: "X", SASLPasswordFile: "/f"}
	errs := c.Validate()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "not both") {
		t.Fatalf("Validate = %v, want the one 'not both' error", errs)
	}
}
