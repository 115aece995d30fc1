package main

import (
	"context"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/robustream/robustream/processors/metrics"
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
	// conns caps the connections (set by serve); auth limits wrong tokens
	// per client address.
	conns *connLimiter
	auth  *authLimiter
	// ingest is POST/DELETE /v1/documents (ingest.go); nil: not served.
	ingest *ingestAPI
}

// checkHTTPAccess refuses, before the engine opens anything, what newServer
// would refuse once the broker, ClickHouse and the stages are up: a token
// variable that is empty, or an address off loopback without a token. The
// address is resolved as net.Listen would: no host or a wildcard is every
// interface; a name is loopback only if all its addresses are.
func checkHTTPAccess(ctx context.Context, cfg *Config) error {
	if cfg.HTTP == "" {
		return nil
	}
	if cfg.HTTPToken != "" {
		if os.Getenv(cfg.HTTPToken) == "" {
			return fmt.Errorf("http: http_token_env names %s, which is empty or unset", cfg.HTTPToken)
		}
		return nil
	}
	host, _, err := net.SplitHostPort(cfg.HTTP)
	if err != nil {
		return fmt.Errorf("http: %q is not host:port: %w", cfg.HTTP, err)
	}
	loopback := host != ""
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		loopback = ip.IsLoopback()
	} else if host != "" {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupIPAddr(rctx, host)
		if err != nil {
			return fmt.Errorf("http: cannot resolve %s: %w", host, err)
		}
		for _, a := range addrs {
			loopback = loopback && a.IP.IsLoopback()
		}
	}
	if !loopback {
		return fmt.Errorf("http: %s is not a loopback address; set http_token_env to an environment variable holding the API token", cfg.HTTP)
	}
	return nil
}

func newServer(e *engine, addr string) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http: cannot listen on %s: %w", addr, err)
	}
	s := &server{e: e, ln: ln, addr: ln.Addr().String(), hosts: map[string]bool{}, metricsPublic: e.cfg.HTTPMetricsPublic,
		auth: newAuthLimiter(e.cfg.HTTPAuthFailures, e.log)}
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
		// checkHTTPAccess refused this before the engine started; the
		// address bound is what counts, so it is checked again here.
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
	// Dashboard panels: fixed read-only queries, JSON.
	mux.HandleFunc("GET /api/series", s.series)
	mux.HandleFunc("GET /api/kinds", s.kinds)
	mux.HandleFunc("GET /api/grade", s.windowedPanel(metrics.GRADEPanel))
	mux.HandleFunc("GET /api/sure", s.windowedPanel(metrics.SUREPanel))
	mux.HandleFunc("GET /api/prgb", s.windowedPanel(metrics.PRGBPanel))
	mux.HandleFunc("GET /api/retrieval", s.windowedPanel(metrics.RetrievalQuery))
	mux.HandleFunc("GET /api/freshness", s.windowedPanel(metrics.FreshnessQuery))
	mux.HandleFunc("GET /api/cost", s.costAPI)
	mux.HandleFunc("GET /api/alerts", s.panel(alertsQuery))
	mux.HandleFunc("GET /api/coverage", s.coverage)
	mux.HandleFunc("GET /api/health", s.health)
	// Drill-down (drilldown.go): the questions behind a score, one question.
	mux.HandleFunc("GET /api/questions", s.questions)
	mux.HandleFunc("GET /api/questions/{id}", s.question)
	mux.HandleFunc("GET /drilldown.js", s.drilldownScript)
	mux.HandleFunc("POST /v1/documents", s.postDocuments)
	mux.HandleFunc("DELETE /v1/documents/{id}", s.deleteDocument)
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
		if s.token != "" && !s.public(r.URL.Path) && !s.allowed(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allowed checks the token of a request that needs one, and answers it
// when it does not pass: 429 once its address has used up its wrong tokens
// (the credential is not even compared), 401 otherwise.
func (s *server) allowed(w http.ResponseWriter, r *http.Request) bool {
	client := "unknown"
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		if ip := net.ParseIP(host); ip != nil {
			client = clientKey(&net.TCPAddr{IP: ip})
		}
	}
	if wait, blocked := s.auth.blocked(client, r.URL.Path); blocked {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())))
		http.Error(w, "too many wrong tokens from this address: try again later", http.StatusTooManyRequests)
		return false
	}
	if s.authorized(r) {
		return true
	}
	if r.Header.Get("Authorization") != "" {
		// Only a credential sent is a guess: a browser's first request,
		// before its login prompt, carries none.
		s.auth.failed(client, r.URL.Path)
	}
	// Browsers answer the Basic challenge with a login prompt: the
	// dashboard works with the token as the password.
	h := w.Header()
	h.Add("WWW-Authenticate", `Bearer realm="robustream"`)
	h.Add("WWW-Authenticate", `Basic realm="robustream: any user name, the API token as password", charset="UTF-8"`)
	http.Error(w, "missing or wrong token: send Authorization: Bearer <token>", http.StatusUnauthorized)
	return false
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
	limit, err := raiseFileLimit()
	if err != nil {
		s.e.log.Warn("cannot raise the descriptor limit", "limit", limit, "err", err)
	}
	maxConns, why := connCap(s.e.cfg.HTTPMaxConns, limit)
	if why != "" {
		s.e.log.Warn("http: " + why)
	}
	s.conns = newConnLimiter(s.ln, maxConns, s.e.cfg.HTTPMaxConnsPerClient, s.e.log)
	s.e.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "robustream_http_connections_open",
			Help: "HTTP connections held, at most http_max_conns."}, func() float64 { return float64(s.conns.open()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "robustream_http_connections_refused_total",
			Help: "HTTP connections closed at accept: at a cap with every connection busy."}, func() float64 { return float64(s.conns.refused.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "robustream_http_connections_evicted_total",
			Help: "Idle HTTP connections closed to make room at a cap."}, func() float64 { return float64(s.conns.evicted.Load()) }))
	go s.auth.run(ctx)
	hs := &http.Server{
		Handler:   s.handler(),
		ConnState: s.conns.connState,
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
	if err := hs.Serve(s.conns); err != nil && !errors.Is(err, http.ErrServerClosed) {
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

// scoreRow is one row of /api/scores; x_ci is the 95% confidence
// interval of score x over questions (absent below two questions).
type scoreRow struct {
	Model       string      `json:"model"`
	Baseline    bool        `json:"baseline"`
	Axis        string      `json:"axis,omitempty"`
	Kind        string      `json:"kind,omitempty"`
	N           int64       `json:"n"`
	Overall     *float64    `json:"overall,omitempty"`
	OverallCI   *[2]float64 `json:"overall_ci,omitempty"`
	Query       *float64    `json:"query,omitempty"`
	QueryCI     *[2]float64 `json:"query_ci,omitempty"`
	Document    *float64    `json:"document,omitempty"`
	DocumentCI  *[2]float64 `json:"document_ci,omitempty"`
	Retrieval   *float64    `json:"retrieval,omitempty"`
	RetrievalCI *[2]float64 `json:"retrieval_ci,omitempty"`
	Score       *float64    `json:"score,omitempty"`
	// Retrievers is RARE's retrieval robustness per retriever (the
	// retrieval variant's kind, bm25_top3, emb_<name>_top3).
	Retrievers []retrieverScore `json:"retrievers,omitempty"`
}

// retrieverScore is one retriever's RARE retrieval robustness in
// /api/scores.
type retrieverScore struct {
	Retriever   string      `json:"retriever"`
	N           int64       `json:"n"`
	Questions   int64       `json:"questions"`
	Retrieval   *float64    `json:"retrieval,omitempty"`
	RetrievalCI *[2]float64 `json:"retrieval_ci,omitempty"`
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

// ciOf is a row's interval of score x, nil when unknown.
func ciOf(r metrics.Row, x string) *[2]float64 {
	c := r.CI(x)
	if !c.Known() {
		return nil
	}
	return &[2]float64{float64(c[0]), float64(c[1])}
}

func (e *engine) loadScores(ctx context.Context) (scoresResponse, error) {
	resp := scoresResponse{Models: []scoreRow{}, ByKind: []scoreRow{}, UpdatedAt: time.Now().UTC()}
	rows, err := metrics.Rows(ctx, e.ch.Query, metrics.RARE.Aggregation("rare_scores").Query(metrics.AllTime))
	if err != nil {
		return resp, err
	}
	for _, r := range rows {
		resp.Models = append(resp.Models, scoreRow{Model: r["model_id"], Baseline: strings.HasPrefix(r["model_id"], "builtin:"), N: r.Count("n"),
			Overall: num(r["overall"]), OverallCI: ciOf(r, "overall"), Query: num(r["query_robustness"]), QueryCI: ciOf(r, "query_robustness"),
			Document: num(r["document_robustness"]), DocumentCI: ciOf(r, "document_robustness"),
			Retrieval: num(r["retrieval_robustness"]), RetrievalCI: ciOf(r, "retrieval_robustness")})
	}
	retrievers, err := metrics.Rows(ctx, e.ch.Query, metrics.RARE.Aggregation("rare_retrieval_scores").Query(metrics.AllTime))
	if err != nil {
		return resp, err
	}
	for i := range resp.Models {
		for _, r := range retrievers {
			if r["model_id"] == resp.Models[i].Model {
				resp.Models[i].Retrievers = append(resp.Models[i].Retrievers, retrieverScore{Retriever: r["retriever"], N: r.Count("n"),
					Questions: r.Count("questions"), Retrieval: num(r["retrieval_robustness"]), RetrievalCI: ciOf(r, "retrieval_robustness")})
			}
		}
	}
	// by_kind is RARE's mean f per kind: only f rows on RARE's axes, never
	// the retrieval-hit rows a retrieving model also has under family
	// rare (a hit rate, not a robustness score).
	rows, err = metrics.Rows(ctx, e.ch.Query, metrics.KindsQuery("robustream.robustness_1h", ""))
	if err != nil {
		return resp, err
	}
	for _, r := range rows {
		resp.ByKind = append(resp.ByKind, scoreRow{Model: r["model"], Baseline: strings.HasPrefix(r["model"], "builtin:"), Axis: r["axis"], Kind: r["kind"],
			N: r.Count("cnt"), Score: num(r["score"])})
	}
	return resp, nil
}

// The dashboard's panels. Every query runs through the engine's read-only
// path, like /api/sql but on sessions of their own (e.dash), so that heavy
// API queries cannot hold them up; rows come back as JSONEachRow and are passed
// on as a JSON array under "rows".

const (
	// The alerts with what their firing said (alert_summaries). ANY LEFT
	// JOIN: 18.16 wants the strictness spelled out; chDB wants the aliases.
	alertsQuery = `SELECT alert_id, rule, series, state, baseline, recent, p_value, fired, resolved, summary
FROM (SELECT alert_id, rule, series, state, baseline, recent, p_value,
        toUInt32(fired_at) AS fired, toUInt32(resolved_at) AS resolved
    FROM robustream.alerts FINAL) AS a
ANY LEFT JOIN (SELECT alert_id, argMax(summary, produced_at) AS summary
    FROM robustream.alert_summaries WHERE state = 'firing' GROUP BY alert_id) AS s USING alert_id
ORDER BY fired DESC, alert_id LIMIT 200`
)

// dashWindow is a window of the rolling charts: the rollup it reads and
// the filter on its buckets.
type dashWindow struct {
	table, filter string
	// since is the window's start for the row views ("" for all time:
	// the all-time views answer).
	since string
}

var dashWindows = map[string]dashWindow{
	"1h":  {"robustream.robustness_5m", "bucket >= toStartOfFiveMinute(now() - INTERVAL 1 HOUR)", "now() - INTERVAL 1 HOUR"},
	"24h": {"robustream.robustness_1h", "bucket >= toStartOfHour(now() - INTERVAL 24 HOUR)", "now() - INTERVAL 24 HOUR"},
	"7d":  {"robustream.robustness_1h", "bucket >= toStartOfHour(now() - INTERVAL 7 DAY)", "now() - INTERVAL 7 DAY"},
	"all": {"robustream.robustness_1d", "1", ""},
}

func window(r *http.Request) (dashWindow, string, bool) {
	name := r.URL.Query().Get("window")
	if name == "" {
		name = "24h"
	}
	w, ok := dashWindows[name]
	return w, name, ok
}

// rows runs query read-only and returns its rows as a JSON array.
func (s *server) rows(ctx context.Context, query string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, s.e.cfg.SQL.Timeout+5*time.Second)
	defer cancel()
	out, err := s.e.dash.Query(ctx, query, "JSONEachRow")
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteByte('[')
	first := true
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(line)
	}
	b.WriteByte(']')
	return json.RawMessage(b.String()), nil
}

func (s *server) writeJSON(w http.ResponseWriter, v any, err error) {
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, context.DeadlineExceeded) {
			status = http.StatusGatewayTimeout
		}
		http.Error(w, err.Error(), status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (s *server) noClickHouse(w http.ResponseWriter) bool {
	if s.e.sql == nil {
		http.Error(w, "this engine runs no ClickHouse", http.StatusNotFound)
		return true
	}
	return false
}

// windowOf is the window of a request to a windowed endpoint; when it
// returns false it has answered: no ClickHouse here, or a bad window.
func (s *server) windowOf(w http.ResponseWriter, r *http.Request) (dashWindow, string, bool) {
	if s.noClickHouse(w) {
		return dashWindow{}, "", false
	}
	win, name, ok := window(r)
	if !ok {
		http.Error(w, "window must be 1h, 24h, 7d or all", http.StatusBadRequest)
	}
	return win, name, ok
}

// windowedPanel serves a panel over the request's window: its family's
// aggregation (processors/metrics) over all time for "all", else from the
// window's start.
func (s *server) windowedPanel(query func(metrics.Window) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		win, _, ok := s.windowOf(w, r)
		if !ok {
			return
		}
		mw := metrics.AllTime
		if win.since != "" {
			mw = metrics.Since(win.since)
		}
		rows, err := s.rows(r.Context(), query(mw))
		s.writeJSON(w, map[string]any{"rows": rows, "updated_at": time.Now().UTC()}, err)
	}
}

// panel serves one fixed query.
func (s *server) panel(query string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.noClickHouse(w) {
			return
		}
		rows, err := s.rows(r.Context(), query)
		s.writeJSON(w, map[string]any{"rows": rows, "updated_at": time.Now().UTC()}, err)
	}
}

// series: the rolling score per model, family and bucket over the window
// (1h: 5-minute buckets; 24h, 7d: hourly; all: daily). RARE is its judge
// f, GRADE and PRGB the share of correct answers; SURE's signed change
// has bars of its own.
func (s *server) series(w http.ResponseWriter, r *http.Request) {
	win, name, ok := s.windowOf(w, r)
	if !ok {
		return
	}
	rows, err := s.rows(r.Context(), metrics.SeriesQuery(win.table, win.filter))
	s.writeJSON(w, map[string]any{"window": name, "rows": rows, "updated_at": time.Now().UTC()}, err)
}

// kinds: RARE's score per model and perturbation kind over the window; the
// page sets each against the model's original-axis score.
func (s *server) kinds(w http.ResponseWriter, r *http.Request) {
	win, name, ok := s.windowOf(w, r)
	if !ok {
		return
	}
	rows, err := s.rows(r.Context(), metrics.KindsQuery(win.table, win.filter))
	s.writeJSON(w, map[string]any{"window": name, "rows": rows, "updated_at": time.Now().UTC()}, err)
}

// coverageKind is one perturbation kind of /api/coverage.
type coverageKind struct {
	Axis     string `json:"axis"`
	Kind     string `json:"kind"`
	Variants int64  `json:"variants"`
	Skipped  int64  `json:"skipped"`
	// Reasons count the skips by why (when this process runs perturb);
	// Reason says it in a sentence.
	Reasons map[string]int64 `json:"reasons,omitempty"`
	Reason  string           `json:"reason,omitempty"`
	// Needs names what this engine lacks for the kind to run at all
	// ("generator" for the LLM kinds without generator: in models.yaml).
	Needs string `json:"needs,omitempty"`
	// Shortfalls count variants made with less than was asked (PRGB's
	// noise documents the graph could not supply), by why; they are not
	// skips.
	Shortfalls map[string]int64 `json:"shortfalls,omitempty"`
}

// coverage: which kinds ran (variants stored, outcomes per model) and which
// were skipped, with the engine's skip counters (this process's, since it
// started) and why.
func (s *server) coverage(w http.ResponseWriter, r *http.Request) {
	if s.noClickHouse(w) {
		return
	}
	// Outcomes per model and kind, of every family (each scored cell once).
	outcomes, err := s.rows(r.Context(), metrics.CoverageQuery("robustream.robustness_1d"))
	if err != nil {
		s.writeJSON(w, nil, err)
		return
	}
	made, err := s.rows(r.Context(), `SELECT axis, kind, count() AS cnt FROM robustream.variants GROUP BY axis, kind ORDER BY axis, kind`)
	if err != nil {
		s.writeJSON(w, nil, err)
		return
	}
	var madeRows []struct {
		Axis, Kind string
		Cnt        int64
	}
	json.Unmarshal(made, &madeRows)
	byKey := map[string]*coverageKind{}
	var kinds []*coverageKind
	add := func(axis, kind string) *coverageKind {
		if k := byKey[kind]; k != nil {
			return k
		}
		k := &coverageKind{Axis: axis, Kind: kind}
		byKey[kind] = k
		kinds = append(kinds, k)
		return k
	}
	for _, m := range madeRows {
		add(m.Axis, m.Kind).Variants += m.Cnt
	}
	axisOf := map[string]string{}
	for _, k := range perturbKinds {
		axisOf[k.Name] = k.Axis
	}
	// Without a generator the LLM kinds have a row before any question
	// is skipped, and in a process that does not run perturb: what is
	// missing is known from the configuration alone.
	if s.e.models.generator == nil {
		for _, k := range perturbKinds {
			if k.NeedsLLM {
				add(k.Axis, k.Name).Needs = "generator"
			}
		}
	}
	if mfs, err := s.e.reg.Gather(); err == nil {
		for _, mf := range mfs {
			if mf.GetName() != "robustream_perturbations_skipped_total" {
				continue
			}
			for _, m := range mf.GetMetric() {
				kind := ""
				for _, l := range m.GetLabel() {
					if l.GetName() == "kind" {
						kind = l.GetValue()
					}
				}
				axis := axisOf[kind]
				if axis == "" {
					axis = "?"
				}
				add(axis, kind).Skipped += int64(m.GetCounter().GetValue())
			}
		}
	}
	var reasons, shortfalls map[string]map[string]int64
	if s.e.perturb != nil {
		reasons = s.e.perturb.SkipReasons()
		shortfalls = s.e.perturb.Shortfalls()
	}
	for _, k := range kinds {
		k.Shortfalls = shortfalls[k.Kind]
		if k.Skipped == 0 {
			continue
		}
		k.Reasons = reasons[k.Kind]
		why := "the kind is unavailable here (a missing resource such as WordNet, or no generator LLM); the engine log says which"
		if k.Variants > 0 {
			why = "no eligible word, or the answer would leak or survive"
		}
		if len(k.Reasons) > 0 {
			why = countedReasons(k.Reasons)
		}
		if k.Variants == 0 {
			k.Reason = "never made: " + why
		} else {
			k.Reason = "partly skipped: " + why
		}
	}
	for _, k := range kinds {
		if k.Needs == "generator" {
			// Said first, whatever the counts: the fix is in models.yaml.
			k.Reason = "needs a generator (generator: in models.yaml); without one this LLM kind is skipped"
			if k.Skipped > 0 {
				k.Reason += fmt.Sprintf(" (%d skipped)", k.Skipped)
			}
		}
	}
	if kinds == nil {
		kinds = []*coverageKind{}
	}
	s.writeJSON(w, map[string]any{"kinds": kinds, "outcomes": outcomes, "updated_at": time.Now().UTC()}, nil)
}

// countedReasons renders skip reasons, the most frequent first:
// "no eligible word to perturb (12), … (3)".
func countedReasons(rs map[string]int64) string {
	keys := slices.Collect(maps.Keys(rs))
	sort.Slice(keys, func(i, j int) bool {
		if rs[keys[i]] != rs[keys[j]] {
			return rs[keys[i]] > rs[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (%d)", k, rs[k])
	}
	return strings.Join(parts, ", ")
}

// healthStage is one stage of /api/health, from the engine's counters.
type healthStage struct {
	Stage   string  `json:"stage"`
	In      float64 `json:"in"`
	Out     float64 `json:"out"`
	Errors  float64 `json:"errors"`
	Retries float64 `json:"retries"`
	DLQ     float64 `json:"dlq"`
	Lag     float64 `json:"lag"`
}

// health: per-stage counters and lag (what /metrics exposes), outcomes
// written per 5 minutes over the last 24 hours, and inference errors per
// model.
func (s *server) health(w http.ResponseWriter, r *http.Request) {
	stages := map[string]*healthStage{}
	var order []string
	if mfs, err := s.e.reg.Gather(); err == nil {
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				name := ""
				for _, l := range m.GetLabel() {
					if l.GetName() == "stage" {
						name = l.GetValue()
					}
				}
				if name == "" {
					continue
				}
				st := stages[name]
				if st == nil && strings.HasPrefix(mf.GetName(), "robustream_stage_") {
					st = &healthStage{Stage: name}
					stages[name] = st
					order = append(order, name)
				}
				switch mf.GetName() {
				case "robustream_stage_messages_in_total":
					st.In = m.GetCounter().GetValue()
				case "robustream_stage_records_out_total":
					st.Out = m.GetCounter().GetValue()
				case "robustream_stage_errors_total":
					st.Errors = m.GetCounter().GetValue()
				case "robustream_stage_retries_total":
					st.Retries = m.GetCounter().GetValue()
				case "robustream_stage_dlq_total":
					st.DLQ = m.GetCounter().GetValue()
				case "robustream_stage_lag":
					st.Lag = m.GetGauge().GetValue()
				}
			}
		}
	}
	list := make([]*healthStage, 0, len(order))
	for _, name := range order {
		list = append(list, stages[name])
	}
	resp := map[string]any{"stages": list, "updated_at": time.Now().UTC()}
	if s.e.sql != nil {
		tp, err := s.rows(r.Context(), `SELECT toUInt32(bucket) AS t, sum(n) AS cnt FROM robustream.robustness_5m
WHERE bucket >= toStartOfFiveMinute(now() - INTERVAL 24 HOUR) GROUP BY t HAVING cnt > 0 ORDER BY t`)
		if err != nil {
			s.writeJSON(w, nil, err)
			return
		}
		inf, err := s.rows(r.Context(), `SELECT model_id AS model, count() AS requests, countIf(error != '') AS errors
FROM robustream.eval_results GROUP BY model ORDER BY model`)
		if err != nil {
			s.writeJSON(w, nil, err)
			return
		}
		resp["throughput"], resp["inference"] = tp, inf
	}
	s.writeJSON(w, resp, nil)
}
