package provider_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestLoadReadsEveryServersGauges: Load reads the queue gauges of SGLang,
// TGI and llama.cpp's server under their own names, as it reads vLLM's;
// gauges published for another served model only are ErrNoLoadForModel,
// naming the model seen; no /metrics at all is ErrNoLoad.
func TestLoadReadsEveryServersGauges(t *testing.T) {
	load := func(t *testing.T, cfg simserver.Config) (float64, float64, error) {
		t.Helper()
		cfg.MaxNumSeqs, cfg.DecodePerToken, cfg.OutputTokens, cfg.Seed = 2, 30*time.Millisecond, simserver.LogNormal(10, 0), 1
		sim, err := simserver.Start(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer sim.Close()
		c, err := provider.NewOpenAI("m", provider.OpenAIOptions{BaseURL: sim.BaseURL(), Model: simserver.DefaultModel})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		defer wg.Wait()
		for i := range 5 {
			wg.Go(func() {
				c.Answer(context.Background(), provider.Query{Question: "q", Prompt: "Question: q" + string(rune('a'+i)) + "\nAnswer:"})
			})
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			if st := sim.Stats(); st.Running == 2 && st.Waiting == 3 {
				return c.Load(t.Context())
			}
			if time.Now().After(deadline) {
				t.Fatalf("the server never held 2 running and 3 waiting: %+v", sim.Stats())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for _, f := range []simserver.MetricsFlavor{simserver.MetricsVLLM, simserver.MetricsSGLang, simserver.MetricsTGI, simserver.MetricsLlamaCpp} {
		t.Run(string(f), func(t *testing.T) {
			running, waiting, err := load(t, simserver.Config{Metrics: f})
			if err != nil || running != 2 || waiting != 3 {
				t.Errorf("running %v, waiting %v, err %v; want 2, 3", running, waiting, err)
			}
		})
	}
	t.Run("another served name", func(t *testing.T) {
		_, _, err := load(t, simserver.Config{Metrics: simserver.MetricsSGLang, MetricsModel: "Qwen/other"})
		if !errors.Is(err, provider.ErrNoLoadForModel) || !strings.Contains(err.Error(), "Qwen/other") {
			t.Errorf("err %v, want ErrNoLoadForModel naming Qwen/other", err)
		}
	})
	t.Run("none", func(t *testing.T) {
		_, _, err := load(t, simserver.Config{Metrics: simserver.MetricsNone})
		if !errors.Is(err, provider.ErrNoLoad) || errors.Is(err, provider.ErrNoLoadForModel) {
			t.Errorf("err %v, want ErrNoLoad alone", err)
		}
	})
}
