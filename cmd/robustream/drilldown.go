package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/robustream/robustream/processors/metrics"
)

// The drill-down: the questions behind a score and one question whole
// (processors/metrics, questions.go and question.go, build and read the
// queries; they run on the dashboard's read-only sessions).

//go:embed web/drilldown.js
var drilldownJS []byte

func (s *server) drilldownScript(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Write(drilldownJS)
}

// questions: GET /api/questions?model=&family=&axis=&kind=&verdict=&document=&pattern=&hops=&quartile=&dr_min=&dr_max=&window=&limit=&offset=
func (s *server) questions(w http.ResponseWriter, r *http.Request) {
	if s.noClickHouse(w) {
		return
	}
	q := r.URL.Query()
	f := metrics.QuestionFilter{Model: q.Get("model"), Family: q.Get("family"), Axis: q.Get("axis"), Kind: q.Get("kind"),
		Verdict: q.Get("verdict"), Document: q.Get("document"), Pattern: q.Get("pattern")}
	for name, dst := range map[string]*int{"hops": &f.Hops, "quartile": &f.Quartile, "limit": &f.Limit, "offset": &f.Offset} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				http.Error(w, fmt.Sprintf("%s must be a whole number", name), http.StatusBadRequest)
				return
			}
			*dst = n
		}
	}
	for name, dst := range map[string]**float64{"dr_min": &f.DRMin, "dr_max": &f.DRMax} {
		if v := q.Get(name); v != "" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				http.Error(w, fmt.Sprintf("%s must be a number", name), http.StatusBadRequest)
				return
			}
			*dst = &x
		}
	}
	// No window means every outcome: a link from an all-time score.
	if q.Get("window") != "" {
		win, _, ok := window(r)
		if !ok {
			http.Error(w, "window must be 1h, 24h, 7d or all", http.StatusBadRequest)
			return
		}
		if win.since != "" {
			f.Window = metrics.Since(win.since)
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.e.cfg.SQL.Timeout+5*time.Second)
	defer cancel()
	page, err := metrics.ListQuestions(ctx, s.e.dash.Query, f)
	s.drilldownAnswer(w, page, err)
}

// question: GET /api/questions/{id}?model=
func (s *server) question(w http.ResponseWriter, r *http.Request) {
	if s.noClickHouse(w) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.e.cfg.SQL.Timeout+5*time.Second)
	defer cancel()
	d, err := metrics.LoadQuestion(ctx, s.e.dash.Query, r.PathValue("id"), r.URL.Query().Get("model"))
	s.drilldownAnswer(w, d, err)
}

func (s *server) drilldownAnswer(w http.ResponseWriter, v any, err error) {
	switch {
	case errors.Is(err, metrics.ErrBadFilter):
		http.Error(w, err.Error(), http.StatusBadRequest)
	case errors.Is(err, metrics.ErrNoQuestion):
		http.Error(w, err.Error(), http.StatusNotFound)
	default:
		s.writeJSON(w, v, err)
	}
}
