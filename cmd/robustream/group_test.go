package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/robustream/robustream/processors/fanout"
	"github.com/robustream/robustream/processors/provider"
	"github.com/robustream/robustream/processors/reader"
	"github.com/robustream/robustream/schemas"
	"github.com/robustream/robustream/streams"
)

// TestGroupSharesAndHandsOverPartitions is the consumer-group acceptance
// check: two `run --stages infer` processes against one shared broker form
// the group robustream.infer, both own and work partitions, and when one is
// stopped while its partitions still hold unprocessed requests, the other
// takes them over and every request gets a result (duplicates are allowed:
// delivery is at-least-once).
func TestGroupSharesAndHandsOverPartitions(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) { testGroupHandover(t, sig) })
	}
}

// groupPhase is the number of requests produced in each of the three phases.
const groupPhase = 1000

func testGroupHandover(t *testing.T, stop syscall.Signal) {
	start := time.Now()
	tb := startBroker(t)
	k := testKafka(t, tb)
	ctx := context.Background()
	if err := k.EnsureTopics(ctx, allTopics()...); err != nil {
		t.Fatal(err)
	}
	w := k.NewWriter()
	defer w.Close()
	reqs := evalRequests(t, 3*groupPhase)
	produce := func(recs []streams.Record) {
		t.Helper()
		if err := streams.Produce(ctx, w, recs...); err != nil {
			t.Fatal(err)
		}
	}

	// Phase 1: work is waiting before the workers start, so the first
	// member to join starts on it at once.
	produce(reqs[:groupPhase])
	args := append([]string{"run", "--stages", "infer", "--source", "none", "--http", ""}, tb.args()...)
	a, aOut := startRobustream(t, append(args, "--data-dir", t.TempDir())...)
	b, bOut := startRobustream(t, append(args, "--data-dir", t.TempDir())...)
	logs := func() string {
		return fmt.Sprintf("process A:\n%s\nprocess B:\n%s", tail(aOut.String(), 3000), tail(bOut.String(), 3000))
	}

	group := streams.GroupPrefix + reader.StageName
	var shared map[string][]int // member id → partitions of rs.eval.requests
	waitFor(t, 30*time.Second, "two members sharing the four partitions", func() (bool, string) {
		m, state, err := groupMembers(ctx, k, group)
		if err != nil {
			return false, err.Error()
		}
		shared = m
		return state == "Stable" && len(m) == 2 && coversAll(m, 4) && allNonEmpty(m), fmt.Sprintf("state %s, members %v", state, m)
	}, logs)
	t.Logf("%.1fs: group %s is stable with 2 members: %v", time.Since(start).Seconds(), group, shared)

	// Phase 2: with the assignment fixed, every partition's commits can only
	// come from its owner, so both processes draining their share shows both
	// work (not just hold partitions).
	produce(reqs[groupPhase : 2*groupPhase])
	waitFor(t, 30*time.Second, "both members to drain phase 2", func() (bool, string) {
		lag, err := groupLag(ctx, k, group, streams.TopicEvalRequests)
		if err != nil {
			return false, err.Error()
		}
		return sumLag(lag) == 0, fmt.Sprintf("lag %v", lag)
	}, logs)
	if m, _, err := groupMembers(ctx, k, group); err != nil || !sameAssignment(m, shared) {
		t.Fatalf("the group rebalanced during phase 2 (%v → %v, %v): it cannot show that both members worked", shared, m, err)
	}
	t.Logf("%.1fs: both members drained phase 2 on their own partitions", time.Since(start).Seconds())

	// Phase 3: freeze A so that what lands on its partitions now is work it
	// cannot have done when it is stopped.
	if err := a.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	produce(reqs[2*groupPhase:])
	atStop, err := groupLag(ctx, k, group, streams.TopicEvalRequests)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Process.Signal(stop); err != nil {
		t.Fatal(err)
	}
	if stop != syscall.SIGKILL {
		// The pending SIGTERM is delivered as A resumes.
		if err := a.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
	}
	st := waitExit(t, a, 20*time.Second, aOut)
	if stop == syscall.SIGTERM && !st.Success() {
		t.Fatalf("A did not shut down cleanly on SIGTERM: %v\n%s", st, tail(aOut.String(), 3000))
	}
	t.Logf("%.1fs: A stopped with %s (%v); lag per partition when it was stopped: %v", time.Since(start).Seconds(), stop, st, atStop)

	// B alone owns everything, including A's former partitions.
	var left map[string][]int
	waitFor(t, 45*time.Second, "B to own all four partitions", func() (bool, string) {
		m, state, err := groupMembers(ctx, k, group)
		if err != nil {
			return false, err.Error()
		}
		left = m
		return state == "Stable" && len(m) == 1 && coversAll(m, 4), fmt.Sprintf("state %s, members %v", state, m)
	}, logs)
	var aParts []int
	for id, ps := range shared {
		if _, ok := left[id]; !ok {
			aParts = append(aParts, ps...)
		}
	}
	if len(aParts) == 0 || len(aParts) == 4 {
		t.Fatalf("cannot tell A's partitions: before %v, after %v", shared, left)
	}
	var pending int64
	for _, p := range aParts {
		pending += atStop[p]
	}
	if pending == 0 {
		t.Fatalf("A's partitions %v held no unprocessed requests when A was stopped (lag %v): nothing was handed over", aParts, atStop)
	}
	t.Logf("%.1fs: B owns all partitions; A's partitions %v held %d unprocessed requests when A stopped", time.Since(start).Seconds(), aParts, pending)

	waitFor(t, 30*time.Second, "B to drain every partition", func() (bool, string) {
		lag, err := groupLag(ctx, k, group, streams.TopicEvalRequests)
		if err != nil {
			return false, err.Error()
		}
		return sumLag(lag) == 0, fmt.Sprintf("lag %v", lag)
	}, logs)
	// B is still up and, told to stop, shuts down cleanly.
	if err := b.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if st := waitExit(t, b, 20*time.Second, bOut); !st.Success() {
		t.Fatalf("B: %v\n%s", st, tail(bOut.String(), 3000))
	}

	// Nothing lost: a result for every request, and none for anything else.
	want := map[string]bool{}
	for _, r := range reqs {
		want[string(r.Key)+"/"+variantOf(t, r)] = true
	}
	got := map[string]int{}
	for _, m := range readTopic(t, k, streams.TopicEvalResults) {
		var res schemas.EvalResult
		if err := schemas.Decode(m.Value, &res); err != nil {
			t.Fatalf("result at %d/%d: %v", m.Partition, m.Offset, err)
		}
		if res.Error != "" {
			t.Errorf("request %s failed: %s", res.RequestID, res.Error)
		}
		got[res.QuestionID+"/"+res.VariantID]++
	}
	var missing, unknown []string
	dups := 0
	for id := range want {
		if got[id] == 0 {
			missing = append(missing, id)
		}
	}
	for id, n := range got {
		if !want[id] {
			unknown = append(unknown, id)
		}
		dups += n - 1
	}
	if len(missing) > 0 || len(unknown) > 0 {
		sort.Strings(missing)
		t.Fatalf("%d of %d requests have no result (e.g. %v); %d results for unknown requests", len(missing), len(want), first(missing, 5), len(unknown))
	}
	t.Logf("%.1fs: %d distinct results for %d requests (%d redelivered duplicates)", time.Since(start).Seconds(), len(got), len(want), dups)
}

// evalRequests builds n valid, distinct requests for builtin:lexical, as the
// fan-out would: one question each (so keys spread over the partitions),
// a realistic prompt, and a set of one.
func evalRequests(t *testing.T, n int) []streams.Record {
	t.Helper()
	companies := []string{"Acme Corp", "Globex Industries", "Initech", "Northwind Bank", "Umbrella Health", "Stark Logistics", "Wayne Foods"}
	published := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	out := make([]streams.Record, n)
	for i := range out {
		company := fmt.Sprintf("%s Unit %d", companies[i%len(companies)], i)
		engineers := strconv.Itoa(100 + i%900)
		query := fmt.Sprintf("How many engineers did %s hire in 2025?", company)
		contexts := []string{
			fmt.Sprintf("%s hired %s engineers in 2025. The company opened a new office in Lisbon.", company, engineers),
			fmt.Sprintf("%s reported stable revenue in the third quarter.", company),
		}
		qid := schemas.ID("group-test-question", company)
		prompt := fanout.Prompt(query, contexts)
		req := &schemas.EvalRequest{
			QuestionRef: schemas.QuestionRef{QuestionID: qid, Pattern: schemas.PatternSingle, Hops: 1, Domain: "business", PublishedAt: published},
			RequestID:   fanout.RequestID(provider.IDLexical, prompt, ""),
			ModelID:     provider.IDLexical,
			VariantID:   schemas.ID(qid, schemas.AxisOriginal),
			Prompt:      prompt,
			Query:       query,
			Contexts:    contexts,
			Accepted:    []string{engineers, engineers + " engineers"},
			Axis:        schemas.AxisOriginal,
			Kind:        schemas.AxisOriginal,
			Expected:    1,
		}
		req.AnswerAvailable = true // the context holds the answer
		schemas.Stamp(req, req.RequestID)
		b, err := schemas.Encode(req)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = streams.Record{Topic: streams.TopicEvalRequests, Key: []byte(req.Key()), Value: b}
	}
	return out
}

func variantOf(t *testing.T, r streams.Record) string {
	t.Helper()
	var req schemas.EvalRequest
	if err := schemas.Decode(r.Value, &req); err != nil {
		t.Fatal(err)
	}
	return req.VariantID
}

// groupMembers returns the members of a consumer group with their
// partitions of rs.eval.requests, and the group's state.
func groupMembers(ctx context.Context, k *streams.Kafka, group string) (map[string][]int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := k.Client().DescribeGroups(ctx, &kafka.DescribeGroupsRequest{GroupIDs: []string{group}})
	if err != nil {
		return nil, "", err
	}
	if len(resp.Groups) != 1 {
		return nil, "", fmt.Errorf("%d groups described", len(resp.Groups))
	}
	g := resp.Groups[0]
	if g.Error != nil {
		return nil, "", g.Error
	}
	out := map[string][]int{}
	for _, m := range g.Members {
		var ps []int
		for _, tp := range m.MemberAssignments.Topics {
			if tp.Topic == streams.TopicEvalRequests {
				ps = append(ps, tp.Partitions...)
			}
		}
		sort.Ints(ps)
		out[m.MemberID] = ps
	}
	return out, g.GroupState, nil
}

// coversAll reports whether the members own partitions 0..n-1, each once.
func coversAll(m map[string][]int, n int) bool {
	seen := map[int]int{}
	for _, ps := range m {
		for _, p := range ps {
			seen[p]++
		}
	}
	if len(seen) != n {
		return false
	}
	for p := 0; p < n; p++ {
		if seen[p] != 1 {
			return false
		}
	}
	return true
}

func allNonEmpty(m map[string][]int) bool {
	for _, ps := range m {
		if len(ps) == 0 {
			return false
		}
	}
	return true
}

func sameAssignment(a, b map[string][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for id, ps := range a {
		if fmt.Sprint(ps) != fmt.Sprint(b[id]) {
			return false
		}
	}
	return true
}

// groupLag returns, per partition of topic, how many records the group has
// not committed yet.
func groupLag(ctx context.Context, k *streams.Kafka, group, topic string) (map[int]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ends, err := k.EndOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	committed, err := k.CommittedOffsets(ctx, group, ends)
	if err != nil {
		return nil, err
	}
	lag := map[int]int64{}
	for p, end := range ends[topic] {
		c, ok := committed[topic][p]
		if !ok || c < 0 {
			c = 0
		}
		lag[p] = end - c
	}
	return lag, nil
}

func sumLag(lag map[int]int64) int64 {
	var n int64
	for _, l := range lag {
		n += l
	}
	return n
}

func first(ss []string, n int) []string {
	if len(ss) > n {
		return ss[:n]
	}
	return ss
}

// testBroker is a `robustream broker` process: its address and the file
// holding its SASL password.
type testBroker struct{ addr, passFile string }

// args are the flags with which a robustream process connects to it.
func (b testBroker) args() []string {
	return []string{"--kafka-brokers", b.addr, "--kafka-sasl-mechanism", "scram-sha-256",
		"--kafka-sasl-user", streams.BrokerUser, "--kafka-sasl-password-file", b.passFile}
}

// config is how a client of the test process connects to it.
func (b testBroker) config() streams.KafkaConfig {
	return streams.KafkaConfig{Brokers: []string{b.addr}, Partitions: 4, SASLMechanism: "scram-sha-256",
		SASLUser: streams.BrokerUser, SASLPasswordFile: b.passFile}
}

// startBroker runs `robustream broker` on a free port with its own data
// directory.
func startBroker(t *testing.T) testBroker {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	dir := t.TempDir()
	startRobustream(t, "broker", "--data-dir", dir, "--listen", addr)
	waitListening(t, addr, 20*time.Second)
	return testBroker{addr: addr, passFile: streams.BrokerPasswordFile(filepath.Join(dir, "kafka"))}
}

// testKafka is a client of the test's broker with the engine's partition
// count.
func testKafka(t *testing.T, b testBroker) *streams.Kafka {
	t.Helper()
	k, err := streams.NewKafka(b.config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// readTopic reads every partition of topic from its start to its current
// end.
func readTopic(t *testing.T, k *streams.Kafka, topic string) []kafka.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ends, err := k.EndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var out []kafka.Message
	for p, end := range ends[topic] {
		if end <= 0 {
			continue
		}
		rd := kafka.NewReader(kafka.ReaderConfig{Brokers: k.Brokers(), Dialer: k.Dialer(), Topic: topic, Partition: p, MinBytes: 1, MaxBytes: 8 << 20, MaxWait: 200 * time.Millisecond})
		if err := rd.SetOffset(kafka.FirstOffset); err != nil {
			t.Fatal(err)
		}
		for {
			m, err := rd.ReadMessage(ctx)
			if err != nil {
				rd.Close()
				t.Fatalf("reading %s/%d (end %d): %v", topic, p, end, err)
			}
			out = append(out, m)
			if m.Offset+1 >= end {
				break
			}
		}
		rd.Close()
	}
	return out
}

// waitFor polls cond until it holds, failing after within with cond's last
// status and, if given, the processes' logs.
func waitFor(t *testing.T, within time.Duration, what string, cond func() (bool, string), logs func() string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, status := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("timed out after %s waiting for %s; last: %s", within, what, status)
			if logs != nil {
				msg += "\n" + logs()
			}
			t.Fatal(msg)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitExit waits for cmd (started by startRobustream) to exit; past within
// it kills the process and fails.
func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration, out fmt.Stringer) *os.ProcessState {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
	case <-time.After(within):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not exit within %s:\n%s", filepath.Base(cmd.Path), within, tail(out.String(), 3000))
	}
	return cmd.ProcessState
}
