package reader

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
)

// ErrBudgetExhausted starts the error of every request of a priced model
// that came after the run's budget was spent.
var ErrBudgetExhausted = errors.New("budget exhausted")

// Price is a model's price per 1,000 tokens (models.yaml
// price_per_1k_input and price_per_1k_output).
type Price struct {
	In, Out float64
}

// Budget is what one infer process may spend on priced models: once the
// answers it received cost the limit, no further call to a priced model is
// made; each request that would need one ends as a terminal error result
// (ErrBudgetExhausted), so pairing closes its (model, question) set as it
// does for any failed request and the scores leave the cell out. Answers
// from the cache, and models without a price, cost nothing and are always
// given. A call is started only when the answers in flight, each at the
// model's mean cost so far, still fit (before its first answer, one call
// at a time): the spend passes the limit by at most what the last calls
// cost beyond that mean. A nil *Budget allows everything.
type Budget struct {
	limit  float64
	prices map[string]Price

	mu       sync.Mutex
	spent    float64
	inflight int
	calls    map[string]int     // answered calls per model
	cost     map[string]float64 // their cost per model
	changed  chan struct{}      // closed and replaced when a call ends
}

// NewBudget returns the budget of limit over prices (nil when limit is 0:
// no budget).
func NewBudget(limit float64, prices map[string]Price) (*Budget, error) {
	if limit < 0 || math.IsNaN(limit) || math.IsInf(limit, 0) {
		return nil, fmt.Errorf("infer: budget: %v is not an amount ≥ 0", limit)
	}
	if limit == 0 {
		return nil, nil
	}
	return &Budget{limit: limit, prices: prices, calls: map[string]int{}, cost: map[string]float64{}, changed: make(chan struct{})}, nil
}

// acquire waits until a call to model fits the budget and returns the
// function that records its answer's tokens (in, out; zeros for a failed
// call), or ErrBudgetExhausted once nothing more fits. An unpriced model
// gets a no-op at once.
func (b *Budget) acquire(ctx context.Context, model string) (func(in, out int), error) {
	if b == nil {
		return func(int, int) {}, nil
	}
	p, priced := b.prices[model]
	if !priced {
		return func(int, int) {}, nil
	}
	for {
		b.mu.Lock()
		if b.spent >= b.limit {
			err := fmt.Errorf("%w: %.4f spent of the run's budget of %.4f; model %s not asked", ErrBudgetExhausted, b.spent, b.limit, model)
			b.mu.Unlock()
			return nil, err
		}
		fits := b.inflight == 0 // the first call of a model says what one costs
		if n := b.calls[model]; n > 0 {
			fits = fits || b.spent+float64(b.inflight+1)*b.cost[model]/float64(n) <= b.limit
		}
		if fits {
			b.inflight++
			b.mu.Unlock()
			var once sync.Once
			return func(in, out int) {
				once.Do(func() {
					c := p.In*float64(in)/1000 + p.Out*float64(out)/1000
					b.mu.Lock()
					b.inflight--
					b.spent += c
					if in > 0 || out > 0 {
						b.calls[model]++
						b.cost[model] += c
					}
					close(b.changed)
					b.changed = make(chan struct{})
					b.mu.Unlock()
				})
			}, nil
		}
		wait := b.changed
		b.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Spent is what the answers received so far cost.
func (b *Budget) Spent() float64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Limit is the budget's amount (0 for no budget).
func (b *Budget) Limit() float64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Exhausted reports whether the budget is spent.
func (b *Budget) Exhausted() bool {
	return b != nil && b.Spent() >= b.limit
}
