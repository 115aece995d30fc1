package streams

import (
	"context"
	"errors"
	"strconv"
	"testing"
)

// terminating fails permanently on "v1" and says so downstream.
type terminating struct{}

func (terminating) Name() string { return "t" }
func (terminating) Process(_ context.Context, m Message) ([]Record, error) {
	if string(m.Value) == "v1" {
		return nil, Permanent(errors.New("the model never answered"))
	}
	return []Record{{Topic: "results", Key: m.Key, Value: m.Value}}, nil
}
func (terminating) Terminal(m Message, err error) []Record {
	return []Record{{Topic: "results", Key: m.Key, Value: []byte("error: " + err.Error())}}
}

// TestTerminalRecordsOfDeadLetters: an input given up on is dead-lettered
// and its processor's terminal record is written beside it, so downstream
// sets close.
func TestTerminalRecordsOfDeadLetters(t *testing.T) {
	b, k := newTestKafka(t, "")
	defer b.Close()
	produceN(t, k, "reqs", 4, func(i int) string { return "v" + strconv.Itoa(i) })
	if err := k.EnsureTopics(context.Background(), "results", TopicDLQ); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(k, quietLog(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.Run(ctx, Stage{Name: "t", Inputs: []string{"reqs"}, Outputs: []string{"results"}, Processor: terminating{},
			Retry: RetryPolicy{MaxAttempts: 1}})
	}()
	drain(t, r, map[string][]string{"t": {"reqs"}})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	results := readAll(t, k, "results")
	if len(results) != 4 {
		t.Fatalf("%d results, want 4 (3 answers and 1 terminal error)", len(results))
	}
	terminal := 0
	for _, m := range results {
		if string(m.Value) == "error: the model never answered" {
			terminal++
		}
	}
	if terminal != 1 {
		t.Errorf("%d terminal records, want 1", terminal)
	}
	if n := len(readAll(t, k, TopicDLQ)); n != 1 {
		t.Errorf("%d dead letters, want 1", n)
	}
}
