package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Endpoints of an OpenAI-compatible server that OpenAI can answer through.
const (
	// EndpointChat is POST {base_url}/chat/completions: the prompt is one
	// user message, and the server applies the model's chat template.
	EndpointChat = "chat"
	// EndpointCompletions is POST {base_url}/completions: the prompt is
	// sent as is, and several prompts can share one request (BatchSize).
	EndpointCompletions = "completions"
)

// DefaultMaxTokens caps an answer when the configuration does not: the
// answers our prompts ask for are short spans, and a cap keeps a rambling
// model from costing a long completion per request.
const DefaultMaxTokens = 64

// OpenAIOptions configures a client of an OpenAI-compatible API: vLLM,
// SGLang, TGI, the llama.cpp server, Ollama or OpenAI itself. The errors of
// NewOpenAI start with the option's models.yaml key (base_url, model, …).
type OpenAIOptions struct {
	// BaseURL is the API root, by the OpenAI convention ending in /v1,
	// such as http://localhost:8000/v1. Required.
	BaseURL string
	// Model is the model name the server knows, sent with every request.
	// Required.
	Model string
	// APIKeyEnv names the environment variable holding the API key, sent
	// as "Authorization: Bearer <key>"; it must be set when the client is
	// made. Empty: no key (a local server).
	APIKeyEnv string
	// Endpoint is EndpointChat (the default) or EndpointCompletions.
	Endpoint string
	// Limits are reported by Limits for the dispatcher; the client does
	// not apply them.
	Limits Limits
	// Timeout bounds each HTTP call, reply included. Zero: DefaultTimeout.
	Timeout time.Duration
	// Temperature of Answer's sampling; zero, the default, is greedy.
	Temperature float64
	// MaxTokens caps Answer's completion. Zero: DefaultMaxTokens.
	MaxTokens int
	// BatchSize > 1 coalesces concurrent Answer calls, up to BatchSize
	// prompts arriving within a few milliseconds, into one completions
	// request whose prompt is a list (EndpointCompletions only). Zero or
	// one: every call is its own request.
	BatchSize int
	// HTTPClient sends the requests. Nil: a client of its own.
	HTTPClient *http.Client
	// LookupEnv reads APIKeyEnv. Nil: os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// batchLinger is how long the first prompt of a batch waits for others.
// A few milliseconds cost little next to a model's latency, and concurrent
// calls from the dispatcher arrive well within it.
const batchLinger = 5 * time.Millisecond

// OpenAI is a model under test behind an OpenAI-compatible API. It also
// serves as a Generator and an Embedder (POST {base_url}/embeddings) with
// the same model name. Every error is a *CallError, classified by
// ErrRateLimited, ErrUnavailable or ErrRejected (httperr.go), unless the
// caller's context ended.
type OpenAI struct {
	id          string
	model       string
	endpoint    string
	base        *url.URL // base_url as configured
	completeURL *url.URL
	embedURL    *url.URL
	modelsURL   *url.URL // GET: the names the server serves
	metricsURL  *url.URL // vLLM's Prometheus metrics, beside /v1
	temperature float64
	maxTokens   int
	limits      Limits
	remote      *remote
	batch       *batcher // nil: no batching
}

var (
	_ Model     = (*OpenAI)(nil)
	_ Generator = (*OpenAI)(nil)
	_ Embedder  = (*OpenAI)(nil)
)

// NewOpenAI returns a client with the given model id, applying defaults and
// validating opts; the error lists every problem, each starting with the
// option's models.yaml key. It makes no network call, so that validating a
// configuration does not need the server up.
func NewOpenAI(id string, opts OpenAIOptions) (*OpenAI, error) {
	var errs []error
	fail := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	if id == "" {
		fail("id", "missing")
	}
	base, err := parseHTTPURL(opts.BaseURL)
	switch {
	case err != nil:
		fail("base_url", "%v", err)
	case base.RawQuery != "" || base.Fragment != "":
		fail("base_url", "%q must not have a query or fragment (the endpoints are appended to it)", endpointName(base))
	}
	if opts.Model == "" {
		fail("model", "missing: the model name the server serves")
	}
	var secrets []string
	header := http.Header{}
	if name := opts.APIKeyEnv; name != "" {
		key, ok := lookupEnv(opts.LookupEnv)(name)
		switch {
		case !isEnvName(name):
			// Not echoed: it may be the key itself, pasted in the wrong place.
			fail("api_key_env", "not an environment variable name: give the name of the variable that holds the key, not the key")
		case !ok || key == "":
			fail("api_key_env", "environment variable %s is not set", name)
		default:
			header.Set("Authorization", "Bearer "+key)
			secrets = append(secrets, key)
		}
	}
	switch opts.Endpoint {
	case "":
		opts.Endpoint = EndpointChat
	case EndpointChat, EndpointCompletions:
	default:
		fail("endpoint", "%q is not %s or %s", opts.Endpoint, EndpointChat, EndpointCompletions)
	}
	errs = append(errs, validateLimits(opts.Limits)...)
	switch {
	case opts.Timeout < 0:
		fail("timeout", "%s is negative", opts.Timeout)
	case opts.Timeout == 0:
		opts.Timeout = DefaultTimeout
	}
	if opts.Temperature < 0 || math.IsNaN(opts.Temperature) || math.IsInf(opts.Temperature, 0) {
		fail("temperature", "%v is not a temperature ≥ 0", opts.Temperature)
	}
	switch {
	case opts.MaxTokens < 0:
		fail("max_tokens", "%d is negative", opts.MaxTokens)
	case opts.MaxTokens == 0:
		opts.MaxTokens = DefaultMaxTokens
	}
	switch {
	case opts.BatchSize < 0:
		fail("batch_size", "%d is negative", opts.BatchSize)
	case opts.BatchSize > 1 && opts.Endpoint != EndpointCompletions:
		fail("batch_size", "batching needs endpoint: completions (a chat request holds one conversation)")
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	c := &OpenAI{
		id:          id,
		model:       opts.Model,
		endpoint:    opts.Endpoint,
		base:        base,
		embedURL:    base.JoinPath("embeddings"),
		modelsURL:   base.JoinPath("models"),
		temperature: opts.Temperature,
		maxTokens:   opts.MaxTokens,
		limits:      opts.Limits,
		remote:      newRemote(id, opts.HTTPClient, opts.Timeout, header, secrets),
	}
	c.metricsURL = &url.URL{Scheme: base.Scheme, Host: base.Host, Path: "/metrics"}
	c.completeURL = base.JoinPath("chat", "completions")
	if opts.Endpoint == EndpointCompletions {
		c.completeURL = base.JoinPath("completions")
	}
	if opts.BatchSize > 1 {
		c.batch = &batcher{size: opts.BatchSize, linger: batchLinger, send: func(ctx context.Context, prompts []string) ([]completion, error) {
			return c.complete(ctx, prompts, c.temperature, c.maxTokens)
		}}
	}
	return c, nil
}

// validateLimits checks the limits every remote kind shares.
func validateLimits(l Limits) []error {
	var errs []error
	if l.MaxInFlight < 0 {
		errs = append(errs, fmt.Errorf("max_in_flight: %d is negative", l.MaxInFlight))
	}
	if l.MaxInFlightCap < 0 {
		errs = append(errs, fmt.Errorf("max_in_flight_cap: %d is negative", l.MaxInFlightCap))
	}
	for _, r := range []struct {
		key string
		v   float64
	}{{"requests_per_second", l.RequestsPerSecond}, {"tokens_per_second", l.TokensPerSecond}} {
		if r.v < 0 || math.IsNaN(r.v) || math.IsInf(r.v, 0) {
			errs = append(errs, fmt.Errorf("%s: %v is not a rate ≥ 0 (0 = unlimited)", r.key, r.v))
		}
	}
	return errs
}

// ID implements Model.
func (c *OpenAI) ID() string { return c.id }

// Limits returns the dispatch limits the configuration gave.
func (c *OpenAI) Limits() Limits { return c.limits }

// Decoding returns the canonical decoding parameters of Answer, sorted by
// key, such as "max_tokens=64,temperature=0".
func (c *OpenAI) Decoding() string {
	return "max_tokens=" + strconv.Itoa(c.maxTokens) + ",temperature=" + strconv.FormatFloat(c.temperature, 'g', -1, 64)
}

// String names the client without its credentials.
func (c *OpenAI) String() string {
	return fmt.Sprintf("openai model %s (%s at %s)", c.id, c.model, endpointName(c.completeURL))
}

// Answer implements Model: it sends q.Prompt (q.Question when no prompt
// was rendered) and returns the first choice, trimmed, with the token
// counts of the reply's usage. In a batch, usage covers every prompt of
// the request, and each answer gets an even share of it.
func (c *OpenAI) Answer(ctx context.Context, q Query) (Answer, error) {
	prompt := q.Prompt
	if prompt == "" {
		prompt = q.Question
	}
	system := q.System
	if system != "" && c.endpoint != EndpointChat {
		// A completion has no roles: the system text leads the prompt.
		prompt, system = system+"\n\n"+prompt, ""
	}
	var res completion
	if c.batch != nil {
		r, err := c.batch.do(ctx, prompt)
		if err != nil {
			if err == ctx.Err() { // gave up waiting for the batch's reply
				err = fmt.Errorf("model %s: %s: %w", c.id, endpointName(c.completeURL), err)
			}
			return Answer{}, err
		}
		res = r
	} else {
		rs, err := c.completeAs(ctx, system, []string{prompt}, c.temperature, c.maxTokens)
		if err != nil {
			return Answer{}, err
		}
		res = rs[0]
	}
	if res.err != nil {
		return Answer{}, res.err
	}
	observeTokens(c.id, res.in, res.out)
	return Answer{Text: res.text, TokensIn: res.in, TokensOut: res.out}, nil
}

// Generate implements Generator with the configured endpoint. opts.MaxTokens
// zero leaves the cap to the server. An empty completion is an
// ErrUnavailable error.
func (c *OpenAI) Generate(ctx context.Context, prompt string, opts GenerateOptions) (string, error) {
	rs, err := c.complete(ctx, []string{prompt}, opts.Temperature, opts.MaxTokens)
	if err != nil {
		return "", err
	}
	if rs[0].err != nil {
		return "", rs[0].err
	}
	if rs[0].text == "" {
		return "", c.remote.fail(endpointName(c.completeURL), 0, ErrUnavailable, "empty completion", nil)
	}
	return rs[0].text, nil
}

// chatRequest and completionRequest are the bodies of the two endpoints.
// MaxTokens is left out when zero, leaving the cap to the server.
type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type completionRequest struct {
	Model string `json:"model"`
	// Prompt is a string, or a list of strings for a batch.
	Prompt      any     `json:"prompt"`
	Temperature float64 `json:"temperature"`
	MaxTokens   int     `json:"max_tokens,omitempty"`
}

// completionReply is the part of either endpoint's reply we read: chat
// choices carry a message, completion choices a text.
type completionReply struct {
	Choices []struct {
		Index   int     `json:"index"`
		Text    *string `json:"text"`
		Message *struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// completion is one prompt's share of a reply; err is set when the reply
// had no choice for it.
type completion struct {
	text    string
	in, out int
	err     error
}

// complete sends prompts (one, unless batching) in one request and returns
// one completion per prompt, in order.
func (c *OpenAI) complete(ctx context.Context, prompts []string, temperature float64, maxTokens int) ([]completion, error) {
	return c.completeAs(ctx, "", prompts, temperature, maxTokens)
}

// completeAs is complete with a system message before the prompt (chat
// endpoint only; "" for none).
func (c *OpenAI) completeAs(ctx context.Context, system string, prompts []string, temperature float64, maxTokens int) ([]completion, error) {
	endpoint := endpointName(c.completeURL)
	var body any
	if c.endpoint == EndpointChat {
		msgs := []chatMessage{{Role: "user", Content: prompts[0]}}
		if system != "" {
			msgs = append([]chatMessage{{Role: "system", Content: system}}, msgs...)
		}
		body = chatRequest{Model: c.model, Messages: msgs, Temperature: temperature, MaxTokens: maxTokens}
	} else {
		var p any = prompts[0]
		if len(prompts) > 1 {
			p = prompts
		}
		body = completionRequest{Model: c.model, Prompt: p, Temperature: temperature, MaxTokens: maxTokens}
	}
	b, err := c.remote.call(ctx, http.MethodPost, c.completeURL, body)
	if err != nil {
		return nil, err
	}
	var reply completionReply
	if err := json.Unmarshal(b, &reply); err != nil {
		return nil, c.remote.fail(endpoint, 0, ErrUnavailable, "malformed response: "+err.Error(), err)
	}
	if len(reply.Choices) == 0 {
		return nil, c.remote.malformed(endpoint, "no choices")
	}
	n := len(prompts)
	out := make([]completion, n)
	got := make([]bool, n)
	for _, ch := range reply.Choices {
		if ch.Index < 0 || ch.Index >= n {
			return nil, c.remote.malformed(endpoint, "choice index %d for %d prompt(s)", ch.Index, n)
		}
		if got[ch.Index] {
			continue // one choice per prompt was asked for; keep the first
		}
		var text *string
		if c.endpoint == EndpointChat {
			if ch.Message == nil {
				return nil, c.remote.malformed(endpoint, "a chat choice without a message")
			}
			text = ch.Message.Content
		} else {
			text = ch.Text
		}
		if text != nil {
			out[ch.Index].text = strings.TrimSpace(*text)
		}
		got[ch.Index] = true
	}
	for i := range out {
		out[i].in = share(reply.Usage.PromptTokens, n, i)
		out[i].out = share(reply.Usage.CompletionTokens, n, i)
		if !got[i] {
			out[i].err = c.remote.malformed(endpoint, "no choice for prompt %d of %d", i+1, n)
		}
	}
	return out, nil
}

// share is the i-th of n even shares of total; the shares sum to total.
func share(total, n, i int) int {
	s := total / n
	if i < total%n {
		s++
	}
	return s
}

// embeddingReply is the part of an embeddings reply we read.
type embeddingReply struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed implements Embedder through POST {base_url}/embeddings. The
// vectors are put in the order of texts by each item's index, not by their
// order in the reply.
func (c *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	endpoint := endpointName(c.embedURL)
	b, err := c.remote.call(ctx, http.MethodPost, c.embedURL, map[string]any{"model": c.model, "input": texts})
	if err != nil {
		return nil, err
	}
	var reply embeddingReply
	if err := json.Unmarshal(b, &reply); err != nil {
		return nil, c.remote.fail(endpoint, 0, ErrUnavailable, "malformed response: "+err.Error(), err)
	}
	if len(reply.Data) != len(texts) {
		return nil, c.remote.malformed(endpoint, "%d vectors for %d texts", len(reply.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range reply.Data {
		switch {
		case d.Index < 0 || d.Index >= len(texts):
			return nil, c.remote.malformed(endpoint, "vector index %d for %d texts", d.Index, len(texts))
		case out[d.Index] != nil:
			return nil, c.remote.malformed(endpoint, "two vectors for index %d", d.Index)
		case len(d.Embedding) == 0:
			return nil, c.remote.malformed(endpoint, "empty vector for index %d", d.Index)
		case len(d.Embedding) != len(reply.Data[0].Embedding):
			return nil, c.remote.malformed(endpoint, "vectors of dimensions %d and %d", len(reply.Data[0].Embedding), len(d.Embedding))
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}
