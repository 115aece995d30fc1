package simserver

import (
	"maps"
	"slices"
	"sort"
	"time"
)

// Stats are the server's counters since Start or the last ResetStats,
// across Kill and Restart.
type Stats struct {
	// Requests counts the inference requests received (chat, completions,
	// embeddings); Completed those answered 200 with a valid body; Failed
	// those answered with an injected fault, or hung by one until the
	// client gave up; Invalid those refused for the client's own fault
	// (400, 401, 404); Aborted those dropped because the client went away
	// or the server was killed while they waited or ran.
	Requests, Completed, Failed, Invalid, Aborted int
	// Prompts counts the prompts received in valid chat and completions
	// requests (a completions request may carry a list), Distinct the
	// different texts among them and Answered those answered 200.
	// Duplicates counts the prompts received that had been answered
	// before (the same exact text: one model is served), which a
	// dispatcher that never sends a prompt twice keeps at zero. A prompt
	// whose answer may never have reached the client is not counted when
	// sent again: one that failed, and one whose answer's connection
	// closed within Config.LostCut of it without carrying another request
	// (the client gave up at its deadline as the answer went out, or a
	// Kill took the connection). Prompts − Distinct counts every resend.
	Prompts, Distinct, Answered, Duplicates int
	// PromptTokens and CachedTokens count the prompt tokens of the
	// sequences admitted and those of them found in the prefix cache;
	// CompletionTokens counts the output tokens of the prompts answered.
	PromptTokens, CachedTokens, CompletionTokens int
	// Temperatures counts the chat and completions requests that set a
	// temperature, by value. The server ignores it otherwise.
	Temperatures map[float64]int
	// Running and Waiting are the sequences running and queued now;
	// MaxRunning is the most that ran at once, never above MaxNumSeqs.
	Running, Waiting, MaxRunning int
	// Served counts the sequences that held their slot for their whole
	// service time, whatever became of their response, and
	// MeanServiceTime is their mean time in a slot, measured: the modelled
	// time plus what sleeping overshoots, about half a millisecond on
	// Linux, so Capacity is what the server can really do.
	Served          int
	MeanServiceTime time.Duration
	// BusyTime is the slot time held by all sequences, served or aborted,
	// and Elapsed the wall time, both since Start or ResetStats.
	BusyTime, Elapsed time.Duration
	// Utilization is BusyTime / (MaxNumSeqs × Elapsed): 1 when every slot
	// was busy all the time.
	Utilization float64
	// Capacity is the most sequences per second the server can complete
	// with the prompts it was sent, MaxNumSeqs / MeanServiceTime, and
	// Throughput the prompts per second it answered 200. For requests of
	// one prompt, sequences are requests. Capacity depends on the prompts
	// (their lengths, how much of them the prefix cache held, the output
	// lengths drawn), so a client that orders prompts to share prefixes
	// raises it.
	Capacity, Throughput float64
}

// CapacityShare is Throughput / Capacity, how close a client came to the
// most the server could have done with its prompts; 0 before anything was
// served.
func (st Stats) CapacityShare() float64 {
	if st.Capacity == 0 {
		return 0
	}
	return st.Throughput / st.Capacity
}

// PrefixHitRate is CachedTokens / PromptTokens, vLLM's prefix cache hit
// rate; 0 before any prompt.
func (st Stats) PrefixHitRate() float64 {
	if st.PromptTokens == 0 {
		return 0
	}
	return float64(st.CachedTokens) / float64(st.PromptTokens)
}

// counters is what Stats is computed from. Times are durations since
// Server.epoch.
type counters struct {
	Stats // the plain counts; the derived fields are filled by Stats()

	since       time.Duration // Start or the last ResetStats
	busy        time.Duration // slot time of the sequences released, and see ResetStats
	inSlot      int           // sequences holding a slot now, in any life
	admittedSum time.Duration // sum of their admission times
	serviceSum  time.Duration // slot time of the Served sequences
}

// promptKey identifies a prompt by its 128-bit hash, so that remembering
// every prompt costs 16 bytes each, not its text. A collision needs about
// 2^64 prompts.
type promptKey [2]uint64

func keyOf(prompt string) promptKey {
	return promptKey{fnv1a(fnvOffset, prompt), fnv1a(fnvOffset^0x9e3779b97f4a7c15, prompt)}
}

// promptRecord is what the server remembers of a prompt.
type promptRecord struct {
	received int // times received
	answered int // times answered 200
	// last is the delivery of its last answer.
	last delivery
}

// conn is what the server knows of one client connection.
type conn struct {
	requests int           // requests it carried
	closedAt time.Duration // when (s.now) it closed, 0 while open
	unread   bool          // the client reset it: it closed with data unread
}

// connKey is the context key of a request's *conn.
type connKey struct{}

// delivery is how an answer went out: on which connection, when (s.now),
// and how many requests that connection had carried by then.
type delivery struct {
	on       *conn
	at       time.Duration
	requests int
}

// DefaultLostCut is Config.LostCut's default: above the timeouts clients
// of a test server set, and short beside a keep-alive client's idle time.
const DefaultLostCut = 10 * time.Second

// reached reports whether the answer reached its client as far as the
// server can tell: the connection carried another request after it, or it
// stayed open for lostCut (Config.LostCut) and was not reset with the
// answer unread (a client stalled past its deadline drops the answer from
// its socket).
func (d delivery) reached(lostCut time.Duration) bool {
	switch {
	case d.on == nil || d.on.requests > d.requests:
		return true
	case d.on.closedAt > 0:
		return !d.on.unread && d.on.closedAt-d.at > lostCut
	}
	return true
}

// resend is the receipt of a prompt answered before.
type resend struct {
	prompt string
	last   delivery // of the answer before the receipt
}

// duplicates returns the resends of prompts whose answer reached the
// client. s.mu is held.
func (s *Server) duplicates() []resend {
	var out []resend
	for _, r := range s.resends {
		if r.last.reached(s.cfg.LostCut) {
			out = append(out, r)
		}
	}
	return out
}

// DuplicatedPrompts returns the prompts received again after they were
// answered, sorted: what a test names when it finds Stats().Duplicates.
func (s *Server) DuplicatedPrompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.duplicates() {
		if !slices.Contains(out, r.prompt) {
			out = append(out, r.prompt)
		}
	}
	sort.Strings(out)
	return out
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.stats
	st := c.Stats
	st.Duplicates = len(s.duplicates())
	st.Temperatures = maps.Clone(c.Temperatures)
	if st.Temperatures == nil {
		st.Temperatures = map[float64]int{}
	}
	now := s.now()
	st.Elapsed = now - c.since
	// Busy time of the sequences still in a slot counts up to now.
	st.BusyTime = c.busy + time.Duration(c.inSlot)*now - c.admittedSum
	if s.life != nil {
		st.Running, st.Waiting = s.life.slots.running, s.life.slots.queue.Len()
	}
	if st.Elapsed > 0 {
		st.Utilization = float64(st.BusyTime) / (float64(s.cfg.MaxNumSeqs) * float64(st.Elapsed))
		st.Throughput = float64(st.Answered) / st.Elapsed.Seconds()
	}
	if st.Served > 0 {
		st.MeanServiceTime = c.serviceSum / time.Duration(st.Served)
		st.Capacity = float64(s.cfg.MaxNumSeqs) / st.MeanServiceTime.Seconds()
	}
	return st
}

// ResetStats zeroes the counters and forgets which prompts were received
// and answered, so that Received and Duplicates start afresh; the prefix
// cache and the queue are left as they are.
func (s *Server) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	c := &s.stats
	*c = counters{
		since:       now,
		inSlot:      c.inSlot,
		admittedSum: c.admittedSum,
		// Sequences in a slot now count from now on: start busy below
		// zero by what they held before.
		busy: -(time.Duration(c.inSlot)*now - c.admittedSum),
	}
	if s.life != nil {
		c.MaxRunning = s.life.slots.running
	}
	s.seen = map[promptKey]*promptRecord{}
	s.resends = nil
	s.embedded = map[promptKey]int{}
}

// Received returns how many times prompt was received, in chat and
// completions requests, since Start or ResetStats.
func (s *Server) Received(prompt string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.seen[keyOf(prompt)]; r != nil {
		return r.received
	}
	return 0
}
