package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestBenchRetrieval runs `bench retrieval` on small sizes: a row per size
// with the measured figures, and the embedding ranking in chDB when it is
// there.
func TestBenchRetrieval(t *testing.T) {
	var out bytes.Buffer
	args := []string{"-sizes", "300,600", "-probe", "100", "-queries", "20", "-dim", "16"}
	err := cmdBenchRetrieval(context.Background(), args, &out)
	if err != nil && strings.Contains(err.Error(), "chDB") {
		out.Reset()
		err = cmdBenchRetrieval(context.Background(), append(args, "-no-embedding"), &out)
	}
	if err != nil {
		t.Fatalf("bench retrieval: %v\n%s", err, out.String())
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == "300" || f[0] == "600") {
			rows++
			if strings.Contains(line, " 0.0 ") {
				t.Errorf("a zero figure: %q", line)
			}
		}
	}
	if rows != 2 {
		t.Errorf("%d size rows, want 2:\n%s", rows, out.String())
	}
}

// A run where no query retrieved anything measured nothing: an error, not
// a figure.
func TestBenchRetrievalRefusesEmptyRuns(t *testing.T) {
	if _, _, err := timeQueries([]string{"a", "b"}, func(string) (int, error) { return 0, nil }); err == nil {
		t.Error("queries that retrieved nothing gave a figure")
	}
	if _, _, err := timeQueries([]string{"a", "b"}, func(string) (int, error) { return 3, nil }); err != nil {
		t.Errorf("queries that retrieved something: %v", err)
	}
}
