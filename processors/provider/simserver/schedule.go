package simserver

import (
	"container/list"
	"context"
	"math/rand/v2"
	"time"

	"github.com/robustream/robustream/processors/provider"
)

// slots are a life's MaxNumSeqs sequence slots and the FIFO queue of the
// sequences waiting for one, guarded by Server.mu.
type slots struct {
	running int
	queue   list.List // of *waiter, oldest at the front
}

func (sl *slots) init() { sl.queue.Init() }

// waiter is a queued sequence. A freed slot is handed to the oldest waiter
// directly, so a newcomer can never overtake the queue.
type waiter struct {
	ready    chan struct{} // closed when granted
	granted  bool
	admitted time.Duration // when granted, on the stats clock
	elem     *list.Element
}

// admit waits for a slot of l in FIFO order and returns when it was
// granted, or ctx's error if ctx ended first.
func (s *Server) admit(ctx context.Context, l *life) (time.Duration, error) {
	s.mu.Lock()
	if l.slots.running < s.cfg.MaxNumSeqs && l.slots.queue.Len() == 0 {
		l.slots.running++
		s.stats.MaxRunning = max(s.stats.MaxRunning, l.slots.running)
		at := s.grantLocked()
		s.mu.Unlock()
		return at, nil
	}
	w := &waiter{ready: make(chan struct{})}
	w.elem = l.slots.queue.PushBack(w)
	s.mu.Unlock()

	select {
	case <-w.ready:
		return w.admitted, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.granted { // granted as ctx ended: pass the slot on
		s.releaseLocked(l, w.admitted, false)
	} else {
		l.slots.queue.Remove(w.elem)
	}
	return 0, ctx.Err()
}

// grantLocked starts the busy time of a sequence that just got a slot and
// returns its admission time. s.mu is held.
func (s *Server) grantLocked() time.Duration {
	at := s.now()
	s.stats.inSlot++
	s.stats.admittedSum += at
	return at
}

// release frees the slot of a sequence admitted at admitted; served says
// whether it ran its whole service time.
func (s *Server) release(l *life, admitted time.Duration, served bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked(l, admitted, served)
}

func (s *Server) releaseLocked(l *life, admitted time.Duration, served bool) {
	held := s.now() - admitted
	c := &s.stats
	c.inSlot--
	c.admittedSum -= admitted
	c.busy += held
	if served {
		c.Served++
		c.serviceSum += held
	}
	if e := l.slots.queue.Front(); e != nil {
		w := l.slots.queue.Remove(e).(*waiter)
		w.granted, w.admitted = true, s.grantLocked()
		close(w.ready)
		return
	}
	l.slots.running--
}

// sequence is one prompt on its way through the server.
type sequence struct {
	prompt    string
	key       promptKey
	attempt   int // times the prompt was received before this one
	maxTokens int
	recorded  *string // the reply of Config.Recorded; nil: ask the answerer
}

// reply is what a sequence produced.
type reply struct {
	text                                     string
	promptTokens, cachedTokens, outputTokens int
	finish                                   string // "stop" or "length"
}

// run takes seq through the server: wait for a slot, look its prompt up in
// the prefix cache, answer, and hold the slot for the modelled service
// time. It fails only when ctx ends first, and then frees the slot at once,
// as vLLM aborts the sequence of a client that went away.
func (s *Server) run(ctx context.Context, l *life, seq sequence) (reply, error) {
	toks := tokenize(seq.prompt)
	hashes := blockHashes(seq.prompt, toks)
	admitted, err := s.admit(ctx, l)
	if err != nil {
		return reply{}, err
	}
	served := false
	defer func() { s.release(l, admitted, served) }()

	rep := reply{promptTokens: len(toks), finish: "stop"}
	s.mu.Lock()
	hit := l.cache.admit(hashes)
	rep.cachedTokens = cachedTokens(len(toks), hit)
	s.stats.PromptTokens += rep.promptTokens
	s.stats.CachedTokens += rep.cachedTokens
	l.vllm.queried += rep.promptTokens
	l.vllm.hits += rep.cachedTokens
	s.mu.Unlock()

	// The answer is computed inside the slot, its cost hidden in the
	// modelled time as a GPU's work is.
	switch {
	case seq.recorded != nil:
		rep.text = *seq.recorded
	case s.refuses(seq):
		rep.text = provider.RefusalText
	default:
		rep.text = s.answer(seq.prompt)
	}
	rng := seq.rng(s.cfg.Seed, streamOutput)
	answerToks := tokenize(rep.text)
	rep.outputTokens = max(s.cfg.OutputTokens(rng), len(answerToks), 1)
	if rep.outputTokens > seq.maxTokens {
		rep.outputTokens, rep.finish = seq.maxTokens, "length"
		if len(answerToks) > seq.maxTokens {
			rep.text = rep.text[:answerToks[seq.maxTokens-1].end]
		}
	}

	service := s.cfg.serviceTime(rep.promptTokens, rep.cachedTokens, rep.outputTokens)
	// Sleep until the end of the service time counted from admission, so
	// that the time spent answering is part of it rather than added.
	if err := sleep(ctx, admitted+service-s.now()); err != nil {
		return reply{}, err
	}
	served = true
	return rep, nil
}

// sleep waits for d or until ctx ends, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Streams of the per-prompt generator, so that the fault draws and the
// output length of one receipt of a prompt are independent.
const (
	streamFaults uint64 = iota + 1
	streamOutput
	streamRefusal
)

// refuses draws whether the model refuses this receipt of the prompt
// (Faults.Refusal).
func (s *Server) refuses(seq sequence) bool {
	u := seq.rng(s.cfg.Seed, streamRefusal).Float64()
	s.mu.Lock()
	defer s.mu.Unlock()
	return u < s.faults.Refusal
}

// rng returns the generator of this receipt of the prompt for stream: the
// same prompt, attempt and seed always draw the same, whichever order
// concurrent requests arrive in.
func (seq sequence) rng(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed^seq.key[0]^stream*0x9e3779b97f4a7c15, seq.key[1]+uint64(seq.attempt)))
}
