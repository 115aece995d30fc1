package provider

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// Observer receives what the remote clients see of each call, for the
// process's metrics: the outcome class and latency of every HTTP call to a
// model's server, and the tokens a completion reports.
type Observer interface {
	// Call is one HTTP call of model: status is 2xx, 4xx or 5xx (the
	// reply's class), timeout (no complete reply within the model's
	// timeout) or error (no reply: refused, reset, DNS).
	Call(model, status string, d time.Duration)
	// Tokens are the prompt and completion tokens one completion reports.
	Tokens(model string, in, out int)
}

// StatusClasses are the status values Observer.Call receives.
var StatusClasses = []string{"2xx", "4xx", "5xx", "timeout", "error"}

var observer atomic.Pointer[Observer]

// SetObserver makes o receive every call of every remote client of the
// process (nil: none).
func SetObserver(o Observer) {
	if o == nil {
		observer.Store(nil)
		return
	}
	observer.Store(&o)
}

func observeCall(model string, status int, err error, d time.Duration) {
	o := observer.Load()
	if o == nil {
		return
	}
	var class string
	switch {
	case status >= 200 && status < 300:
		class = "2xx"
	case status >= 400 && status < 500:
		class = "4xx"
	case status >= 500:
		class = "5xx"
	case errors.Is(err, context.DeadlineExceeded):
		class = "timeout"
	case errors.Is(err, context.Canceled):
		return // the caller gave up: not the server's doing
	default:
		class = "error"
	}
	(*o).Call(model, class, d)
}

func observeTokens(model string, in, out int) {
	if o := observer.Load(); o != nil && (in > 0 || out > 0) {
		(*o).Tokens(model, in, out)
	}
}
