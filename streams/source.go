package streams

import (
	"context"
	"fmt"
	"time"
)

// SourceOptions tune RunSource.
type SourceOptions struct {
	// MaxLag pauses the source while the stages in Watch have more than
	// MaxLag messages waiting: backpressure through Kafka instead of an
	// unbounded backlog. Zero disables it.
	MaxLag int64
	Watch  map[string][]string
}

// RunSource runs src, writing what it emits to Kafka synchronously: emit
// returns once the records are acknowledged. It returns src's error; a
// finite source returns nil when exhausted.
func (r *Runner) RunSource(ctx context.Context, src Source, opt SourceOptions) error {
	var sinceCheck int
	emit := func(ctx context.Context, recs ...Record) error {
		if opt.MaxLag > 0 && len(opt.Watch) > 0 {
			sinceCheck += len(recs)
			if sinceCheck >= 64 {
				sinceCheck = 0
				if err := r.waitBelow(ctx, opt); err != nil {
					return err
				}
			}
		}
		if err := checkSizes(recs); err != nil {
			return err // the source decides: skip the document or stop
		}
		if err := Produce(ctx, r.w, recs...); err != nil {
			return err
		}
		r.metrics.add(mOut, "source."+src.Name(), len(recs))
		return nil
	}
	if err := src.Run(ctx, emit); err != nil && ctx.Err() == nil {
		return fmt.Errorf("source %s: %w", src.Name(), err)
	}
	return nil
}

func (r *Runner) waitBelow(ctx context.Context, opt SourceOptions) error {
	for {
		lags, err := r.Lags(ctx, opt.Watch)
		if err != nil {
			return err
		}
		var worst int64
		for _, l := range lags {
			worst = max(worst, l.Remaining)
		}
		if worst <= opt.MaxLag {
			return nil
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}
