package main

import (
	"context"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

//go:embed web/index.html
var indexHTML []byte

// server is the engine's HTTP face: dashboard, JSON API, read-only SQL,
// Prometheus metrics and health probes.
//
// It is reachable from the user's browser, so every request passes a guard
// (see guard): the Host header must name this server (no DNS rebinding), a
// POST from a page of another origin is refused (no cross-site request
// forgery), and when a token is configured every endpoint but the probes
// requires it.
type server struct {
	e     *engine
	ln    net.Listener
	addr  string
	token string
	// hosts are the Host header values accepted; anyIP also accepts any IP
	// literal (bound to 0.0.0.0 or ::, where the names are not known).
	hosts         map[string]bool
	anyIP         bool
	loopback      bool
	metricsPublic bool
}

func newServer(e *engine, addr string) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http: cannot listen on %s: %w", addr, err)
	}
	s := &server{e: e, ln: ln, addr: ln.Addr().String(), hosts: map[string]bool{}, metricsPublic: e.cfg.HTTPMetricsPublic}
	if e.cfg.HTTPToken != "" {
		s.token = os.Getenv(e.cfg.HTTPToken)
		if s.token == "" {
			ln.Close()
			return nil, fmt.Errorf("http: http_token_env names %s, which is empty or unset", e.cfg.HTTPToken)
		}
	}
	host, port, _ := net.SplitHostPort(s.addr)
	ip := net.ParseIP(host)
	s.loopback = ip != nil && ip.IsLoopback()
	if !s.loopback && s.token == "" {
		// Off loopback everything but the probes needs a bearer token.
		ln.Close()
		return nil, fmt.Errorf("http: %s is not a loopback address; set http_token_env to an environment variable holding the API token", addr)
	}
	s.hosts[strings.ToLower(s.addr)] = true
	if s.loopback {
		for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
			s.hosts[h+":"+port] = true
		}
	}
	if ip != nil && ip.IsUnspecified() {
		s.anyIP = true
		if name, err := os.Hostname(); err == nil {
			s.hosts[strings.ToLower(name)+":"+port] = true
		}
	}
	for _, h := range e.cfg.HTTPHosts {
		h = strings.ToLower(h)
		if !strings.Contains(h, ":") {
			h += ":" + port
		}
		s.hosts[h] = true
	}
	return s, nil
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.e.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /api/scores", s.scores)
	mux.HandleFunc("POST /api/sql", s.sql)
	if s.loopback {
		// Profiles only where a process of this machine is the client.
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(indexHTML)
	})
	return s.guard(mux)
}

// guard checks Host, Origin and the token before any handler runs.
func (s *server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Responses carry data of this engine: never cached, never framed,
		// never sniffed into another type.
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		if !s.hostAllowed(r.Host) {
			// A page that rebinds its DNS name to this address reaches us
			// with its own name in Host.
			http.Error(w, fmt.Sprintf("Host %q is not this server (%s); add it to http_allowed_hosts if it is", r.Host, s.addr), http.StatusMisdirectedRequest)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if origin := r.Header.Get("Origin"); origin != "" && !s.sameOrigin(origin) {
				// A browser sends Origin with every cross-origin POST,
				// including the "simple" text/plain ones that need no
				// preflight.
				http.Error(w, fmt.Sprintf("cross-origin request from %s refused", origin), http.StatusForbidden)
				return
			}
			if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
				http.Error(w, "cross-site request refused", http.StatusForbidden)
				return
			}
		}
		if s.token != "" && !s.public(r.URL.Path) && !s.authorized(r) {
			// Browsers answer the Basic challenge with a login prompt: the
			// dashboard works with the token as the password.
			h.Add("WWW-Authenticate", `Bearer realm="robustream"`)
			h.Add("WWW-Authenticate", `Basic realm="robustream: any user name, the API token as password", charset="UTF-8"`)
			http.Error(w, "missing or wrong token: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *server) hostAllowed(host string) bool {
	host = strings.ToLower(host)
	if s.hosts[host] {
		return true
	}
	if s.anyIP {
		h, _, err := net.SplitHostPort(host)
		if err != nil {
			h = host
		}
		return net.ParseIP(strings.Trim(h, "[]")) != nil
	}
	return false
}

func (s *server) sameOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Path != "" {
		return false
	}
	return s.hostAllowed(u.Host)
}

// public reports whether path is served without the token: the probes, and
// /metrics when configured so.
func (s *server) public(path string) bool {
	return path == "/healthz" || path == "/readyz" || (path == "/metrics" && s.metricsPublic)
}

// authorized accepts "Authorization: Bearer <token>", or Basic credentials
// whose password is the token (what a browser sends after its prompt).
func (s *server) authorized(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	scheme, cred, ok := strings.Cut(auth, " ")
	if !ok {
		return false // a bare token is not a credential
	}
	var got string
	switch strings.ToLower(scheme) {
	case "bearer":
		got = strings.TrimSpace(cred)
	case "basic":
		_, pass, ok := r.BasicAuth()
		if !ok {
			return false
		}
		got = pass
	default:
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// serve runs until ctx ends.
func (s *server) serve(ctx context.Context) error {
	hs := &http.Server{
		Handler: s.handler(),
		// A client that sends its headers or body slowly, or keeps an idle
		// connection open, cannot hold a connection for ever.
		ReadHeaderTimeout: min(10*time.Second, s.e.cfg.HTTPReadTimeout),
		ReadTimeout:       s.e.cfg.HTTPReadTimeout,
		// Room for the longest SQL query and its output.
		WriteTimeout:   s.e.cfg.SQL.Timeout + 30*time.Second,
		IdleTimeout:    s.e.cfg.HTTPIdleTimeout,
		MaxHeaderBytes: 64 << 10,
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if s.e.ch != nil {
		if _, err := s.e.ch.Query(ctx, "SELECT 1", "TabSeparated"); err != nil {
			http.Error(w, "clickhouse: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	if _, err := s.e.kafka.EndOffsets(ctx, streams.TopicDocuments); err != nil {
		http.Error(w, "kafka: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	io.WriteString(w, "ready\n")
}

// maxQueryBytes bounds the text of one SQL query.
const maxQueryBytes = 1 << 20

func (s *server) sql(w http.ResponseWriter, r *http.Request) {
	if s.e.sql == nil {
		http.Error(w, "this engine runs no ClickHouse", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxQueryBytes))
	if err != nil {
		http.Error(w, fmt.Sprintf("query too long or unreadable (at most %d bytes): %v", maxQueryBytes, err), http.StatusRequestEntityTooLarge)
		return
	}
	// The engine enforces the time limit itself; the context also stops the
	// query when the client goes away.
	ctx, cancel := context.WithTimeout(r.Context(), s.e.cfg.SQL.Timeout+5*time.Second)
	defer cancel()
	out, err := s.e.sql.Query(ctx, string(body), r.URL.Query().Get("format"))
	switch {
	case errors.Is(err, clickhouse.ErrRefused):
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	case errors.Is(err, context.DeadlineExceeded):
		http.Error(w, err.Error(), http.StatusGatewayTimeout)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(out)
}

// scoreRow is one row of /api/scores.
type scoreRow struct {
	Model     string   `json:"model"`
	Baseline  bool     `json:"baseline"`
	Axis      string   `json:"axis,omitempty"`
	Kind      string   `json:"kind,omitempty"`
	N         int64    `json:"n"`
	Overall   *float64 `json:"overall,omitempty"`
	Query     *float64 `json:"query,omitempty"`
	Document  *float64 `json:"document,omitempty"`
	Retrieval *float64 `json:"retrieval,omitempty"`
	Score     *float64 `json:"score,omitempty"`
}

type scoresResponse struct {
	Models    []scoreRow `json:"models"`
	ByKind    []scoreRow `json:"by_kind"`
	UpdatedAt time.Time  `json:"updated_at"`
}

func num(s string) *float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f { // NaN: no data on that axis
		return nil
	}
	return &f
}

func (s *server) scores(w http.ResponseWriter, r *http.Request) {
	if s.e.ch == nil {
		http.Error(w, "this engine runs no ClickHouse", http.StatusNotFound)
		return
	}
	resp, err := s.e.loadScores(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func (e *engine) loadScores(ctx context.Context) (scoresResponse, error) {
	resp := scoresResponse{Models: []scoreRow{}, ByKind: []scoreRow{}, UpdatedAt: time.Now().UTC()}
	out, err := e.ch.Query(ctx, reportQuery, "TabSeparated")
	if err != nil {
		return resp, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		c := strings.Split(line, "\t")
		if len(c) < 6 {
			continue
		}
		n, _ := strconv.ParseInt(c[1], 10, 64)
		resp.Models = append(resp.Models, scoreRow{Model: c[0], Baseline: strings.HasPrefix(c[0], "builtin:"), N: n,
			Overall: num(c[2]), Query: num(c[3]), Document: num(c[4]), Retrieval: num(c[5])})
	}
	out, err = e.ch.Query(ctx, `SELECT model_id, axis, kind, sum(n) AS cnt, sum(value_sum) / sum(n)
FROM robustream.robustness_1h WHERE family = 'rare' GROUP BY model_id, axis, kind ORDER BY model_id, axis, kind`, "TabSeparated")
	if err != nil {
		return resp, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		c := strings.Split(line, "\t")
		if len(c) < 5 {
			continue
		}
		n, _ := strconv.ParseInt(c[3], 10, 64)
		resp.ByKind = append(resp.ByKind, scoreRow{Model: c[0], Baseline: strings.HasPrefix(c[0], "builtin:"), Axis: c[1], Kind: c[2], N: n, Score: num(c[4])})
	}
	return resp, nil
}
