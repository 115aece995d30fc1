package streams

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Before kfake opens a data dir, every file it would silently cut short is
// read here: kfake stops loading a partition at the first record batch it
// cannot decode and truncates the segment file there (and its offsets logs
// at the first bad entry), with at most a warning to a logger nobody reads.
// A single flipped byte in the middle of a changelog thus dropped most of a
// stage's state without a word. The check reads only; it never writes.
//
// What kfake writes (its persist.go):
//   - partitions/<topic>-<p>/<base>.dat: Kafka RecordBatches (v2 wire format)
//     back to back; each starts with its first offset (8 bytes) and its
//     length (4 bytes, big-endian, counting what follows); a CRC-32C at byte
//     17 covers the batch from byte 21 to its end. <base> is the first
//     offset of the segment's first batch.
//   - <base>.idx beside each: 15-byte entries (epoch, flags) with a one-byte
//     checksum; kfake tolerates a bad or missing entry (it only loses the
//     leader epoch and transaction flag, which the engine does not use).
//   - groups.log and pids.log: entries framed as length (4, little-endian),
//     CRC-32C (4), then the version and data the length counts.
//
// A crash (kill -9, power loss) with synchronous writes can leave only the
// last write incomplete: a partial final batch at the very end of a
// partition's last segment, or a partial final entry of a log. That tail
// never held acknowledged data; it is reported loudly and left for kfake to
// cut. Anything else that does not decode is damage, and the start is
// refused before kfake touches the file.

// LogDamage is one place where the broker's data does not decode.
type LogDamage struct {
	File string // path of the file
	Pos  int64  // byte offset in the file where the bad record starts
	// Offset is the Kafka offset of the bad batch as its header says, or
	// -1 when unknown (the header itself is unreadable, or an offsets log).
	Offset int64
	What   string
	// Tail says the damage is a torn final write: it runs to the end of the
	// file, which is the last one written, and held nothing acknowledged.
	Tail bool
}

func (d LogDamage) String() string {
	s := fmt.Sprintf("%s at byte %d", d.File, d.Pos)
	if d.Offset >= 0 {
		s += fmt.Sprintf(" (record offset %d)", d.Offset)
	}
	return s + ": " + d.What
}

// ErrBrokerDataDamaged is wrapped by the error a refused start returns.
var ErrBrokerDataDamaged = errors.New("the embedded broker's data is damaged")

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// recordBatchHeader is the fixed part of a v2 RecordBatch after its length
// field: leader epoch 4, magic 1, CRC 4, attributes 2, last offset delta 4,
// first and max timestamps 8+8, producer id 8, producer epoch 2, base
// sequence 4, record count 4.
const recordBatchHeader = 49

// CheckBrokerData reads every partition log and offsets log under dir (a
// kfake data dir) and returns the torn tails it found, which a restart may
// drop, and an error listing every damaged place otherwise. A dir without
// data is fine.
func CheckBrokerData(dir string) (tails []LogDamage, err error) {
	var bad []LogDamage
	add := func(ds []LogDamage) {
		for _, d := range ds {
			if d.Tail {
				tails = append(tails, d)
			} else {
				bad = append(bad, d)
			}
		}
	}
	parts, err := os.ReadDir(filepath.Join(dir, "partitions"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("broker: cannot check %s: %w", dir, err)
	}
	for _, p := range parts {
		if !p.IsDir() {
			continue
		}
		ds, err := checkPartition(filepath.Join(dir, "partitions", p.Name()))
		if err != nil {
			return nil, err
		}
		add(ds)
	}
	for _, name := range []string{"groups.log", "pids.log"} {
		ds, err := checkFramedLog(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		add(ds)
	}
	if len(bad) == 0 {
		return tails, nil
	}
	return tails, damageError(bad)
}

// damageError says what is damaged and what the operator can do: nothing
// is repaired automatically, because each choice loses something different.
func damageError(bad []LogDamage) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: refusing to start, so that nothing is cut short; no file was modified.", ErrBrokerDataDamaged)
	for _, d := range bad {
		fmt.Fprintf(&b, "\n  %s", d)
	}
	d := bad[0]
	b.WriteString("\nWhat to do (stop robustream first), one of:")
	b.WriteString("\n  - restore the data dir from a backup;")
	if strings.HasSuffix(d.File, ".dat") {
		fmt.Fprintf(&b, "\n  - keep the records before the damage and drop it and all after it in that file: truncate -s %d %s", d.Pos, d.File)
		if d.Offset >= 0 {
			fmt.Fprintf(&b, " (the partition loses offsets from %d on in this segment)", d.Offset)
		}
		fmt.Fprintf(&b, ";\n  - drop that partition's data altogether: move %s out of the data dir.", filepath.Dir(d.File))
		b.WriteString("\nA state changelog cut short restores a partial state: rebuild it by replaying its input, or restore a backup.")
	} else {
		fmt.Fprintf(&b, "\n  - keep the entries before the damage: truncate -s %d %s (stages re-read from their earlier committed offsets).", d.Pos, d.File)
	}
	return errors.New(b.String())
}

// checkPartition checks the segments of one partition directory in offset
// order; only the last one may end with a torn batch.
func checkPartition(pdir string) ([]LogDamage, error) {
	entries, err := os.ReadDir(pdir)
	if err != nil {
		return nil, fmt.Errorf("broker: cannot check %s: %w", pdir, err)
	}
	var bases []int64
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".dat") {
			continue
		}
		// kfake skips names that are not a number; so does the check.
		if base, err := strconv.ParseInt(strings.TrimSuffix(name, ".dat"), 10, 64); err == nil {
			bases = append(bases, base)
		}
	}
	slices.Sort(bases)
	var out []LogDamage
	next := int64(-1) // the lowest first offset the next batch may have
	for i, base := range bases {
		path := filepath.Join(pdir, strconv.FormatInt(base, 10)+".dat")
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("broker: cannot check %s: %w", path, err)
		}
		ds, end := checkSegment(path, raw, base, next, i == len(bases)-1)
		out = append(out, ds...)
		if end >= 0 {
			next = end
		}
	}
	return out, nil
}

// checkSegment walks the batches of one segment file. It returns what it
// found and the offset after the last good batch (-1 if none).
func checkSegment(path string, raw []byte, base, next int64, last bool) ([]LogDamage, int64) {
	end := int64(-1)
	pos := 0
	first := true
	for pos < len(raw) {
		rest := raw[pos:]
		// A torn tail is what an interrupted append leaves: the batch
		// runs past the end of the file, or the file was extended and
		// the data never reached it (zeros to the end).
		torn := func(what string) []LogDamage {
			return []LogDamage{{File: path, Pos: int64(pos), Offset: -1, Tail: last, What: what}}
		}
		if len(rest) < 12 {
			return torn(fmt.Sprintf("%d bytes, too few for a batch header", len(rest))), end
		}
		if allZero(rest) {
			return torn(fmt.Sprintf("%d zero bytes where a batch should start", len(rest))), end
		}
		firstOffset := int64(binary.BigEndian.Uint64(rest[0:8]))
		length := int64(int32(binary.BigEndian.Uint32(rest[8:12])))
		bad := func(what string) []LogDamage {
			return []LogDamage{{File: path, Pos: int64(pos), Offset: firstOffset, What: what}}
		}
		if length < recordBatchHeader || length > 1<<30 {
			return bad(fmt.Sprintf("impossible batch length %d", length)), end
		}
		if int64(len(rest)) < 12+length {
			// Incomplete: torn if nothing follows it by construction,
			// i.e. this is the last segment; a gap inside an older
			// segment is damage.
			d := torn(fmt.Sprintf("batch of %d bytes cut short after %d", 12+length, len(rest)))
			d[0].Offset = firstOffset
			return d, end
		}
		batch := rest[:12+length]
		if magic := batch[16]; magic != 2 {
			return bad(fmt.Sprintf("record batch magic %d, not 2", magic)), end
		}
		if stored, computed := binary.BigEndian.Uint32(batch[17:21]), crc32.Checksum(batch[21:], crc32c); stored != computed {
			return bad(fmt.Sprintf("CRC mismatch (stored %08x, computed %08x)", stored, computed)), end
		}
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(batch); err != nil {
			return bad("undecodable record batch: " + err.Error()), end
		}
		// The offset and length are outside the CRC: check that the
		// offsets rise, as kfake wrote them, and that a segment starts
		// at the offset its name says.
		if first && firstOffset != base {
			return bad(fmt.Sprintf("the segment's first batch says offset %d, its name says %d", firstOffset, base)), end
		}
		if firstOffset < next {
			return bad(fmt.Sprintf("offset %d goes backwards (expected at least %d)", firstOffset, next)), end
		}
		if rb.LastOffsetDelta < 0 {
			return bad(fmt.Sprintf("negative last offset delta %d", rb.LastOffsetDelta)), end
		}
		next = firstOffset + int64(rb.LastOffsetDelta) + 1
		end = next
		first = false
		pos += len(batch)
	}
	return nil, end
}

// checkFramedLog checks one of kfake's offsets logs (groups.log, pids.log).
// Only an entry running past the end of the file is a torn tail.
func checkFramedLog(path string) ([]LogDamage, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("broker: cannot check %s: %w", path, err)
	}
	pos := 0
	for pos < len(raw) {
		rest := raw[pos:]
		if len(rest) < 10 || allZero(rest) {
			return []LogDamage{{File: path, Pos: int64(pos), Offset: -1, Tail: true, What: fmt.Sprintf("%d bytes of an unfinished entry", len(rest))}}, nil
		}
		length := int64(binary.LittleEndian.Uint32(rest[0:4]))
		if length < 2 {
			return []LogDamage{{File: path, Pos: int64(pos), Offset: -1, What: fmt.Sprintf("impossible entry length %d", length)}}, nil
		}
		if int64(len(rest)) < 8+length {
			return []LogDamage{{File: path, Pos: int64(pos), Offset: -1, Tail: true, What: fmt.Sprintf("entry of %d bytes cut short after %d", 8+length, len(rest))}}, nil
		}
		if stored, computed := binary.LittleEndian.Uint32(rest[4:8]), crc32.Checksum(rest[8:8+length], crc32c); stored != computed {
			return []LogDamage{{File: path, Pos: int64(pos), Offset: -1, What: fmt.Sprintf("CRC mismatch (stored %08x, computed %08x)", stored, computed)}}, nil
		}
		pos += int(8 + length)
	}
	return nil, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
