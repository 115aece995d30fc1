package simserver

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Recording is a script of recorded model replies, for tests of the code
// that parses what an LLM writes: with Config.Recorded set, a chat or
// completions prompt is answered by the first entry that matches it instead
// of the default answerer and the drawn faults. Each entry plays its
// responses in order, one per request it matches, and repeats its last one
// once they are used up; so "first call 429, then success" is an entry of
// two responses. The playing state belongs to the server, so one Recording
// can be shared by many servers. The timing model still applies to replies
// with a body (a test wants fast costs); a status is answered at once.
type Recording struct {
	Entries []RecordedEntry `yaml:"entries"`
}

// RecordedEntry is the replies to the prompts it matches. Match is a
// substring of the prompt, Regexp a regular expression (RE2) found in it;
// an entry sets one of them.
type RecordedEntry struct {
	// Name identifies the entry in errors and in Server.Played.
	Name      string             `yaml:"name"`
	Match     string             `yaml:"match"`
	Regexp    string             `yaml:"regexp"`
	Responses []RecordedResponse `yaml:"responses"`

	re *regexp.Regexp
}

// RecordedResponse is one reply: a completion text (Body, or the contents
// of BodyFile, relative to the recording file), or an error status (429,
// 500, 503…) answered like the injected faults, with Retry-After set to
// RetryAfter seconds on a 429 (1 when zero).
type RecordedResponse struct {
	Body       string `yaml:"body"`
	BodyFile   string `yaml:"body_file"`
	Status     int    `yaml:"status"`
	RetryAfter int    `yaml:"retry_after"`
}

// LoadRecording reads a recording from a YAML file and validates it; the
// body files it names are read at once, relative to its directory.
func LoadRecording(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("simserver: recording: %w", err)
	}
	var r Recording
	if err := yaml.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("simserver: recording %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	for i := range r.Entries {
		for j := range r.Entries[i].Responses {
			resp := &r.Entries[i].Responses[j]
			if resp.BodyFile == "" {
				continue
			}
			body, err := os.ReadFile(filepath.Join(dir, resp.BodyFile))
			if err != nil {
				return nil, fmt.Errorf("simserver: recording %s: entry %q: %w", path, r.Entries[i].Name, err)
			}
			resp.Body, resp.BodyFile = string(body), ""
		}
	}
	if err := r.compile(); err != nil {
		return nil, fmt.Errorf("simserver: recording %s: %w", path, err)
	}
	return &r, nil
}

// compile checks the entries and compiles their expressions. It may run
// more than once (Start calls it for a Recording built in code).
func (r *Recording) compile() error {
	var errs []error
	for i := range r.Entries {
		e := &r.Entries[i]
		name := e.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		switch {
		case (e.Match == "") == (e.Regexp == ""):
			errs = append(errs, fmt.Errorf("entry %s: set one of match and regexp", name))
		case e.Regexp != "" && e.re == nil:
			re, err := regexp.Compile(e.Regexp)
			if err != nil {
				errs = append(errs, fmt.Errorf("entry %s: regexp: %w", name, err))
			}
			e.re = re
		}
		if len(e.Responses) == 0 {
			errs = append(errs, fmt.Errorf("entry %s: no responses", name))
		}
		for j, resp := range e.Responses {
			switch {
			case resp.BodyFile != "":
				errs = append(errs, fmt.Errorf("entry %s: response %d: body_file is read by LoadRecording", name, j+1))
			case resp.Status != 0 && (resp.Status < 400 || resp.Status > 599):
				errs = append(errs, fmt.Errorf("entry %s: response %d: status %d is not an error status", name, j+1, resp.Status))
			case resp.Status != 0 && resp.Body != "":
				errs = append(errs, fmt.Errorf("entry %s: response %d: has both a status and a body", name, j+1))
			}
		}
	}
	return errors.Join(errs...)
}

// match returns the index of the first entry matching prompt, or -1.
func (r *Recording) match(prompt string) int {
	for i, e := range r.Entries {
		if (e.re != nil && e.re.MatchString(prompt)) || (e.re == nil && e.Match != "" && strings.Contains(prompt, e.Match)) {
			return i
		}
	}
	return -1
}

// errNoRecording answers a prompt that no entry matches: 400, so that a
// test sees the gap at once rather than after retries.
func errNoRecording(prompt string) error {
	const show = 120
	if len(prompt) > show {
		prompt = prompt[:show] + "…"
	}
	return &badRequest{status: http.StatusBadRequest, typ: "invalid_request_error", code: "no_recording",
		msg: fmt.Sprintf("no recorded response matches the prompt %q", prompt)}
}

// play picks the recorded replies of seqs (a request's prompts): the
// status of the first prompt's response, if it is one, fails the whole
// request; otherwise every sequence gets its recorded text. It counts the
// plays.
func (s *Server) play(seqs []sequence) (fault, error) {
	rec := s.cfg.Recorded
	s.mu.Lock()
	defer s.mu.Unlock()
	var f fault
	for i := range seqs {
		k := rec.match(seqs[i].prompt)
		if k < 0 {
			return fault{}, errNoRecording(seqs[i].prompt)
		}
		e := rec.Entries[k]
		n := s.played[k]
		s.played[k]++
		resp := e.Responses[min(n, len(e.Responses)-1)]
		if resp.Status != 0 {
			if i == 0 {
				f = fault{status: resp.Status, retryAfter: max(resp.RetryAfter, 1)}
			}
			continue
		}
		body := resp.Body
		seqs[i].recorded = &body
	}
	return f, nil
}

// Played returns how many requests the recording entry named name has
// answered (with a body or a status), 0 for an unknown name.
func (s *Server) Played(name string) int {
	if s.cfg.Recorded == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i, e := range s.cfg.Recorded.Entries {
		if e.Name == name {
			n += s.played[i]
		}
	}
	return n
}
