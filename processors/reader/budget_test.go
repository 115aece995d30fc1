package reader

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestBudget: calls of a priced model start while they fit at the mean
// cost so far, one at a time before the first answer; once spent, the
// next acquire fails with ErrBudgetExhausted; unpriced models always
// pass; a waiting acquire ends with its context.
func TestBudget(t *testing.T) {
	if b, err := NewBudget(0, nil); b != nil || err != nil {
		t.Errorf("NewBudget(0) = %v, %v; want no budget", b, err)
	}
	if _, err := NewBudget(-1, nil); err == nil {
		t.Error("a negative budget was accepted")
	}
	// 1 per call (1000 tokens in at 1 per 1k); a budget of 3.5.
	b, err := NewBudget(3.5, map[string]Price{"gpu": {In: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := b.acquire(ctx, "gpu")
	if err != nil {
		t.Fatal(err)
	}
	// Before the first answer a second call waits.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := b.acquire(short, "gpu"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a second call before the first answer: %v, want a wait that ends with its context", err)
	}
	first(1000, 0) // spent 1, mean 1
	// Two more fit (1 + 2 ≤ 3.5); a third in flight would not (1 + 3 > 3.5).
	var paid []func(int, int)
	for i := 0; i < 2; i++ {
		p, err := b.acquire(ctx, "gpu")
		if err != nil {
			t.Fatal(err)
		}
		paid = append(paid, p)
	}
	short2, cancel2 := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel2()
	if _, err := b.acquire(short2, "gpu"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a third call in flight beyond the budget: %v, want a wait", err)
	}
	for _, p := range paid {
		p(1000, 0)
		p(1000, 0) // counted once
	}
	// Spent 3 < 3.5 with nothing in flight: one more may go.
	third, err := b.acquire(ctx, "gpu")
	if err != nil {
		t.Fatalf("third call: %v", err)
	}
	third(1000, 0)
	if got := b.Spent(); got != 4 {
		t.Errorf("spent %v, want 4", got)
	}
	if _, err := b.acquire(ctx, "gpu"); !errors.Is(err, ErrBudgetExhausted) || !b.Exhausted() {
		t.Errorf("after the budget is spent: %v, want ErrBudgetExhausted", err)
	}
	if p, err := b.acquire(ctx, "builtin:lexical"); err != nil || p == nil {
		t.Errorf("an unpriced model after the budget: %v", err)
	}
	var none *Budget
	if p, err := none.acquire(ctx, "gpu"); err != nil || p == nil || none.Exhausted() {
		t.Errorf("a nil budget refused: %v", err)
	}
}
