package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// dryRunChecks are the checks of --dry-run beyond the configuration's own
// validation, the models and the stages: what the engine would only find
// once started, each error with its key. They read the file system and the
// environment, never the network.
func dryRunChecks(cfg *Config) []error {
	var errs []error
	// A source reading a path: the path must be there.
	if kind, arg, err := parseSourceSpec(cfg.Source); err == nil && kind != nil {
		var path string
		switch kind.name {
		case "dir", "goldens":
			path = arg
		case "jsonl":
			path, _, _ = jsonlArg(arg)
		}
		if path != "" {
			st, err := os.Stat(path)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("source: %s: %w", cfg.Source, errors.Unwrap(err)))
			case kind.name == "dir" && !st.IsDir():
				errs = append(errs, fmt.Errorf("source: %s: %s is not a directory", cfg.Source, path))
			case kind.name != "dir" && st.IsDir():
				errs = append(errs, fmt.Errorf("source: %s: %s is a directory, not a file", cfg.Source, path))
			}
		}
	}
	// A WordNet directory named explicitly must hold the dictionary (the
	// default one may be missing: the wordnet kind is then skipped, and
	// says so).
	if dir := cfg.Stages.Perturb.WordNetDir; dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "index.noun")); err != nil {
			errs = append(errs, fmt.Errorf("stages.perturb.wordnet_dir: %s holds no WordNet dictionary (index.noun: %v)", dir, errors.Unwrap(err)))
		}
	}
	// Kafka's secrets and CA file.
	k := cfg.Kafka
	if name := k.SASLPasswordEnv; name != "" && os.Getenv(name) == "" {
		errs = append(errs, fmt.Errorf("kafka.sasl_password_env: environment variable %s is not set", name))
	}
	if f := k.SASLPasswordFile; f != "" {
		if _, err := os.ReadFile(f); err != nil {
			errs = append(errs, fmt.Errorf("kafka.sasl_password_file: %w", err))
		}
	}
	if k.SASLMechanism != "" && k.SASLPasswordEnv == "" && k.SASLPasswordFile == "" {
		errs = append(errs, errors.New("kafka.sasl_mechanism: needs kafka.sasl_password_env or kafka.sasl_password_file"))
	}
	if f := k.TLSCAFile; f != "" {
		b, err := os.ReadFile(f)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("kafka.tls_ca_file: %w", err))
		case !strings.Contains(string(b), "-----BEGIN CERTIFICATE-----"):
			errs = append(errs, fmt.Errorf("kafka.tls_ca_file: %s holds no PEM certificate", f))
		}
	}
	return errs
}
