package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// CheckResult is the outcome of one probe of a model, the generator or the
// embedder (Check): what it answered, or the exact problem.
type CheckResult struct {
	// ID is the model id ("generator", "embedder" for the services).
	ID string
	// Role is "model", "generator" or "embedder".
	Role string
	// Describe names the client (kind, model name, endpoint), never a
	// credential.
	Describe string
	// Answer is the parsed answer of the probe (a generator's text); for
	// an embedder, the vector's dimensions as text.
	Answer string
	// Contexts are the passages a RAG service reported.
	Contexts []string
	// Latency is the probe call's, the successful attempt's.
	Latency time.Duration
	// Notes are facts found on the way (the names /v1/models serves).
	Notes []string
	// Problem says what is wrong, "" when nothing is.
	Problem string
	// Permanent says the problem is the configuration (a wrong URL, path,
	// field, key or model name): every request of a run would fail the
	// same way. A transient problem (unreachable, 5xx, a timeout) may pass.
	Permanent bool
}

// OK reports whether the probe found no problem.
func (r CheckResult) OK() bool { return r.Problem == "" }

// checkAttempts and checkPause bound the retries of a transient failure
// within one probe: a server that is briefly busy is not reported broken,
// and a dead one is named within seconds.
const (
	checkAttempts = 3
	checkPause    = 400 * time.Millisecond
)

// Check probes m once with q (retrying a transient failure twice): for an
// OpenAI-compatible client it first lists the served models (GET
// {base_url}/models) and checks the configured name among them, then asks
// q; for a RAG endpoint it asks q.Question and reads the answer and
// contexts at the configured paths; a built-in reader answers locally.
// ctx bounds the whole probe.
func Check(ctx context.Context, m Model, q Query) CheckResult {
	r := CheckResult{ID: m.ID(), Role: "model", Describe: describe(m)}
	if c, ok := m.(*OpenAI); ok && !c.checkServed(ctx, &r) {
		return r
	}
	attempt(ctx, &r, func(ctx context.Context) error {
		a, err := m.Answer(ctx, q)
		r.Answer, r.Contexts = a.Text, a.Contexts
		return err
	})
	if r.OK() && r.Answer == "" {
		r.Notes = append(r.Notes, "the answer is empty")
	}
	return r
}

// CheckGenerator probes the generator: the served names, then one short
// completion of prompt.
func CheckGenerator(ctx context.Context, g *OpenAI, prompt string) CheckResult {
	r := CheckResult{ID: g.ID(), Role: "generator", Describe: describe(g)}
	if !g.checkServed(ctx, &r) {
		return r
	}
	attempt(ctx, &r, func(ctx context.Context) error {
		text, err := g.Generate(ctx, prompt, GenerateOptions{MaxTokens: 16})
		r.Answer = text
		return err
	})
	return r
}

// CheckEmbedder probes the embedder: the served names, then the embedding
// of one text, whose dimensions become the Answer.
func CheckEmbedder(ctx context.Context, e *OpenAI, text string) CheckResult {
	r := CheckResult{ID: e.ID(), Role: "embedder", Describe: describe(e)}
	if !e.checkServed(ctx, &r) {
		return r
	}
	attempt(ctx, &r, func(ctx context.Context) error {
		v, err := e.Embed(ctx, []string{text})
		if err == nil {
			r.Answer = fmt.Sprintf("a vector of %d dimensions", len(v[0]))
		}
		return err
	})
	return r
}

func describe(m any) string {
	if s, ok := m.(fmt.Stringer); ok {
		return s.String()
	}
	if b, ok := m.(Model); ok && IsBaseline(b) {
		return "built-in reader " + b.ID()
	}
	return fmt.Sprintf("%T", m)
}

// attempt runs call up to checkAttempts times while it fails transiently,
// and records its latency or its problem.
func attempt(ctx context.Context, r *CheckResult, call func(context.Context) error) {
	var err error
	for i := 0; i < checkAttempts; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(checkPause << (i - 1)):
			}
		}
		start := time.Now()
		err = call(ctx)
		r.Latency = time.Since(start)
		if err == nil {
			return
		}
		if errors.Is(err, ErrRejected) || ctx.Err() != nil {
			break
		}
	}
	r.Problem, r.Permanent = problemOf(err)
}

// problemOf words a failed call for a person: auth, a missing resource, a
// reply that does not match the configuration, or unreachable.
func problemOf(err error) (string, bool) {
	var ce *CallError
	if !errors.As(err, &ce) {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return "no reply within the check's time: " + err.Error(), false
		}
		return err.Error(), errors.Is(err, ErrRejected)
	}
	switch {
	case ce.Status == http.StatusUnauthorized || ce.Status == http.StatusForbidden:
		return fmt.Sprintf("auth: HTTP %d from %s: the server refused the credentials (api_key_env or the headers)%s", ce.Status, ce.Endpoint, detail(ce)), true
	case ce.Status == http.StatusNotFound:
		return fmt.Sprintf("HTTP 404 from %s: no such endpoint or model on the server (check the URL, base_url and model)%s", ce.Endpoint, detail(ce)), true
	case ce.Status != 0:
		return fmt.Sprintf("HTTP %d from %s%s", ce.Status, ce.Endpoint, detail(ce)), errors.Is(ce, ErrRejected)
	case errors.Is(ce, ErrRejected):
		return fmt.Sprintf("%s: %s", ce.Endpoint, ce.Detail), true
	default:
		return fmt.Sprintf("unreachable or failing: %s: %s", ce.Endpoint, ce.Detail), false
	}
}

func detail(ce *CallError) string {
	if ce.Detail == "" {
		return ""
	}
	return ": " + ce.Detail
}

// modelList is the part of GET {base_url}/models's reply we read.
type modelList struct {
	Data []struct {
		ID string `json:"id"`
	} `json:"data"`
}

// checkServed lists the models the server serves and checks the
// configured name among them, noting the list. It returns false when a
// problem was found (recorded in r). A server that does not list its
// models (404 on a base_url with /v1) is noted and passes: the probe that
// follows finds a wrong name.
func (c *OpenAI) checkServed(ctx context.Context, r *CheckResult) bool {
	lacksV1 := !slices.Contains(strings.Split(c.base.Path, "/"), "v1")
	var body []byte
	attempt(ctx, r, func(ctx context.Context) error {
		b, err := c.remote.call(ctx, http.MethodGet, c.modelsURL, nil)
		body = b
		return err
	})
	if !r.OK() {
		if !strings.HasPrefix(r.Problem, "HTTP 404") {
			return false
		}
		if lacksV1 {
			r.Problem = fmt.Sprintf("base_url %s lacks /v1 (OpenAI-compatible servers serve /v1/models and /v1/chat/completions; try %s): %s",
				endpointName(c.base), endpointName(c.base.JoinPath("v1")), r.Problem)
			return false
		}
		// The server does not list its models: the probe that follows
		// finds a wrong name.
		r.Notes = append(r.Notes, "GET "+endpointName(c.modelsURL)+" answered 404: the server does not list its models")
		r.Problem, r.Permanent, r.Latency = "", false, 0
		return true
	}
	r.Latency = 0
	var list modelList
	if err := json.Unmarshal(body, &list); err != nil || len(list.Data) == 0 {
		r.Notes = append(r.Notes, "GET "+endpointName(c.modelsURL)+" did not list any model")
		return true
	}
	var names []string
	for _, d := range list.Data {
		names = append(names, d.ID)
	}
	if !slices.Contains(names, c.model) {
		r.Problem = fmt.Sprintf("model %q is not served by %s; it serves: %s", c.model, endpointName(c.modelsURL), strings.Join(names, ", "))
		r.Permanent = true
		return false
	}
	r.Notes = append(r.Notes, "served: "+strings.Join(names, ", "))
	if lacksV1 {
		r.Notes = append(r.Notes, "base_url has no /v1 segment, but the server answers there")
	}
	return true
}
