package provider

import (
	"context"
	"sync"
	"time"
)

// batcher coalesces concurrent single-prompt calls into one request of up
// to size prompts. The first prompt opens a batch; the batch is sent when
// it is full or linger after it opened, whichever comes first, so a lone
// call waits at most linger. Servers such as vLLM schedule the prompts of
// one request together, and one request instead of many saves the HTTP and
// tokenization overhead per prompt.
type batcher struct {
	size   int
	linger time.Duration
	// send makes one request for prompts and returns one completion per
	// prompt, in order.
	send func(ctx context.Context, prompts []string) ([]completion, error)

	mu   sync.Mutex
	open *batch // the batch taking prompts, nil when none
}

// batch is one request's worth of prompts and, once done is closed, its
// outcome.
type batch struct {
	// ctx is the first caller's context without its cancellation: the
	// request serves every caller of the batch, so one caller giving up
	// must not fail the others. The client's timeout still bounds it.
	ctx     context.Context
	prompts []string
	timer   *time.Timer

	done    chan struct{}
	results []completion
	err     error
}

// do adds prompt to the open batch and waits for its completion or for
// ctx to end (then it returns ctx.Err() itself).
func (b *batcher) do(ctx context.Context, prompt string) (completion, error) {
	b.mu.Lock()
	bt := b.open
	if bt == nil {
		bt = &batch{ctx: context.WithoutCancel(ctx), done: make(chan struct{})}
		b.open = bt
		bt.timer = time.AfterFunc(b.linger, func() { b.flush(bt) })
	}
	i := len(bt.prompts)
	bt.prompts = append(bt.prompts, prompt)
	full := len(bt.prompts) >= b.size
	if full {
		b.open = nil
		bt.timer.Stop() // a timer already firing finds the batch closed
	}
	b.mu.Unlock()
	if full {
		go b.run(bt)
	}
	select {
	case <-bt.done:
		if bt.err != nil {
			return completion{}, bt.err
		}
		return bt.results[i], nil
	case <-ctx.Done():
		return completion{}, ctx.Err()
	}
}

// flush sends bt when its linger is over, unless it was sent full.
func (b *batcher) flush(bt *batch) {
	b.mu.Lock()
	mine := b.open == bt
	if mine {
		b.open = nil
	}
	b.mu.Unlock()
	if mine {
		b.run(bt)
	}
}

// run sends a closed batch (no prompt is added after it left b.open) and
// wakes its callers.
func (b *batcher) run(bt *batch) {
	bt.results, bt.err = b.send(bt.ctx, bt.prompts)
	close(bt.done)
}
