package streams

import (
	"context"
	"fmt"
	"maps"
	"time"
)

// Lag is the work a stage still has on its input topics.
type Lag struct {
	Stage string
	// Remaining is end offset minus committed offset, summed over the
	// stage's input partitions.
	Remaining int64
	// Ends is the sum of end offsets of the inputs: how much it has seen.
	Ends int64
}

// Lags measures each stage's lag in one pass. stages maps stage name to its
// input topics.
func (r *Runner) Lags(ctx context.Context, stages map[string][]string) (map[string]Lag, error) {
	out := make(map[string]Lag, len(stages))
	for name, topics := range stages {
		ends, err := r.k.EndOffsets(ctx, topics...)
		if err != nil {
			return nil, err
		}
		committed, err := r.k.CommittedOffsets(ctx, r.Group(name), ends)
		if err != nil {
			return nil, err
		}
		l := Lag{Stage: name}
		for t, ps := range ends {
			for p, end := range ps {
				l.Ends += end
				c, ok := committed[t][p]
				if !ok || c < 0 {
					c = 0
				}
				if end > c {
					l.Remaining += end - c
				}
			}
		}
		out[name] = l
		r.metrics.SetLag(name, l.Remaining)
	}
	return out, nil
}

// WaitDrained returns when every stage has consumed and committed everything
// on its inputs: two consecutive measurements show zero lag and identical end
// offsets. Because a stage commits an input only after its outputs are
// durable, an unchanged snapshot with zero lag means nothing is in flight,
// including retries (a message being retried is uncommitted). ready reports
// whether the producers feeding the stages are done (e.g. a finite source);
// progress, when set, is called with every measurement.
func (r *Runner) WaitDrained(ctx context.Context, stages map[string][]string, every time.Duration, ready func() bool, progress func(map[string]Lag)) error {
	var prev map[string]Lag
	for {
		if err := sleep(ctx, every); err != nil {
			return err
		}
		if !ready() {
			prev = nil
			continue
		}
		cur, err := r.Lags(ctx, stages)
		if err != nil {
			return fmt.Errorf("cannot measure lag: %w", err)
		}
		if progress != nil {
			progress(cur)
		}
		idle := true
		for _, l := range cur {
			if l.Remaining != 0 {
				idle = false
			}
		}
		if idle && prev != nil && maps.Equal(prev, cur) {
			return nil
		}
		if idle {
			prev = cur
		} else {
			prev = nil
		}
	}
}
