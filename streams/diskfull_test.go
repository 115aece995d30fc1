package streams

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDiskFullMapping: the kernel's and ClickHouse's ways of saying "no
// space" become "disk full: <where>"; anything else is left alone.
func TestDiskFullMapping(t *testing.T) {
	full := []error{
		&fs.PathError{Op: "write", Path: "/data/kafka/partitions/rs.outcomes-0/0.dat", Err: syscall.ENOSPC},
		fmt.Errorf("wrapped: %w", syscall.EDQUOT),
		errors.New("Code: 243. DB::Exception: Cannot reserve 1.00 MiB, not enough space. (NOT_ENOUGH_SPACE)"),
		errors.New("Code: 74. DB::ErrnoException: Cannot write to file /data/clickhouse/tmp/x.bin, errno: 28, strerror: No space left on device. (CANNOT_WRITE_TO_FILE_DESCRIPTOR)"),
	}
	for _, err := range full {
		got := DiskFull(err, "/data/clickhouse")
		if !strings.HasPrefix(got.Error(), "disk full: /data/clickhouse") {
			t.Errorf("%v -> %q, want it to start with disk full and the path", err, got)
		}
		if !errors.Is(got, err) {
			t.Errorf("%v: the cause is lost", err)
		}
		// Mapping twice keeps the first path.
		if again := DiskFull(got, "/elsewhere"); again.Error() != got.Error() {
			t.Errorf("mapped twice: %q", again)
		}
	}
	for _, err := range []error{nil, errors.New("Code: 60. DB::Exception: Table x doesn't exist"), syscall.EACCES} {
		if got := DiskFull(err, "/data"); got != err {
			t.Errorf("%v was rewritten as %v", err, got)
		}
	}
}

// TestEmbeddedBrokerDiskFull fills a 1 MiB tmpfs under a running broker: the
// producer's error, which Kafka can only call "an unexpected server error",
// says "disk full" and names the file the broker could not write.
func TestEmbeddedBrokerDiskFull(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a 1 MiB tmpfs to fill (needs root or CAP_SYS_ADMIN): %v %s; the mapping is covered by TestDiskFullMapping", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	b, err := StartBroker(dir, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	k, err := NewKafka(b.ClientConfig().WithPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := k.EnsureTopics(ctx, TopicOutcomes); err != nil {
		t.Fatal(err)
	}
	w := k.NewWriter()
	defer w.Close()
	big := []byte(strings.Repeat("x", 64<<10))
	for i := 0; i < 40; i++ {
		err = Produce(ctx, w, Record{Topic: TopicOutcomes, Key: []byte(fmt.Sprint(i)), Value: big})
		if err != nil {
			break
		}
	}
	if err == nil {
		t.Fatal("2.5 MiB went into a 1 MiB filesystem without an error")
	}
	t.Logf("produce: %v", err)
	if !strings.Contains(err.Error(), "disk full: "+dir) {
		t.Fatalf("the producer's error does not say disk full under %s: %v", dir, err)
	}
	if _, statErr := os.Stat(dir); statErr != nil {
		t.Fatal(statErr)
	}
}
