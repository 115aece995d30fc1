package streams

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTopicLiteralsInOneFile: topic names are spelled in topology.go only;
// everything else uses the constants or derives from Topology.
func TestTopicLiteralsInOneFile(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	literal := regexp.MustCompile(`"rs\.[a-z]`)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".chdb", ".cache", "bin", "data", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || rel == filepath.Join("streams", "topology.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if literal.MatchString(line) {
				t.Errorf("%s:%d spells a topic name: %s (use the constants of streams/topology.go)", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTopology(t *testing.T) {
	seen := map[string]bool{}
	for _, ts := range Topology {
		if seen[ts.Name] {
			t.Errorf("%s declared twice", ts.Name)
		}
		seen[ts.Name] = true
		if ts.Event == "" || ts.Key == "" {
			t.Errorf("%s: event and key must be declared", ts.Name)
		}
	}
	if TableOf(TopicOutcomes) != "outcomes" || TableOf(TopicEvalRequests) != "" || TableOf("nope") != "" {
		t.Error("TableOf disagrees with Topology")
	}
}

// TestUndeclaredOutputIsDeadLettered: a processor writing to a topic its
// stage did not declare has its input dead-lettered with the reason; its
// declared outputs flow.
func TestUndeclaredOutputIsDeadLettered(t *testing.T) {
	b, k := newTestKafka(t, "")
	defer b.Close()
	produceN(t, k, "in", 6, func(i int) string { return "v" + strconv.Itoa(i) })
	if err := k.EnsureTopics(context.Background(), "out", "stray", TopicDLQ); err != nil {
		t.Fatal(err)
	}
	p := funcProcessor{name: "p", fn: func(_ context.Context, m Message) ([]Record, error) {
		topic := "out"
		if string(m.Value) == "v2" {
			topic = "stray"
		}
		return []Record{{Topic: topic, Key: m.Key, Value: m.Value}}, nil
	}}
	r := NewRunner(k, quietLog(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.Run(ctx, Stage{Name: "p", Inputs: []string{"in"}, Outputs: []string{"out"}, Processor: p})
	}()
	drain(t, r, map[string][]string{"p": {"in"}})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(readAll(t, k, "out")); n != 5 {
		t.Errorf("%d records on the declared output, want 5", n)
	}
	if n := len(readAll(t, k, "stray")); n != 0 {
		t.Errorf("%d records on the undeclared topic, want 0", n)
	}
	dead := readAll(t, k, TopicDLQ)
	if len(dead) != 1 {
		t.Fatalf("%d dead letters, want 1", len(dead))
	}
	for _, h := range dead[0].Headers {
		if h.Key == HeaderDLQError && !strings.Contains(string(h.Value), "undeclared topic") {
			t.Errorf("dead letter reason %q", h.Value)
		}
	}
}
