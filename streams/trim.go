package streams

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Trimmer deletes records that every consumer of a topic has committed.
//
// The embedded broker keeps every record in memory (kfake persists to disk
// besides), so without trimming a long `run` grows without bound. Trimming
// by consumption, not by age, never drops a record a stage has yet to
// process, however far behind it is. Use it only where the listed stages are
// the topics' only consumers (the embedded default).
type Trimmer struct {
	r      *Runner
	client *kgo.Client
}

// NewTrimmer returns a trimmer for the runner's cluster. DeleteRecords is
// not in kafka-go's client, so this one request goes through franz-go, the
// library the embedded broker is built on.
func NewTrimmer(r *Runner) (*Trimmer, error) {
	c, err := kgo.NewClient(r.k.franzOpts()...)
	if err != nil {
		return nil, fmt.Errorf("trimmer: %w", err)
	}
	return &Trimmer{r: r, client: c}, nil
}

// Close releases the client.
func (t *Trimmer) Close() { t.client.Close() }

// Trim deletes, for each topic, the records below the lowest offset that all
// of its consuming stages (topic → stage names) have committed, always
// keeping each partition's newest record (see below).
func (t *Trimmer) Trim(ctx context.Context, consumers map[string][]string) error {
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.TimeoutMillis = 10000
	for topic, stages := range consumers {
		ends, err := t.r.k.EndOffsets(ctx, topic)
		if err != nil {
			return err
		}
		low := map[int]int64{}
		for p := range ends[topic] {
			low[p] = ends[topic][p]
		}
		for _, stage := range stages {
			committed, err := t.r.k.CommittedOffsets(ctx, t.r.Group(stage), ends)
			if err != nil {
				return err
			}
			for p := range low {
				c, ok := committed[topic][p]
				if !ok || c < 0 {
					c = 0
				}
				low[p] = min(low[p], c)
			}
		}
		rt := kmsg.NewDeleteRecordsRequestTopic()
		rt.Topic = topic
		for p, off := range low {
			// Keep the newest record of every partition. kfake restores a
			// partition's offsets from its snapshot only while a segment
			// file remains; a partition trimmed empty comes back at offset
			// 0 after a restart, below the offsets the consumer groups
			// committed, and every stage would skip new records silently
			// until the offsets caught up (issue: restart drops new data).
			// One record per partition is the price of keeping the offsets.
			off = min(off, ends[topic][p]-1)
			if off <= 0 {
				continue
			}
			rp := kmsg.NewDeleteRecordsRequestTopicPartition()
			rp.Partition, rp.Offset = int32(p), off
			rt.Partitions = append(rt.Partitions, rp)
		}
		if len(rt.Partitions) > 0 {
			req.Topics = append(req.Topics, rt)
		}
	}
	if len(req.Topics) == 0 {
		return nil
	}
	resp, err := req.RequestWith(ctx, t.client)
	if err != nil {
		return fmt.Errorf("cannot delete consumed records: %w", err)
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rp.ErrorCode != 0 {
				return fmt.Errorf("cannot delete consumed records of %s/%d: %w", rt.Topic, rp.Partition, kerr.ErrorForCode(rp.ErrorCode))
			}
		}
	}
	return nil
}
