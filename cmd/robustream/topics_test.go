package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTopicsCreated: every topic a real run creates (the embedded broker's
// topics.json after `eval --once --source demo`) is printed by `robustream
// topics` with the same cleanup policy; changelogs are compacted; the
// partitions are kafka.partitions.
func TestTopicsCreated(t *testing.T) {
	out, err := runBinary(nil, "topics", "--source", "demo", "--kafka-partitions", "12")
	if err != nil {
		t.Fatalf("topics: %v\n%s", err, out)
	}
	printed := map[string]string{} // topic → cleanup policy
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && strings.HasPrefix(f[0], "rs.") {
			if f[1] != "12" {
				t.Errorf("%s: %s partitions, want 12", f[0], f[1])
			}
			printed[f[0]] = f[2]
		}
	}
	for name, policy := range printed {
		if compact := strings.HasPrefix(name, "rs.state."); (policy == "compact") != compact {
			t.Errorf("%s: cleanup.policy %s", name, policy)
		}
	}
	dir := demoEvalRun(t)
	b, err := os.ReadFile(filepath.Join(dir, "data", "kafka", "topics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Topics []struct {
			Name    string            `json:"name"`
			Configs map[string]string `json:"configs"`
		} `json:"topics"`
	}
	if err := json.Unmarshal(b, &created); err != nil {
		t.Fatal(err)
	}
	if len(created.Topics) < 10 {
		t.Fatalf("the run created %d topics", len(created.Topics))
	}
	for _, c := range created.Topics {
		want := "delete"
		if p := c.Configs["cleanup.policy"]; p != "" {
			want = p
		}
		got, ok := printed[c.Name]
		switch {
		case !ok:
			t.Errorf("the run created %s (cleanup.policy %s); robustream topics does not list it", c.Name, want)
		case got != want:
			t.Errorf("%s: the run created it with cleanup.policy %s, robustream topics says %s", c.Name, want, got)
		}
	}
	// The kafka-topics.sh form names the same topics.
	cmds, err := runBinary(nil, "topics", "--source", "demo", "--format", "kafka-topics", "--kafka-brokers", "k1:9092,k2:9092")
	if err != nil {
		t.Fatal(err)
	}
	for name, policy := range printed {
		if !strings.Contains(cmds, "--bootstrap-server k1:9092,k2:9092 --create --if-not-exists --topic "+name+" ") || !strings.Contains(cmds, "--topic "+name+" --partitions 4 --replication-factor 3 --config cleanup.policy="+policy) {
			t.Errorf("kafka-topics form lacks %s (%s):\n%s", name, policy, cmds)
		}
	}
}
