package simserver

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const recordingPath = "testdata/recorded/recording.yaml"

func loadRecording(t *testing.T) *Recording {
	t.Helper()
	rec, err := LoadRecording(recordingPath)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestRecordedScript plays an entry of two responses, a 429 and then a
// body, on the chat endpoint: the 429 carries Retry-After, the body is the
// recorded file verbatim, and the last response repeats.
func TestRecordedScript(t *testing.T) {
	s := start(t, with(Config{Recorded: loadRecording(t)}))
	client := newClient(t)
	prompt := "Chunk to extract facts from:\n<chunk id=\"c1\">\nHarbor Keel Logistics handled 18.4 million parcels …\n</chunk>\n"

	r := post(client, s, "/chat/completions", chat(prompt))
	if r.err != nil || r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "1" {
		t.Fatalf("first call: status %d, Retry-After %q, err %v; want 429 with Retry-After 1", r.status, r.header.Get("Retry-After"), r.err)
	}
	want, err := os.ReadFile(filepath.Join("testdata/recorded", "triplets_h1.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		var got chatResp
		post(client, s, "/chat/completions", chat(prompt)).decode(t, &got)
		if got.Choices[0].Message.Content != string(want) || got.Choices[0].FinishReason != "stop" {
			t.Fatalf("call %d: got %q (finish %s), want the recorded body", i+2, got.Choices[0].Message.Content, got.Choices[0].FinishReason)
		}
	}
	if n := s.Played("triplets-harbor-1-rate-limited"); n != 3 {
		t.Errorf("Played = %d, want 3", n)
	}
	if st := s.Stats(); st.Requests != 3 || st.Failed != 1 || st.Completed != 2 {
		t.Errorf("stats: %d requests, %d failed, %d completed; want 3, 1, 2", st.Requests, st.Failed, st.Completed)
	}
}

// TestRecordedCompletionsAndGaps answers a completions request from a
// match entry and refuses, with 400 naming the gap, a prompt no entry
// matches.
func TestRecordedCompletionsAndGaps(t *testing.T) {
	s := start(t, with(Config{Recorded: loadRecording(t)}))
	client := newClient(t)
	var got completionResp
	req := map[string]any{"model": "sim", "prompt": "…\nQuestion: In which Belgian city is Harbor Keel Logistics based?\n…", "max_tokens": 50}
	if r := post(client, s, "/completions", req); r.status != http.StatusTooManyRequests {
		t.Fatalf("first call: status %d, want the recorded 429", r.status)
	}
	r := post(client, s, "/completions", req)
	r.decode(t, &got)
	if !strings.Contains(got.Choices[0].Text, `"clarity": 5`) {
		t.Errorf("completion %q, want the recorded scores", got.Choices[0].Text)
	}
	r = post(client, s, "/chat/completions", chat("a prompt nobody recorded"))
	var e errorResp
	if r.status != http.StatusBadRequest || r.err != nil {
		t.Fatalf("unmatched prompt: status %d, err %v; want 400", r.status, r.err)
	}
	r.status = http.StatusOK // decode the error body
	r.decode(t, &e)
	if e.Error.Code != "no_recording" || !strings.Contains(e.Error.Message, "a prompt nobody recorded") {
		t.Errorf("error %+v, want no_recording naming the prompt", e.Error)
	}
}

func TestRecordingValidation(t *testing.T) {
	bad := &Recording{Entries: []RecordedEntry{
		{Name: "both", Match: "x", Regexp: "y", Responses: []RecordedResponse{{Body: "b"}}},
		{Name: "none", Responses: []RecordedResponse{{Body: "b"}}},
		{Name: "bad-re", Regexp: "(", Responses: []RecordedResponse{{Body: "b"}}},
		{Name: "empty", Match: "x"},
		{Name: "ok-status", Match: "x", Responses: []RecordedResponse{{Status: 200}}},
		{Name: "status-and-body", Match: "x", Responses: []RecordedResponse{{Status: 500, Body: "b"}}},
	}}
	_, err := Start(Config{Recorded: bad})
	if err == nil {
		t.Fatal("Start accepted an invalid recording")
	}
	for _, name := range []string{"both", "none", "bad-re", "empty", "ok-status", "status-and-body"} {
		if !strings.Contains(err.Error(), "entry "+name+":") {
			t.Errorf("error %q does not name entry %s", err, name)
		}
	}
	if bad.Entries[2].re != nil {
		t.Error("Start modified the caller's recording")
	}
	if _, err := LoadRecording("testdata/recorded/missing.yaml"); err == nil {
		t.Error("LoadRecording of a missing file: no error")
	}
}
