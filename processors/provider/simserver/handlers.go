package simserver

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxBody bounds a request body: a prompt is untrusted input.
const maxBody = 16 << 20

// ids numbers the responses of every server in the process.
var ids atomic.Int64

func (s *Server) chat(ctx context.Context, w http.ResponseWriter, r *http.Request, l *life) {
	s.generate(ctx, w, r, l, true)
}

func (s *Server) completions(ctx context.Context, w http.ResponseWriter, r *http.Request, l *life) {
	s.generate(ctx, w, r, l, false)
}

// generate serves a chat (one prompt: the messages' contents) or
// completions (one or more prompts) request: check it, record its prompts,
// inject the fault drawn for it, run every prompt as a sequence, reply.
func (s *Server) generate(ctx context.Context, w http.ResponseWriter, r *http.Request, l *life, chat bool) {
	s.count(func(c *counters) { c.Requests++ })
	var g generation
	err := s.check(w, r, func(body []byte) error {
		var err error
		if chat {
			g, err = parseChat(body)
		} else {
			g, err = parseCompletion(body)
		}
		if err != nil {
			return err
		}
		return s.checkModel(g.model)
	})
	if err != nil {
		s.refuse(w, err)
		return
	}

	seqs := s.receive(g)
	var f fault
	if s.cfg.Recorded != nil {
		if f, err = s.play(seqs); err != nil {
			s.refuse(w, err)
			return
		}
	} else {
		f = s.drawFault(seqs[0])
	}
	if s.inject(ctx, w, f) {
		return
	}

	replies := make([]reply, len(seqs))
	errs := make([]error, len(seqs))
	var wg sync.WaitGroup
	for i, seq := range seqs {
		wg.Go(func() { replies[i], errs[i] = s.run(ctx, l, seq) })
	}
	wg.Wait()
	if errors.Join(errs...) != nil { // only ctx ends a sequence early
		s.count(func(c *counters) { c.Aborted++ })
		return
	}

	resp, u := render(s.cfg.Model, chat, replies)
	on, _ := ctx.Value(connKey{}).(*conn)
	s.reply(w, resp, f.malformed, func(sign int) {
		if sign == 0 { // written: the delivery dates from now
			for _, seq := range seqs {
				if rec := s.seen[seq.key]; rec != nil && rec.last.on == on {
					rec.last.at = s.now()
				}
			}
			return
		}
		s.stats.Answered += sign * len(seqs)
		s.stats.CompletionTokens += sign * u.CompletionTokens
		for i, seq := range seqs {
			if rec := s.seen[seq.key]; rec != nil { // nil after a ResetStats meanwhile
				rec.answered += sign
				if sign > 0 {
					rec.last = delivery{on: on, at: s.now()}
					if on != nil {
						rec.last.requests = on.requests
					}
				}
			}
			l.vllm.success[replies[i].finish] += sign
			l.vllm.promptTokens += sign * replies[i].promptTokens
			l.vllm.generationTokens += sign * replies[i].outputTokens
		}
	})
}

// receive records the receipt of g's prompts, before anything can fail so
// that Received counts what the client sent, faults or not, and returns
// them as sequences numbered by attempt.
func (s *Server) receive(g generation) []sequence {
	seqs := make([]sequence, len(g.prompts))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Prompts += len(g.prompts)
	if g.temperature != nil {
		if s.stats.Temperatures == nil {
			s.stats.Temperatures = map[float64]int{}
		}
		s.stats.Temperatures[*g.temperature]++
	}
	for i, p := range g.prompts {
		seq := sequence{prompt: p, key: keyOf(p), maxTokens: g.maxTokens}
		rec := s.seen[seq.key]
		if rec == nil {
			rec = &promptRecord{}
			s.seen[seq.key] = rec
			s.stats.Distinct++
		}
		if rec.answered > 0 {
			s.resends = append(s.resends, resend{prompt: p, last: rec.last})
		}
		seq.attempt = rec.received
		rec.received++
		seqs[i] = seq
	}
	return seqs
}

// render builds the response to the replies of a chat or completions
// request, and its usage.
func render(model string, chat bool, replies []reply) (any, usage) {
	var u usage
	for _, rep := range replies {
		u.PromptTokens += rep.promptTokens
		u.CompletionTokens += rep.outputTokens
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	created := time.Now().Unix()
	if chat {
		return chatResponse{
			ID: "chatcmpl-sim-" + strconv.FormatInt(ids.Add(1), 10), Object: "chat.completion", Created: created, Model: model,
			Choices: []chatChoice{{Message: assistantMessage{Role: "assistant", Content: replies[0].text}, FinishReason: replies[0].finish}},
			Usage:   u,
		}, u
	}
	choices := make([]completionChoice, len(replies))
	for i, rep := range replies {
		choices[i] = completionChoice{Index: i, Text: rep.text, FinishReason: rep.finish}
	}
	return completionResponse{
		ID: "cmpl-sim-" + strconv.FormatInt(ids.Add(1), 10), Object: "text_completion", Created: created, Model: model,
		Choices: choices, Usage: u,
	}, u
}

// reply writes a 200 response of v, cut short when malformed. A valid
// response is counted, with answered(+1) under s.mu, before it is written,
// so that a client holding it finds it in Stats and its prompts answered;
// should the write fail, the client having seen nothing, answered(-1)
// undoes it and the request counts as aborted; once it is written,
// answered(0) under s.mu marks the time.
func (s *Server) reply(w http.ResponseWriter, v any, malformed bool, answered func(sign int)) {
	body, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("simserver: cannot encode a response: %v", err)) // the shapes of openai.go always encode
	}
	if malformed {
		body = body[:len(body)/2]
	}
	s.mu.Lock()
	if malformed {
		s.stats.Failed++
	} else {
		s.stats.Completed++
		answered(+1)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	if err == nil {
		err = http.NewResponseController(w).Flush()
	}
	if malformed {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil { // the connection was gone
		s.stats.Completed--
		s.stats.Aborted++
		answered(-1)
		return
	}
	answered(0)
}

// embeddings serves an embeddings request at once: a vLLM instance serves
// either generation or embeddings, and this one serves both without
// scheduling the embeddings, which are for tests of an embedder's
// plumbing. Faults apply to them as to the rest.
func (s *Server) embeddings(ctx context.Context, w http.ResponseWriter, r *http.Request, l *life) {
	s.count(func(c *counters) { c.Requests++ })
	var inputs []string
	err := s.check(w, r, func(body []byte) error {
		var req embeddingRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return invalid("cannot parse the request body: %v", err)
		}
		var err error
		if inputs, err = stringOrList("input", req.Input); err != nil {
			return err
		}
		return s.checkModel(req.Model)
	})
	if err != nil {
		s.refuse(w, err)
		return
	}
	// Embedding inputs are not prompts: they have their own receipts,
	// which only number the attempts for the fault draws.
	key := keyOf(strings.Join(inputs, "\x00"))
	s.mu.Lock()
	attempt := s.embedded[key]
	s.embedded[key]++
	s.mu.Unlock()
	f := s.drawFault(sequence{key: key, attempt: attempt})
	if s.inject(ctx, w, f) {
		return
	}
	resp := embeddingResponse{Object: "list", Model: s.cfg.Model, Data: make([]embeddingData, len(inputs))}
	for i, in := range inputs {
		resp.Data[i] = embeddingData{Object: "embedding", Index: i, Embedding: embed(in)}
		resp.Usage.PromptTokens += CountTokens(in)
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	s.reply(w, resp, f.malformed, func(int) {})
}

func (s *Server) models(_ context.Context, w http.ResponseWriter, r *http.Request, _ *life) {
	if err := s.authorize(r); err != nil {
		s.refuse(w, err)
		return
	}
	writeJSON(w, http.StatusOK, modelList{Object: "list", Data: []modelCard{{
		ID: s.cfg.Model, Object: "model", Created: s.epoch.Unix(), OwnedBy: "simserver",
	}}})
}

// check authorizes r, reads its body and hands it to parse.
func (s *Server) check(w http.ResponseWriter, r *http.Request, parse func(body []byte) error) error {
	if err := s.authorize(r); err != nil {
		return err
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return invalid("cannot read the request body: %v", err)
	}
	return parse(body)
}

func (s *Server) authorize(r *http.Request) error {
	if s.cfg.APIKey == "" {
		return nil
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.APIKey)) != 1 {
		return &badRequest{status: http.StatusUnauthorized, typ: "invalid_request_error", code: "invalid_api_key", msg: "missing or wrong API key"}
	}
	return nil
}

// checkModel accepts the served model, and an empty name as meaning it.
func (s *Server) checkModel(model string) error {
	if model == "" || model == s.cfg.Model {
		return nil
	}
	return &badRequest{status: http.StatusNotFound, typ: "invalid_request_error", code: "model_not_found",
		msg: fmt.Sprintf("the model %q does not exist; this server serves %q", model, s.cfg.Model)}
}

// refuse answers a request refused for the client's own fault.
func (s *Server) refuse(w http.ResponseWriter, err error) {
	s.count(func(c *counters) { c.Invalid++ })
	var br *badRequest
	if !errors.As(err, &br) {
		br = invalid("%v", err)
	}
	writeError(w, br.status, br.typ, br.code, br.msg)
}
