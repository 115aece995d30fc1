package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/robustream/robustream/streams"
)

// Config is robustream's one configuration. Every leaf key can be set in the
// YAML file, overridden by the environment (ROBUSTREAM_ + the upper-case
// path, e.g. ROBUSTREAM_KAFKA_BROKERS) and then by a flag (the path with
// dashes, e.g. --kafka-brokers, or the name in the field's flag tag).
type Config struct {
	DataDir string   `yaml:"data_dir" help:"where the embedded broker and ClickHouse keep their data"`
	HTTP    string   `yaml:"http" help:"address of the dashboard, API and /metrics"`
	Stages  []string `yaml:"stages" help:"stages to run (default: all); e.g. chunk,triplets"`
	// Source feeds the pipeline in run mode: demo, dir:PATH, or none.
	Source     string              `yaml:"source" help:"source of run: demo, dir:PATH or none"`
	Models     string              `yaml:"models" help:"models.yaml listing the models under test (default: the built-in readers)"`
	Kafka      streams.KafkaConfig `yaml:"kafka"`
	ClickHouse ClickHouseConfig    `yaml:"clickhouse"`
	Demo       DemoConfig          `yaml:"demo"`
	Log        LogConfig           `yaml:"log"`
	HTTPToken  string              `yaml:"http_token_env" flag:"http-token-env" help:"environment variable holding the bearer token of the SQL API when --http is not loopback"`
}

// ClickHouseConfig selects the ClickHouse engine.
type ClickHouseConfig struct {
	URL     string `yaml:"url" flag:"clickhouse" help:"clickhouse://user:pass@host:9000/db for a server; empty for embedded chDB"`
	ChDBLib string `yaml:"chdb_lib" help:"path of libchdb.so (default: .chdb/lib/libchdb.so)"`
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
		DataDir: "data",
		HTTP:    "127.0.0.1:8080",
		Source:  "demo",
		Kafka:   streams.KafkaConfig{Partitions: 4},
		Demo:    DemoConfig{Seed: 1, Periods: 0, Interval: 20 * time.Second},
		Log:     LogConfig{Level: "info"},
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
	for _, s := range c.Stages {
		if !knownStage(s) {
			errs = append(errs, fmt.Errorf("stages: unknown stage %q (known: source, %s, or sinks for all sinks)", s, strings.Join(stageNames(), ", ")))
		}
	}
	if c.Source != "none" && c.Source != "" {
		if _, err := parseSourceSpec(c.Source); err != nil {
			errs = append(errs, fmt.Errorf("source: %w", err))
		}
	}
	if u := c.ClickHouse.URL; u != "" && !strings.HasPrefix(u, "clickhouse://") {
		errs = append(errs, fmt.Errorf("clickhouse.url: %q must start with clickhouse://", u))
	}
	if c.Models != "" {
		if _, err := os.Stat(c.Models); err != nil {
			errs = append(errs, fmt.Errorf("models: %w", err))
		}
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
		errs = append(errs, errors.New("demo.periods: must be ≥ 0"))
	}
	k := c.Kafka
	errs = append(errs, k.Validate()...)
	return errs
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
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
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
		fl := f.Tag.Get("flag")
		if fl == "" {
			fl = strings.NewReplacer(".", "-", "_", "-").Replace(path)
		}
		env := "ROBUSTREAM_" + strings.ToUpper(strings.NewReplacer(".", "_").Replace(path))
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
	l := &loader{cfg: new(Config), fs: fs, flags: map[string]string{}}
	*l.cfg = defaultConfig()
	l.leaves = leaves(reflect.ValueOf(l.cfg).Elem(), "")
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	fs.StringVar(&l.file, "config", os.Getenv("ROBUSTREAM_CONFIG"), "YAML configuration file")
	fs.BoolVar(&l.dryRun, "dry-run", false, "validate the configuration, report every error and exit")
	for _, lf := range l.leaves {
		if len(keys) > 0 && !want[lf.path] {
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
