package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The classes of a failed call to a remote provider. Every error of the
// OpenAI-compatible and RAG-endpoint clients wraps exactly one of them
// (errors.Is), except when the caller's own context ended: then the error
// wraps ctx.Err() instead, because the caller gave up, not the service.
//
// What they mean for the caller: ErrRejected is permanent (the same request
// will be refused again: dead-letter it); ErrRateLimited and ErrUnavailable
// are worth retrying, after RetryAfter when the error carries one
// (errors.As to interface{ RetryAfter() time.Duration }, which *CallError
// implements).
var (
	// ErrRateLimited: the service answered 429 Too Many Requests.
	ErrRateLimited = errors.New("rate limited")
	// ErrUnavailable: no usable reply this time: a transport error, no
	// reply within the timeout (that error also wraps
	// context.DeadlineExceeded), HTTP 408 or 5xx, or a reply that is not
	// what the endpoint promises (malformed JSON, no choices, no answer
	// at the configured path).
	ErrUnavailable = errors.New("unavailable")
	// ErrRejected: the service refused the request itself (HTTP 400, 401,
	// 403, 404, 422 and the other 4xx but 408 and 429): a wrong URL, model
	// name or key, or a prompt it will not take; or it answered 2xx with a
	// reply that lacks what the configuration says it holds (no answer at
	// a RAG endpoint's answer_field). Retrying cannot help: the same
	// request gets the same refusal or the same reply.
	ErrRejected = errors.New("rejected")
)

// CallError is a failed call to a remote provider. It names the model and
// the endpoint (the URL without credentials or query), never a credential:
// the server's own words are excerpted with any secret the client sends
// blanked out.
type CallError struct {
	// Model is the id of the model or service called.
	Model string
	// Endpoint is the URL called, without user info or query string.
	Endpoint string
	// Status is the HTTP status, 0 when no response arrived.
	Status int
	// Class is ErrRateLimited, ErrUnavailable or ErrRejected.
	Class error
	// Detail says what went wrong: an excerpt of the server's error
	// message, the transport error, or what was malformed.
	Detail string
	// Wait is the server's Retry-After, 0 when it sent none.
	Wait time.Duration

	cause error // the underlying error, when there is one
}

// Error implements error.
func (e *CallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %s: %s: %v", e.Model, e.Endpoint, e.Class)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Wait > 0 {
		fmt.Fprintf(&b, "; retry after %s", e.Wait)
	}
	return b.String()
}

// Unwrap returns the class and, when there is one, the underlying error.
func (e *CallError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.Class}
	}
	return []error{e.Class, e.cause}
}

// RetryAfter is how long the server asked the caller to wait (its
// Retry-After header, in seconds or as an HTTP date); 0 when it did not say.
// The runner's backoff honours it (streams.RetryPolicy.Backoff).
func (e *CallError) RetryAfter() time.Duration { return e.Wait }

// classify maps an HTTP status to an error class, nil for success. Only
// statuses that say "not now" are retryable; any other refusal, including
// an unfollowed redirect, is about the request or the configuration.
func classify(status int) error {
	switch {
	case status >= 200 && status < 300:
		return nil
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status == http.StatusRequestTimeout, status >= 500:
		return ErrUnavailable
	default:
		return ErrRejected
	}
}

// parseRetryAfter reads a Retry-After header value (RFC 9110 §10.2.3):
// delay-seconds or an HTTP date. Absent, unparsable or past: 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// maxExcerpt bounds the server message kept in an error.
const maxExcerpt = 200

// serverMessage pulls the human-readable message out of an error body:
// OpenAI's {"error": {"message": …}}, {"error": "…"}, FastAPI's
// {"detail": …} or {"message": …}; otherwise the body itself. The result
// is on one line and at most maxExcerpt bytes.
func serverMessage(body []byte) string {
	var shaped struct {
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
		Message json.RawMessage `json:"message"`
	}
	msg := string(body)
	if json.Unmarshal(body, &shaped) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		for _, raw := range []json.RawMessage{shaped.Error, shaped.Detail, shaped.Message} {
			if len(raw) == 0 {
				continue
			}
			var s string
			switch {
			case json.Unmarshal(raw, &s) == nil && s != "":
				msg = s
			case json.Unmarshal(raw, &nested) == nil && nested.Message != "":
				msg = nested.Message
			default:
				msg = string(raw) // a list of validation errors, say
			}
			break
		}
	}
	return excerpt(msg)
}

// excerpt puts s on one line and cuts it to maxExcerpt bytes on a rune
// boundary.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxExcerpt {
		return s
	}
	s = s[:maxExcerpt]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
