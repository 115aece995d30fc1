package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// commonConfigFlags are the configuration flags `-h` shows first: where the
// data is, what is read and asked, where it is served. The command's own
// flags (not configuration keys) are shown with them.
var commonConfigFlags = []string{"config", "dry-run", "data-dir", "source", "models", "http", "http-token-env", "kafka-brokers",
	"clickhouse", "stages", "log-level", "demo-periods", "budget"}

// stageFlagPrefix marks the flags of the stages.* keys, shown by `-h stages`.
const stageFlagPrefix = "stages-"

// parseFlags parses args into fs with robustream's help and errors: -h
// prints the common flags first and the other configuration flags after
// them, the stage flags only with `-h stages`; an unknown flag is named with
// the nearest known one. The help goes to stdout and returns flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer, own map[string]bool) error {
	fs.SetOutput(io.Discard) // the flag package's own messages and usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		stages := false
		for i, a := range args {
			if (a == "-h" || a == "-help" || a == "--help" || a == "--h") && i+1 < len(args) && args[i+1] == "stages" {
				stages = true
			}
		}
		writeHelp(fs, stdout, own, stages)
		return flag.ErrHelp
	case err != nil:
		return flagError(fs, err)
	}
	return nil
}

// flagError rewrites the flag package's error for an undefined flag with
// the nearest defined name.
func flagError(fs *flag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	msg := fmt.Sprintf("unknown flag --%s", name)
	if near := nearestNames(name, names); len(near) > 0 {
		msg += "; did you mean --" + strings.Join(near, " or --") + "?"
	}
	return fmt.Errorf("%s (robustream %s -h lists the flags)", msg, fs.Name())
}

// nearestNames returns the names at the least edit distance from name, if
// that distance is small for its length (a third of the longer name, at
// least 2), or those that contain name as a whole.
func nearestNames(name string, names []string) []string {
	best, bestD := []string(nil), -1
	for _, n := range names {
		d := editDistance(name, n)
		limit := max(2, max(len(name), len(n))/3)
		if d > limit {
			continue
		}
		switch {
		case bestD < 0 || d < bestD:
			best, bestD = []string{n}, d
		case d == bestD:
			best = append(best, n)
		}
	}
	if len(best) == 0 && len(name) >= 3 {
		for _, n := range names {
			if strings.Contains(n, name) {
				best = append(best, n)
			}
		}
		if len(best) > 3 {
			best = best[:3]
		}
	}
	slices.Sort(best)
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes (flag
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// writeHelp prints a command's flags in groups: the command's own and the
// common configuration flags, then the rest of the configuration but the
// stages', which only `-h stages` prints.
func writeHelp(fs *flag.FlagSet, w io.Writer, own map[string]bool, stages bool) {
	var common, other, stage []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		switch {
		case strings.HasPrefix(f.Name, stageFlagPrefix):
			stage = append(stage, f)
		case own[f.Name] || slices.Contains(commonConfigFlags, f.Name):
			common = append(common, f)
		default:
			other = append(other, f)
		}
	})
	if stages {
		fmt.Fprintf(w, "Usage: robustream %s [flags]\n\nStage flags (stages.* keys of the configuration file; env ROBUSTREAM_STAGES_…):\n", fs.Name())
		printFlags(w, stage)
		return
	}
	fmt.Fprintf(w, "Usage: robustream %s [flags]\n\nCommon flags:\n", fs.Name())
	printFlags(w, common)
	if len(other) > 0 {
		fmt.Fprintf(w, "\nOther configuration flags (each a key of the configuration file, also set by its env variable):\n")
		printFlags(w, other)
	}
	if len(stage) > 0 {
		fmt.Fprintf(w, "\n%d stage flags (stages.chunk, stages.perturb, stages.infer, …): robustream %s -h stages\n", len(stage), fs.Name())
	}
}

func printFlags(w io.Writer, flags []*flag.Flag) {
	for _, f := range flags {
		kind, usage := flag.UnquoteUsage(f)
		if kind == "value" {
			kind = "" // a configuration key's type is in its help
		}
		fmt.Fprintf(w, "  --%s", f.Name)
		if kind != "" {
			fmt.Fprintf(w, " %s", kind)
		}
		fmt.Fprintf(w, "\n      %s\n", usage)
	}
}
