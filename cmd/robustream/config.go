package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/robustream/robustream/sinks/clickhouse"
	"github.com/robustream/robustream/streams"
)

// Config is robustream's one configuration. Every leaf key can be set in the
// YAML file, overridden by the environment (ROBUSTREAM_ + the upper-case
// path, e.g. ROBUSTREAM_KAFKA_BROKERS) and then by a flag (the path with
// dashes, e.g. --kafka-brokers, or the name in the field's flag tag).
type Config struct {
	DataDir string       `yaml:"data_dir" help:"where the embedded broker and ClickHouse keep their data"`
	HTTP    string       `yaml:"http" help:"address of the dashboard, API and /metrics"`
	Stages  StagesConfig `yaml:"stages"`
	// Source feeds the pipeline in run mode: demo, dir:PATH, or none.
	Source     string              `yaml:"source" help:"source of run: demo, dir:PATH or none"`
	Models     string              `yaml:"models" help:"models.yaml listing the models under test (default: the built-in readers)"`
	Kafka      streams.KafkaConfig `yaml:"kafka"`
	ClickHouse ClickHouseConfig    `yaml:"clickhouse"`
	Demo       DemoConfig          `yaml:"demo"`
	Log        LogConfig           `yaml:"log"`
	HTTPToken  string              `yaml:"http_token_env" flag:"http-token-env" help:"environment variable holding the API bearer token (required when --http is not loopback)"`
	// HTTPHosts are extra names the Host header may carry besides the bound
	// address (a DNS name in front of the engine, say); see http.go.
	HTTPHosts []string `yaml:"http_allowed_hosts" help:"extra Host header values accepted besides the bound address, e.g. robustream.internal:8080"`
	// HTTPMetricsPublic serves /metrics without the token, for a Prometheus
	// that cannot send one.
	HTTPMetricsPublic bool `yaml:"http_metrics_public" help:"serve /metrics without the bearer token"`
	// HTTPReadTimeout bounds reading a request (headers and body) and
	// HTTPIdleTimeout an idle keep-alive connection: a slow or idle client
	// cannot hold a connection for ever.
	HTTPReadTimeout time.Duration `yaml:"http_read_timeout" help:"longest a client may take to send a request"`
	HTTPIdleTimeout time.Duration `yaml:"http_idle_timeout" help:"how long an idle keep-alive connection is kept"`
	// The connection caps keep descriptors for chDB and Kafka whatever
	// clients do (see connlimit.go); the failure budget stops token
	// guessing (see authlimit.go).
	HTTPMaxConns          int          `yaml:"http_max_conns" help:"connections the HTTP server holds at once (lowered to leave descriptors for ClickHouse and Kafka); at the cap the longest-idle one is closed, or the new one refused"`
	HTTPMaxConnsPerClient int          `yaml:"http_max_conns_per_client" help:"connections one client address (IPv4, or IPv6 /64) may hold at once"`
	HTTPAuthFailures      int          `yaml:"http_auth_failures_per_minute" help:"wrong API tokens one client address may send per minute (burst and refill); beyond, 429 until it refills"`
	SQL                   SQLConfig    `yaml:"sql"`
	Alerts                AlertsConfig `yaml:"alerts"`
}

// SQLConfig bounds the read-only SQL path (/api/sql, and sql/report against
// a running engine): every query runs with these limits, which the query
// itself cannot change.
type SQLConfig struct {
	Timeout        time.Duration `yaml:"timeout" help:"longest a query of the SQL API may run"`
	MaxMemoryMB    int64         `yaml:"max_memory_mb" help:"memory one query of the SQL API may use, in MiB"`
	MaxResultRows  int64         `yaml:"max_result_rows" help:"rows one query of the SQL API may return"`
	MaxResultMB    int64         `yaml:"max_result_mb" help:"result size one query of the SQL API may return, in MiB"`
	MaxThreads     int           `yaml:"max_threads" help:"threads one query of the SQL API may use (0: half the cores, at least 1)"`
	Databases      []string      `yaml:"databases" help:"databases the SQL API may read"`
	MaxConcurrency int           `yaml:"max_concurrency" help:"queries of the SQL API running at once; more wait, up to their timeout"`
}

// ClickHouseConfig selects the ClickHouse engine.
type ClickHouseConfig struct {
	URL     string `yaml:"url" flag:"clickhouse" help:"clickhouse://user:pass@host:9000/db for a server; empty for embedded chDB"`
	ChDBLib string `yaml:"chdb_lib" help:"path of libchdb.so (default: .chdb/lib/libchdb.so)"`
	Cluster string `yaml:"cluster" help:"ClickHouse cluster the schema lives on (see migrate --cluster): start-up and migrate apply its DDL, ON CLUSTER"`
}

// DemoConfig tunes the built-in demo feed.
type DemoConfig struct {
	Seed     int64         `yaml:"seed" help:"seed of the demo feed"`
	Periods  int           `yaml:"periods" help:"periods the demo feed writes (0 = unbounded)"`
	Interval time.Duration `yaml:"interval" help:"pause between demo periods"`
}

// LogConfig selects the log output.
type LogConfig struct {
	Level  string `yaml:"level" help:"debug, info, warn or error"`
	Format string `yaml:"format" help:"text or json; default: text embedded, json with --kafka-brokers (cluster mode)"`
}

func defaultConfig() Config {
	return Config{
		DataDir:         "data",
		HTTP:            "127.0.0.1:8080",
		Source:          "demo",
		Kafka:           streams.KafkaConfig{Partitions: 4},
		Demo:            DemoConfig{Seed: 1, Periods: 0, Interval: 20 * time.Second},
		Log:             LogConfig{Level: "info"},
		HTTPReadTimeout: 30 * time.Second,
		HTTPIdleTimeout: 60 * time.Second,
		HTTPMaxConns:    1024, HTTPMaxConnsPerClient: 256, HTTPAuthFailures: 10,
		SQL: SQLConfig{Timeout: 30 * time.Second, MaxMemoryMB: 1024, MaxResultRows: 1_000_000, MaxResultMB: 64,
			Databases: []string{"robustream", "system", "information_schema", "INFORMATION_SCHEMA"}, MaxConcurrency: 2},
		Alerts: defaultAlerts(),
	}
}

// Validate reports every configuration error, each with its path.
func (c *Config) Validate() []error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("data_dir: must not be empty"))
	}
	if c.HTTP != "" && !strings.Contains(c.HTTP, ":") {
		errs = append(errs, fmt.Errorf("http: %q is not host:port", c.HTTP))
	}
	for _, d := range []struct {
		path string
		v    time.Duration
	}{{"http_read_timeout", c.HTTPReadTimeout}, {"http_idle_timeout", c.HTTPIdleTimeout}} {
		if d.v < 100*time.Millisecond || d.v > time.Hour {
			errs = append(errs, fmt.Errorf("%s: %s must be between 100ms and 1h", d.path, d.v))
		}
	}
	for _, r := range []struct {
		path      string
		n, lo, hi int
	}{{"http_max_conns", c.HTTPMaxConns, minConnCap, 1 << 20}, {"http_max_conns_per_client", c.HTTPMaxConnsPerClient, 1, 1 << 20},
		{"http_auth_failures_per_minute", c.HTTPAuthFailures, 1, 10_000}} {
		if r.n < r.lo || r.n > r.hi {
			errs = append(errs, fmt.Errorf("%s: %d is out of range %d..%d", r.path, r.n, r.lo, r.hi))
		}
	}
	errs = append(errs, c.Stages.validate()...)
	for _, s := range c.Stages.Run {
		if !knownStage(s) && !isPeriodicStage(s) {
			errs = append(errs, fmt.Errorf("stages: unknown stage %q (known: source, %s, or sinks for all sinks)", s, strings.Join(stageNames(), ", ")))
		}
	}
	if c.Source != "none" && c.Source != "" {
		if _, _, err := parseSourceSpec(c.Source); err != nil {
			errs = append(errs, fmt.Errorf("source: %w", err))
		}
	}
	if u := c.ClickHouse.URL; u != "" && !strings.HasPrefix(u, "clickhouse://") {
		errs = append(errs, fmt.Errorf("clickhouse.url: %q must start with clickhouse://", u))
	}
	if cl := c.ClickHouse.Cluster; cl != "" {
		if err := clickhouse.ValidClusterName(cl); err != nil {
			errs = append(errs, fmt.Errorf("clickhouse.cluster: %w", err))
		} else if c.ClickHouse.URL == "" {
			errs = append(errs, fmt.Errorf("clickhouse.cluster: %q needs clickhouse.url (embedded chDB is one node)", cl))
		}
	}
	if c.Models != "" {
		// The whole file, not only its existence: the engine reads it only
		// once its broker and ClickHouse are up, too late for --dry-run.
		_, merrs := readModels(c.Models)
		errs = append(errs, merrs...)
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log.level: %q is not debug, info, warn or error", c.Log.Level))
	}
	switch c.Log.Format {
	case "", "text", "json":
	default:
		errs = append(errs, fmt.Errorf("log.format: %q is not text or json", c.Log.Format))
	}
	if c.Demo.Periods < 0 {
		errs = append(errs, fmt.Errorf("demo.periods: %d must be ≥ 0 (0 = unbounded)", c.Demo.Periods))
	}
	kind, _, err := parseSourceSpec(c.Source)
	switch demo := err == nil && kind.name == "demo"; {
	case demo && c.Demo.Interval < time.Second:
		// The unbounded demo feed pauses this long between periods; with no
		// pause it writes them back to back (nearly 1 GB in 20 s). A finite
		// feed ignores the pause, but one rule is easier to state.
		errs = append(errs, fmt.Errorf("demo.interval: %s must be ≥ 1s: it is the pause between demo periods, and below that the feed writes periods back to back", c.Demo.Interval))
	case c.Demo.Interval < 0:
		errs = append(errs, fmt.Errorf("demo.interval: %s must not be negative", c.Demo.Interval))
	}
	for i, h := range c.HTTPHosts {
		if err := checkHostPort(h); err != nil {
			errs = append(errs, fmt.Errorf("http_allowed_hosts[%d]: %w", i, err))
		}
	}
	errs = append(errs, c.SQL.validate()...)
	errs = append(errs, c.Alerts.validate()...)
	// kafka.partitions (1..1024) is checked there.
	k := c.Kafka
	errs = append(errs, k.Validate()...)
	return errs
}

// validate checks the limits of the SQL API. The bounds are sanity bounds:
// zero or negative limits would reject every query or lift the limit, and
// huge ones are typos that would let one query take the machine.
func (s SQLConfig) validate() []error {
	var errs []error
	if s.Timeout < time.Second || s.Timeout > time.Hour {
		errs = append(errs, fmt.Errorf("sql.timeout: %s is out of range 1s..1h", s.Timeout))
	}
	for _, r := range []struct {
		path   string
		n      int64
		lo, hi int64 // hi < 0: no upper bound
	}{
		{"sql.max_memory_mb", s.MaxMemoryMB, 16, 1 << 20},
		{"sql.max_result_rows", s.MaxResultRows, 1, -1},
		{"sql.max_result_mb", s.MaxResultMB, 1, 4096},
		{"sql.max_threads", int64(s.MaxThreads), 0, -1},
		{"sql.max_concurrency", int64(s.MaxConcurrency), 1, 64},
	} {
		switch {
		case r.hi < 0 && r.n < r.lo:
			errs = append(errs, fmt.Errorf("%s: %d must be ≥ %d", r.path, r.n, r.lo))
		case r.hi >= 0 && (r.n < r.lo || r.n > r.hi):
			errs = append(errs, fmt.Errorf("%s: %d is out of range %d..%d", r.path, r.n, r.lo, r.hi))
		}
	}
	if len(s.Databases) == 0 {
		errs = append(errs, errors.New("sql.databases: must list at least one database"))
	}
	for i, db := range s.Databases {
		if !isIdentifier(db) {
			errs = append(errs, fmt.Errorf("sql.databases[%d]: %q is not a plain identifier (letters, digits and underscores, not starting with a digit)", i, db))
		}
	}
	return errs
}

// isIdentifier reports whether s is a plain SQL identifier: the names the SQL
// API checks queries against never need quoting, so a quote, dot or space in
// one is a mistake.
func isIdentifier(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// checkHostPort accepts what a Host header carries: host or host:port, an
// IPv6 address in brackets. A URL is the likely mistake, and would never
// match a Host header.
func checkHostPort(h string) error {
	switch {
	case h == "":
		return errors.New("must not be empty")
	case strings.Contains(h, "://"):
		return fmt.Errorf("%q has a scheme; want host or host:port", h)
	case strings.ContainsAny(h, "/?#"):
		return fmt.Errorf("%q has a path; want host or host:port", h)
	case strings.ContainsAny(h, "@ \t"):
		return fmt.Errorf("%q is not host or host:port", h)
	}
	host := h
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		host = h[1 : len(h)-1] // [::1] without a port
	} else if strings.Contains(h, ":") {
		var port string
		var err error
		if host, port, err = net.SplitHostPort(h); err != nil {
			return fmt.Errorf("%q is not host or host:port", h)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%q: port %q is not 1..65535", h, port)
		}
	}
	if host == "" {
		return fmt.Errorf("%q has no host", h)
	}
	return nil
}

// leaf is one settable key of Config.
type leaf struct {
	path string // yaml path, dotted
	flag string
	env  string
	help string
	v    reflect.Value
}

func leaves(v reflect.Value, prefix string) []leaf {
	var out []leaf
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if isInline(f) {
			out = append(out, leaves(v.Field(i), prefix)...)
			continue
		}
		name := yamlName(f)
		if name == "" || name == "-" {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		fv := v.Field(i)
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Duration(0)) {
			out = append(out, leaves(fv, path)...)
			continue
		}
		if f.Type.Kind() == reflect.Map || (f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct) {
			continue // sections by name (stages.chunk.sources), lists of sections (alerts.receivers): YAML only
		}
		fl := f.Tag.Get("flag")
		if fl == "" {
			fl = strings.NewReplacer(".", "-", "_", "-").Replace(path)
		}
		env := f.Tag.Get("env")
		if env == "" {
			env = "ROBUSTREAM_" + strings.ToUpper(strings.NewReplacer(".", "_").Replace(path))
		}
		out = append(out, leaf{path: path, flag: fl, env: env, help: f.Tag.Get("help"), v: fv})
	}
	return out
}

// set parses s into a leaf according to its type.
func (l leaf) set(s string) error {
	switch l.v.Interface().(type) {
	case string:
		l.v.SetString(s)
	case []string:
		var parts []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		l.v.Set(reflect.ValueOf(parts))
	case bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%s: %q is not a boolean", l.path, s)
		}
		l.v.SetBool(b)
	case time.Duration:
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%s: %q is not a duration (e.g. 30s)", l.path, s)
		}
		l.v.SetInt(int64(d))
	case []time.Duration: // comma-separated
		var ds []time.Duration
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			d, err := time.ParseDuration(p)
			if err != nil {
				return fmt.Errorf("%s: %q is not a duration (e.g. 30s)", l.path, p)
			}
			ds = append(ds, d)
		}
		l.v.Set(reflect.ValueOf(ds))
	case int, int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not an integer", l.path, s)
		}
		l.v.SetInt(n)
	case float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", l.path, s)
		}
		l.v.SetFloat(f)
	default:
		return fmt.Errorf("%s: unsupported type %s", l.path, l.v.Type())
	}
	return nil
}

// loader binds a Config to a FlagSet and applies, in order: defaults, the
// YAML file of --config, the environment, the flags.
type loader struct {
	cfg    *Config
	fs     *flag.FlagSet
	file   string
	dryRun bool
	flags  map[string]string
	leaves []leaf
}

func newLoader(fs *flag.FlagSet, keys ...string) *loader {
	return newLoaderWith(fs, nil, keys...)
}

// newLoaderWith is newLoader with a command's own defaults applied to
// defaultConfig() (nil: none), before the flags show them in -h.
func newLoaderWith(fs *flag.FlagSet, defaults func(*Config), keys ...string) *loader {
	l := &loader{cfg: new(Config), fs: fs, flags: map[string]string{}}
	*l.cfg = defaultConfig()
	if defaults != nil {
		defaults(l.cfg)
	}
	l.leaves = leaves(reflect.ValueOf(l.cfg).Elem(), "")
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	// "stages.*" binds every key under stages.
	wanted := func(path string) bool {
		for k := range want {
			if p, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(path, p) {
				return true
			}
		}
		return want[path]
	}
	fs.StringVar(&l.file, "config", os.Getenv("ROBUSTREAM_CONFIG"), "YAML configuration file")
	fs.BoolVar(&l.dryRun, "dry-run", false, "validate the configuration, report every error and exit")
	for _, lf := range l.leaves {
		if len(keys) > 0 && !wanted(lf.path) {
			continue
		}
		name := lf.flag
		def := fmt.Sprint(lf.v.Interface())
		if ss, ok := lf.v.Interface().([]string); ok {
			def = strings.Join(ss, ",")
		}
		fs.Func(name, fmt.Sprintf("%s (env %s, default %q)", lf.help, lf.env, def), func(s string) error {
			l.flags[name] = s
			return nil
		})
	}
	return l
}

// load applies file, environment and flags (fs must be parsed) and returns
// the config and every error found, each with its path.
func (l *loader) load() (*Config, []error) {
	var errs []error
	if l.file != "" {
		b, err := os.ReadFile(l.file)
		if err != nil {
			return nil, []error{fmt.Errorf("config: %w", err)}
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(l.cfg); err != nil && !errors.Is(err, io.EOF) {
			errs = append(errs, fmt.Errorf("config %s: %w", l.file, err))
		}
	}
	for _, lf := range l.leaves {
		if s, ok := os.LookupEnv(lf.env); ok {
			if err := lf.set(s); err != nil {
				errs = append(errs, fmt.Errorf("env %s: %w", lf.env, err))
			}
		}
	}
	names := make([]string, 0, len(l.flags))
	for n := range l.flags {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, lf := range l.leaves {
			if lf.flag == n {
				if err := lf.set(l.flags[n]); err != nil {
					errs = append(errs, fmt.Errorf("--%s: %w", n, err))
				}
			}
		}
	}
	if l.cfg.Log.Format == "" {
		// Logs: text for a person at a terminal, JSON in cluster mode.
		l.cfg.Log.Format = "text"
		if len(l.cfg.Kafka.Brokers) > 0 {
			l.cfg.Log.Format = "json"
		}
	}
	errs = append(errs, l.cfg.Validate()...)
	return l.cfg, errs
}
