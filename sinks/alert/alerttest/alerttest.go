// Package alerttest starts real HTTP receivers for tests of what reaches
// alert receivers: one per payload format (webhook, Slack, Alertmanager),
// each keeping the body of every notification it gets.
package alerttest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/robustream/robustream/sinks/alert"
)

// Kinds are the receiver kinds Start starts, in order.
var Kinds = []string{alert.Webhook, alert.Slack, alert.Alertmanager}

// Receivers are one running receiver of each kind.
type Receivers struct {
	mu   sync.Mutex
	got  map[string][][]byte
	list []alert.Receiver
}

// Start starts the receivers; they close when t ends.
func Start(t testing.TB) *Receivers {
	t.Helper()
	r := &Receivers{got: map[string][][]byte{}}
	for _, kind := range Kinds {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			b, _ := io.ReadAll(req.Body)
			r.mu.Lock()
			r.got[kind] = append(r.got[kind], b)
			r.mu.Unlock()
		}))
		t.Cleanup(srv.Close)
		r.list = append(r.list, alert.Receiver{Name: kind + "-1", Kind: kind, URL: srv.URL})
	}
	return r
}

// List returns the receivers as alerts.receivers entries, in Kinds order.
func (r *Receivers) List() []alert.Receiver { return append([]alert.Receiver(nil), r.list...) }

// URL returns the URL of the receiver of kind.
func (r *Receivers) URL(kind string) string {
	for _, rc := range r.list {
		if rc.Kind == kind {
			return rc.URL
		}
	}
	return ""
}

// Bodies returns the bodies the receiver of kind got, oldest first.
func (r *Receivers) Bodies(kind string) [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.got[kind]...)
}

// Count returns how many notifications the receiver of kind got.
func (r *Receivers) Count(kind string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got[kind])
}
