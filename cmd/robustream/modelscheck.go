package main

// `robustream models check`: one probe per model of models.yaml (and its
// generator and embedder), and the same check before `eval --once` and
// `run` start (provider.Check does the probing).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/provider"
)

// checkTimeout bounds each probe (a model's listing, its answer, and their
// retries of a transient failure).
const checkTimeout = 15 * time.Second

// The probe: a question whose answer is in its one context.
const (
	probeQuestion = "What colour is the sky in the robustream probe?"
	probeContext  = "In the robustream probe, the sky is green."
)

func cmdModels(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		return errors.New("usage: robustream models check [--models F]: probe every model, the generator and the embedder once")
	}
	fs := flag.NewFlagSet("models check", flag.ContinueOnError)
	timeout := fs.Duration("timeout", checkTimeout, "longest one probe may take (its retries of a transient failure included)")
	cfg, err := parseConfig(fs, args[1:], stdout, "models", "log.level", "log.format")
	if err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected argument %q (usage: robustream models check [--models F])", fs.Arg(0))
	}
	set, err := loadModels(cfg.Models)
	if err != nil {
		return err
	}
	results := checkModels(ctx, set, *timeout)
	var broken []string
	for _, r := range results {
		writeCheck(stdout, r)
		if !r.OK() {
			broken = append(broken, r.ID)
		}
	}
	if len(broken) > 0 {
		return fmt.Errorf("%d of %d failed the check: %s", len(broken), len(results), strings.Join(broken, ", "))
	}
	fmt.Fprintf(stdout, "all %d passed\n", len(results))
	return nil
}

// checkModels probes every model of set, its generator and its embedder,
// all at once, each within timeout; the results are in the order of the
// ids, the generator and the embedder last.
func checkModels(ctx context.Context, set modelSet, timeout time.Duration) []provider.CheckResult {
	type job func(context.Context) provider.CheckResult
	var jobs []job
	// The probe names the moment it is sent, so that a server's prefix or
	// answer cache, and a test server counting prompts asked twice, never
	// see the same probe again.
	question := fmt.Sprintf("%s (probe %s)", probeQuestion, time.Now().UTC().Format("20060102T150405.000000"))
	for _, id := range set.ids() {
		m := set.byID[id]
		q := provider.Query{Question: question, Contexts: []string{probeContext}, Prompt: fanout.Prompt(question, []string{probeContext})}
		if provider.Retrieves(m) {
			q = provider.Query{Question: question}
		}
		jobs = append(jobs, func(ctx context.Context) provider.CheckResult { return provider.Check(ctx, m, q) })
	}
	if g, ok := set.generator.(*provider.OpenAI); ok {
		jobs = append(jobs, func(ctx context.Context) provider.CheckResult {
			return provider.CheckGenerator(ctx, g, "Reply with the one word: green.")
		})
	}
	if e, ok := set.embedder.(*provider.OpenAI); ok {
		jobs = append(jobs, func(ctx context.Context) provider.CheckResult { return provider.CheckEmbedder(ctx, e, probeContext) })
	}
	out := make([]provider.CheckResult, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			out[i] = j(ctx)
		}()
	}
	wg.Wait()
	return out
}

// writeCheck prints one result: what answered and how fast, or the problem.
func writeCheck(w io.Writer, r provider.CheckResult) {
	name := r.ID
	if r.Role != "model" {
		name = r.Role
	}
	if r.OK() {
		fmt.Fprintf(w, "ok    %s: %s, %s\n", name, r.Describe, r.Latency.Round(time.Millisecond))
		fmt.Fprintf(w, "      answer: %q\n", r.Answer)
		for i, c := range r.Contexts {
			fmt.Fprintf(w, "      context %d: %q\n", i+1, excerpt(c, 120))
		}
	} else {
		kind := "transient"
		if r.Permanent {
			kind = "configuration"
		}
		fmt.Fprintf(w, "FAIL  %s: %s\n", name, r.Describe)
		fmt.Fprintf(w, "      problem (%s): %s\n", kind, r.Problem)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "      note: %s\n", n)
	}
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// preflight runs the check before eval --once or run: a model, generator
// or embedder with a configuration problem (a wrong URL, field, key or
// model name: every request would fail) stops the command with the
// check's words; a transient one (unreachable, 5xx) is logged and the run
// goes on, where a model that stays unreachable is declared down and its
// requests end as errors.
func preflight(ctx context.Context, set modelSet, log *slog.Logger) error {
	var broken []string
	for _, r := range checkModels(ctx, set, checkTimeout) {
		name := r.ID
		if r.Role != "model" {
			name = r.Role
		}
		switch {
		case r.OK():
			log.Info("model checked", "model", name, "latency", r.Latency.Round(time.Millisecond), "answer", excerpt(r.Answer, 60))
		case r.Permanent:
			broken = append(broken, fmt.Sprintf("%s: %s", name, r.Problem))
		default:
			log.Warn("model check failed; running anyway (a model that stays unreachable is declared down and its requests end as errors)",
				"model", name, "problem", r.Problem)
		}
	}
	if len(broken) == 0 {
		return nil
	}
	sort.Strings(broken)
	return fmt.Errorf("models check: %d broken (`robustream models check` shows every model; --skip-models-check runs anyway):\n  %s",
		len(broken), strings.Join(broken, "\n  "))
}
