package alert

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
)

// Kinds of receiver.
const (
	Webhook      = "webhook"
	Slack        = "slack"
	Alertmanager = "alertmanager"
)

// Receiver is one entry of alerts.receivers. URL and header values may
// reference environment variables as ${NAME}: a Slack webhook URL or an
// Authorization header is a secret, kept out of the config file and never
// logged (logs name the receiver, not its URL).
type Receiver struct {
	Name    string            `yaml:"name"`
	Kind    string            `yaml:"kind"`
	URL     string            `yaml:"url"`
	Headers map[string]string `yaml:"headers"`
}

// Config configures the receivers' sink.
type Config struct {
	Receivers []Receiver
	// DashboardURL is linked from every notification.
	DashboardURL string
	// MaxAttempts is how many times one alert is sent to a receiver before
	// it is dead-lettered (default 6).
	MaxAttempts int
	// MinBackoff and MaxBackoff bound the exponential pause between
	// attempts (defaults 500ms and 30s).
	MinBackoff, MaxBackoff time.Duration
	// MaxRetryAfter caps a receiver's Retry-After (default 2m): a receiver
	// asking for an hour is treated as down, not waited for.
	MaxRetryAfter time.Duration
	// Timeout bounds one HTTP request (default 10s).
	Timeout time.Duration
	Logger  *slog.Logger
	// Getenv resolves ${NAME} references (default os.Getenv).
	Getenv func(string) string
}

func (c Config) withDefaults() Config {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 6
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = 500 * time.Millisecond
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 30 * time.Second
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 2 * time.Minute
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	return c
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expand replaces ${NAME} references; it reports the names that are unset.
func expand(s string, getenv func(string) string) (string, []string) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		v := getenv(name)
		if v == "" {
			missing = append(missing, name)
		}
		return v
	})
	return out, missing
}

// ValidateReceivers reports every error of rs, each with its path under
// prefix (e.g. "alerts.receivers"). An unset ${NAME} is an error: the
// receiver would be sent an empty secret.
func ValidateReceivers(prefix string, rs []Receiver, getenv func(string) string) []error {
	if getenv == nil {
		getenv = os.Getenv
	}
	var errs []error
	names := map[string]bool{}
	for i, r := range rs {
		p := fmt.Sprintf("%s[%d]", prefix, i)
		switch {
		case r.Name == "":
			errs = append(errs, fmt.Errorf("%s.name: must not be empty", p))
		case names[r.Name]:
			errs = append(errs, fmt.Errorf("%s.name: %q is used twice", p, r.Name))
		}
		names[r.Name] = true
		switch r.Kind {
		case Webhook, Slack, Alertmanager:
		default:
			errs = append(errs, fmt.Errorf("%s.kind: %q is not webhook, slack or alertmanager", p, r.Kind))
		}
		u, missing := expand(r.URL, getenv)
		for _, m := range missing {
			errs = append(errs, fmt.Errorf("%s.url: references ${%s}, which is not set", p, m))
		}
		if len(missing) == 0 {
			// The expanded URL may hold a secret: say what is wrong, not what it is.
			if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
				errs = append(errs, fmt.Errorf("%s.url: not an http(s) URL with a host", p))
			}
		}
		for k, v := range r.Headers {
			if k == "" || strings.ContainsAny(k, " :\r\n") {
				errs = append(errs, fmt.Errorf("%s.headers: %q is not a header name", p, k))
			}
			_, missing := expand(v, getenv)
			for _, m := range missing {
				errs = append(errs, fmt.Errorf("%s.headers.%s: references ${%s}, which is not set", p, k, m))
			}
		}
	}
	return errs
}
