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
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

//go:embed web/index.html
var indexHTML []byte

// server is the engine's HTTP face: dashboard, JSON API, read-only SQL,
// Prometheus metrics and health probes.
type server struct {
	e     *engine
	ln    net.Listener
	addr  string
	token string
	ready func() bool
}

func newServer(e *engine, addr string) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http: cannot listen on %s: %w", addr, err)
	}
	s := &server{e: e, ln: ln, addr: ln.Addr().String(), ready: func() bool { return true }}
	host, _, _ := net.SplitHostPort(s.addr)
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		// Off loopback the SQL API needs a bearer token (ARCHITECTURE §11).
		if e.cfg.HTTPToken == "" || os.Getenv(e.cfg.HTTPToken) == "" {
			ln.Close()
			return nil, fmt.Errorf("http: %s is not a loopback address; set http_token_env to an environment variable holding the API token", addr)
		}
		s.token = os.Getenv(e.cfg.HTTPToken)
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
	if s.token == "" {
		// Profiles only where the API needs no token: on loopback.
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(indexHTML)
	})
	return mux
}

// serve runs until ctx ends.
func (s *server) serve(ctx context.Context) error {
	hs := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
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
	if s.e.ch != nil {
		if _, err := s.e.ch.Query(r.Context(), "SELECT 1", "TabSeparated"); err != nil {
			http.Error(w, "clickhouse: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	if _, err := s.e.kafka.EndOffsets(r.Context(), "rs.documents"); err != nil {
		http.Error(w, "kafka: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	io.WriteString(w, "ready\n")
}

// readOnly reports whether q is a single read-only statement.
func readOnly(q string) bool {
	q = strings.TrimSpace(q)
	q = strings.TrimSuffix(q, ";")
	if strings.Contains(q, ";") {
		return false
	}
	first := strings.ToUpper(strings.Fields(q + " x")[0])
	switch first {
	case "SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXISTS", "EXPLAIN":
		return true
	}
	return false
}

func (s *server) sql(w http.ResponseWriter, r *http.Request) {
	if s.token != "" {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
	}
	if s.e.ch == nil {
		http.Error(w, "this engine runs no ClickHouse", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	q := string(body)
	if !readOnly(q) {
		http.Error(w, "only a single read-only statement (SELECT, WITH, SHOW, DESCRIBE, EXISTS, EXPLAIN) is allowed", http.StatusBadRequest)
		return
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "TabSeparated"
	}
	out, err := s.e.ch.Query(r.Context(), q, format)
	if err != nil {
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
