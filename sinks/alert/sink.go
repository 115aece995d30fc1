package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// StageName names the receivers' stage: it reads rs.alerts and notifies.
const StageName = "sink.receivers"

// Sink notifies every receiver of every alert it reads (a streams.Sink on
// rs.alerts). An alert a receiver still refuses after MaxAttempts, or
// rejects outright (a 4xx other than 408/429), is reported in a
// streams.BatchError, which the runner dead-letters to rs.dlq with the
// receiver's name and the reason; the other alerts of the batch commit.
type Sink struct {
	cfg    Config
	client *http.Client
	log    *slog.Logger
}

// New returns the sink; the receivers are validated.
func New(c Config) (*Sink, error) {
	c = c.withDefaults()
	if len(c.Receivers) == 0 {
		return nil, errors.New("no alert receivers configured")
	}
	if errs := ValidateReceivers("alerts.receivers", c.Receivers, c.Getenv); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Sink{cfg: c, client: &http.Client{Timeout: c.Timeout}, log: c.Logger}, nil
}

// Name implements streams.Sink.
func (s *Sink) Name() string { return StageName }

// Close implements streams.Sink.
func (s *Sink) Close() error { return nil }

// Write implements streams.Sink. Receivers are notified in parallel, the
// alerts of a batch in order. A repeat of a firing alert (Alert.Repeat) goes
// to Alertmanager receivers only, and one they miss is not dead-lettered:
// the next comes a minute later. Delivery is at-least-once: a batch retried
// after a crash is sent again, and receivers deduplicate on alert_id and
// state (Alertmanager on the labels).
func (s *Sink) Write(ctx context.Context, batch []streams.Message) error {
	failed := map[int]error{}
	var mu sync.Mutex
	fail := func(i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		failed[i] = errors.Join(failed[i], err)
	}
	alerts := make([]*schemas.Alert, len(batch))
	for i, m := range batch {
		a := new(schemas.Alert)
		if err := json.Unmarshal(m.Value, a); err != nil || a.Series == "" {
			fail(i, streams.Permanent(fmt.Errorf("not an alert: %v", err)))
			continue
		}
		alerts[i] = a
	}
	var wg sync.WaitGroup
	for _, r := range s.cfg.Receivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, a := range alerts {
				if a == nil || (a.Repeat && r.Kind != Alertmanager) {
					continue
				}
				if err := s.deliver(ctx, r, a); err != nil {
					if ctx.Err() != nil {
						return
					}
					if a.Repeat { // the next one comes within a minute
						s.log.Warn("alert receiver missed a refresh of a firing alert", "receiver", r.Name, "series", a.Series, "err", err)
						continue
					}
					s.log.Error("alert receiver gave up; dead-lettering the alert", "receiver", r.Name, "kind", r.Kind, "series", a.Series, "state", a.State, "err", err)
					fail(i, fmt.Errorf("receiver %s: %w", r.Name, err))
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err // not committed: the batch is redone
	}
	if len(failed) > 0 {
		return &streams.BatchError{Errs: failed}
	}
	return nil
}

// errStatus is a receiver's refusal.
type errStatus struct {
	code       int
	retryAfter time.Duration
	body       string
}

func (e *errStatus) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.code, e.body)
}

func (e *errStatus) retryable() bool {
	return e.code == http.StatusTooManyRequests || e.code == http.StatusRequestTimeout || e.code >= 500
}

// deliver sends a to r, retrying with capped exponential backoff, or the
// receiver's Retry-After when it gives one.
func (s *Sink) deliver(ctx context.Context, r Receiver, a *schemas.Alert) error {
	b, err := body(r.Kind, r.Name, s.cfg.DashboardURL, a)
	if err != nil {
		return streams.Permanent(err)
	}
	backoff := s.cfg.MinBackoff
	for attempt := 1; ; attempt++ {
		err := s.post(ctx, r, b)
		if err == nil {
			s.log.Info("alert sent", "receiver", r.Name, "kind", r.Kind, "series", a.Series, "state", a.State, "attempts", attempt)
			return nil
		}
		var st *errStatus
		if errors.As(err, &st) && !st.retryable() {
			return streams.Permanent(err)
		}
		if attempt >= s.cfg.MaxAttempts {
			return fmt.Errorf("after %d attempts: %w", attempt, err)
		}
		wait := backoff
		if st != nil && st.retryAfter > 0 {
			wait = min(st.retryAfter, s.cfg.MaxRetryAfter)
		}
		backoff = min(2*backoff, s.cfg.MaxBackoff)
		s.log.Warn("alert receiver failed; retrying", "receiver", r.Name, "attempt", attempt, "in", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// post sends one request. Errors never carry the URL or the headers: both
// may hold secrets (a Slack webhook URL is one).
func (s *Sink) post(ctx context.Context, r Receiver, b []byte) error {
	u, _ := expand(r.URL, s.cfg.Getenv)
	if r.Kind == Alertmanager && !strings.HasSuffix(strings.TrimRight(u, "/"), "/api/v2/alerts") {
		u = strings.TrimRight(u, "/") + "/api/v2/alerts"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		return streams.Permanent(errors.New("cannot build the request (check the receiver's url)"))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "robustream-alerts")
	for k, v := range r.Headers {
		v, _ = expand(v, s.cfg.Getenv)
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL
		}
		return fmt.Errorf("request failed: %w", err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	return &errStatus{code: resp.StatusCode, retryAfter: retryAfter(resp.Header.Get("Retry-After")), body: strings.TrimSpace(string(msg))}
}

// retryAfter parses Retry-After: delay-seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}
