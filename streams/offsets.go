package streams

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrOffsetsAhead is returned by CheckCommitted when a consumer group has
// committed an offset beyond the end of a partition.
var ErrOffsetsAhead = errors.New("committed offsets are beyond the end of the log")

// CheckCommitted verifies, for every stage (stage → input topics), that the
// offsets its consumer group committed do not lie beyond the end of their
// partitions.
//
// A committed offset past the end means the broker lost records the group
// already consumed (a data dir restored from an older copy, a topic deleted
// and recreated, a broker whose log was truncated). Consuming on would skip
// every new record until the log grew past the old offset, with zero lag
// reported and nothing logged, so it is an error that names the topic, not
// something to paper over.
func (r *Runner) CheckCommitted(ctx context.Context, stages map[string][]string) error {
	var problems []string
	for _, stage := range sortedKeys(stages) {
		ends, err := r.k.EndOffsets(ctx, stages[stage]...)
		if err != nil {
			return err
		}
		committed, err := r.k.CommittedOffsets(ctx, r.Group(stage), ends)
		if err != nil {
			return err
		}
		for _, topic := range sortedKeys(ends) {
			for p, end := range ends[topic] {
				if c, ok := committed[topic][p]; ok && c > end {
					problems = append(problems, fmt.Sprintf("group %s committed offset %d on %s/%d, which ends at %d",
						r.Group(stage), c, topic, p, end))
				}
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	sort.Strings(problems)
	return fmt.Errorf("%w (%d partition(s)): %s; the broker has lost records these groups had consumed, so new records up to those offsets would be skipped. "+
		"Restore the broker's data, or delete the groups' offsets to reprocess the topics (e.g. kafka-consumer-groups --delete-offsets)",
		ErrOffsetsAhead, len(problems), strings.Join(problems, "; "))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
