package provider_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/provider/simserver"
)

// TestLoadReadsVLLMGauges: an OpenAI client reads the running and waiting
// requests of a server that publishes vLLM's gauges, and says ErrNoLoad
// for one that does not.
func TestLoadReadsVLLMGauges(t *testing.T) {
	sim, err := simserver.Start(simserver.Config{MaxNumSeqs: 2, DecodePerToken: 50 * time.Millisecond,
		OutputTokens: simserver.LogNormal(10, 0), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	c, err := provider.NewOpenAI("m", provider.OpenAIOptions{BaseURL: sim.BaseURL(), Model: simserver.DefaultModel})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Answer(context.Background(), provider.Query{Question: "q", Prompt: "Question: q" + string(rune('a'+i)) + "\nAnswer:"})
		}()
	}
	defer wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		running, waiting, err := c.Load(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if running == 2 && waiting == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("running %v, waiting %v; want 2 and 3", running, waiting)
		}
		time.Sleep(5 * time.Millisecond)
	}

	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("# HELP up Up.\n# TYPE up gauge\nup 1\n"))
	}))
	defer plain.Close()
	c2, _ := provider.NewOpenAI("m", provider.OpenAIOptions{BaseURL: plain.URL + "/v1", Model: "x"})
	if _, _, err := c2.Load(t.Context()); !errors.Is(err, provider.ErrNoLoad) {
		t.Errorf("a server without the gauges: err %v, want ErrNoLoad", err)
	}
}
