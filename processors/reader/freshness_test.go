package reader

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// testClock stands still until the test moves it.
type testClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *testClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.at }
func (c *testClock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.at = t }

// lateIndexer is a RAG service on loopback that indexes a passage only
// delay after it was added, on the test clock, and answers with the
// passages holding a word of the question.
type lateIndexer struct {
	clock *testClock
	delay time.Duration
	mu    sync.Mutex
	added map[string]time.Time
	asked int
}

func (s *lateIndexer) add(passage string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.added[passage] = s.clock.Now()
}

func (s *lateIndexer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct{ Question string }
	json.NewDecoder(r.Body).Decode(&req)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	now := s.clock.Now()
	var hits []map[string]any
	for p, at := range s.added {
		if now.Sub(at) < s.delay {
			continue // not indexed yet
		}
		for _, word := range strings.Fields(strings.ToLower(req.Question)) {
			if len(word) > 4 && strings.Contains(strings.ToLower(p), word) {
				hits = append(hits, map[string]any{"text": p, "source": "doc.md", "score": 1.5})
				break
			}
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"answer": "no such info", "contexts": hits})
}

// TestFreshnessSchedule: a service that indexes a document 3 minutes after
// it arrives, on a test clock, with the schedule 1m, 5m, 15m. The first
// ask and the ask at 1m miss and are labelled not_indexed; the ask at 5m
// retrieves the chunk (indexed): time-to-knowledge 5m, the schedule's step
// after the 3-minute delay. With stale_after 2m the stale-index alert fires
// at 2m, while the question waits, and resolves once it is retrieved. The
// waiting question survives a restart through its changelog record.
func TestFreshnessSchedule(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := &testClock{at: t0}
	const chunk = "Northwind Bank appointed Maria Lopez as chief financial officer in March 2024."
	svc := &lateIndexer{clock: clock, delay: 3 * time.Minute, added: map[string]time.Time{}}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	rag, err := provider.NewRAGEndpoint("shop-rag", provider.RAGEndpointOptions{URL: srv.URL, ContextsField: "contexts"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Models: map[string]provider.Model{"shop-rag": rag}, Now: clock.Now,
		Freshness: FreshnessConfig{Models: []string{"shop-rag"}, Schedule: []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute}, StaleAfter: 2 * time.Minute}}
	st, err := NewStage(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := &schemas.EvalRequest{QuestionRef: schemas.QuestionRef{QuestionID: "q1"}, RequestID: "r1", ModelID: "shop-rag", VariantID: "v1",
		Prompt: "Who is the chief financial officer of Northwind Bank?", Query: "Who is the chief financial officer of Northwind Bank?",
		Contexts: []string{chunk}, Accepted: []string{"Maria Lopez"}, Axis: "original", Kind: "original", Expected: 1, Retrieves: true}
	schemas.Stamp(req, "req-r1")
	svc.add(chunk) // the document arrives at t0, in robustream and in the service

	process := func(value []byte) (*schemas.EvalResult, []streams.Record) {
		t.Helper()
		recs, err := st.Process(context.Background(), streams.Message{Topic: streams.TopicEvalRequests, Value: value})
		if err != nil {
			t.Fatal(err)
		}
		var res schemas.EvalResult
		var other []streams.Record
		for _, r := range recs {
			if r.Topic == streams.TopicEvalResults {
				if err := schemas.Decode(r.Value, &res); err != nil {
					t.Fatal(err)
				}
			} else {
				other = append(other, r)
			}
		}
		return &res, other
	}
	step := func(f *Freshness) (asks [][]byte, alerts []schemas.Alert) {
		t.Helper()
		err := f.Step(context.Background(), func(_ context.Context, recs ...streams.Record) error {
			for _, r := range recs {
				switch r.Topic {
				case streams.TopicEvalRequests:
					asks = append(asks, r.Value)
				case streams.TopicAlerts:
					var a schemas.Alert
					json.Unmarshal(r.Value, &a)
					alerts = append(alerts, a)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return asks, alerts
	}
	b, _ := schemas.Encode(req)
	res, logged := process(b)
	if res.IndexState != schemas.IndexNotIndexed || res.RetrievalHit || len(logged) != 1 || logged[0].Topic != streams.ChangelogTopic(FreshnessStage) {
		t.Fatalf("first ask: state %q hit %v, records %v", res.IndexState, res.RetrievalHit, logged)
	}
	if asks, alerts := step(st.Freshness()); len(asks) != 0 || len(alerts) != 0 {
		t.Fatalf("at t0: %d asks, %d alerts, want none", len(asks), len(alerts))
	}

	// A restart: a new stage loads the waiting question from its record.
	st, err = NewStage(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st.Freshness().Load(string(logged[0].Key), logged[0].Value)
	if n := st.Freshness().Waiting("shop-rag"); n != 1 {
		t.Fatalf("%d questions waiting after the restart, want 1", n)
	}

	var firstHit time.Time
	var fired, resolved []schemas.Alert
	var states []string
	for at := t0; at.Sub(t0) <= 20*time.Minute; at = at.Add(30 * time.Second) {
		clock.Set(at)
		asks, alerts := step(st.Freshness())
		for _, a := range alerts {
			if a.State == "firing" {
				fired = append(fired, a)
				if firstHit.IsZero() == false {
					t.Errorf("stale alert fired at %s, after the question was retrieved", at.Sub(t0))
				}
			} else {
				resolved = append(resolved, a)
			}
		}
		for _, ask := range asks {
			res, _ := process(ask)
			states = append(states, at.Sub(t0).String()+" "+res.IndexState)
			if res.IndexState == schemas.IndexIndexed && firstHit.IsZero() {
				firstHit = res.EvaluatedAt
			}
			if res.RequestID == req.RequestID {
				t.Errorf("an ask again reused the first request id")
			}
		}
	}
	want := []string{"1m0s not_indexed", "5m0s indexed"}
	if strings.Join(states, ", ") != strings.Join(want, ", ") {
		t.Errorf("asks again: %v, want %v", states, want)
	}
	if ttk := firstHit.Sub(t0); ttk != 5*time.Minute {
		t.Errorf("time-to-knowledge %s, want 5m (the schedule's step after the 3m delay)", ttk)
	}
	if len(fired) != 1 || len(resolved) != 1 || fired[0].AlertID != resolved[0].AlertID {
		t.Fatalf("stale alerts fired %+v resolved %+v, want one of each, the same alert", fired, resolved)
	}
	if fired[0].FiredAt.Sub(t0) != 2*time.Minute || resolved[0].ResolvedAt.Sub(t0) != 5*time.Minute+30*time.Second ||
		!strings.Contains(fired[0].Summary, "shop-rag has not indexed the documents of 1 questions") {
		t.Errorf("stale alert fired at %s, resolved at %s: %s", fired[0].FiredAt.Sub(t0), resolved[0].ResolvedAt.Sub(t0), fired[0].Summary)
	}
	if n := st.Freshness().Waiting("shop-rag"); n != 0 {
		t.Errorf("%d questions still waiting", n)
	}
}

// TestFreshnessGivesUp: a service that never indexes the document is asked
// max_asks times; the last miss is the verdict (gave_up), no more asks.
func TestFreshnessGivesUp(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := &testClock{at: t0}
	svc := &lateIndexer{clock: clock, delay: time.Hour * 1000, added: map[string]time.Time{}}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	rag, _ := provider.NewRAGEndpoint("shop-rag", provider.RAGEndpointOptions{URL: srv.URL, ContextsField: "contexts"})
	st, err := NewStage(Config{Models: map[string]provider.Model{"shop-rag": rag}, Now: clock.Now,
		Freshness: FreshnessConfig{Models: []string{"shop-rag"}, MaxAsks: 2}})
	if err != nil {
		t.Fatal(err)
	}
	req := &schemas.EvalRequest{QuestionRef: schemas.QuestionRef{QuestionID: "q1"}, RequestID: "r1", ModelID: "shop-rag", VariantID: "v1",
		Prompt: "Who leads Contoso?", Query: "Who leads Contoso?", Contexts: []string{"Contoso is led by Ana Ruiz."}, Accepted: []string{"Ana Ruiz"},
		Axis: "original", Kind: "original", Expected: 1, Retrieves: true}
	schemas.Stamp(req, "req-r1")
	var states []string
	handle := func(b []byte) {
		recs, err := st.Process(context.Background(), streams.Message{Value: b})
		if err != nil {
			t.Fatal(err)
		}
		var res schemas.EvalResult
		schemas.Decode(recs[0].Value, &res)
		states = append(states, res.IndexState)
	}
	b, _ := schemas.Encode(req)
	handle(b)
	for _, d := range DefaultFreshnessSchedule {
		clock.Set(t0.Add(d))
		st.Freshness().Step(context.Background(), func(_ context.Context, recs ...streams.Record) error {
			for _, r := range recs {
				if r.Topic == streams.TopicEvalRequests {
					handle(r.Value)
				}
			}
			return nil
		})
	}
	if got := strings.Join(states, " "); got != "not_indexed not_indexed gave_up" {
		t.Errorf("states %q, want two not_indexed then gave_up", got)
	}
	// A restart with the last ask sent and unanswered: it is sent again
	// under the same request id, at once, and its answer ends the wait.
	f := newFreshness(FreshnessConfig{Models: []string{"shop-rag"}, MaxAsks: 2}, clock.Now)
	w := waitingQuestion{Request: *req, FirstAsked: t0, Asked: 2, Sent: true}
	b, _ = json.Marshal(&w)
	f.Load(waitingKey("shop-rag", "v1"), b)
	var again []string
	f.Step(context.Background(), func(_ context.Context, recs ...streams.Record) error {
		for _, r := range recs {
			if r.Topic == streams.TopicEvalRequests {
				var ask schemas.EvalRequest
				schemas.Decode(r.Value, &ask)
				again = append(again, ask.RequestID)
			}
		}
		return nil
	})
	if len(again) != 1 || again[0] != askAgainID("r1", 2) {
		t.Errorf("after a restart: asks %q, want ask 2 again (%s)", again, askAgainID("r1", 2))
	}
	for _, bad := range []FreshnessConfig{{Models: []string{"nope"}}, {Models: []string{"shop-rag"}, Schedule: []time.Duration{5 * time.Minute, time.Minute}},
		{Models: []string{"shop-rag"}, MaxAsks: -1}} {
		if _, err := NewStage(Config{Models: map[string]provider.Model{"shop-rag": rag}, Freshness: bad}); err == nil || !strings.Contains(err.Error(), "freshness") {
			t.Errorf("freshness %+v: %v, want an error", bad, err)
		}
	}
}

// TestFreshnessPerQuestion: a document is indexed once any ask of its
// question retrieves a chunk. A variant that still misses (its only rare
// word misspelt) is asked once more at once and its miss is scored as the
// retriever's (indexed), not left waiting until the schedule gives up;
// the stale-index alert resolves with it.
func TestFreshnessPerQuestion(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f := newFreshness(FreshnessConfig{Models: []string{"rag"}, Schedule: []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute}, StaleAfter: 2 * time.Minute}, func() time.Time { return t0 })
	req := func(variant string) *schemas.EvalRequest {
		return &schemas.EvalRequest{QuestionRef: schemas.QuestionRef{QuestionID: "q1"}, RequestID: "r-" + variant, ModelID: "rag", VariantID: variant}
	}
	ask := func(variant string, hit bool, at time.Time) string {
		t.Helper()
		res := &schemas.EvalResult{RetrievalHit: hit}
		if _, err := f.observe(req(variant), res, at); err != nil {
			t.Fatal(err)
		}
		return res.IndexState
	}
	for _, v := range []string{"original", "typo"} {
		if s := ask(v, false, t0); s != schemas.IndexNotIndexed {
			t.Fatalf("%s at t0: %s", v, s)
		}
	}
	at2 := t0.Add(2 * time.Minute)
	if alerts, err := f.staleAlerts(at2); err != nil || len(alerts) != 1 {
		t.Fatalf("at 2m: %d stale alerts (%v), want one firing", len(alerts), err)
	}
	at5 := t0.Add(5 * time.Minute)
	if s := ask("original", true, at5); s != schemas.IndexIndexed {
		t.Fatalf("original at 5m: %s", s)
	}
	recs, err := f.dueAsks(at5)
	if err != nil {
		t.Fatal(err)
	}
	asks := 0
	for _, r := range recs {
		if r.Topic == streams.TopicEvalRequests {
			asks++
		}
	}
	if asks != 1 {
		t.Fatalf("after the original's hit, %d asks due, want the typo variant's recheck", asks)
	}
	if s := ask("typo", false, at5); s != schemas.IndexIndexed || f.Waiting("rag") != 0 {
		t.Fatalf("the typo variant's recheck: %s, %d waiting; want indexed (the retriever's miss) and none waiting", s, f.Waiting("rag"))
	}
	alerts, err := f.staleAlerts(at5)
	if err != nil || len(alerts) != 1 || !strings.Contains(string(alerts[0].Value), `"resolved"`) {
		t.Fatalf("at 5m: alerts %v (%v), want the stale alert resolved", alerts, err)
	}
	// A variant first asked after the hit is judged against the indexed
	// document at once.
	if s := ask("qwerty", false, at5.Add(time.Second)); s != schemas.IndexIndexed || f.Waiting("rag") != 0 {
		t.Fatalf("a late variant's miss: %s, %d waiting", s, f.Waiting("rag"))
	}
}
