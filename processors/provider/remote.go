package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// Limits are how hard a remote model may be driven. The client does not
// apply them: the infer stage's dispatcher does, per model, because it is
// the one that decides when to call (a client that waited inside Answer
// would hold a worker and hide the queue from the dispatcher).
type Limits struct {
	// MaxInFlight is the most calls under way at once; 0 means auto (the
	// dispatcher finds the level the service sustains).
	MaxInFlight int
	// MaxInFlightCap bounds an automatic window (MaxInFlight 0) from
	// above; 0 means the dispatcher's own bound (1024). A server that
	// publishes no queue gauges is sized from latency, and a cap is how an
	// operator who knows its slots keeps the window from probing far past
	// them.
	MaxInFlightCap int
	// RequestsPerSecond caps the rate of calls; 0 means unlimited.
	RequestsPerSecond float64
	// TokensPerSecond caps the rate of prompt plus completion tokens;
	// 0 means unlimited.
	TokensPerSecond float64
}

// LimitsOf returns m's dispatch limits, and false for a model that has none
// (the built-in readers), which the dispatcher runs unlimited.
func LimitsOf(m Model) (Limits, bool) {
	l, ok := m.(interface{ Limits() Limits })
	if !ok {
		return Limits{}, false
	}
	return l.Limits(), true
}

// Retrieves reports whether m retrieves its own contexts (a RAG service
// behind rag-endpoint): it is asked the question alone, so only the
// original and the query-axis variants apply to it, and it cannot answer
// closed-book.
func Retrieves(m Model) bool {
	r, ok := m.(interface{ Retrieves() bool })
	return ok && r.Retrieves()
}

// DecodingOf returns m's canonical decoding-parameter string (sorted
// key=value pairs, such as "max_tokens=64,temperature=0"), and false for a
// model that has none, which then gets the fan-out stage's default. It is
// part of every request id, so that changing a parameter makes new
// requests rather than overwriting old results.
func DecodingOf(m Model) (string, bool) {
	d, ok := m.(interface{ Decoding() string })
	if !ok {
		return "", false
	}
	return d.Decoding(), true
}

// DefaultTimeout is how long a remote call may take when the configuration
// does not say.
const DefaultTimeout = 60 * time.Second

// maxResponseBytes bounds a response body: a reply is a short answer or a
// batch of embeddings, and a runaway body must not exhaust memory.
const maxResponseBytes = 32 << 20

// remote is what the HTTP clients share: one model's transport, timeout,
// credentials and error reporting.
type remote struct {
	model   string
	client  *http.Client
	timeout time.Duration
	// setHeaders adds the configured headers and credentials, and redact
	// blanks them out of server text. Both are closures so that no field
	// of a client holds a secret that fmt or a logger could print.
	setHeaders func(http.Header)
	redact     func(string) string
}

// newRemote returns a remote for model that sends headers and blanks
// secrets out of whatever server text it reports. A nil client gets a
// transport of its own that keeps enough idle connections for many calls
// to one host at once.
func newRemote(model string, client *http.Client, timeout time.Duration, headers http.Header, secrets []string) *remote {
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 256
		client = &http.Client{Transport: tr}
	}
	secrets = slices.DeleteFunc(slices.Clone(secrets), func(s string) bool { return s == "" })
	return &remote{
		model:   model,
		client:  client,
		timeout: timeout,
		setHeaders: func(h http.Header) {
			for k, vs := range headers {
				h[k] = vs
			}
		},
		redact: func(s string) string {
			for _, secret := range secrets {
				s = strings.ReplaceAll(s, secret, "[redacted]")
			}
			return s
		},
	}
}

// fail returns the CallError of a call to endpoint.
func (r *remote) fail(endpoint string, status int, class error, detail string, cause error) *CallError {
	return &CallError{Model: r.model, Endpoint: endpoint, Status: status, Class: class, Detail: r.redact(detail), cause: cause}
}

// malformed is the error of a reply that is not what endpoint promises.
func (r *remote) malformed(endpoint string, format string, args ...any) *CallError {
	return r.fail(endpoint, 0, ErrUnavailable, "malformed response: "+fmt.Sprintf(format, args...), nil)
}

// mismatch is the error of a 2xx reply that lacks what the configuration
// says it holds: permanent (ErrRejected), since the same request gets the
// same reply.
func (r *remote) mismatch(endpoint string, format string, args ...any) *CallError {
	return r.fail(endpoint, 0, ErrRejected, "reply does not match the configuration: "+fmt.Sprintf(format, args...), nil)
}

// call sends one request to u (a JSON body when body is not nil) and
// returns the body of a 2xx reply. Every error is a *CallError naming the
// endpoint, except when ctx itself ends.
func (r *remote) call(ctx context.Context, method string, u *url.URL, body any) ([]byte, error) {
	endpoint := endpointName(u)
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, r.fail(endpoint, 0, ErrRejected, "cannot encode request: "+err.Error(), err)
		}
		rd = bytes.NewReader(b)
	}
	cctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, method, u.String(), rd)
	if err != nil {
		return nil, r.fail(endpoint, 0, ErrRejected, err.Error(), err)
	}
	r.setHeaders(req.Header)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// The transport's own errors would repeat the URL, query and all:
	// keep the inner error only.
	transport := func(err error) error {
		if ctx.Err() != nil {
			return fmt.Errorf("model %s: %s: %w", r.model, endpoint, ctx.Err())
		}
		if cctx.Err() != nil {
			// The call's own deadline: the service is slow, which a caller
			// pacing its calls may read as overload (errors.Is).
			return r.fail(endpoint, 0, ErrUnavailable, fmt.Sprintf("no complete reply within %s", r.timeout), context.DeadlineExceeded)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return r.fail(endpoint, 0, ErrUnavailable, err.Error(), err)
	}
	start := time.Now()
	resp, err := r.client.Do(req)
	if err != nil {
		err = transport(err)
		observeCall(r.model, 0, err, time.Since(start))
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		err = transport(err)
		observeCall(r.model, 0, err, time.Since(start))
		return nil, err
	}
	observeCall(r.model, resp.StatusCode, nil, time.Since(start))
	class := classify(resp.StatusCode)
	if class == nil {
		if len(b) > maxResponseBytes {
			return nil, r.malformed(endpoint, "reply over %d MiB", maxResponseBytes>>20)
		}
		return b, nil
	}
	e := r.fail(endpoint, resp.StatusCode, class, serverMessage(b), nil)
	if class != ErrRejected {
		e.Wait = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return nil, e
}

// endpointName is u as errors name it: without user info, query or
// fragment, any of which may hold a credential.
func endpointName(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = nil, "", false, "", ""
	return v.String()
}

// parseHTTPURL parses raw as an absolute http or https URL.
func parseHTTPURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("missing")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%q is not an http or https URL", endpointName(u))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%q has no host", endpointName(u))
	}
	return u, nil
}

// lookupEnv is the variable lookup of a client's options: the given one, or
// the process environment.
func lookupEnv(f func(string) (string, bool)) func(string) (string, bool) {
	if f != nil {
		return f
	}
	return os.LookupEnv
}

// expandEnv replaces every ${NAME} in s by the value of the environment
// variable NAME. A variable that is unset or empty is an error naming it
// (never its value); a "$" not followed by "{" is kept as is.
func expandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", errors.New("unterminated ${")
		}
		name := s[i+2 : i+end]
		if !isEnvName(name) {
			return "", fmt.Errorf("${%s}: not an environment variable name", name)
		}
		v, ok := lookup(name)
		if !ok || v == "" {
			return "", fmt.Errorf("environment variable %s is not set", name)
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

// isEnvName reports whether s is a portable environment variable name.
func isEnvName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range []byte(s) {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
