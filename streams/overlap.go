package streams

import "context"

// overlapped writes the batches next returns, in order, through write,
// and prepares (fetching included) batch N+1 while batch N is written.
//
// Why: a sink's CPU work (the ClickHouse sink decodes JSON and builds an
// Arrow record) and the store's insert add up when done in turn; done side
// by side, the slower of the two sets the pace. Only preparation overlaps:
// write(N+1) starts after write(N) returned nil, so whatever write does
// once the store has the batch (the runner commits the offsets there) keeps
// its order, and WritePrepared sees every earlier batch durable.
//
// next returns nil when there is nothing more; it is given a context that
// ends when ctx does or a write fails, so that a fetch does not outlive a
// batch that failed. A batch fetched or prepared when ctx ends or a write
// fails is dropped unwritten (a runner fetches it again from the last
// commit). overlapped returns the first write error.
func overlapped(ctx context.Context, s PreparingSink, next func(context.Context) []Message, write func([]Message, Prepared) error) error {
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	batch := next(fctx)
	if batch == nil {
		return nil
	}
	p := s.Prepare(batch)
	for {
		done := make(chan error, 1)
		go func() {
			err := write(batch, p)
			if err != nil {
				stop()
			}
			done <- err
		}()
		nextBatch := next(fctx)
		var nextPrep Prepared
		if nextBatch != nil {
			nextPrep = s.Prepare(nextBatch)
		}
		err := <-done
		p.Release()
		if err != nil || nextBatch == nil || fctx.Err() != nil {
			if nextPrep != nil {
				nextPrep.Release()
			}
			return err
		}
		batch, p = nextBatch, nextPrep
	}
}

// WriteBatches writes batches through s in order, each once the previous
// one returned nil, as a stage runner does: a PreparingSink prepares batch
// N+1 while batch N is written (overlapped). It stops at the first error,
// without retrying. For benchmarks and tools that feed a sink directly.
func WriteBatches(ctx context.Context, s Sink, batches [][]Message) error {
	ps, ok := s.(PreparingSink)
	if !ok {
		for _, b := range batches {
			if len(b) == 0 {
				continue
			}
			if err := s.Write(ctx, b); err != nil {
				return err
			}
		}
		return nil
	}
	var todo [][]Message
	for _, b := range batches {
		if len(b) > 0 {
			todo = append(todo, b)
		}
	}
	fetched, written := 0, 0
	next := func(context.Context) []Message {
		if fetched == len(todo) {
			return nil
		}
		fetched++
		return todo[fetched-1]
	}
	err := overlapped(ctx, ps, next, func(_ []Message, p Prepared) error {
		if err := ps.WritePrepared(ctx, p); err != nil {
			return err
		}
		written++
		return nil
	})
	if err == nil && written < len(todo) {
		err = ctx.Err() // stopped by ctx with batches left
	}
	return err
}
