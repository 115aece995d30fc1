package streams

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// brokerWithChangelog fills a one-partition changelog-like topic with n
// records, one batch each, and closes the broker; it returns the data dir
// and the partition's segment file.
func brokerWithChangelog(t *testing.T, n int) (dir, segment string) {
	t.Helper()
	dir = t.TempDir()
	b, err := StartBroker(dir, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKafka(b.ClientConfig().WithPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	topic := ChangelogTopic("graph")
	if err := k.EnsureTopics(context.Background(), topic); err != nil {
		t.Fatal(err)
	}
	w := k.NewWriter()
	for i := 0; i < n; i++ {
		rec := Record{Topic: topic, Key: []byte(fmt.Sprintf("k%03d", i)), Value: []byte(fmt.Sprintf(`{"edge":%d,"pad":"%s"}`, i, strings.Repeat("x", 40)))}
		if err := Produce(context.Background(), w, rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	k.Close()
	b.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "partitions", "*", "*.dat"))
	for _, s := range segs {
		if strings.Contains(s, "graph") {
			segment = s
		}
	}
	if segment == "" {
		t.Fatalf("no segment of the changelog among %v", segs)
	}
	return dir, segment
}

// hashes returns the SHA-256 of every file under dir.
func hashes(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = sha256.Sum256(raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func changelogLen(t *testing.T, b *Broker) int64 {
	t.Helper()
	k, err := NewKafka(b.ClientConfig().WithPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ends, err := k.EndOffsets(context.Background(), ChangelogTopic("graph"))
	if err != nil {
		t.Fatal(err)
	}
	return ends[ChangelogTopic("graph")][0]
}

// TestCorruptChangelogRefusesStart: one flipped byte in the middle of a
// changelog segment refuses the start with the file, the byte offset of
// the bad batch, its record offset and what to do, and no file of the data
// dir changes. kfake alone would have cut the changelog at that batch.
func TestCorruptChangelogRefusesStart(t *testing.T) {
	const n = 600
	dir, seg := brokerWithChangelog(t, n)
	raw, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	// Find the batch holding the middle byte, to know what to expect.
	mid := len(raw) / 2
	pos, offset := 0, int64(-1)
	for {
		size := 12 + int(binary.BigEndian.Uint32(raw[pos+8:pos+12]))
		if pos+size > mid {
			offset = int64(binary.BigEndian.Uint64(raw[pos:]))
			break
		}
		pos += size
	}
	if mid < pos+21 { // land in the CRC-covered part of the batch
		mid = pos + 30
	}
	raw[mid] ^= 0x40
	if err := os.WriteFile(seg, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	before := hashes(t, dir)

	b, err := StartBroker(dir, "", 1)
	if err == nil {
		got := changelogLen(t, b)
		b.Close()
		t.Fatalf("the broker started on a corrupt changelog (%d of %d records left)", got, n)
	}
	msg := err.Error()
	t.Logf("refused:\n%s", msg)
	for _, want := range []string{seg, fmt.Sprintf("at byte %d", pos), fmt.Sprintf("record offset %d", offset), "CRC mismatch",
		"no file was modified", "restore the data dir from a backup", fmt.Sprintf("truncate -s %d %s", pos, seg)} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q", want)
		}
	}
	if !errors.Is(err, ErrBrokerDataDamaged) && !strings.Contains(msg, ErrBrokerDataDamaged.Error()) {
		t.Errorf("the refusal is not ErrBrokerDataDamaged")
	}
	after := hashes(t, dir)
	if len(after) != len(before) {
		t.Errorf("a refused start changed the file set: %d files before, %d after", len(before), len(after))
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("a refused start modified %s", p)
		}
	}

	// With the byte restored the changelog comes back whole.
	raw[mid] ^= 0x40
	if err := os.WriteFile(seg, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err = StartBroker(dir, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := changelogLen(t, b); got != n {
		t.Fatalf("the repaired changelog holds %d records, want %d", got, n)
	}
}

// TestTornTailIsLoudAndKept: a partial final batch at the end of the last
// segment (what kill -9 can leave) does not refuse the start; it is logged
// with its file and byte offset, and every complete record is kept.
func TestTornTailIsLoudAndKept(t *testing.T) {
	const n = 50
	dir, seg := brokerWithChangelog(t, n)
	raw, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	// Half of a copy of the first batch, appended: an interrupted write.
	first := raw[:12+int(binary.BigEndian.Uint32(raw[8:12]))]
	torn := append(bytes.Clone(raw), first[:len(first)/2]...)
	if err := os.WriteFile(seg, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	b, err := StartBroker(dir, "", 1, BrokerLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatalf("a torn tail refused the start: %v", err)
	}
	defer b.Close()
	line := logs.String()
	t.Logf("log: %s", line)
	if !strings.Contains(line, "unfinished write") || !strings.Contains(line, seg) || !strings.Contains(line, fmt.Sprintf("byte=%d", len(raw))) {
		t.Errorf("the torn tail was not logged with its file and byte offset %d", len(raw))
	}
	if got := changelogLen(t, b); got != n {
		t.Fatalf("the changelog holds %d records after a torn tail, want %d", got, n)
	}
}

// TestCheckSegmentRules covers what the check tells apart, on the bytes of a
// real segment: a batch cut short is a torn tail only in the last segment;
// a bad length, a bad magic and an offset that goes backwards are damage.
func TestCheckSegmentRules(t *testing.T) {
	_, seg := brokerWithChangelog(t, 5)
	raw, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	base := int64(binary.BigEndian.Uint64(raw[0:8]))
	if ds, end := checkSegment(seg, raw, base, -1, true); len(ds) != 0 || end != base+5 {
		t.Fatalf("a sound segment: %v, end %d", ds, end)
	}
	cut := raw[:len(raw)-7]
	if ds, _ := checkSegment(seg, cut, base, -1, true); len(ds) != 1 || !ds[0].Tail {
		t.Errorf("a cut last segment: %v, want one torn tail", ds)
	}
	if ds, _ := checkSegment(seg, cut, base, -1, false); len(ds) != 1 || ds[0].Tail {
		t.Errorf("a cut older segment: %v, want damage", ds)
	}
	zeros := append(bytes.Clone(raw), make([]byte, 4096)...)
	if ds, _ := checkSegment(seg, zeros, base, -1, true); len(ds) != 1 || !ds[0].Tail {
		t.Errorf("zeros after the last batch: %v, want a torn tail", ds)
	}
	bad := bytes.Clone(raw)
	binary.BigEndian.PutUint32(bad[8:12], 3)
	if ds, _ := checkSegment(seg, bad, base, -1, true); len(ds) != 1 || ds[0].Tail || !strings.Contains(ds[0].What, "length") {
		t.Errorf("a bad length: %v", ds)
	}
	bad = bytes.Clone(raw)
	bad[16] = 1
	if ds, _ := checkSegment(seg, bad, base, -1, true); len(ds) != 1 || !strings.Contains(ds[0].What, "magic") {
		t.Errorf("a bad magic: %v", ds)
	}
	if ds, _ := checkSegment(seg, raw, base, base+100, true); len(ds) != 1 || !strings.Contains(ds[0].What, "backwards") {
		t.Errorf("offsets going backwards: %v", ds)
	}
}

// TestCheckOffsetsLog: groups.log (the committed offsets) with a bad entry
// before good ones is damage; an unfinished last entry is a torn tail.
func TestCheckOffsetsLog(t *testing.T) {
	entry := func(data string) []byte {
		body := append([]byte{1, 0}, data...)
		out := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
		out = binary.LittleEndian.AppendUint32(out, crcC(body))
		return append(out, body...)
	}
	var log []byte
	for i := 0; i < 3; i++ {
		log = append(log, entry(fmt.Sprintf(`{"commit":%d}`, i))...)
	}
	path := filepath.Join(t.TempDir(), "groups.log")
	write := func(b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(log)
	if ds, err := checkFramedLog(path); err != nil || len(ds) != 0 {
		t.Fatalf("a sound log: %v %v", ds, err)
	}
	write(log[:len(log)-3])
	if ds, _ := checkFramedLog(path); len(ds) != 1 || !ds[0].Tail {
		t.Errorf("an unfinished last entry: %v, want a torn tail", ds)
	}
	bad := bytes.Clone(log)
	bad[len(entry(`{"commit":0}`))+12] ^= 1
	write(bad)
	ds, _ := checkFramedLog(path)
	if len(ds) != 1 || ds[0].Tail || ds[0].Pos != int64(len(entry(`{"commit":0}`))) {
		t.Errorf("a bad entry in the middle: %v, want damage at byte %d", ds, len(entry(`{"commit":0}`)))
	}
}

func crcC(b []byte) uint32 { return crc32.Checksum(b, crc32c) }
