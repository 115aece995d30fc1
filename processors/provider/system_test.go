package provider

import (
	"io"
	"net/http"
	"reflect"
	"testing"
)

// A query's system text is the chat request's first message, and leads
// the prompt of a completions request, which has no roles.
func TestOpenAISystemMessage(t *testing.T) {
	var got map[string]any
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got = decodeBody(t, r)
		if r.URL.Path == "/v1/chat/completions" {
			io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"Paris"}}],"usage":{}}`)
		} else {
			io.WriteString(w, `{"choices":[{"index":0,"text":"Paris"}],"usage":{}}`)
		}
	})
	q := Query{Question: "capital of France?", Prompt: "Q: capital of France?", System: "Be terse."}
	if _, err := newOpenAI(t, srv, OpenAIOptions{}).Answer(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	want := []any{map[string]any{"role": "system", "content": "Be terse."}, map[string]any{"role": "user", "content": "Q: capital of France?"}}
	if !reflect.DeepEqual(got["messages"], want) {
		t.Errorf("chat messages %v, want %v", got["messages"], want)
	}
	if _, err := newOpenAI(t, srv, OpenAIOptions{Endpoint: EndpointCompletions}).Answer(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	if got["prompt"] != "Be terse.\n\nQ: capital of France?" {
		t.Errorf("completions prompt %q", got["prompt"])
	}
}
